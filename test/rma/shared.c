/* np: 1 2 4 8
 *
 * shared.c — Win_allocate_shared: each rank queries every peer's memory
 * with Win_shared_query (contiguous by default), stores into its right
 * neighbour's memory with plain stores, and reads everything back with
 * plain loads after Win_sync + barrier; also the window attributes and a
 * fetch_and_op on the shared memory mixed with direct atomics' results.
 */
#include <mpi.h>
#include <stdio.h>

static int rank, size;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL shared rank %d line %d: ", rank, \
    __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

#define N 100

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    MPI_Win win;
    int *mine;
    /* rank 0 of the node allocates a little more: sizes may differ */
    MPI_Aint bytes = (MPI_Aint)sizeof(int) * (N + (nr == 0 ? 3 : 0));
    MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, node, &mine, &win);
    int *flavor, *model, *du, flag;
    MPI_Aint *sz;
    void *base;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor");
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED, "model");
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
    CHECK(flag && *du == (int)sizeof(int), "disp_unit");
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag);
    CHECK(flag && *sz == bytes, "size %ld", (long)*sz);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == mine, "base");

    int *peer[64];
    for (int r = 0; r < ns; r++) {
        MPI_Aint s;
        int d;
        MPI_Win_shared_query(win, r, &s, &d, &peer[r]);
        CHECK(s == (MPI_Aint)sizeof(int) * (N + (r == 0 ? 3 : 0)) && d == (int)sizeof(int),
              "query %d: size %ld disp %d", r, (long)s, d);
        if (r > 0)   /* contiguous: each segment follows the previous one */
            CHECK(peer[r] == peer[r - 1] + N + (r == 1 ? 3 : 0), "not contiguous at %d", r);
    }
    CHECK(peer[nr] == mine, "my base");

    MPI_Win_lock_all(0, win);
    int right = (nr + 1) % ns;
    for (int i = 0; i < N; i++)
        peer[right][i] = nr * 1000 + i;   /* plain stores into the neighbour */
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    int left = (nr + ns - 1) % ns;
    for (int i = 0; i < N; i++)
        CHECK(mine[i] == left * 1000 + i, "mine[%d]=%d", i, mine[i]);
    MPI_Barrier(node);
    /* every rank adds 1 to rank 0's first int, atomically */
    if (nr == 0)
        peer[0][0] = 0;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    int one = 1, old;
    for (int i = 0; i < 50; i++)
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_flush_all(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    CHECK(peer[0][0] == 50 * ns, "counter %d", peer[0][0]);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    if (rank == 0)
        printf("shared: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
