/*
 * pt2pt — OSU-style point-to-point benchmarks between ranks 0 and 1 (other
 * ranks idle): latency (ping-pong, half the round trip), bandwidth (a window
 * of Isends from 0 to 1, then a short ack) and bidirectional bandwidth (both
 * ranks send a window to each other), for sizes 1 B .. 4 MiB. Standard MPI
 * only, so the same source builds against any MPI.
 *
 * usage: mpirun -n 2 ./pt2pt [lat|bw|bibw|all] [-s MINBYTES] [-m MAXBYTES] [-i ITERS_SCALE]
 * (sizes: powers of two from MINBYTES, default 1, up to MAXBYTES)
 *
 * Output follows the OSU micro-benchmarks: a header per test, then lines of
 * "size value" (latency in microseconds, bandwidth in MB/s = 1e6 bytes/s).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

#define WINDOW 64

static int rank;
static char *sbuf, *rbuf;

static int iters_for(size_t n, double scale)
{
    int it = n <= 8192 ? 20000 : n <= 65536 ? 4000 : n <= (1 << 20) ? 400 : 100;
    it = (int)(it * scale);
    return it < 4 ? 4 : it;
}

static double latency(size_t n, int iters)
{
    int warm = iters / 10 + 2;
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + warm; i++) {
        if (i == warm)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(sbuf, (int)n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(rbuf, (int)n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

/* bidir = 0: 0 sends a window to 1; bidir = 1: both send a window. */
static double bandwidth(size_t n, int iters, int bidir)
{
    MPI_Request rq[2 * WINDOW];
    int warm = iters / 10 + 2;
    double t0 = 0;
    char ack = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + warm; i++) {
        if (i == warm)
            t0 = MPI_Wtime();
        int k = 0;
        if (rank > 1)
            continue;
        int peer = 1 - rank;
        if (rank == 1 || bidir)
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(rbuf, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &rq[k++]);
        if (rank == 0 || bidir)
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(sbuf, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &rq[k++]);
        MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
        if (!bidir) {
            if (rank == 0)
                MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    return (double)n * WINDOW * iters * (bidir ? 2 : 1) / t / 1e6;
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct bench_args args = { "all", 1, 4 << 20, 1.0 };
    bench_parse_args(argc, argv, &args);
    size_t maxn = args.max;
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "pt2pt: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    /* As in OSU, the receives of a window share one buffer. */
    sbuf = malloc(maxn);
    rbuf = malloc(maxn);
    memset(sbuf, 'a', maxn);
    memset(rbuf, 'b', maxn);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    bench_library_line(lib);
    if (rank == 0)
        printf("# pt2pt (OSU-style), %d ranks, library: %.100s\n", size, lib);

    static const struct {
        const char *name, *title, *unit;
        int kind;
    } tests[] = {
        {"lat", "Latency Test", "Latency (us)", 0},
        {"bw", "Bandwidth Test", "Bandwidth (MB/s)", 1},
        {"bibw", "Bi-Directional Bandwidth Test", "Bandwidth (MB/s)", 2},
    };
    for (int t = 0; t < 3; t++) {
        if (strcmp(args.which, "all") && strcmp(args.which, tests[t].name))
            continue;
        if (rank == 0)
            printf("# %s %s\n# Size %20s\n", tests[t].name, tests[t].title, tests[t].unit);
        for (size_t n = args.min; n <= maxn; n *= 2) {
            int iters = iters_for(n, tests[t].kind ? args.scale / 20 : args.scale);
            double v = tests[t].kind == 0 ? latency(n, iters)
                                          : bandwidth(n, iters, tests[t].kind == 2);
            if (rank == 0)
                printf("%-10zu %18.2f\n", n, v);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
