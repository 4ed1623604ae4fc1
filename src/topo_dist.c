/*
 * topo_dist.c — distributed graph topologies: MPI_Dist_graph_create_adjacent,
 * the general MPI_Dist_graph_create, and their queries.
 *
 * Order of neighbors. The adjacent form keeps each process's lists as given.
 * The general form orders both lists of a process by edge, in the order the
 * edges were stated: by the rank that stated them, then by their position in
 * its arguments. Both ends of an edge thus see repeated edges between the
 * same pair in the same order, and the neighborhood collectives (which take
 * the lists from MPI_Dist_graph_neighbors) pair each edge's send with its
 * receive.
 */
#include <limits.h>
#include <stdlib.h>
#include "src/topo.h"
#include "coll/select.h"

/* The objects whose addresses are MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY. */
int MPIX_UNWEIGHTED_OBJ[1], MPIX_WEIGHTS_EMPTY_OBJ[1];

#define ARG_ERR MPIR_ARG_ERR
#define GET_DIST(fn, comm, c) MPIR_GET_TOPO(fn, comm, c, MPI_DIST_GRAPH, "distributed graph")

/* Checks deg ranks of a communicator of `size` and, when weighted, their
 * weights. Returns an error code (not yet given to a handler). */
static int check_adj(const char *fn, int size, const char *what, int deg, const int *ranks,
                     const int *w, int weighted)
{
    if (deg < 0)
        return mpir_err(MPI_ERR_ARG, fn, "%s degree is negative (%d)", what, deg);
    if (deg > 0 && !ranks)
        return mpir_err(MPI_ERR_ARG, fn, "%s is NULL", what);
    for (int i = 0; i < deg; i++)
        if (ranks[i] < 0 || ranks[i] >= size)
            return mpir_err(MPI_ERR_RANK, fn, "%s[%d] = %d is not a rank (comm size %d)", what, i,
                            ranks[i], size);
    if (weighted && deg > 0) {
        if (!w || w == MPI_WEIGHTS_EMPTY)
            return mpir_err(MPI_ERR_ARG, fn, "weights of %s missing for %d edges", what, deg);
        for (int i = 0; i < deg; i++)
            if (w[i] < 0)
                return mpir_err(MPI_ERR_ARG, fn, "weight %d of %s is negative (%d)", i, what, w[i]);
    }
    return MPI_SUCCESS;
}

/* MPI_ERR_INFO unless info is MPI_INFO_NULL or a valid info object. */
static int check_info(const char *fn, MPI_Info info)
{
    if (info != MPI_INFO_NULL && !mpir_handle_get(&mpir_infos, info))
        return mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x)", (unsigned)info);
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
    (void)reorder;
    int rc = mpir_check_intra(fn, c);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm_old, rc);
    if (!comm_dist_graph)
        rc = mpir_err(MPI_ERR_ARG, fn, "comm_dist_graph is NULL");
    else if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED))
        rc = mpir_err(MPI_ERR_ARG, fn, "MPI_UNWEIGHTED given for only one of the weight lists");
    int unw = sourceweights == MPI_UNWEIGHTED, weighted = 0;
    if (rc == MPI_SUCCESS)
        rc = check_adj(fn, c->dev.size, "sources", indegree, sources, sourceweights, !unw);
    if (rc == MPI_SUCCESS)
        rc = check_adj(fn, c->dev.size, "destinations", outdegree, destinations, destweights,
                       !unw);
    if (rc == MPI_SUCCESS)
        rc = check_info(fn, info);
    int bits = unw ? MPIR_TOPO_UNWEIGHTED
               : rc == MPI_SUCCESS && indegree + outdegree > 0 ? MPIR_TOPO_WEIGHTS : 0;
    rc = mpir_topo_agree(fn, c, rc, bits, &weighted);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm_old, rc);
    mpir_topo *t = mpir_topo_new(MPI_DIST_GRAPH);
    if (t) {
        t->indeg = indegree;
        t->outdeg = outdegree;
        t->weighted = weighted;
        if (mpir_topo_ints(&t->src, sources, indegree)
            | mpir_topo_ints(&t->dst, destinations, outdegree)
            | mpir_topo_ints(&t->srcw, sourceweights, weighted ? indegree : 0)
            | mpir_topo_ints(&t->dstw, destweights, weighted ? outdegree : 0)) {
            mpir_topo_free(t);
            t = NULL;
        }
    }
    return mpir_topo_comm(fn, comm_old, c, c->dev.size, t, info, comm_dist_graph);
}
MPIR_WEAK(Dist_graph_create_adjacent)

/* ---- the general form ------------------------------------------------------------------ */

/* What each rank tells each other in the first exchange: how many of its
 * out- and in-edges it states, and its int of the agreement on the
 * arguments (topo.h). */
enum { HDR_NOUT, HDR_NIN, HDR_FLAGS, HDR_INTS };
/* An edge as sent to one of its ends: the other end and the weight. An edge
 * sends at most two (a self-loop), so MAX_EDGES keeps every count an int. */
enum { REC_INTS = 2, MAX_EDGES = INT_MAX / (2 * REC_INTS) };

/* Checks the general form's arguments; *nedges is the number of edges. */
static int check_general(const char *fn, const mpir_comm *c, int n, const int *sources,
                         const int *degrees, const int *destinations, const int *weights,
                         MPI_Info info, const MPI_Comm *newcomm, int *nedges)
{
    *nedges = 0;
    if (!newcomm)
        return mpir_err(MPI_ERR_ARG, fn, "comm_dist_graph is NULL");
    if (n < 0)
        return mpir_err(MPI_ERR_ARG, fn, "n is negative (%d)", n);
    if (n > 0 && !degrees)
        return mpir_err(MPI_ERR_ARG, fn, "degrees is NULL");
    long total = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return mpir_err(MPI_ERR_ARG, fn, "degrees[%d] is negative (%d)", i, degrees[i]);
        total += degrees[i];
        if (total > MAX_EDGES)
            return mpir_err(MPI_ERR_ARG, fn, "too many edges (more than %d)", MAX_EDGES);
    }
    int rc = check_adj(fn, c->dev.size, "sources", n, sources, NULL, 0);
    if (rc == MPI_SUCCESS)
        rc = check_adj(fn, c->dev.size, "destinations", (int)total, destinations, weights,
                       weights != MPI_UNWEIGHTED);
    if (rc == MPI_SUCCESS)
        rc = check_info(fn, info);
    *nedges = (int)total;
    return rc;
}

/* The rank's lists from the edges it received: out-edges from each rank
 * first, then in-edges, ranks in order. */
static mpir_topo *dist_from_records(const int *hdr, const int *rec, int p, int weighted)
{
    mpir_topo *t = mpir_topo_new(MPI_DIST_GRAPH);
    if (!t)
        return NULL;
    t->weighted = weighted;
    for (int r = 0; r < p; r++) {
        t->outdeg += hdr[r * HDR_INTS + HDR_NOUT];
        t->indeg += hdr[r * HDR_INTS + HDR_NIN];
    }
    size_t nout = (size_t)t->outdeg, nin = (size_t)t->indeg;
    t->dst = malloc((nout ? nout : 1) * sizeof(int));
    t->src = malloc((nin ? nin : 1) * sizeof(int));
    t->dstw = malloc((nout ? nout : 1) * sizeof(int));
    t->srcw = malloc((nin ? nin : 1) * sizeof(int));
    if (!t->dst || !t->src || !t->dstw || !t->srcw) {
        mpir_topo_free(t);
        return NULL;
    }
    int o = 0, i = 0;
    for (int r = 0; r < p; r++) {
        for (int k = 0; k < hdr[r * HDR_INTS + HDR_NOUT]; k++, o++, rec += REC_INTS) {
            t->dst[o] = rec[0];
            t->dstw[o] = rec[1];
        }
        for (int k = 0; k < hdr[r * HDR_INTS + HDR_NIN]; k++, i++, rec += REC_INTS) {
            t->src[i] = rec[0];
            t->srcw[i] = rec[1];
        }
    }
    return t;
}

/* The two exchanges: headers (edge counts and the argument verdict), then
 * the edges themselves, each to both of its ends. On success *out is this
 * rank's topology (NULL when memory ran out here). */
static int exchange(const char *fn, mpir_comm *c, int myrc, int n, const int *sources,
                    const int *degrees, const int *destinations, const int *weights,
                    int nedges, mpir_topo **out)
{
    int p = c->dev.size, unw = weights == MPI_UNWEIGHTED;
    const cu_dtype *dint = cu_dtype_builtin(MPI_INT & 0xffffff);
    const char *name;
    coll_alltoall_fn *a2a = coll_select_alltoall(HDR_INTS * sizeof(int), &c->dev, &name);
    coll_alltoallv_fn *a2av = coll_select_alltoallv(&c->dev, &name);
    if (!a2a || !a2av)
        return mpir_err(MPI_ERR_ARG, fn, "%s", name);
    *out = NULL;
    int *shdr = calloc((size_t)p * 2 * HDR_INTS + 4 * (size_t)p, sizeof(int));
    if (!shdr)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    int *rhdr = shdr + (size_t)p * HDR_INTS, *cnt = rhdr + (size_t)p * HDR_INTS;
    int *sdsp = cnt + p, *rcnt = sdsp + p, *rdsp = rcnt + p;
    if (myrc == MPI_SUCCESS)
        for (int i = 0, e = 0; i < n; i++)
            for (int k = 0; k < degrees[i]; k++, e++) {
                shdr[sources[i] * HDR_INTS + HDR_NOUT]++;
                shdr[destinations[e] * HDR_INTS + HDR_NIN]++;
            }
    for (int r = 0; r < p; r++)
        shdr[r * HDR_INTS + HDR_FLAGS] = (myrc & 0xff) | (unw ? MPIR_TOPO_UNWEIGHTED : 0)
                                         | (!unw && nedges > 0 ? MPIR_TOPO_WEIGHTS : 0);
    int rc = a2a(shdr, HDR_INTS, dint, rhdr, HDR_INTS, dint, &c->dev);
    int weighted = 0;
    if (rc == MPI_SUCCESS)
        rc = mpir_topo_verdict(fn, rhdr + HDR_FLAGS, HDR_INTS, p, myrc, &weighted);
    else
        rc = mpir_err(rc, fn, "exchange of edge counts failed");
    int *sbuf = NULL, *rbuf = NULL;
    if (rc == MPI_SUCCESS) {
        long st = 0, rt = 0;
        for (int r = 0; r < p; r++) {
            sdsp[r] = (int)st;
            rdsp[r] = (int)rt;
            cnt[r] = (shdr[r * HDR_INTS + HDR_NOUT] + shdr[r * HDR_INTS + HDR_NIN]) * REC_INTS;
            st += cnt[r];
            long q = ((long)rhdr[r * HDR_INTS + HDR_NOUT] + rhdr[r * HDR_INTS + HDR_NIN])
                     * REC_INTS;
            rcnt[r] = q > INT_MAX - rt ? 0 : (int)q;
            rt += q;
        }
        /* Memory or int overflow here leaves the others waiting for this
         * rank's edges: unlike bad arguments, it is not known in advance. */
        if (rt <= INT_MAX) {
            sbuf = malloc((size_t)(st ? st : 1) * sizeof(int));
            rbuf = malloc((size_t)(rt ? rt : 1) * sizeof(int));
        }
        int *fill = calloc((size_t)p, sizeof(int));
        if (!sbuf || !rbuf || !fill) {
            free(fill);
            free(sbuf);
            free(rbuf);
            free(shdr);
            return mpir_err(rt > INT_MAX ? MPI_ERR_ARG : MPI_ERR_NO_MEM, fn,
                            rt > INT_MAX ? "this rank has too many neighbors" : "out of memory");
        }
        /* Within each peer's block: its out-edges, then its in-edges. */
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0, e = 0; i < n; i++)
                for (int k = 0; k < degrees[i]; k++, e++) {
                    int to = pass ? destinations[e] : sources[i];
                    int *x = sbuf + sdsp[to] + fill[to];
                    x[0] = pass ? sources[i] : destinations[e];
                    x[1] = unw ? 1 : weights[e];
                    fill[to] += REC_INTS;
                }
        free(fill);
        rc = a2av(sbuf, cnt, sdsp, dint, rbuf, rcnt, rdsp, dint, &c->dev);
        if (rc == MPI_SUCCESS)
            *out = dist_from_records(rhdr, rbuf, p, weighted);
        else
            rc = mpir_err(rc, fn, "exchange of edges failed");
    }
    free(sbuf);
    free(rbuf);
    free(shdr);
    return rc;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm_old, c);
    (void)reorder;
    int nedges, rc = mpir_check_intra(fn, c);
    if (rc != MPI_SUCCESS)   /* the same on every rank: no exchange */
        return mpir_err_comm(comm_old, rc);
    int myrc = check_general(fn, c, n, sources, degrees, destinations, weights, info,
                             comm_dist_graph, &nedges);
    /* Bad arguments still go through the first exchange, so that every rank
     * learns of them and fails instead of waiting for this one. */
    mpir_topo *t = NULL;
    rc = exchange(fn, c, myrc, n, sources, degrees, destinations, weights, nedges, &t);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm_old, rc);
    return mpir_topo_comm(fn, comm_old, c, c->dev.size, t, info, comm_dist_graph);
}
MPIR_WEAK(Dist_graph_create)

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

/* The first maxindegree sources and maxoutdegree destinations (MPI-3.1
 * 7.5.5: a shorter array gets the first part of the list), with weights
 * when the graph has them and the caller passed arrays for them. */
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    static const char fn[] = "MPI_Dist_graph_neighbors";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_DIST(fn, comm, c);
    const mpir_topo *t = c->topo;
    if (maxindegree < 0 || maxoutdegree < 0)
        return ARG_ERR(fn, comm, "%s is negative (%d)", maxindegree < 0 ? "maxindegree"
                       : "maxoutdegree", maxindegree < 0 ? maxindegree : maxoutdegree);
    int nin = t->indeg < maxindegree ? t->indeg : maxindegree;
    int nout = t->outdeg < maxoutdegree ? t->outdeg : maxoutdegree;
    if ((nin > 0 && !sources) || (nout > 0 && !destinations))
        return ARG_ERR(fn, comm, "%s is NULL", nin > 0 && !sources ? "sources" : "destinations");
    for (int i = 0; i < nin; i++)
        sources[i] = t->src[i];
    for (int i = 0; i < nout; i++)
        destinations[i] = t->dst[i];
    if (t->weighted) {
        if (sourceweights && sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY)
            for (int i = 0; i < nin; i++)
                sourceweights[i] = t->srcw[i];
        if (destweights && destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY)
            for (int i = 0; i < nout; i++)
                destweights[i] = t->dstw[i];
    }
    return MPI_SUCCESS;
}
MPIR_WEAK(Dist_graph_neighbors)
