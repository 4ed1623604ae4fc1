/*
 * progress — how fast a ring of ranks moves when the program completes its
 * requests with test calls instead of a wait (standard MPI only, so the same
 * source builds with any mpicc). Each round every rank receives from its
 * left neighbour and sends to its right one, completed by:
 *   waitall  MPI_Irecv + MPI_Isend, MPI_Waitall (the library may block)
 *   testall  the same, then a loop of MPI_Testall until both are done
 *   test     the same, then a loop of MPI_Test on each request not yet done
 *   iprobe   MPI_Isend, a loop of MPI_Iprobe until the left message is
 *            there, MPI_Recv, then a loop of MPI_Test on the send
 * A loop of test calls cannot block. When ranks outnumber the cores, a
 * spinning rank holds the core its left neighbour needs to send, unless the
 * library gives the core away when a test finds nothing done.
 *
 * usage: mpirun -n NP ./progress [waitall|testall|test|iprobe|all]
 *                                [-s MINBYTES] [-m MAXBYTES] [-i SCALE]
 * Sizes are the powers of two from MINBYTES (1) to MAXBYTES (65536). Each
 * size warms up for about SCALE x 0.01 s, then runs rounds for SCALE x 0.1 s.
 *
 * Output follows the OSU micro-benchmarks: a header per mode, then lines of
 * "size value": the slowest rank's mean time per round in microseconds.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

#define WARM 10
#define MAX_ROUNDS 1000000
#define CHUNKS 8
#define TAG 7

enum { M_WAITALL, M_TESTALL, M_TEST, M_IPROBE, NMODES };
static const struct {
    const char *name, *title;
} modes[NMODES] = {
    {"waitall", "Ring round, Irecv + Isend + MPI_Waitall"},
    {"testall", "Ring round, Irecv + Isend + loop of MPI_Testall"},
    {"test", "Ring round, Irecv + Isend + loop of MPI_Test on each"},
    {"iprobe", "Ring round, Isend + loop of MPI_Iprobe + MPI_Recv + loop of MPI_Test"},
};

static int rank, left, right;
static char *sbuf, *rbuf;

/* Test each request that is not done yet until all are. */
static void test_each(int k, MPI_Request *rq)
{
    int left_to_do = k;
    while (left_to_do > 0)
        for (int i = 0; i < k; i++) {
            int flag = 0;
            if (rq[i] == MPI_REQUEST_NULL)
                continue;
            MPI_Test(&rq[i], &flag, MPI_STATUS_IGNORE);
            left_to_do -= flag;
        }
}

static void ring_round(int mode, int n)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request rq[2];
    int flag = 0;
    if (mode == M_IPROBE) {
        MPI_Isend(sbuf, n, MPI_CHAR, right, TAG, w, &rq[0]);
        while (!flag)
            MPI_Iprobe(left, TAG, w, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(rbuf, n, MPI_CHAR, left, TAG, w, MPI_STATUS_IGNORE);
        test_each(1, rq);
        return;
    }
    MPI_Irecv(rbuf, n, MPI_CHAR, left, TAG, w, &rq[0]);
    MPI_Isend(sbuf, n, MPI_CHAR, right, TAG, w, &rq[1]);
    if (mode == M_WAITALL)
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    else if (mode == M_TESTALL)
        while (!flag)
            MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
    else
        test_each(2, rq);
}

/* The slowest rank's mean time per round in us, for n-byte messages. */
static double measure(int mode, int n, double seconds)
{
    memset(rbuf, 0, (size_t)n);
    /* Warm up in doubling batches until one takes a tenth of the time: the
     * first rounds (connections, page faults, a descheduled rank) would
     * make the pace look slower than it is. */
    double per, slowest, t0;
    for (int batch = WARM;; batch *= 2) {
        t0 = MPI_Wtime();
        for (int i = 0; i < batch; i++)
            ring_round(mode, n);
        per = (MPI_Wtime() - t0) / batch;
        MPI_Allreduce(&per, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (slowest * batch >= seconds / 10 || batch >= MAX_ROUNDS)
            break;
    }
    /* Timed by the clock, the ranks agreeing every CHUNKS-th of the time
     * (the next chunk sized at the pace so far): the pace can drop 1000x
     * after the warm-up (a library that stops yielding), and a round count
     * fixed in advance would then run for minutes. */
    long done = 0;
    double elapsed = 0, pace = slowest > 0 ? slowest : 1e-9;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    while (elapsed < seconds && done < MAX_ROUNDS) {
        double want = seconds / CHUNKS / pace;
        long chunk = want < 1 ? 1 : want > MAX_ROUNDS ? MAX_ROUNDS : (long)want;
        for (long i = 0; i < chunk; i++)
            ring_round(mode, n);
        done += chunk;
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        pace = elapsed / done;
    }
    /* Every byte came from the left neighbour (sbuf holds its stamp). */
    char stamp = (char)('A' + left % 26);
    if (rbuf[0] != stamp || rbuf[n - 1] != stamp) {
        fprintf(stderr, "progress: rank %d, %s, %d bytes: received %d..%d, want %d\n", rank,
                modes[mode].name, n, rbuf[0], rbuf[n - 1], stamp);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return pace * 1e6;
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct bench_args args = { "all", 1, 65536, 1.0 };
    bench_parse_args(argc, argv, &args);
    int known = !strcmp(args.which, "all");
    for (int m = 0; m < NMODES; m++)
        known |= !strcmp(args.which, modes[m].name);
    if (!known || args.max > (1u << 30) || args.min > args.max) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [waitall|testall|test|iprobe|all] [-s MINBYTES] "
                    "[-m MAXBYTES (<= 1 GiB)] [-i SCALE]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    sbuf = malloc(args.max);
    rbuf = malloc(args.max);
    memset(sbuf, 'A' + rank % 26, args.max);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    bench_library_line(lib);
    int nodes = bench_nodes(MPI_COMM_WORLD);
    if (rank == 0)
        printf("# progress (OSU-style ring), %d ranks, %d node(s), library: %.100s\n", size,
               nodes, lib);
    for (int m = 0; m < NMODES; m++) {
        if (strcmp(args.which, "all") && strcmp(args.which, modes[m].name))
            continue;
        if (rank == 0)
            printf("# %s %s\n# Size %20s\n", modes[m].name, modes[m].title, "Round (us)");
        for (size_t n = args.min; n <= args.max; n *= 2) {
            double us = measure(m, (int)n, 0.1 * args.scale);
            if (rank == 0) {
                printf("%-10zu %18.2f\n", n, us);
                fflush(stdout);
            }
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
