/* np: 2 4
 *
 * busy_target.c — one-sided operations on a target that computes without
 * calling MPI (Bilas: remote deposit, remote fetch and locks served by
 * the NI, not the target host). Rank 0 is the target: it leaves MPI for a
 * busy loop (no MPI calls) that ends when every origin's done flag has
 * landed in its window, or after COMPUTE_S seconds. The other ranks
 * (origins) do put, get, accumulate, get_accumulate, fetch_and_op,
 * compare_and_swap and exclusive lock/unlock on it, each checked against a
 * reference, then put their done flag; the target checks its window.
 *
 * Every mode must get the results right. When CLUMPI_TEST_SERVED=1 (set by
 * the runs where no path needs the target's progress: one node, or
 * CLUMPI_NET=agent), every flag must also have landed while the target
 * still computed: a path that needs the target's progress (active
 * messages, CLUMPI_RMA_AGENT=0) cannot, by construction. The origins'
 * work is about 50 round trips: COMPUTE_S = 5 s leaves 100 ms per round
 * trip to a loaded machine and costs a served run nothing; other runs
 * compute 0.5 s (their results are checked all the same). Windows:
 * Win_allocate, then Win_create.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef COMPUTE_S
#define COMPUTE_S 5.0
#endif
#define N 300          /* ints per origin: more than one agent packet */
#define ITER 10

static int rank, size;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL busy_target rank %d line %d: ", \
    rank, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); \
    MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

/* Window layout (ints): [0] fetch_and_op counter, [1] accumulate counter,
 * [2] lock-protected counter, [3] CAS word, then N ints per origin, then
 * one done flag per origin. */
#define HDR 4
#define FLAG(o) (HDR + (size - 1) * N + (o) - 1)

static void origin(MPI_Win win, int flavor, double *took)
{
    int me = rank, nor = size - 1;
    int *buf = malloc(sizeof(int) * N), *got = malloc(sizeof(int) * N);
    double t0 = MPI_Wtime();
    MPI_Win_lock_all(0, win);
    /* remote deposit and fetch: a block larger than one packet */
    for (int i = 0; i < N; i++)
        buf[i] = me * 100000 + i + flavor;
    MPI_Aint mine = HDR + (MPI_Aint)(me - 1) * N;
    MPI_Put(buf, N, MPI_INT, 0, mine, N, MPI_INT, win);
    MPI_Win_flush(0, win);
    MPI_Get(got, N, MPI_INT, 0, mine, N, MPI_INT, win);
    MPI_Win_flush(0, win);
    CHECK(!memcmp(buf, got, sizeof(int) * N), "get after put: [0]=%d want %d", got[0], buf[0]);
    /* accumulate into our block, fetched back with get_accumulate(NO_OP) */
    MPI_Accumulate(buf, N, MPI_INT, 0, mine, N, MPI_INT, MPI_SUM, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, got, N, MPI_INT, 0, mine, N, MPI_INT, MPI_NO_OP, win);
    MPI_Win_flush(0, win);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == 2 * buf[i], "accumulate [%d]=%d want %d", i, got[i], 2 * buf[i]);
    /* concurrent origins on shared counters */
    int ione = 1;
    for (int i = 0; i < ITER; i++) {
        int old;
        MPI_Fetch_and_op(&ione, &old, MPI_INT, 0, 0, MPI_SUM, win);
        MPI_Accumulate(&ione, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_flush(0, win);
        CHECK(old >= 0 && old < ITER * nor, "fetch_and_op fetched %d", old);
    }
    /* compare_and_swap: claim the CAS word once, from -1 to an increasing
     * ticket: every origin succeeds exactly once over its retries */
    for (;;) {
        int cur, want;
        MPI_Get_accumulate(NULL, 0, MPI_INT, &cur, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        want = cur + 1;
        int res;
        MPI_Compare_and_swap(&want, &cur, &res, MPI_INT, 0, 3, win);
        MPI_Win_flush(0, win);
        if (res == cur)
            break;
    }
    MPI_Win_unlock_all(win);
    /* lock contention: read-modify-write under exclusive locks */
    for (int i = 0; i < ITER; i++) {
        int v;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    *took = MPI_Wtime() - t0;
    int one = 1;   /* done: a remote deposit the computing target sees */
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&one, 1, MPI_INT, 0, FLAG(me), 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    free(buf);
    free(got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *e = getenv("CLUMPI_TEST_SERVED");
    int served = e && atoi(e);
    int nint = HDR + (size - 1) * (N + 1);
    for (int flavor = 0; flavor < 2; flavor++) {
        MPI_Win win;
        int *w;
        if (flavor == 0) {
            MPI_Win_allocate(sizeof(int) * nint, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w,
                             &win);
        } else {
            MPI_Alloc_mem(sizeof(int) * nint, MPI_INFO_NULL, &w);
            MPI_Win_create(w, sizeof(int) * nint, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win);
        }
        const char *fl = flavor ? "create" : "allocate";
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        memset(w, 0, sizeof(int) * nint);
        w[3] = -1;
        MPI_Win_unlock(rank, win);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime(), took = 0, loop = 0;
        int seen = 0;
        if (rank == 0) {
            /* no MPI call in the loop (MPI_Wtime is clock_gettime): only a
             * target-independent path serves the origins meanwhile */
            volatile int *f = w;
            volatile double x = 1;
            double limit = served ? COMPUTE_S : 0.5;
            while (seen < size - 1 && MPI_Wtime() - start < limit) {
                for (int i = 0; i < 1000; i++)
                    x = x * 1.0000001 + 1e-9;
                seen = 0;
                for (int o = 1; o < size; o++)
                    seen += f[FLAG(o)] == 1;
            }
            loop = MPI_Wtime() - start;
            for (int o = 1; o < size && served; o++)
                if (f[FLAG(o)] != 1)
                    fprintf(stderr, "busy_target: %s: origin %d not done after %.3f s\n", fl, o,
                            loop);
        } else {
            origin(win, flavor, &took);
        }
        double tk[2] = { took, loop }, mx[2];
        MPI_Allreduce(tk, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            int nor = size - 1;
            CHECK(w[0] == ITER * nor, "%s: fetch_and_op counter %d want %d", fl, w[0], ITER * nor);
            CHECK(w[1] == ITER * nor, "%s: accumulate counter %d want %d", fl, w[1], ITER * nor);
            CHECK(w[2] == ITER * nor, "%s: locked counter %d want %d", fl, w[2], ITER * nor);
            CHECK(w[3] == nor - 1, "%s: CAS tickets %d want %d", fl, w[3], nor - 1);
            for (int o = 1; o < size; o++)
                for (int i = 0; i < N; i++)
                    CHECK(w[HDR + (o - 1) * N + i] == 2 * (o * 100000 + i + flavor),
                          "%s: origin %d block [%d]=%d", fl, o, i, w[HDR + (o - 1) * N + i]);
            MPI_Win_unlock(0, win);
            for (int o = 1; o < size; o++)
                CHECK(w[FLAG(o)] == 1, "%s: origin %d's done flag is %d", fl, o, w[FLAG(o)]);
            printf("%s: origins took %.3f s, the target computed %.3f s%s\n", fl, mx[0], mx[1],
                   seen == size - 1 ? " and saw every origin done" : "");
            if (served)
                CHECK(seen == size - 1, "%s: %d of %d origins done while the target computed "
                      "%.3f s: not served without the target", fl, seen, size - 1, mx[1]);
        }
        MPI_Win_free(&win);
        if (flavor == 1)
            MPI_Free_mem(w);
    }
    if (rank == 0)
        printf("busy_target: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
