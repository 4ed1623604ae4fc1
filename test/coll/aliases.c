/* aliases.c — one call of each collective whose algorithm aliases.sh forces
 * by another MPI's name, each result checked: barrier, ibarrier, bcast,
 * gather, scatter, allgather, alltoall, reduce, allreduce, reduce_scatter,
 * scan, exscan. Rank r contributes r + 1 (r * 100 + i for blocks).
 */
#include "../mpi/mtest.h"

enum { N = 300 };   /* ints: several chunks for the segmenting algorithms */

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "aliases");
    int r = mt_rank, p = mt_size, sum = p * (p + 1) / 2;
    int *a = mt_malloc((size_t)p * N * sizeof *a), *b = mt_malloc((size_t)p * N * sizeof *b);
    MPI_Request rq;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));

    for (int i = 0; i < N; i++)
        a[i] = r == p - 1 ? i * 3 + 1 : -1;
    MPI_OK(MPI_Bcast(a, N, MPI_INT, p - 1, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(a[i] == i * 3 + 1, "bcast [%d] = %d", i, a[i]);

    int mine = r * 100 + 7;
    MPI_OK(MPI_Gather(&mine, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD));
    for (int q = 0; r == 0 && q < p; q++)
        CHECK(b[q] == q * 100 + 7, "gather [%d] = %d", q, b[q]);
    for (int q = 0; q < p; q++)
        a[q] = q * 100 + 9;
    MPI_OK(MPI_Scatter(a, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(mine == r * 100 + 9, "scatter got %d", mine);
    mine = r * 100 + 5;
    MPI_OK(MPI_Allgather(&mine, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < p; q++)
        CHECK(b[q] == q * 100 + 5, "allgather [%d] = %d", q, b[q]);
    for (int q = 0; q < p; q++)
        a[q] = r * 100 + q;
    MPI_OK(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < p; q++)
        CHECK(b[q] == q * 100 + r, "alltoall [%d] = %d", q, b[q]);

    for (int i = 0; i < p * N; i++)
        a[i] = r + 1;
    MPI_OK(MPI_Reduce(a, b, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    for (int i = 0; r == 0 && i < N; i++)
        CHECK(b[i] == sum, "reduce [%d] = %d", i, b[i]);
    MPI_OK(MPI_Allreduce(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == sum, "allreduce [%d] = %d", i, b[i]);
    int *counts = mt_malloc((size_t)p * sizeof *counts);
    for (int q = 0; q < p; q++)
        counts[q] = N;
    MPI_OK(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == sum, "reduce_scatter [%d] = %d", i, b[i]);
    MPI_OK(MPI_Scan(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (r + 1) * (r + 2) / 2, "scan [%d] = %d", i, b[i]);
    MPI_OK(MPI_Exscan(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; r > 0 && i < N; i++)
        CHECK(b[i] == r * (r + 1) / 2, "exscan [%d] = %d", i, b[i]);
    free(a);
    free(b);
    free(counts);
    return mt_finish();
}
