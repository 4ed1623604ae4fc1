/*
 * topo.c — Cartesian and distributed-graph topologies. The data hangs off
 * mpir_comm.topo and is copied by Comm_dup. Reordering is never done: the
 * shared-memory channel makes all local pairs equally close, so the identity
 * mapping is as good as any (the standard allows ignoring reorder).
 */
#include <stdlib.h>
#include <string.h>
#include "src/core.h"

/* The objects whose addresses are MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY. */
int clumpi_unweighted[1], clumpi_weights_empty[1];

struct mpir_topo {
    int  kind;            /* MPI_CART or MPI_DIST_GRAPH */
    /* Cartesian */
    int  ndims;
    int *dims, *periods;
    /* distributed graph */
    int  indeg, outdeg, weighted;
    int *src, *srcw, *dst, *dstw;
};

static int *dup_ints(const int *a, int n)
{
    int *b = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (b && n > 0)
        memcpy(b, a, (size_t)n * sizeof(int));
    return b;
}

void mpir_topo_free(mpir_topo *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->src);
    free(t->srcw);
    free(t->dst);
    free(t->dstw);
    free(t);
}

mpir_topo *mpir_topo_dup(const mpir_topo *t)
{
    if (!t)
        return NULL;
    mpir_topo *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    *n = *t;
    n->dims = dup_ints(t->dims, t->ndims);
    n->periods = dup_ints(t->periods, t->ndims);
    n->src = dup_ints(t->src, t->indeg);
    n->srcw = dup_ints(t->srcw, t->indeg);
    n->dst = dup_ints(t->dst, t->outdeg);
    n->dstw = dup_ints(t->dstw, t->outdeg);
    if (!n->dims || !n->periods || !n->src || !n->srcw || !n->dst || !n->dstw) {
        mpir_topo_free(n);
        return NULL;
    }
    return n;
}

static mpir_topo *cart_new(int ndims, const int *dims, const int *periods)
{
    mpir_topo *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = dup_ints(dims, ndims);
    t->periods = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
    t->src = dup_ints(NULL, 0);
    t->srcw = dup_ints(NULL, 0);
    t->dst = dup_ints(NULL, 0);
    t->dstw = dup_ints(NULL, 0);
    if (!t->dims || !t->periods || !t->src || !t->srcw || !t->dst || !t->dstw) {
        mpir_topo_free(t);
        return NULL;
    }
    for (int i = 0; i < ndims; i++)
        t->periods[i] = periods[i] != 0;
    return t;
}

/* Row-major: the last dimension varies fastest (the standard's order). */
static void cart_coords(const mpir_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

#define GET_CART(fn, comm, c)                                                  \
    do {                                                                      \
        MPIR_GET_COMM(fn, comm, c);                                           \
        if (!(c)->topo || (c)->topo->kind != MPI_CART)                        \
            return mpir_err_comm(comm, mpir_err(MPI_ERR_TOPOLOGY, fn,         \
                                   "communicator has no Cartesian topology")); \
    } while (0)

#define ARG_ERR(fn, comm, ...) mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, __VA_ARGS__))

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char fn[] = "MPI_Cart_create";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm_old, c);
    if (ndims < 0)
        return mpir_err_comm(comm_old, mpir_err(MPI_ERR_DIMS, fn, "ndims is negative (%d)", ndims));
    if (ndims > 0 && (!dims || !periods))
        return ARG_ERR(fn, comm_old, "%s is NULL", dims ? "periods" : "dims");
    if (!comm_cart)
        return ARG_ERR(fn, comm_old, "comm_cart is NULL");
    long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return mpir_err_comm(comm_old, mpir_err(MPI_ERR_DIMS, fn,
                                                    "dims[%d] = %d is not positive", i, dims[i]));
        n *= dims[i];
        if (n > c->dev.size)
            break;
    }
    if (n > c->dev.size)
        return ARG_ERR(fn, comm_old, "the grid has more points than comm_old has ranks (%d)",
                       c->dev.size);
    mpir_group *g = NULL;
    mpir_topo *t = NULL;
    if (c->dev.rank < n) {
        g = mpir_group_new((int)n, c->group->world_ranks);
        t = cart_new(ndims, dims, periods);
        if (!g || !t) {
            /* Still take part in the collective below, as a non-member,
             * so the other ranks do not hang. */
            mpir_group_release(g);
            mpir_topo_free(t);
            g = NULL;
            t = NULL;
        }
    }
    int member = c->dev.rank < n;
    mpir_comm *nc = NULL;
    int rc = mpir_comm_create_from_group(c, g, &nc);
    mpir_group_release(g);   /* the communicator holds its own reference */
    if (rc != MPI_SUCCESS || (member && !nc)) {
        mpir_topo_free(t);
        if (nc)
            mpir_comm_release(nc);
        return mpir_err_comm(comm_old, mpir_err(rc ? rc : MPI_ERR_NO_MEM, fn,
                                                "could not create the communicator"));
    }
    if (nc) {
        nc->topo = t;
        *comm_cart = nc->handle;
    } else {
        *comm_cart = MPI_COMM_NULL;
    }
    return MPI_SUCCESS;
}
MPIR_WEAK(Cart_create)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char fn[] = "MPI_Cartdim_get";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_CART(fn, comm, c);
    if (!ndims)
        return ARG_ERR(fn, comm, "ndims is NULL");
    *ndims = c->topo->ndims;
    return MPI_SUCCESS;
}
MPIR_WEAK(Cartdim_get)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char fn[] = "MPI_Cart_get";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_CART(fn, comm, c);
    const mpir_topo *t = c->topo;
    if (maxdims < t->ndims)
        return ARG_ERR(fn, comm, "maxdims = %d is less than the %d dimensions", maxdims, t->ndims);
    if (t->ndims > 0 && (!dims || !periods || !coords))
        return ARG_ERR(fn, comm, "%s is NULL", !dims ? "dims" : !periods ? "periods" : "coords");
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    cart_coords(t, c->dev.rank, coords);
    return MPI_SUCCESS;
}
MPIR_WEAK(Cart_get)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char fn[] = "MPI_Cart_rank";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_CART(fn, comm, c);
    const mpir_topo *t = c->topo;
    if (!rank || (t->ndims > 0 && !coords))
        return ARG_ERR(fn, comm, "%s is NULL", rank ? "coords" : "rank");
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], d = t->dims[i];
        if (t->periods[i])
            x = ((x % d) + d) % d;
        else if (x < 0 || x >= d)
            return ARG_ERR(fn, comm, "coords[%d] = %d is outside the non-periodic dimension [0, %d)",
                           i, coords[i], d);
        r = r * d + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}
MPIR_WEAK(Cart_rank)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char fn[] = "MPI_Cart_coords";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_CART(fn, comm, c);
    const mpir_topo *t = c->topo;
    if (rank < 0 || rank >= c->dev.size)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_RANK, fn, "invalid rank %d (comm size %d)",
                                            rank, c->dev.size));
    if (maxdims < t->ndims)
        return ARG_ERR(fn, comm, "maxdims = %d is less than the %d dimensions", maxdims, t->ndims);
    if (t->ndims > 0 && !coords)
        return ARG_ERR(fn, comm, "coords is NULL");
    cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}
MPIR_WEAK(Cart_coords)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char fn[] = "MPI_Cart_shift";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_CART(fn, comm, c);
    const mpir_topo *t = c->topo;
    if (direction < 0 || direction >= t->ndims)
        return ARG_ERR(fn, comm, "direction = %d is not in [0, ndims = %d)", direction, t->ndims);
    if (!rank_source || !rank_dest)
        return ARG_ERR(fn, comm, "%s is NULL", rank_source ? "rank_dest" : "rank_source");
    int coords[t->ndims];
    cart_coords(t, c->dev.rank, coords);
    int d = t->dims[direction], me = coords[direction];
    int out[2];
    for (int k = 0; k < 2; k++) {
        long x = (long)me + (k ? disp : -(long)disp);
        if (t->periods[direction]) {
            x = ((x % d) + d) % d;
        } else if (x < 0 || x >= d) {
            out[k] = MPI_PROC_NULL;
            continue;
        }
        int r = 0;
        for (int i = 0; i < t->ndims; i++)
            r = r * t->dims[i] + (i == direction ? (int)x : coords[i]);
        out[k] = r;
    }
    *rank_source = out[0];
    *rank_dest = out[1];
    return MPI_SUCCESS;
}
MPIR_WEAK(Cart_shift)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Cart_sub";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_CART(fn, comm, c);
    const mpir_topo *t = c->topo;
    if ((t->ndims > 0 && !remain_dims) || !newcomm)
        return ARG_ERR(fn, comm, "%s is NULL", newcomm ? "remain_dims" : "newcomm");
    int coords[t->ndims + 1], kdims[t->ndims + 1], kper[t->ndims + 1];
    cart_coords(t, c->dev.rank, coords);
    /* Ranks that agree on the dropped coordinates share a communicator;
     * their order in it is the row-major order of the kept ones. */
    int color = 0, key = 0, nk = 0;
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + coords[i];
            kdims[nk] = t->dims[i];
            kper[nk++] = t->periods[i];
        } else {
            color = color * t->dims[i] + coords[i];
        }
    }
    mpir_topo *nt = cart_new(nk, kdims, kper);
    mpir_comm *nc = NULL;
    int rc = mpir_comm_split(c, color, key, &nc);
    if (rc != MPI_SUCCESS || !nt) {
        mpir_topo_free(nt);
        if (nc)
            mpir_comm_release(nc);
        return mpir_err_comm(comm, mpir_err(rc ? rc : MPI_ERR_NO_MEM, fn,
                                            "could not create the communicator"));
    }
    nc->topo = nt;
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}
MPIR_WEAK(Cart_sub)

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char fn[] = "MPI_Topo_test";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!status)
        return ARG_ERR(fn, comm, "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
MPIR_WEAK(Topo_test)

/* ---- distributed graphs ------------------------------------------------------------ */

static int check_adj(const char *fn, MPI_Comm comm, int size, const char *what, int deg,
                     const int *ranks, const int *w, int weighted)
{
    if (deg < 0)
        return ARG_ERR(fn, comm, "%s degree is negative (%d)", what, deg);
    if (deg > 0 && !ranks)
        return ARG_ERR(fn, comm, "%s list is NULL", what);
    for (int i = 0; i < deg; i++)
        if (ranks[i] < 0 || ranks[i] >= size)
            return mpir_err_comm(comm, mpir_err(MPI_ERR_RANK, fn, "%s[%d] = %d is not a rank (comm size %d)",
                                                what, i, ranks[i], size));
    if (weighted && deg > 0) {
        if (!w || w == MPI_WEIGHTS_EMPTY)
            return ARG_ERR(fn, comm, "%s weights missing for degree %d", what, deg);
        for (int i = 0; i < deg; i++)
            if (w[i] < 0)
                return ARG_ERR(fn, comm, "%s weight [%d] is negative (%d)", what, i, w[i]);
    }
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm_old, c);
    if (!comm_dist_graph)
        return ARG_ERR(fn, comm_old, "comm_dist_graph is NULL");
    if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED))
        return ARG_ERR(fn, comm_old, "MPI_UNWEIGHTED given for only one of the weight lists");
    int weighted = sourceweights != MPI_UNWEIGHTED;
    int rc = check_adj(fn, comm_old, c->dev.size, "sources", indegree, sources, sourceweights, weighted);
    if (rc)
        return rc;
    rc = check_adj(fn, comm_old, c->dev.size, "destinations", outdegree, destinations, destweights,
                   weighted);
    if (rc)
        return rc;
    if (info != MPI_INFO_NULL && !mpir_handle_get(&mpir_infos, info))
        return mpir_err_comm(comm_old, mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x)", (unsigned)info));
    mpir_topo *t = calloc(1, sizeof *t);
    if (t) {
        t->kind = MPI_DIST_GRAPH;
        t->indeg = indegree;
        t->outdeg = outdegree;
        t->weighted = weighted;
        t->dims = dup_ints(NULL, 0);
        t->periods = dup_ints(NULL, 0);
        t->src = dup_ints(sources, indegree);
        t->dst = dup_ints(destinations, outdegree);
        t->srcw = dup_ints(weighted ? sourceweights : NULL, weighted ? indegree : 0);
        t->dstw = dup_ints(weighted ? destweights : NULL, weighted ? outdegree : 0);
        if (!t->dims || !t->periods || !t->src || !t->dst || !t->srcw || !t->dstw) {
            mpir_topo_free(t);
            t = NULL;
        }
    }
    /* Collective even when memory ran out here, so the others do not hang. */
    mpir_comm *nc = NULL;
    rc = mpir_comm_create_from_group(c, c->group, &nc);
    if (rc != MPI_SUCCESS || !t || !nc) {
        mpir_topo_free(t);
        if (nc)
            mpir_comm_release(nc);
        return mpir_err_comm(comm_old, mpir_err(rc ? rc : MPI_ERR_NO_MEM, fn,
                                                "could not create the communicator"));
    }
    nc->topo = t;
    mpir_info_dup(info, &nc->info);
    *comm_dist_graph = nc->handle;
    return MPI_SUCCESS;
}
MPIR_WEAK(Dist_graph_create_adjacent)

#define GET_DIST(fn, comm, c)                                                  \
    do {                                                                      \
        MPIR_GET_COMM(fn, comm, c);                                           \
        if (!(c)->topo || (c)->topo->kind != MPI_DIST_GRAPH)                  \
            return mpir_err_comm(comm, mpir_err(MPI_ERR_TOPOLOGY, fn,         \
                                   "communicator has no distributed graph topology")); \
    } while (0)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char fn[] = "MPI_Dist_graph_neighbors_count";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_DIST(fn, comm, c);
    if (!indegree || !outdegree || !weighted)
        return ARG_ERR(fn, comm, "%s is NULL",
                       !indegree ? "indegree" : !outdegree ? "outdegree" : "weighted");
    *indegree = c->topo->indeg;
    *outdegree = c->topo->outdeg;
    *weighted = c->topo->weighted;
    return MPI_SUCCESS;
}
MPIR_WEAK(Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    static const char fn[] = "MPI_Dist_graph_neighbors";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_DIST(fn, comm, c);
    const mpir_topo *t = c->topo;
    if (maxindegree < t->indeg || maxoutdegree < t->outdeg)
        return ARG_ERR(fn, comm, "maxindegree/maxoutdegree (%d/%d) below the degrees (%d/%d)",
                       maxindegree, maxoutdegree, t->indeg, t->outdeg);
    if ((t->indeg > 0 && !sources) || (t->outdeg > 0 && !destinations))
        return ARG_ERR(fn, comm, "%s is NULL", t->indeg > 0 && !sources ? "sources" : "destinations");
    for (int i = 0; i < t->indeg; i++)
        sources[i] = t->src[i];
    for (int i = 0; i < t->outdeg; i++)
        destinations[i] = t->dst[i];
    /* Weights only when the graph has them and the caller asked. */
    if (t->weighted) {
        if (sourceweights && sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY)
            for (int i = 0; i < t->indeg; i++)
                sourceweights[i] = t->srcw[i];
        if (destweights && destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY)
            for (int i = 0; i < t->outdeg; i++)
                destweights[i] = t->dstw[i];
    }
    return MPI_SUCCESS;
}
MPIR_WEAK(Dist_graph_neighbors)
