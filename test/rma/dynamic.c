/* np: 1 2 4
 * env: CLUMPI_RMA_AM=1
 *
 * dynamic.c — Win_create_dynamic: each rank attaches two buffers, publishes
 * their addresses (MPI_Get_address), and its left neighbour puts, gets and
 * accumulates into them at those addresses; detach and re-attach; an access
 * outside every attached region fails with MPI_ERR_RMA_RANGE and writes
 * nothing.
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

static int rank, size;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL dynamic rank %d line %d: ", rank, \
    __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int t = (rank + 1) % size, o = (rank + size - 1) % size;
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int a[16], b[16], guard[4] = { 7, 7, 7, 7 };
    for (int i = 0; i < 16; i++)
        a[i] = b[i] = -1;
    MPI_Win_attach(win, a, sizeof a);
    MPI_Win_attach(win, b, sizeof b);
    MPI_Aint mine[2], theirs[2];
    MPI_Get_address(a, &mine[0]);
    MPI_Get_address(b, &mine[1]);
    MPI_Sendrecv(mine, 2, MPI_AINT, o, 0, theirs, 2, MPI_AINT, t, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int v[16], g[4] = { 0 }, one = 1;
    for (int i = 0; i < 16; i++)
        v[i] = rank * 100 + i;
    MPI_Win_fence(0, win);
    MPI_Put(v, 16, MPI_INT, t, theirs[0], 16, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, t, theirs[1] + 4 * sizeof(int), 1, MPI_INT, MPI_SUM, win);
    MPI_Get(g, 4, MPI_INT, t, theirs[1], 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 16; i++)
        CHECK(a[i] == o * 100 + i, "a[%d]=%d", i, a[i]);
    CHECK(b[4] == 0, "accumulate b[4]=%d", b[4]);
    for (int i = 0; i < 4; i++)
        CHECK(g[i] == -1, "get %d", g[i]);

    /* detach b: an access there is out of range now, and writes nothing */
    MPI_Win_detach(win, b);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    int rc = MPI_Put(v, 4, MPI_INT, t, theirs[1], 4, MPI_INT, win);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_unlock(t, win);
    else
        MPI_Win_unlock(t, win);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE || !is_clumpi(), "put into a detached region: class %d", cls);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK((b[0] == -1 && b[3] == -1 && guard[0] == 7) || !is_clumpi(), "a rejected put wrote memory");
    MPI_Win_detach(win, a);
    MPI_Win_free(&win);
    if (rank == 0)
        printf("dynamic: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
