/*
 * rma.c — OSU-style one-sided benchmark (standard MPI only; builds with any
 * mpicc, e.g. Open MPI's): put/get latency and bandwidth, accumulate and
 * fetch-and-op latency between rank 0 (origin) and rank 1 (target), under
 * the synchronization modes of osu_put_latency / osu_get_bw /
 * osu_acc_latency, with the target either waiting in MPI or computing.
 *
 *   mpirun -n 2 bench/rma [-w allocate|create] [-s flush|lock|fence|pscw]
 *                         [-m max_bytes] [-i iter_scale] [-c] [-t tests]
 *
 * -w  window flavor: Win_allocate (shared memory when both ranks share a
 *     node) or Win_create on MPI_Alloc_mem memory.
 * -s  flush: one lock_all epoch, MPI_Win_flush after each operation (bw:
 *     after each window of 64); lock: Win_lock/Win_unlock around each;
 *     fence: Win_fence after each (the target fences too); pscw: Win_start/
 *     Win_complete at the origin, Win_post/Win_wait at the target.
 * -c  (flush and lock only) the target computes without MPI calls during
 *     each test instead of waiting in MPI_Barrier: an implementation whose
 *     operations need the target's progress then stalls until it stops
 *     (after 1 s); one that serves them without it (shared memory, single
 *     copy, an NI agent: Bilas) does not.
 * -t  comma-separated subset of put_lat,get_lat,put_bw,get_bw,acc_lat,fop_lat.
 * Output: one line per test and size: test bytes usec_per_op MB/s.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

enum { S_FLUSH, S_LOCK, S_FENCE, S_PSCW };
static const char *sync_names[] = { "flush", "lock", "fence", "pscw" };
enum { T_PUT_LAT, T_GET_LAT, T_PUT_BW, T_GET_BW, T_ACC_LAT, T_FOP_LAT, NTESTS };
static const char *test_names[] = { "put_lat", "get_lat", "put_bw", "get_bw", "acc_lat",
                                    "fop_lat" };

static int rank, sync_mode, compute;
static double iter_scale = 1;
static MPI_Win win;
static MPI_Group peer;

static int iters(size_t n)
{
    int it = (int)((n > 65536 ? 100 : 2000) * iter_scale);
    return it > 0 ? it : 1;
}

/* Opening and closing one measured epoch at the origin (flush: inside the
 * lock_all epoch held throughout). */
static void origin_open(void)
{
    if (sync_mode == S_LOCK)
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    else if (sync_mode == S_PSCW)
        MPI_Win_start(peer, 0, win);
}

static void origin_close(void)
{
    switch (sync_mode) {
    case S_FLUSH: MPI_Win_flush(1, win); break;
    case S_LOCK: MPI_Win_unlock(1, win); break;
    case S_FENCE: MPI_Win_fence(0, win); break;
    case S_PSCW: MPI_Win_complete(win); break;
    }
}

/* The target's side of `epochs` measured epochs. Passive modes: wait in
 * MPI, or compute until the origin's flag put (at most 1 s). */
static void target_run(int epochs, volatile char *flag)
{
    if (sync_mode == S_FENCE || sync_mode == S_PSCW) {
        for (int i = 0; i < epochs; i++) {
            if (sync_mode == S_FENCE) {
                MPI_Win_fence(0, win);
            } else {
                MPI_Win_post(peer, 0, win);
                MPI_Win_wait(win);
            }
        }
    } else if (compute) {
        double t0 = MPI_Wtime();
        while (!*flag && MPI_Wtime() - t0 < 1.0)
            ;   /* no MPI calls: only a target-independent path finishes */
    }
    /* Cleared between two barriers: the origin's flag put has landed by
     * the first (it flushed it), its next one comes after the second. */
    MPI_Barrier(MPI_COMM_WORLD);
    *flag = 0;
    MPI_Barrier(MPI_COMM_WORLD);
}

/* After a test: release a computing target, then meet it. */
static void origin_end(void)
{
    if (compute) {
        char one = 1;
        if (sync_mode == S_LOCK)
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Put(&one, 1, MPI_CHAR, 1, 0, 1, MPI_CHAR, win);
        if (sync_mode == S_LOCK)
            MPI_Win_unlock(1, win);
        else
            MPI_Win_flush(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void one_op(int test, char *src, char *dst, size_t n, MPI_Aint disp)
{
    static long one = 1, res;
    switch (test) {
    case T_PUT_LAT: case T_PUT_BW:
        MPI_Put(src, (int)n, MPI_CHAR, 1, disp, (int)n, MPI_CHAR, win);
        break;
    case T_GET_LAT: case T_GET_BW:
        MPI_Get(dst, (int)n, MPI_CHAR, 1, disp, (int)n, MPI_CHAR, win);
        break;
    case T_ACC_LAT:
        MPI_Accumulate(src, (int)(n / 8), MPI_DOUBLE, 1, disp, (int)(n / 8), MPI_DOUBLE,
                       MPI_SUM, win);
        break;
    case T_FOP_LAT:
        MPI_Fetch_and_op(&one, &res, MPI_LONG, 1, disp, MPI_SUM, win);
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *flavor = "allocate", *tests = NULL;
    size_t maxb = 1 << 20;
    int bad = size != 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-w") && i + 1 < argc) {
            flavor = argv[++i];
        } else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
            maxb = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "-i") && i + 1 < argc) {
            iter_scale = atof(argv[++i]);
        } else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
            tests = argv[++i];
        } else if (!strcmp(argv[i], "-c")) {
            compute = 1;
        } else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            const char *s = argv[++i];
            for (sync_mode = 0; sync_mode < 4 && strcmp(s, sync_names[sync_mode]); sync_mode++)
                ;
            bad |= sync_mode == 4;
        } else {
            bad = 1;
        }
    }
    bad |= compute && (sync_mode == S_FENCE || sync_mode == S_PSCW);
    bad |= strcmp(flavor, "allocate") && strcmp(flavor, "create");
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -n 2 %s [-w allocate|create] [-s flush|lock|fence|"
                    "pscw] [-m max_bytes] [-i iter_scale] [-c (flush, lock)] [-t tests]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (maxb < 8)
        maxb = 8;
    size_t wsize = 64 + maxb * WINDOW;
    char *base, *src = malloc(maxb), *dst = malloc(maxb);
    memset(src, 1, maxb);
    if (!strcmp(flavor, "create")) {
        MPI_Alloc_mem((MPI_Aint)wsize, MPI_INFO_NULL, &base);
        MPI_Win_create(base, (MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate((MPI_Aint)wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    }
    memset(base, 0, wsize);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = 1 - rank;
    MPI_Group_incl(world, 1, &other, &peer);
    MPI_Group_free(&world);
    volatile char *flag = base;
    MPI_Barrier(MPI_COMM_WORLD);
    if (sync_mode == S_FLUSH)
        MPI_Win_lock_all(0, win);
    else if (sync_mode == S_FENCE)
        MPI_Win_fence(0, win);
    if (rank == 0)
        printf("# bench/rma: window %s, sync %s, target %s\n# %-10s %10s %12s %12s\n", flavor,
               sync_names[sync_mode], compute ? "computing" : "in MPI", "test", "bytes",
               "usec/op", "MB/s");
    for (int test = 0; test < NTESTS; test++) {
        if (tests && !strstr(tests, test_names[test]))
            continue;
        int bw = test == T_PUT_BW || test == T_GET_BW;
        size_t lo = test >= T_ACC_LAT ? 8 : 1, hi = test == T_FOP_LAT ? 8 : maxb;
        for (size_t n = lo; n <= hi; n *= 4) {
            int it = iters(n), per = bw ? WINDOW : 1;
            if (rank == 1) {
                target_run(it + 10, flag);
                continue;
            }
            /* No warm-up with a computing target: a stall until it stops
             * computing would hide there. */
            double t0 = MPI_Wtime();
            for (int i = compute ? 0 : -10; i < it; i++) {
                if (i == 0)
                    t0 = MPI_Wtime();
                origin_open();
                for (int j = 0; j < per; j++)
                    one_op(test, src, dst, n, 64 + (MPI_Aint)((size_t)j * n));
                origin_close();
            }
            double t = MPI_Wtime() - t0, ops = (double)it * per;
            printf("  %-10s %10zu %12.2f %12.1f\n", test_names[test], n, t * 1e6 / ops,
                   (double)n * ops / t / 1e6);
            fflush(stdout);
            origin_end();
        }
    }
    if (sync_mode == S_FLUSH)
        MPI_Win_unlock_all(win);
    else if (sync_mode == S_FENCE)
        MPI_Win_fence(0, win);
    MPI_Group_free(&peer);
    MPI_Win_free(&win);
    if (!strcmp(flavor, "create"))
        MPI_Free_mem(base);
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
