/*
 * bench_util.h — small pieces the benchmark programs share (standard MPI
 * only). Header-only on purpose: each benchmark stays one source file that
 * any MPI's mpicc builds with one command (bench/coll_run.sh, ni_run.sh).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* The MPI's short name for the output, from MPI_Get_library_version. */
static inline const char *bench_mpi_label(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len;
    MPI_Get_library_version(lib, &len);
    return strstr(lib, "clumpi") ? "clumpi" : strstr(lib, "Open MPI") ? "openmpi"
         : strstr(lib, "MPICH") ? "mpich" : "mpi";
}

/* Nodes of the job: the shared-memory domains MPI reports. Processor names
 * would count emulated nodes (mpirun --nodes) on one machine as one. */
static inline int bench_nodes(MPI_Comm comm)
{
    MPI_Comm node;
    int lr, lead, nodes = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(node, &lr);
    lead = lr == 0;
    MPI_Allreduce(&lead, &nodes, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_free(&node);
    return nodes;
}

/* The first line of MPI_Get_library_version, for a run's header. */
static inline void bench_library_line(char lib[MPI_MAX_LIBRARY_VERSION_STRING])
{
    int len;
    lib[0] = 0;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
}

/* The command line of the OSU-style programs (pt2pt, progress):
 * [TEST|all] [-s MINBYTES] [-m MAXBYTES] [-i SCALE]; sizes are the powers
 * of two from min to max. The caller sets the defaults first. */
struct bench_args {
    const char *which;
    size_t min, max;
    double scale;
};

static inline void bench_parse_args(int argc, char **argv, struct bench_args *a)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc)
            a->max = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            a->min = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc)
            a->scale = atof(argv[++i]);
        else
            a->which = argv[i];
    }
    if (a->min == 0)
        a->min = 1;
}

#endif
