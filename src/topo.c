/*
 * topo.c — what every topology shares (creation of the communicator, copy,
 * free, MPI_Topo_test) and the Cartesian topologies. Graphs are in
 * topo_graph.c, distributed graphs in topo_dist.c. Reordering is never done:
 * the shared-memory channel makes all local pairs equally close, so the
 * identity mapping is as good as any (the standard allows ignoring reorder).
 */
#include <stdlib.h>
#include <string.h>
#include "src/topo.h"
#include "coll/coll.h"

mpir_topo *mpir_topo_new(int kind)
{
    mpir_topo *t = calloc(1, sizeof *t);
    if (t)
        t->kind = kind;
    return t;
}

int mpir_topo_ints(int **dst, const int *src, int n)
{
    *dst = NULL;
    if (n <= 0)
        return 0;
    if (!(*dst = malloc((size_t)n * sizeof(int))))
        return -1;
    memcpy(*dst, src, (size_t)n * sizeof(int));
    return 0;
}

void mpir_topo_free(mpir_topo *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
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
    mpir_topo *n = malloc(sizeof *n);
    if (!n)
        return NULL;
    *n = *t;
    int w = t->weighted;
    /* | rather than ||: every array is copied or NULL before a free */
    if (mpir_topo_ints(&n->dims, t->dims, t->ndims)
        | mpir_topo_ints(&n->periods, t->periods, t->ndims)
        | mpir_topo_ints(&n->index, t->index, t->nnodes)
        | mpir_topo_ints(&n->edges, t->edges, t->nedges)
        | mpir_topo_ints(&n->src, t->src, t->indeg)
        | mpir_topo_ints(&n->dst, t->dst, t->outdeg)
        | mpir_topo_ints(&n->srcw, t->srcw, w ? t->indeg : 0)
        | mpir_topo_ints(&n->dstw, t->dstw, w ? t->outdeg : 0)) {
        mpir_topo_free(n);
        return NULL;
    }
    return n;
}

int mpir_topo_comm(const char *fn, MPI_Comm comm_old, mpir_comm *c, int n, mpir_topo *t,
                   MPI_Info info, MPI_Comm *out)
{
    int member = c->dev.rank < n;
    mpir_group *g = NULL;
    if (member && n == c->group->size) {
        g = c->group;
        mpir_group_retain(g);
    } else if (member) {
        g = mpir_group_new(n, c->group->world_ranks);
    }
    /* A member without a group (no memory) joins as a non-member and fails
     * below, after the agreement the others wait for. */
    mpir_comm *nc = NULL;
    MPI_Info ninfo = MPI_INFO_NULL;
    int rc = mpir_comm_create_from_group(c, g, &nc);
    mpir_group_release(g);   /* the communicator holds its own reference */
    if (rc == MPI_SUCCESS && member && (!nc || !t || mpir_info_dup(info, &ninfo) != MPI_SUCCESS))
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS || !nc) {
        mpir_topo_free(t);
        if (nc)
            mpir_comm_release(nc);
        *out = MPI_COMM_NULL;
        return rc == MPI_SUCCESS ? MPI_SUCCESS
               : mpir_err_comm(comm_old, mpir_err(rc, fn, "could not create the communicator"));
    }
    nc->topo = t;
    nc->info = ninfo;
    *out = nc->handle;
    return MPI_SUCCESS;
}

int mpir_topo_verdict(const char *fn, const int *flags, int stride, int p, int myrc,
                      int *weighted)
{
    int bad = -1, unw = -1, w = -1;
    for (int r = p - 1; r >= 0; r--) {
        int f = flags[r * stride];
        bad = f & 0xff ? r : bad;
        unw = f & MPIR_TOPO_UNWEIGHTED ? r : unw;
        w = f & MPIR_TOPO_WEIGHTS ? r : w;
    }
    if (myrc != MPI_SUCCESS)
        return myrc;
    if (bad >= 0)
        return mpir_err(flags[bad * stride] & 0xff, fn,
                        "rank %d of comm_old passed invalid arguments", bad);
    if (unw >= 0 && w >= 0)
        return mpir_err(MPI_ERR_ARG, fn, "rank %d gave MPI_UNWEIGHTED but rank %d gave weights",
                        unw, w);
    if (weighted)
        *weighted = unw < 0;
    return MPI_SUCCESS;
}

int mpir_topo_agree(const char *fn, mpir_comm *c, int myrc, int bits, int *weighted)
{
    int mine = (myrc & 0xff) | bits;
    int *all = malloc((size_t)c->dev.size * sizeof(int));
    if (!all)   /* the others wait in vain: unlike bad arguments, not foreseeable */
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    const cu_dtype *dint = cu_dtype_builtin(MPI_INT & 0xffffff);
    int rc = coll_allgather(&mine, 1, dint, all, 1, dint, &c->dev);
    rc = rc != MPI_SUCCESS ? mpir_err(rc, fn, "agreement on the arguments failed")
                           : mpir_topo_verdict(fn, all, 1, c->dev.size, myrc, weighted);
    free(all);
    return rc;
}

int mpir_topo_map(const char *fn, MPI_Comm comm, const mpir_comm *c, int n, int *newrank)
{
    if (!newrank)
        return MPIR_ARG_ERR(fn, comm, "newrank is NULL");
    *newrank = c->dev.rank < n ? c->dev.rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char fn[] = "MPI_Topo_test";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!status)
        return MPIR_ARG_ERR(fn, comm, "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
MPIR_WEAK(Topo_test)

/* ---- Cartesian ----------------------------------------------------------------------- */

static mpir_topo *cart_new(int ndims, const int *dims, const int *periods)
{
    mpir_topo *t = mpir_topo_new(MPI_CART);
    if (!t)
        return NULL;
    t->ndims = ndims;
    if (mpir_topo_ints(&t->dims, dims, ndims) || mpir_topo_ints(&t->periods, periods, ndims)) {
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

#define GET_CART(fn, comm, c) MPIR_GET_TOPO(fn, comm, c, MPI_CART, "Cartesian")
#define ARG_ERR MPIR_ARG_ERR

/* Checks a grid description against c (of c->dev.size ranks) as
 * MPI_Cart_create and MPI_Cart_map take it; *n is its number of points.
 * Returns an error code not yet given to a handler. */
static int cart_check(const char *fn, const mpir_comm *c, int ndims, const int *dims,
                      const int *periods, int *n)
{
    if (ndims < 0)
        return mpir_err(MPI_ERR_DIMS, fn, "ndims is negative (%d)", ndims);
    if (ndims > 0 && (!dims || !periods))
        return mpir_err(MPI_ERR_ARG, fn, "%s is NULL", dims ? "periods" : "dims");
    long p = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return mpir_err(MPI_ERR_DIMS, fn, "dims[%d] = %d is not positive", i, dims[i]);
        if (p <= c->dev.size)
            p *= dims[i];
    }
    if (p > c->dev.size)
        return mpir_err(MPI_ERR_ARG, fn, "the grid has more points than the communicator has "
                        "ranks (%d)", c->dev.size);
    *n = (int)p;
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char fn[] = "MPI_Cart_create";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm_old, c);
    (void)reorder;
    int n = 0, rc = mpir_check_intra(fn, c);
    if (rc != MPI_SUCCESS)   /* the same on every rank: no agreement */
        return mpir_err_comm(comm_old, rc);
    rc = cart_check(fn, c, ndims, dims, periods, &n);
    if (rc == MPI_SUCCESS && !comm_cart)
        rc = mpir_err(MPI_ERR_ARG, fn, "comm_cart is NULL");
    rc = mpir_topo_agree(fn, c, rc, 0, NULL);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm_old, rc);
    mpir_topo *t = c->dev.rank < n ? cart_new(ndims, dims, periods) : NULL;
    return mpir_topo_comm(fn, comm_old, c, n, t, MPI_INFO_NULL, comm_cart);
}
MPIR_WEAK(Cart_create)

/* The rank MPI_Cart_create would give this process (mpir_topo_map). */
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char fn[] = "MPI_Cart_map";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int n = 0, rc = mpir_check_intra(fn, c);
    if (rc == MPI_SUCCESS)
        rc = cart_check(fn, c, ndims, dims, periods, &n);
    return rc != MPI_SUCCESS ? mpir_err_comm(comm, rc) : mpir_topo_map(fn, comm, c, n, newrank);
}
MPIR_WEAK(Cart_map)

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
