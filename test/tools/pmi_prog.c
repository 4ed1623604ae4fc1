/*
 * pmi_prog.c — a rank that speaks PMI through src/util/pmi.c only, for the
 * launcher tests (the MPI library is not needed). By default: init, put a
 * key, barrier, read every rank's key, check the node map, finalize.
 *
 *   --crash R         rank R kills itself with SIGSEGV before the barrier
 *   --abort R CODE    rank R calls cu_pmi_abort(CODE) before the barrier
 *   --exit R CODE     rank R exits with CODE (no finalize) before the barrier
 *   --nofinalize R    rank R exits 0 after the barrier without finalize
 *   --sleep S         every rank sleeps S seconds before finalize
 *   --stdin           rank 0 echoes its stdin as "stdin: <line>"
 *   --env NAME        every rank prints "env NAME=<value>"
 *   --lines N         every rank prints N lines
 *   --partial         every rank writes "part" then, later, "ial\n"
 *   --quiet           no "ok" line
 */
#include "config.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/util/pmi.h"

static int rank, size;

static void die(const char *what)
{
    fprintf(stderr, "pmi_prog[%d]: %s failed\n", rank, what);
    exit(3);
}

int main(int argc, char **argv)
{
    int crash = -1, abort_rank = -1, abort_code = 0, exit_rank = -1, exit_code = 0;
    int nofin = -1, do_stdin = 0, lines = 0, quiet = 0, partial = 0;
    double sleep_s = 0;
    const char *envname = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--crash") && i + 1 < argc)
            crash = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--abort") && i + 2 < argc) {
            abort_rank = atoi(argv[++i]);
            abort_code = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--exit") && i + 2 < argc) {
            exit_rank = atoi(argv[++i]);
            exit_code = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--nofinalize") && i + 1 < argc)
            nofin = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sleep") && i + 1 < argc)
            sleep_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--stdin"))
            do_stdin = 1;
        else if (!strcmp(argv[i], "--env") && i + 1 < argc)
            envname = argv[++i];
        else if (!strcmp(argv[i], "--lines") && i + 1 < argc)
            lines = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--partial"))
            partial = 1;
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else {
            fprintf(stderr, "pmi_prog: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    int appnum;
    if (cu_pmi_init(&rank, &size, &appnum) < 0)
        die("cu_pmi_init");
    if (envname) {
        const char *v = getenv(envname);
        printf("env %s=%s\n", envname, v ? v : "(unset)");
    }
    for (int i = 0; i < lines; i++)
        printf("rank %d line %d\n", rank, i);
    if (partial) {
        printf("part");
        fflush(stdout);
        usleep(200000);
        printf("ial\n");
    }
    if (rank == crash) {
        signal(SIGSEGV, SIG_DFL);   /* not a sanitizer's report: a plain crash */
        kill(getpid(), SIGSEGV);
    }
    if (rank == abort_rank)
        cu_pmi_abort(abort_code, "pmi_prog: aborting on request");
    if (rank == exit_rank)
        exit(exit_code);

    char key[64], val[CU_PMI_VALLEN_MAX], want[64];
    snprintf(key, sizeof key, "k-%d", rank);
    snprintf(val, sizeof val, "v%d-of-%d", rank, size);
    if (cu_pmi_put(key, val) < 0)
        die("cu_pmi_put");
    if (cu_pmi_barrier() < 0)
        die("cu_pmi_barrier");
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "k-%d", r);
        snprintf(want, sizeof want, "v%d-of-%d", r, size);
        if (cu_pmi_get(key, val, sizeof val) < 0)
            die("cu_pmi_get");
        if (strcmp(val, want) != 0) {
            fprintf(stderr, "pmi_prog[%d]: key %s = '%s', expected '%s'\n", rank, key, val, want);
            return 4;
        }
    }
    int *node_of = malloc((size_t)size * sizeof *node_of);
    int nnodes = cu_pmi_node_map(size, node_of);
    if (nnodes < 1)
        die("cu_pmi_node_map");
    int mynode = node_of[rank];
    free(node_of);

    if (do_stdin && rank == 0) {
        char line[1024];
        while (fgets(line, sizeof line, stdin))
            printf("stdin: %s", line);
    }
    if (rank == nofin)
        exit(0);
    if (sleep_s > 0)
        usleep((useconds_t)(sleep_s * 1e6));
    if (!quiet)
        printf("rank %d of %d ok nodes=%d singleton=%d kvs=%s node=%d\n", rank, size, nnodes,
               cu_pmi_is_singleton(), cu_pmi_kvsname(), mynode);
    if (cu_pmi_finalize() < 0)
        die("cu_pmi_finalize");
    return 0;
}
