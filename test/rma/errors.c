/* np: 1 2
 *
 * errors.c — bad input to one-sided calls returns the right error class
 * (with MPI_ERRORS_RETURN on the window) and never writes outside a
 * window: out-of-range displacement or size (MPI_ERR_RMA_RANGE), an
 * operation outside any epoch and mismatched lock/unlock (MPI_ERR_RMA_SYNC),
 * an invalid lock type (MPI_ERR_LOCKTYPE), a bad assert (MPI_ERR_ASSERT),
 * a user op in an accumulate (MPI_ERR_OP), a bad rank (MPI_ERR_RANK); a
 * window error handler is called with the window.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* Checks of erroneous programs whose outcome the standard leaves to the
 * implementation run only against clumpi (Open MPI validates the rest). */
static int is_clumpi(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    return strstr(v, "clumpi") != NULL;
}

static int rank, size, called;
static MPI_Win called_win;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL errors rank %d line %d: ", rank, \
    __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static int cls(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}
/* Other MPIs may pick another class for an error: any error passes there. */
#define EXPECT(call, want) do { int rc_ = (call); CHECK(cls(rc_) == (want) || \
    (!is_clumpi() && (want) != MPI_SUCCESS && rc_ != MPI_SUCCESS), \
    "%s: class %d, want %d", #call, cls(rc_), want); } while (0)

static void handler(MPI_Win *w, int *code, ...)
{
    called++;
    called_win = *w;
    (void)code;
}

static void myop(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in; (void)inout; (void)len; (void)dt;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct { int pre[4]; int w[8]; int post[4]; } mem;
    for (int i = 0; i < 4; i++)
        mem.pre[i] = mem.post[i] = 99;
    MPI_Win win;
    MPI_Win_create(mem.w, sizeof mem.w, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int v[16] = { 0 }, t = (rank + 1) % size;

    EXPECT(MPI_Put(v, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock(12345, t, 0, win), MPI_ERR_LOCKTYPE);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0x7fff0000, win), MPI_ERR_ASSERT);
    EXPECT(MPI_Win_fence(0x12345678, win), MPI_ERR_ASSERT);
    EXPECT(MPI_Win_flush(t, win), MPI_ERR_RMA_SYNC);

    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    if (is_clumpi())
        EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Put(v, 1, MPI_INT, t, 8, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(v, 9, MPI_INT, t, 0, 9, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(v, 1, MPI_INT, t, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Get(v, 2, MPI_INT, t, 7, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Accumulate(v, 16, MPI_INT, t, 0, 16, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    MPI_Op op;
    MPI_Op_create(myop, 1, &op);
    EXPECT(MPI_Accumulate(v, 1, MPI_INT, t, 0, 1, MPI_INT, op, win), MPI_ERR_OP);
    MPI_Op_free(&op);
    EXPECT(MPI_Put(v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win), MPI_SUCCESS);
    EXPECT(MPI_Put(v, 8, MPI_INT, t, 0, 8, MPI_INT, win), MPI_SUCCESS);
    MPI_Win_unlock(t, win);
    EXPECT(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    if (is_clumpi()) {
        EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
        EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        CHECK(mem.pre[i] == 99 && mem.post[i] == 99, "memory outside the window written");

    MPI_Errhandler eh;
    MPI_Win_create_errhandler(handler, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Errhandler_free(&eh);
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    MPI_Put(v, 1, MPI_INT, t, 0, 1, MPI_INT, win);   /* no epoch: handler runs */
    CHECK(called == 2 && called_win == win, "window handler called %d times", called);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_set_name(win, "errwin");
    MPI_Win_get_name(win, name, &len);
    CHECK(len == 6, "name length %d", len);
    MPI_Group g;
    int gs;
    MPI_Win_get_group(win, &g);
    MPI_Group_size(g, &gs);
    CHECK(gs == size, "group size %d", gs);
    MPI_Group_free(&g);
    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL, "win not nulled");
    if (rank == 0)
        printf("errors: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
