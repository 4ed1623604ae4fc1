/* np: 1 2 3
 * env: CLUMPI_RMA_AM=1
 *
 * winattr.c — window attributes with user keys (Win_create_keyval,
 * Win_set_attr, Win_get_attr, Win_delete_attr, Win_free_keyval: delete
 * callbacks run on replace, delete and Win_free, a freed keyval still
 * serves the windows that use it, keyvals of another kind are refused with
 * MPI_ERR_KEYVAL) and MPI_Request_free on active Rput/Rget requests (legal:
 * the operations complete anyway, a flush sees them done), and the
 * alignment of Win_allocate memory.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL winattr rank %d line %d: ", rank, \
    __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static int deletes, last_deleted, extra_seen;

static int del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)win;
    (void)keyval;
    deletes++;
    last_deleted = *(int *)val;
    extra_seen = *(int *)extra;
    return MPI_SUCCESS;
}

static int fail_fn(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)win; (void)keyval; (void)val; (void)extra;
    return MPI_ERR_OTHER;
}

#define N 20000

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* ---- attributes ------------------------------------------------- */
    int mem[4], extra = 42, v1 = 1, v2 = 2, kv, kv2, flag = -1, *got = NULL;
    MPI_Win win;
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, &extra) == MPI_SUCCESS,
          "create_keyval");
    CHECK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &kv2, NULL) ==
          MPI_SUCCESS, "create_keyval 2");
    CHECK(kv != kv2 && kv != MPI_KEYVAL_INVALID, "keyvals %d %d", kv, kv2);
    CHECK(MPI_Win_get_attr(win, kv, &got, &flag) == MPI_SUCCESS && flag == 0, "unset: flag %d",
          flag);
    MPI_Win_set_attr(win, kv, &v1);
    CHECK(MPI_Win_get_attr(win, kv, &got, &flag) == MPI_SUCCESS && flag && got == &v1,
          "get after set");
    MPI_Win_set_attr(win, kv, &v2);   /* replacing runs the delete callback on v1 */
    CHECK(deletes == 1 && last_deleted == 1 && extra_seen == 42, "replace: %d deletes, last %d",
          deletes, last_deleted);
    MPI_Win_set_attr(win, kv2, &v1);
    CHECK(MPI_Win_delete_attr(win, kv2) == MPI_SUCCESS, "delete kv2");
    CHECK(MPI_Win_get_attr(win, kv2, &got, &flag) == MPI_SUCCESS && !flag, "kv2 still set");
    /* the predefined keys still answer */
    int *model = NULL;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag) == MPI_SUCCESS && flag &&
          *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL");
    /* a communicator keyval on a window, and a window keyval on a communicator */
    int ckv, cls;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckv, NULL);
    MPI_Error_class(MPI_Win_set_attr(win, ckv, &v1), &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "comm keyval on a window: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, &v1), &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "win keyval on a communicator: class %d", cls);
    MPI_Error_class(MPI_Win_get_attr(win, 12345, &got, &flag), &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "bogus keyval: class %d", cls);
    MPI_Comm_free_keyval(&ckv);
    /* freeing the keyval keeps the attribute; Win_free deletes it */
    MPI_Win_free_keyval(&kv);
    CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    MPI_Win_free_keyval(&kv2);
    MPI_Win_free(&win);
    CHECK(deletes == 2 && last_deleted == 2, "Win_free: %d deletes, last %d", deletes,
          last_deleted);
    /* a failing delete callback: the attribute stays, the call fails */
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, fail_fn, &kv, NULL);
    MPI_Win_set_attr(win, kv, &v1);
    MPI_Error_class(MPI_Win_delete_attr(win, kv), &cls);
    CHECK(cls == MPI_ERR_OTHER, "failing delete callback: class %d", cls);
    CHECK(MPI_Win_get_attr(win, kv, &got, &flag) == MPI_SUCCESS && flag, "attribute lost");
    MPI_Win_free_keyval(&kv);
    MPI_Error_class(MPI_Win_free(&win), &cls);   /* reports the callback's failure, frees */
    CHECK(cls == MPI_ERR_OTHER && win == MPI_WIN_NULL, "Win_free: class %d", cls);

    /* ---- Win_allocate memory is aligned for any type ------------------- */
    /* odd sizes: each rank's part must still start where a double (or any
     * type malloc serves) may live, unlike Win_allocate_shared's contiguous
     * parts */
    for (int k = 0; k < 3; k++) {
        char *amem;
        MPI_Win_allocate((MPI_Aint)(rank * 5 + k * 3 + 1), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                         &amem, &win);
        CHECK((uintptr_t)amem % _Alignof(max_align_t) == 0,
              "Win_allocate of %d bytes: base %p not aligned", rank * 5 + k * 3 + 1,
              (void *)amem);
        MPI_Win_free(&win);
    }

    /* ---- Request_free on active Rput/Rget ------------------------------ */
    int *wmem;
    MPI_Win_allocate(sizeof(int) * 2 * N, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wmem,
                     &win);
    int *src = malloc(sizeof(int) * N), *dst = malloc(sizeof(int) * N);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int i = 0; i < N; i++) {
        src[i] = rank * 1000000 + i;
        wmem[i] = -1;
        wmem[N + i] = from * 7 + i;
        dst[i] = -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Request r1, r2;
    MPI_Rput(src, N, MPI_INT, to, 0, N, MPI_INT, win, &r1);
    MPI_Request_free(&r1);
    CHECK(r1 == MPI_REQUEST_NULL, "Request_free left the handle");
    MPI_Rget(dst, N, MPI_INT, to, N, N, MPI_INT, win, &r2);
    MPI_Request_free(&r2);
    MPI_Win_flush(to, win);   /* completes both at the origin */
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == rank * 7 + i, "Rget[%d] = %d", i, dst[i]);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(wmem[i] == from * 1000000 + i, "Rput landed %d at %d", wmem[i], i);
    MPI_Win_free(&win);
    free(src);
    free(dst);
    if (rank == 0)
        printf("winattr: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
