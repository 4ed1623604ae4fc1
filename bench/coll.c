/*
 * coll.c — collective latency benchmark (standard MPI only: it builds with
 * any mpicc). For each operation and message size it times a loop of calls
 * and prints the per-call latency, min/avg/max over ranks, as a table on
 * stdout and as CSV (-c FILE, appended).
 *
 * usage: coll [-o op,op,...] [-m MIN] [-M MAX] [-S SIZE,SIZE,...] [-i ITERS]
 *             [-s SCALE%] [-t MS] [-C CAP] [-l LABEL] [-c FILE]
 *   ops: barrier bcast gather scatter allgather alltoall allreduce reduce
 *        reduce_scatter (default: these), reduce_scatter_block scan exscan
 *        ibarrier ibcast ireduce iallreduce iallgather (each i* call waited
 *        for at once); sizes in bytes, powers of two from MIN (1) to MAX
 *        (1 MiB), or the list of -S: the whole buffer for bcast, scan and
 *        the reductions (reduce_scatter(_block): the whole input, each rank
 *        gets its share), one rank's block for the others. Reductions sum
 *        doubles (sizes < 8 skipped, and reduce_scatter_block's below 8
 *        per rank). CAP: block sizes whose all ranks' blocks pass CAP bytes
 *        are skipped (bench/coll_tune.sh's 4 MiB blocks on 16 ranks).
 *   Iterations: 1000 per point up to 1 KiB, 200 up to 64 KiB, 20 above,
 *   times SCALE% (at least 3); then, unless -i fixes the count, as many more
 *   as make the timed loop last MS milliseconds (default 100; 0: no minimum),
 *   estimated from a calibration loop of the base count whose slowest rank's
 *   time every rank agrees on, so all ranks run the same count (a loop of
 *   tens of microseconds times one preemption, not the calls).
 *   LABEL names the MPI in the output (default: from MPI_Get_library_version);
 *   the algorithm column comes from CLUMPI_COLL_<OP> (else "default").
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "bench_util.h"

static int me, np;

static int *shares;   /* reduce_scatter: each rank's doubles */

/* The operations, in known_ops' order: run() switches on the index, so
 * the timed loop spends nothing on finding the call. */
enum { BARRIER, BCAST, GATHER, SCATTER, ALLGATHER, ALLTOALL, ALLREDUCE, REDUCE, REDUCE_SCATTER,
       REDUCE_SCATTER_BLOCK, SCAN, EXSCAN, IBARRIER, IBCAST, IREDUCE, IALLREDUCE, IALLGATHER };
static const char *const known_ops[] = {
    "barrier", "bcast", "gather", "scatter", "allgather", "alltoall", "allreduce", "reduce",
    "reduce_scatter", "reduce_scatter_block", "scan", "exscan", "ibarrier", "ibcast",
    "ireduce", "iallreduce", "iallgather",
};

static void run(int op, size_t size, char *a, char *b)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request r = MPI_REQUEST_NULL;
    int n = (int)size;
    switch (op) {
    case BARRIER: MPI_Barrier(w); break;
    case BCAST: MPI_Bcast(a, n, MPI_BYTE, 0, w); break;
    case GATHER: MPI_Gather(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, w); break;
    case SCATTER: MPI_Scatter(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, w); break;
    case ALLGATHER: MPI_Allgather(a, n, MPI_BYTE, b, n, MPI_BYTE, w); break;
    case ALLTOALL: MPI_Alltoall(a, n, MPI_BYTE, b, n, MPI_BYTE, w); break;
    case ALLREDUCE: MPI_Allreduce(a, b, n / 8, MPI_DOUBLE, MPI_SUM, w); break;
    case REDUCE: MPI_Reduce(a, b, n / 8, MPI_DOUBLE, MPI_SUM, 0, w); break;
    case REDUCE_SCATTER:
        for (int i = 0; i < np; i++)
            shares[i] = n / 8 / np + (i < n / 8 % np);
        MPI_Reduce_scatter(a, b, shares, MPI_DOUBLE, MPI_SUM, w);
        break;
    case REDUCE_SCATTER_BLOCK:
        MPI_Reduce_scatter_block(a, b, n / 8 / np, MPI_DOUBLE, MPI_SUM, w);
        break;
    case SCAN: MPI_Scan(a, b, n / 8, MPI_DOUBLE, MPI_SUM, w); break;
    case EXSCAN: MPI_Exscan(a, b, n / 8, MPI_DOUBLE, MPI_SUM, w); break;
    case IBARRIER: MPI_Ibarrier(w, &r); break;
    case IBCAST: MPI_Ibcast(a, n, MPI_BYTE, 0, w, &r); break;
    case IREDUCE: MPI_Ireduce(a, b, n / 8, MPI_DOUBLE, MPI_SUM, 0, w, &r); break;
    case IALLREDUCE: MPI_Iallreduce(a, b, n / 8, MPI_DOUBLE, MPI_SUM, w, &r); break;
    case IALLGATHER: MPI_Iallgather(a, n, MPI_BYTE, b, n, MPI_BYTE, w, &r); break;
    }
    if (op >= IBARRIER)
        MPI_Wait(&r, MPI_STATUS_IGNORE);
}


static int op_is(const char *op, const char *list)
{
    size_t n = strlen(op);
    for (const char *p = strstr(list, op); p; p = strstr(p + 1, op))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

static int iters_for(size_t size, int scale)
{
    int it = size <= 1024 ? 1000 : size <= 65536 ? 200 : 20;
    it = it * scale / 100;
    return it < 3 ? 3 : it;
}

/* The count whose loop lasts about ms milliseconds, from the slowest rank's
 * time of `it` calls (after the warm-up), which every rank agrees on; a loop
 * shorter than a tenth of ms is too short to scale from, so it grows to
 * about that first. At most 1e8 calls. */
static int iters_for_time(int op, size_t size, char *a, char *b, int it, double ms)
{
    double s = ms * 1e-3;
    for (int step = 0;; step++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < it; i++)
            run(op, size, a, b);
        double t = MPI_Wtime() - t0, tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (tmax >= s)
            return it;
        double f = tmax >= s / 10 || step == 3 ? s / tmax : tmax > 0 ? s / 10 / tmax * 1.2 : 1000;
        double n = it * (f > 1000 ? 1000 : f);
        it = n >= 1e8 ? 100000000 : (int)n + 1;
        if (tmax >= s / 10 || step == 3 || it == 100000000)
            return it;
    }
}

int main(int argc, char **argv)
{
    const char *ops = "barrier,bcast,gather,scatter,allgather,alltoall,allreduce,reduce,"
                      "reduce_scatter";
    const char *label = NULL, *csv = NULL, *list = NULL;
    size_t lo = 1, hi = 1 << 20, blockcap = 0;
    int scale = 100, fixed = 0;
    double minms = 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) ops = argv[++i];
        else if (!strcmp(argv[i], "-m") && i + 1 < argc) lo = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "-M") && i + 1 < argc) hi = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "-S") && i + 1 < argc) list = argv[++i];
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) fixed = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) scale = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) minms = atof(argv[++i]);
        else if (!strcmp(argv[i], "-l") && i + 1 < argc) label = argv[++i];
        else if (!strcmp(argv[i], "-c") && i + 1 < argc) csv = argv[++i];
        else if (!strcmp(argv[i], "-C") && i + 1 < argc) blockcap = strtoul(argv[++i], NULL, 0);
        else {
            if (me == 0)
                fprintf(stderr, "usage: %s [-o ops] [-m min] [-M max] [-S sizes] [-i iters] [-s scale%%] "
                        "[-t ms] [-C cap] [-l label] [-c csv]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (!label)
        label = bench_mpi_label();
    int nodes = bench_nodes(MPI_COMM_WORLD);
    FILE *out = NULL;
    if (me == 0 && csv) {
        out = fopen(csv, "a");
        if (out && ftell(out) == 0)
            fprintf(out, "mpi,op,algorithm,ranks,nodes,bytes,iters,min_us,avg_us,max_us\n");
    }
    if (me == 0)
        printf("# %s, %d ranks, %d node(s)\n%-8s %-10s %-18s %9s %7s %11s %11s %11s\n", label,
               np, nodes, "mpi", "op", "algorithm", "bytes", "iters", "min(us)", "avg(us)",
               "max(us)");
    size_t sizes[64];
    int nsizes = 0;
    if (list) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", list);
        for (char *t = strtok(buf, ","); t && nsizes < 64; t = strtok(NULL, ","))
            sizes[nsizes++] = strtoul(t, NULL, 0);
    } else
        for (size_t size = lo; size <= hi && nsizes < 64; size = size ? size * 2 : 1)
            sizes[nsizes++] = size;   /* 0, 1, 2, 4, ... */
    hi = 0;
    for (int k = 0; k < nsizes; k++)
        hi = sizes[k] > hi ? sizes[k] : hi;
    shares = malloc(sizeof(int) * (size_t)np);
    size_t cap = (hi ? hi : 1) * (size_t)np;
    if (blockcap && cap > blockcap)
        cap = blockcap > hi ? blockcap : hi;
    char *a = malloc(cap), *b = malloc(cap);
    memset(a, 1, cap);
    memset(b, 0, cap);
    double *all = malloc(sizeof(double) * (size_t)np);
    char opsbuf[256];
    snprintf(opsbuf, sizeof opsbuf, "%s", ops);
    for (char *op = strtok(opsbuf, ","); op; op = strtok(NULL, ",")) {
        int opi = -1;
        for (int k = 0; k < (int)(sizeof known_ops / sizeof known_ops[0]); k++)
            if (!strcmp(op, known_ops[k]))
                opi = k;
        if (opi < 0) {
            if (me == 0)
                fprintf(stderr, "%s: unknown operation %s\n", argv[0], op);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        char var[64] = "CLUMPI_COLL_";
        for (size_t k = 0; op[k] && k < 40; k++)
            var[12 + k] = (char)toupper((unsigned char)op[k]);
        const char *algo = getenv(var);
        if (!algo || !*algo)
            algo = "default";
        int isred = op_is(op, "allreduce reduce reduce_scatter reduce_scatter_block scan exscan "
                              "ireduce iallreduce");
        int isblock = op_is(op, "gather scatter allgather alltoall iallgather");
        int nobytes = op_is(op, "barrier ibarrier");
        for (int k = 0; k < nsizes; k++) {
            size_t size = sizes[k];
            if (isred && size < 8)
                continue;
            if (opi == REDUCE_SCATTER_BLOCK && size / 8 < (size_t)np)
                continue;
            if (isblock ? size * (size_t)np > cap : size > cap)
                continue;
            if (nobytes && k > 0)
                break;
            int it = fixed ? fixed : iters_for(size, scale);
            for (int i = 0; i < it / 10 + 1; i++)     /* warm up */
                run(opi, size, a, b);
            if (!fixed && minms > 0)
                it = iters_for_time(opi, size, a, b, it, minms);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < it; i++)
                run(opi, size, a, b);
            double us = (MPI_Wtime() - t0) / it * 1e6;
            MPI_Gather(&us, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (me == 0) {
                double mn = all[0], mx = all[0], sum = 0;
                for (int i = 0; i < np; i++) {
                    mn = all[i] < mn ? all[i] : mn;
                    mx = all[i] > mx ? all[i] : mx;
                    sum += all[i];
                }
                size_t bytes = nobytes ? 0 : size;
                printf("%-8s %-10s %-18s %9zu %7d %11.2f %11.2f %11.2f\n", label, op, algo,
                       bytes, it, mn, sum / np, mx);
                if (out)
                    fprintf(out, "%s,%s,%s,%d,%d,%zu,%d,%.3f,%.3f,%.3f\n", label, op, algo, np,
                            nodes, bytes, it, mn, sum / np, mx);
                fflush(stdout);
            }
        }
    }
    if (out)
        fclose(out);
    free(a);
    free(b);
    free(all);
    free(shares);
    MPI_Finalize();
    return 0;
}
