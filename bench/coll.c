/*
 * coll.c — collective latency benchmark (standard MPI only: it builds with
 * any mpicc). For each operation and message size it times a loop of calls
 * and prints the per-call latency, min/avg/max over ranks, as a table on
 * stdout and as CSV (-c FILE, appended).
 *
 * usage: coll [-o op,op,...] [-m MIN] [-M MAX] [-S SIZE,SIZE,...] [-i ITERS]
 *             [-l LABEL] [-c FILE]
 *   ops: barrier bcast gather scatter allgather alltoall allreduce reduce
 *        reduce_scatter (default: all); sizes in bytes, powers of two from
 *        MIN (1) to MAX (1 MiB), or the list of -S: the whole buffer for
 *        bcast, reduce, allreduce and reduce_scatter (each rank gets its
 *        share), one rank's block for the others. Reductions sum doubles
 *        (sizes < 8 skipped).
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

static void run(const char *op, size_t size, char *a, char *b)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int n = (int)size;
    if (!strcmp(op, "barrier"))
        MPI_Barrier(w);
    else if (!strcmp(op, "bcast"))
        MPI_Bcast(a, n, MPI_BYTE, 0, w);
    else if (!strcmp(op, "gather"))
        MPI_Gather(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, w);
    else if (!strcmp(op, "scatter"))
        MPI_Scatter(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, w);
    else if (!strcmp(op, "allgather"))
        MPI_Allgather(a, n, MPI_BYTE, b, n, MPI_BYTE, w);
    else if (!strcmp(op, "alltoall"))
        MPI_Alltoall(a, n, MPI_BYTE, b, n, MPI_BYTE, w);
    else if (!strcmp(op, "allreduce"))
        MPI_Allreduce(a, b, n / 8, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(op, "reduce"))
        MPI_Reduce(a, b, n / 8, MPI_DOUBLE, MPI_SUM, 0, w);
    else if (!strcmp(op, "reduce_scatter")) {
        for (int i = 0; i < np; i++)
            shares[i] = n / 8 / np + (i < n / 8 % np);
        MPI_Reduce_scatter(a, b, shares, MPI_DOUBLE, MPI_SUM, w);
    }
}

static int iters_for(size_t size, int scale)
{
    int it = size <= 1024 ? 1000 : size <= 65536 ? 200 : 20;
    it = it * scale / 100;
    return it < 3 ? 3 : it;
}

int main(int argc, char **argv)
{
    const char *ops = "barrier,bcast,gather,scatter,allgather,alltoall,allreduce,reduce,"
                      "reduce_scatter";
    const char *label = NULL, *csv = NULL, *list = NULL;
    size_t lo = 1, hi = 1 << 20;
    int scale = 100, fixed = 0;
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
        else if (!strcmp(argv[i], "-l") && i + 1 < argc) label = argv[++i];
        else if (!strcmp(argv[i], "-c") && i + 1 < argc) csv = argv[++i];
        else {
            if (me == 0)
                fprintf(stderr, "usage: %s [-o ops] [-m min] [-M max] [-S sizes] [-i iters] [-s scale%%] "
                        "[-l label] [-c csv]\n", argv[0]);
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
    char *a = malloc(cap), *b = malloc(cap);
    memset(a, 1, cap);
    memset(b, 0, cap);
    double *all = malloc(sizeof(double) * (size_t)np);
    char opsbuf[256];
    snprintf(opsbuf, sizeof opsbuf, "%s", ops);
    for (char *op = strtok(opsbuf, ","); op; op = strtok(NULL, ",")) {
        char var[64] = "CLUMPI_COLL_";
        for (size_t k = 0; op[k] && k < 40; k++)
            var[12 + k] = (char)toupper((unsigned char)op[k]);
        const char *algo = getenv(var);
        if (!algo || !*algo)
            algo = "default";
        int isred = !strcmp(op, "allreduce") || !strcmp(op, "reduce") ||
                    !strcmp(op, "reduce_scatter");
        for (int k = 0; k < nsizes; k++) {
            size_t size = sizes[k];
            if (isred && size < 8)
                continue;
            if (!strcmp(op, "barrier") && k > 0)
                break;
            int it = fixed ? fixed : iters_for(size, scale);
            for (int i = 0; i < it / 10 + 1; i++)     /* warm up */
                run(op, size, a, b);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < it; i++)
                run(op, size, a, b);
            double us = (MPI_Wtime() - t0) / it * 1e6;
            MPI_Gather(&us, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (me == 0) {
                double mn = all[0], mx = all[0], sum = 0;
                for (int i = 0; i < np; i++) {
                    mn = all[i] < mn ? all[i] : mn;
                    mx = all[i] > mx ? all[i] : mx;
                    sum += all[i];
                }
                size_t bytes = !strcmp(op, "barrier") ? 0 : size;
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
