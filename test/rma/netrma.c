/* np: 2 3 5
 * env: CLUMPI_RMA_OFI=0
 * env: CLUMPI_OFI_ATOMICS=1
 *
 * netrma.c — windows across nodes by the network's RMA (clumpi only: reads
 * the device's counters). Rounds of windows made and freed (Win_create on
 * memory allocated per round, so addresses come back with other contents
 * and other registrations: a key of an earlier window, or a stale one,
 * would read old bytes or fail; and Win_allocate), each with: a put from a
 * vector origin into the next rank, a get through an indexed target type
 * from the previous one, both checked against a local reference; then, with
 * every rank at once on rank 0 under lock_all, accumulate (SUM, ints and
 * doubles), fetch_and_op (every fetched value distinct: atomic), and
 * compare_and_swap (one winner). At the end no window registration may be
 * left open, and on several nodes (direct mode, nothing turned off) the
 * accesses must have gone over the network's RMA.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpid/rma_impl.h"

static int rank, size;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL netrma rank %d line %d: ", rank, \
    __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

enum { PUTD = 10, GETD = 600, ACCD = 1200, FOPD = 1300, CASD = 1301, DACC = 1304 };
#define NFOP 10
#define NACC 7
#define NDACC 5

static int init_val(int r, int i, int round) { return r * 100000 + i * 3 + round; }
static int src_val(int r, int j, int round) { return -(r * 7919 + j * 13 + round); }

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void one_round(int round)
{
    int nw = 1400 + 37 * round, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *mem = NULL, *w;
    MPI_Win win;
    size_t bytes = (size_t)nw * sizeof(int) + NDACC * sizeof(double) + 8;
    if (round % 2 == 0) {
        w = mem = malloc(bytes);
        CHECK(w, "out of memory");
        MPI_Win_create(w, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
    }
    for (int i = 0; i < nw; i++)
        w[i] = init_val(rank, i, round);
    w[CASD] = 0;
    /* doubles aligned in memory (Win_allocate's base need not be 8-aligned here) */
    double *dw = (double *)(((uintptr_t)(w + nw) + 7) & ~(uintptr_t)7);
    MPI_Aint ddisp = (MPI_Aint)((char *)dw - (char *)w);   /* rank 0's is the target */
    MPI_Bcast(&ddisp, 1, MPI_AINT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < NDACC; i++)
        dw[i] = 0.5 * i;
    MPI_Win_fence(0, win);

    /* put: a vector origin (blocks of 3 every 5) into the next rank */
    int k = 20 + round * 3, src[5 * 40];
    for (int j = 0; j < 5 * k; j++)
        src[j] = src_val(rank, j, round);
    MPI_Datatype vec, idx;
    MPI_Type_vector(k, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Put(src, 1, vec, next, PUTD * (MPI_Aint)sizeof(int), 3 * k, MPI_INT, win);
    /* get: an indexed target type from the previous rank */
    int bl[4] = { 5, 1, 17, 3 }, dp[4] = { 0, 9, 30, 70 }, got[26];
    MPI_Type_indexed(4, bl, dp, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    MPI_Get(got, 26, MPI_INT, prev, (GETD + round) * (MPI_Aint)sizeof(int), 1, idx, win);
    MPI_Win_fence(0, win);
    for (int j = 0, b = 0; b < 4; b++)
        for (int e = 0; e < bl[b]; e++, j++) {
            int want = init_val(prev, GETD + round + dp[b] + e, round);
            CHECK(got[j] == want, "round %d get[%d] = %d, want %d", round, j, got[j], want);
        }
    for (int j = 0; j < 3 * k; j++) {
        int want = src_val(prev, j / 3 * 5 + j % 3, round);
        CHECK(w[PUTD + j] == want, "round %d put[%d] = %d, want %d", round, j, w[PUTD + j], want);
    }
    CHECK(w[PUTD + 3 * k] == init_val(rank, PUTD + 3 * k, round), "round %d: put overran",
          round);
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);

    /* accumulates: everyone on rank 0 at once */
    int one = 1, olds[NFOP], add[NACC], mine = rank + 1, cas_old = -1;
    double dadd[NDACC];
    for (int e = 0; e < NACC; e++)
        add[e] = rank + 1 + e;
    for (int e = 0; e < NDACC; e++)
        dadd[e] = 0.25 * (rank + 1);
    MPI_Win_lock_all(0, win);
    MPI_Accumulate(add, NACC, MPI_INT, 0, ACCD * (MPI_Aint)sizeof(int), NACC, MPI_INT, MPI_SUM,
                   win);
    MPI_Accumulate(dadd, NDACC, MPI_DOUBLE, 0, ddisp, NDACC, MPI_DOUBLE, MPI_SUM, win);
    for (int i = 0; i < NFOP; i++) {
        MPI_Fetch_and_op(&one, &olds[i], MPI_INT, 0, FOPD * (MPI_Aint)sizeof(int), MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    int zero = 0;
    MPI_Compare_and_swap(&mine, &zero, &cas_old, MPI_INT, 0, CASD * (MPI_Aint)sizeof(int), win);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    int *all = malloc(sizeof(int) * NFOP * (size_t)size), winners = cas_old == 0, nwin = 0;
    MPI_Allgather(olds, NFOP, MPI_INT, all, NFOP, MPI_INT, MPI_COMM_WORLD);
    MPI_Allreduce(&winners, &nwin, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(nwin == 1, "round %d: %d compare_and_swap winners", round, nwin);
    qsort(all, (size_t)NFOP * size, sizeof(int), cmp_int);
    int base = init_val(0, FOPD, round);
    for (int i = 0; i < NFOP * size; i++)
        CHECK(all[i] == base + i, "round %d: fetched values not distinct (%d at %d, want %d)",
              round, all[i], i, base + i);
    free(all);
    if (rank == 0) {
        int sum = size * (size + 1) / 2;
        for (int e = 0; e < NACC; e++) {
            int want = init_val(0, ACCD + e, round) + sum + size * e;
            CHECK(w[ACCD + e] == want, "round %d acc[%d] = %d, want %d", round, e, w[ACCD + e],
                  want);
        }
        CHECK(w[FOPD] == base + NFOP * size, "round %d: fop %d, want %d", round, w[FOPD],
              base + NFOP * size);
        CHECK(w[CASD] >= 1 && w[CASD] <= size, "round %d: cas word %d", round, w[CASD]);
        for (int e = 0; e < NDACC; e++)
            CHECK(dw[e] == 0.5 * e + 0.25 * sum, "round %d: double acc[%d] = %g, want %g",
                  round, e, dw[e], 0.5 * e + 0.25 * sum);
    }
    MPI_Win_free(&win);
    free(mem);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 6; round++)
        one_round(round);
    CHECK(mpid_rma_ofi_stats.live == 0, "%ld window registrations still open",
          mpid_rma_ofi_stats.live);
    MPI_Comm node;
    int nsize;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    const char *net = getenv("CLUMPI_NET");
    /* some rank's neighbours are on another node: the job's accesses */
    unsigned long posted = 0;
    MPI_Allreduce(&mpid_rma_ofi_stats.posted, &posted, 1, MPI_UNSIGNED_LONG, MPI_SUM,
                  MPI_COMM_WORLD);
    if (nsize < size && !(net && strcmp(net, "direct")) && !getenv("CLUMPI_RMA_OFI") &&
        !getenv("CLUMPI_RMA_AM") && !getenv("CLUMPI_OFI_RMA"))
        CHECK(mpid_rma_ofi_stats.windows == 6 && posted > 0,
              "on several nodes: %lu windows by network RMA, %lu accesses in the job",
              mpid_rma_ofi_stats.windows, posted);
    MPI_Comm_free(&node);
    if (rank == 0)
        printf("PASS netrma (%d ranks: %lu windows by network RMA, %lu accesses in the job, "
               "rank 0: %lu by NIC atomics)\n", size, mpid_rma_ofi_stats.windows, posted,
               mpid_rma_ofi_stats.nic_acc);
    MPI_Finalize();
    return 0;
}
