/*
 * rma.c — OSU-style one-sided benchmark (standard MPI only; builds with any
 * mpicc): put/get latency and bandwidth, accumulate and fetch-and-op
 * latency, rank 0 the origin, rank 1 the target, in a passive-target epoch
 * (lock_all; flush per operation or per window of operations).
 *
 *   mpirun -n 2 bench/rma [-w allocate|create] [-m max_bytes] [-c]
 *
 * -w: window flavor (Win_allocate: shared memory on one node; Win_create:
 *     user memory). -c: the target computes (no MPI calls) during each
 *     test instead of waiting in MPI: shows whether operations need the
 *     target's progress (the agent-served case of seed 004 would not).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

static int rank, iters_small = 2000, iters_large = 100, compute;
static MPI_Win win;

static int iters(size_t n) { return n > 65536 ? iters_large : iters_small; }

/* Target side of one test: wait in MPI, or compute for about as long as
 * the origin runs (polling a flag the origin sets with a put at the end). */
static void target_phase(volatile char *flag)
{
    if (!compute) {
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    double t0 = MPI_Wtime();
    while (!*flag && MPI_Wtime() - t0 < 1.0)
        ;   /* no MPI calls: only a target-independent path finishes */
    *flag = 0;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void origin_end(void)
{
    if (compute) {
        char one = 1;
        MPI_Put(&one, 1, MPI_CHAR, 1, 0, 1, MPI_CHAR, win);
        MPI_Win_flush(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *flavor = "allocate";
    size_t maxb = 1 << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-w") && i + 1 < argc)
            flavor = argv[++i];
        else if (!strcmp(argv[i], "-m") && i + 1 < argc)
            maxb = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "-c"))
            compute = 1;
    }
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "bench/rma needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    size_t wsize = 64 + maxb * WINDOW;
    char *base, *src = malloc(maxb), *dst = malloc(maxb);
    memset(src, 1, maxb);
    if (!strcmp(flavor, "create")) {
        MPI_Alloc_mem((MPI_Aint)wsize, MPI_INFO_NULL, &base);
        memset(base, 0, wsize);
        MPI_Win_create(base, (MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate((MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        memset(base, 0, wsize);
    }
    volatile char *flag = base;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    if (rank == 0)
        printf("# clumpi bench/rma: window %s, target %s\n# %-22s %10s %12s %12s\n", flavor,
               compute ? "computing" : "in MPI_Barrier", "test", "bytes", "usec/op", "MB/s");
    const char *names[] = { "put_latency", "get_latency", "put_bw", "get_bw" };
    for (int test = 0; test < 4; test++) {
        for (size_t n = 1; n <= maxb; n *= 4) {
            if (rank == 1) {
                target_phase(flag);
                continue;
            }
            int it = iters(n), bw = test >= 2;
            double t0 = 0;
            for (int i = -10; i < it; i++) {
                if (i == 0)
                    t0 = MPI_Wtime();
                if (!bw) {
                    if (test == 0)
                        MPI_Put(src, (int)n, MPI_CHAR, 1, 64, (int)n, MPI_CHAR, win);
                    else
                        MPI_Get(dst, (int)n, MPI_CHAR, 1, 64, (int)n, MPI_CHAR, win);
                } else {
                    for (int j = 0; j < WINDOW; j++) {
                        if (test == 2)
                            MPI_Put(src, (int)n, MPI_CHAR, 1, 64 + (MPI_Aint)(j * n), (int)n,
                                    MPI_CHAR, win);
                        else
                            MPI_Get(dst, (int)n, MPI_CHAR, 1, 64 + (MPI_Aint)(j * n), (int)n,
                                    MPI_CHAR, win);
                    }
                }
                MPI_Win_flush(1, win);
            }
            double t = MPI_Wtime() - t0;
            double ops = (double)it * (bw ? WINDOW : 1);
            printf("  %-22s %10zu %12.2f %12.1f\n", names[test], n, t * 1e6 / ops,
                   (double)n * ops / t / 1e6);
            fflush(stdout);
            origin_end();
        }
    }
    /* accumulate (MPI_SUM on doubles) and fetch-and-op (MPI_SUM on a long) */
    const char *anames[] = { "acc_latency", "fetch_and_op_latency" };
    for (int test = 0; test < 2; test++) {
        for (size_t n = 8; n <= (test ? 8 : maxb); n *= 4) {
            if (rank == 1) {
                target_phase(flag);
                continue;
            }
            int it = iters(n);
            double t0 = 0;
            long one = 1, res;
            for (int i = -10; i < it; i++) {
                if (i == 0)
                    t0 = MPI_Wtime();
                if (test == 0)
                    MPI_Accumulate(src, (int)(n / 8), MPI_DOUBLE, 1, 64, (int)(n / 8),
                                   MPI_DOUBLE, MPI_SUM, win);
                else
                    MPI_Fetch_and_op(&one, &res, MPI_LONG, 1, 64, MPI_SUM, win);
                MPI_Win_flush(1, win);
            }
            double t = MPI_Wtime() - t0;
            printf("  %-22s %10zu %12.2f %12.1f\n", anames[test], n, t * 1e6 / it,
                   (double)n * it / t / 1e6);
            fflush(stdout);
            origin_end();
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    if (!strcmp(flavor, "create"))
        MPI_Free_mem(base);
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
