/*
 * coll_tune.c — every algorithm of a collective operation timed against the
 * others, interleaved, for the selection table (bench/coll_tune.sh writes
 * the table from its CSV). Standard MPI only: an algorithm is chosen by
 * writing the MPI_T control variable CLUMPI_COLL_<OP>, which clumpi reads
 * again before its next call; an MPI without it runs its own default.
 *
 * usage: coll_tune -o OP:ALGO,ALGO,... [-o ...] [-m MIN] [-M MAX] [-f FACTOR]
 *                  [-r ROUNDS] [-t MS] [-C CAP] [-c CSV]
 * Sizes go MIN, MIN*FACTOR, ... up to MAX (default 1, 4, ... 4 MiB): the
 * whole buffer of bcast and the reductions (doubles summed; sizes below 8
 * count as 8), one rank's block of gather, scatter, allgather, alltoall and
 * reduce_scatter(_block). Blocks stop where all ranks' blocks pass CAP bytes
 * (default 16 MiB). For each size, ROUNDS rounds (default 5) run every
 * algorithm once, in an order rotated each round, for about MS milliseconds
 * (default 4; the iteration count is fixed by a first timed call). A time is
 * the slowest rank's mean per call; each algorithm's CSV row has the
 * minimum and the median over the rounds, and `bytes` is the size the
 * library selects by (the whole result of allgather, the whole input of
 * reduce_scatter, else as above).
 * CSV (appended; header when the file is new):
 *   op,ranks,nodes,bytes,algorithm,iters,min_us,median_us
 */
#include <mpi.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

#define MAX_OPS 32
#define MAX_ALGOS 16

static int me, np;

enum kind { WHOLE, BLOCK, GATHERED };   /* what the size is, what the library keys on */

static const struct opdef {
    const char *name;
    int reduction;
    enum kind kind;
} opdefs[] = {
    { "barrier", 0, WHOLE }, { "bcast", 0, WHOLE }, { "gather", 0, BLOCK },
    { "scatter", 0, BLOCK }, { "allgather", 0, GATHERED }, { "alltoall", 0, BLOCK },
    { "reduce", 1, WHOLE }, { "allreduce", 1, WHOLE }, { "reduce_scatter", 1, GATHERED },
    { "reduce_scatter_block", 1, GATHERED }, { "scan", 1, WHOLE }, { "exscan", 1, WHOLE },
    { "ibarrier", 0, WHOLE }, { "ibcast", 0, WHOLE }, { "ireduce", 1, WHOLE },
    { "iallreduce", 1, WHOLE }, { "iallgather", 0, GATHERED },
};

struct op {
    const struct opdef *def;
    char *spec;               /* the -o argument, holding the names */
    int nalgos;
    char *algos[MAX_ALGOS];
    MPI_T_cvar_handle cvar;   /* NULL: not clumpi */
};

static void run(const char *op, size_t size, char *a, char *b, int *counts)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request r;
    int n = (int)size, d = (int)(size / 8);
    if (!strcmp(op, "barrier")) MPI_Barrier(w);
    else if (!strcmp(op, "bcast")) MPI_Bcast(a, n, MPI_BYTE, 0, w);
    else if (!strcmp(op, "gather")) MPI_Gather(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, w);
    else if (!strcmp(op, "scatter")) MPI_Scatter(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, w);
    else if (!strcmp(op, "allgather")) MPI_Allgather(a, n, MPI_BYTE, b, n, MPI_BYTE, w);
    else if (!strcmp(op, "alltoall")) MPI_Alltoall(a, n, MPI_BYTE, b, n, MPI_BYTE, w);
    else if (!strcmp(op, "reduce")) MPI_Reduce(a, b, d, MPI_DOUBLE, MPI_SUM, 0, w);
    else if (!strcmp(op, "allreduce")) MPI_Allreduce(a, b, d, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(op, "reduce_scatter"))
        MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(op, "reduce_scatter_block"))
        MPI_Reduce_scatter_block(a, b, d, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(op, "scan")) MPI_Scan(a, b, d, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(op, "exscan")) MPI_Exscan(a, b, d, MPI_DOUBLE, MPI_SUM, w);
    else {
        if (!strcmp(op, "ibarrier")) MPI_Ibarrier(w, &r);
        else if (!strcmp(op, "ibcast")) MPI_Ibcast(a, n, MPI_BYTE, 0, w, &r);
        else if (!strcmp(op, "ireduce")) MPI_Ireduce(a, b, d, MPI_DOUBLE, MPI_SUM, 0, w, &r);
        else if (!strcmp(op, "iallreduce")) MPI_Iallreduce(a, b, d, MPI_DOUBLE, MPI_SUM, w, &r);
        else MPI_Iallgather(a, n, MPI_BYTE, b, n, MPI_BYTE, w, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
}

/* The slowest rank's mean time per call of iters calls, in microseconds. */
static double timed(const char *op, size_t size, int iters, char *a, char *b, int *counts)
{
    run(op, size, a, b, counts);   /* warm up: connections, work buffers */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        run(op, size, a, b, counts);
    double us = (MPI_Wtime() - t0) / iters * 1e6, worst;
    MPI_Allreduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static void choose(struct op *o, const char *algo)
{
    if (o->cvar && MPI_T_cvar_write(o->cvar, strcmp(algo, "default") ? algo : "") !=
                   MPI_SUCCESS) {
        if (me == 0)
            fprintf(stderr, "coll_tune: cannot choose %s %s\n", o->def->name, algo);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int usage(const char *prog)
{
    if (me == 0)
        fprintf(stderr, "usage: %s -o OP:ALGO,ALGO,... [-o ...] [-m MIN] [-M MAX] [-f FACTOR] "
                "[-r ROUNDS] [-t MS] [-C CAP] [-c CSV]\n", prog);
    MPI_Finalize();
    return 2;
}

int main(int argc, char **argv)
{
    struct op ops[MAX_OPS];
    int nops = 0, rounds = 5, factor = 4;
    size_t lo = 1, hi = 4 << 20, cap = 16 << 20;
    double target_ms = 4;
    const char *csv = NULL;
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage(argv[0]);
        if (!strcmp(argv[i], "-o") && nops < MAX_OPS) {
            struct op *o = &ops[nops];
            char *spec = o->spec = strdup(v), *colon = strchr(spec, ':');
            if (colon)
                *colon = 0;
            o->def = NULL;
            for (size_t k = 0; k < sizeof opdefs / sizeof opdefs[0]; k++)
                if (!strcmp(opdefs[k].name, spec))
                    o->def = &opdefs[k];
            if (!o->def) {
                if (me == 0)
                    fprintf(stderr, "coll_tune: unknown operation %s\n", spec);
                free(spec);
                return usage(argv[0]);
            }
            o->nalgos = 0;
            for (char *s = colon ? strtok(colon + 1, ",") : NULL; s && o->nalgos < MAX_ALGOS;
                 s = strtok(NULL, ","))
                o->algos[o->nalgos++] = s;
            if (!o->nalgos)
                o->algos[o->nalgos++] = "default";
            char var[64] = "CLUMPI_COLL_";
            for (size_t k = 0; spec[k] && k < 40; k++)
                var[12 + k] = (char)toupper((unsigned char)spec[k]);
            var[12 + strlen(spec)] = 0;
            int idx, count;
            o->cvar = NULL;
            if (MPI_T_cvar_get_index(var, &idx) == MPI_SUCCESS &&
                MPI_T_cvar_handle_alloc(idx, NULL, &o->cvar, &count) != MPI_SUCCESS)
                o->cvar = NULL;
            nops++;
        } else if (!strcmp(argv[i], "-m")) lo = strtoul(v, NULL, 0);
        else if (!strcmp(argv[i], "-M")) hi = strtoul(v, NULL, 0);
        else if (!strcmp(argv[i], "-f")) factor = atoi(v);
        else if (!strcmp(argv[i], "-r")) rounds = atoi(v);
        else if (!strcmp(argv[i], "-t")) target_ms = atof(v);
        else if (!strcmp(argv[i], "-C")) cap = strtoul(v, NULL, 0);
        else if (!strcmp(argv[i], "-c")) csv = v;
        else return usage(argv[0]);
        i++;
    }
    if (!nops || factor < 2 || rounds < 1 || rounds > 64 || hi < lo)
        return usage(argv[0]);
    int nodes = bench_nodes(MPI_COMM_WORLD);
    FILE *out = NULL;
    if (me == 0 && csv) {
        if (!(out = fopen(csv, "a"))) {
            perror(csv);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (ftell(out) == 0)
            fprintf(out, "op,ranks,nodes,bytes,algorithm,iters,min_us,median_us\n");
    }
    size_t bufsz = (hi > cap ? hi : cap) + (size_t)np * 8;
    char *a = malloc(bufsz), *b = malloc(bufsz);
    int *counts = malloc(sizeof(int) * (size_t)np);
    if (!a || !b || !counts)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(a, 1, bufsz);
    memset(b, 0, bufsz);
    for (int k = 0; k < nops; k++) {
        struct op *o = &ops[k];
        const char *op = o->def->name;
        size_t prev = 0;
        for (size_t size = lo; size <= hi; size = size ? size * (size_t)factor : 1) {
            size_t sz = o->def->reduction && size < 8 ? 8 : size;
            if (!strncmp(op, "barrier", 7) || !strcmp(op, "ibarrier"))
                sz = 0;
            if (sz == prev && size != lo)
                continue;   /* several sizes rounded to one */
            prev = sz;
            if (o->def->kind != WHOLE && sz * (size_t)np > cap)
                break;
            if (sz > cap)
                break;
            for (int i = 0; i < np; i++)
                counts[i] = (int)(sz / 8);
            size_t key = o->def->kind == GATHERED ? sz * (size_t)np : sz;
            double t[MAX_ALGOS][64];
            int iters[MAX_ALGOS];
            for (int r = 0; r < rounds; r++)
                for (int j = 0; j < o->nalgos; j++) {
                    int x = (j + r) % o->nalgos;
                    choose(o, o->algos[x]);
                    if (r == 0) {
                        double one = timed(op, sz, 1, a, b, counts);
                        double n = target_ms * 1e3 / (one > 0.01 ? one : 0.01);
                        iters[x] = n < 1 ? 1 : n > 2000 ? 2000 : (int)n;
                    }
                    t[x][r] = timed(op, sz, iters[x], a, b, counts);
                }
            for (int x = 0; x < o->nalgos && me == 0; x++) {
                qsort(t[x], (size_t)rounds, sizeof(double), cmp_double);
                double med = rounds % 2 ? t[x][rounds / 2]
                                        : (t[x][rounds / 2 - 1] + t[x][rounds / 2]) / 2;
                printf("%-20s %3d ranks %d node%s %9zu B %-18s %6d iters  min %10.2f  "
                       "median %10.2f us\n", op, np, nodes, nodes > 1 ? "s" : "", key,
                       o->algos[x], iters[x], t[x][0], med);
                if (out)
                    fprintf(out, "%s,%d,%d,%zu,%s,%d,%.3f,%.3f\n", op, np, nodes, key,
                            o->algos[x], iters[x], t[x][0], med);
            }
            if (out)
                fflush(out);
            fflush(stdout);
            if (sz == 0)
                break;
        }
        choose(o, "default");
    }
    if (out)
        fclose(out);
    free(a);
    free(b);
    free(counts);
    for (int k = 0; k < nops; k++) {
        if (ops[k].cvar)
            MPI_T_cvar_handle_free(&ops[k].cvar);
        free(ops[k].spec);
    }
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
