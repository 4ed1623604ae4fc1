/*
 * topo.h — what the topology files (topo.c: Cartesian; topo_graph.c:
 * MPI_Graph_create's graphs; topo_dist.c: distributed graphs) and the
 * neighborhood collectives share. The data hangs off mpir_comm.topo and is
 * copied by Comm_dup.
 */
#ifndef MPIR_TOPO_H
#define MPIR_TOPO_H

#include "src/core.h"

struct mpir_topo {
    int  kind;            /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* Cartesian */
    int  ndims;
    int *dims, *periods;
    /* graph: every member holds the whole graph as given */
    int  nnodes, nedges;
    int *index, *edges;
    int  symmetric;       /* each pair joined as often in both directions */
    /* distributed graph */
    int  indeg, outdeg, weighted;
    int *src, *srcw, *dst, *dstw;
};

/* A topology of the given kind with every array empty (NULL). */
mpir_topo *mpir_topo_new(int kind);

/* Copies n ints into a new array at *dst; n == 0 leaves NULL. Returns 0, or
 * -1 when memory ran out. */
int mpir_topo_ints(int **dst, const int *src, int n);

/* Builds the communicator of a new topology over the first n ranks of c
 * (collective over c; ranks from n on get MPI_COMM_NULL) and attaches t and a
 * copy of info. t belongs to this function from the call on. A member whose
 * t is NULL (out of memory) still takes part, so the others do not hang, and
 * then fails. Errors go through comm_old's handler. */
int mpir_topo_comm(const char *fn, MPI_Comm comm_old, mpir_comm *c, int n, mpir_topo *t,
                   MPI_Info info, MPI_Comm *out);

/* Agreement on the argument checks of a topology's creation, so that bad
 * arguments on one rank fail every rank instead of leaving the others
 * waiting. Each rank contributes one int: the class of its argument error
 * (low 8 bits, 0 when none) and, for distributed graphs, how it gave its
 * weights. */
enum { MPIR_TOPO_UNWEIGHTED = 1 << 8, MPIR_TOPO_WEIGHTS = 1 << 9 };

/* The verdict on the ints of all p ranks, flags[r * stride], the same on
 * every rank: myrc when this rank's arguments were bad; else an error of the
 * first bad rank's class; else MPI_ERR_ARG when some rank gave MPI_UNWEIGHTED
 * and another weights; else MPI_SUCCESS, with *weighted (when not NULL) set
 * when no rank gave MPI_UNWEIGHTED. Errors are not yet given to a handler. */
int mpir_topo_verdict(const char *fn, const int *flags, int stride, int p, int myrc,
                      int *weighted);

/* Allgathers the ints over c and returns mpir_topo_verdict's. */
int mpir_topo_agree(const char *fn, mpir_comm *c, int myrc, int bits, int *weighted);

/* What MPI_Cart_map and MPI_Graph_map return for a topology of n nodes
 * (n already checked): the identity mapping (see topo.c), MPI_UNDEFINED from
 * n on. MPI_ERR_ARG through comm's handler when newrank is NULL. */
int mpir_topo_map(const char *fn, MPI_Comm comm, const mpir_comm *c, int n, int *newrank);

/* For the neighborhood collectives: whether comm's MPI_GRAPH topology
 * joins every pair of nodes equally often both ways (MPI-3.1 7.6 allows them
 * on such graphs only). */
int mpir_topo_graph_symmetric(const mpir_comm *c);

#define MPIR_ARG_ERR(fn, comm, ...) \
    mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, __VA_ARGS__))

/* The communicator behind comm, with a topology of the given kind, or return
 * MPI_ERR_TOPOLOGY through comm's handler. */
#define MPIR_GET_TOPO(fn, comm, c, k, what)                                    \
    do {                                                                      \
        MPIR_GET_COMM(fn, comm, c);                                           \
        if (!(c)->topo || (c)->topo->kind != (k))                             \
            return mpir_err_comm(comm, mpir_err(MPI_ERR_TOPOLOGY, fn,         \
                                   "communicator has no %s topology", what)); \
    } while (0)

#endif
