/*
 * topo_graph.c — graph topologies (MPI_Graph_create) and their queries.
 * Every member keeps the whole graph as given: nnodes, the cumulative index
 * and the edges. Node i's neighbors are edges[index[i-1] .. index[i]-1]
 * (from 0 for node 0); self-loops and repeated edges are kept.
 */
#include <stdlib.h>
#include "src/topo.h"

#define ARG_ERR MPIR_ARG_ERR
#define GET_GRAPH(fn, comm, c) MPIR_GET_TOPO(fn, comm, c, MPI_GRAPH, "graph")

/* Checks a graph description against c (of c->dev.size ranks) as
 * MPI_Graph_create and MPI_Graph_map take it. Returns an error code not yet
 * given to a handler. */
static int graph_check(const char *fn, const mpir_comm *c, int nnodes, const int *index,
                       const int *edges)
{
    if (nnodes < 0)
        return mpir_err(MPI_ERR_ARG, fn, "nnodes is negative (%d)", nnodes);
    if (nnodes > c->dev.size)
        return mpir_err(MPI_ERR_ARG, fn, "nnodes = %d is more than the communicator's %d ranks",
                        nnodes, c->dev.size);
    if (nnodes > 0 && !index)
        return mpir_err(MPI_ERR_ARG, fn, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return mpir_err(MPI_ERR_ARG, fn, "index[%d] = %d is less than %s (%d)", i, index[i],
                            i ? "index[i-1]" : "0", i ? index[i - 1] : 0);
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    if (nedges > 0 && !edges)
        return mpir_err(MPI_ERR_ARG, fn, "edges is NULL");
    for (int k = 0; k < nedges; k++)
        if (edges[k] < 0 || edges[k] >= nnodes)
            return mpir_err(MPI_ERR_ARG, fn, "edges[%d] = %d is not a node (nnodes = %d)", k,
                            edges[k], nnodes);
    return MPI_SUCCESS;
}

typedef struct { int a, b; } graph_edge;

/* qsort order of edges: by first node, then second. */
static int cmp_edge(const void *x, const void *y)
{
    const graph_edge *e = x, *f = y;
    if (e->a != f->a)
        return (e->a > f->a) - (e->a < f->a);
    return (e->b > f->b) - (e->b < f->b);
}

/* Whether every pair of nodes is joined as often one way as the other: the
 * multiset of edges equals that of the reversed edges. -1: out of memory. */
static int graph_symmetric(int nnodes, const int *index, const int *edges)
{
    int m = nnodes > 0 ? index[nnodes - 1] : 0;
    graph_edge *fw = malloc(2 * (size_t)(m ? m : 1) * sizeof *fw), *bw = fw + m;
    if (!fw)
        return -1;
    for (int i = 0, k = 0; i < nnodes; i++)
        for (; k < index[i]; k++) {
            fw[k] = (graph_edge){ i, edges[k] };
            bw[k] = (graph_edge){ edges[k], i };
        }
    qsort(fw, (size_t)m, sizeof *fw, cmp_edge);
    qsort(bw, (size_t)m, sizeof *bw, cmp_edge);
    int sym = 1;
    for (int k = 0; k < m && sym; k++)
        sym = fw[k].a == bw[k].a && fw[k].b == bw[k].b;
    free(fw);
    return sym;
}

/* A member's copy of a checked graph, its symmetry known; NULL when out of
 * memory. */
static mpir_topo *graph_new(int nnodes, const int *index, const int *edges)
{
    mpir_topo *t = mpir_topo_new(MPI_GRAPH);
    if (!t)
        return NULL;
    t->nnodes = nnodes;
    t->nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    t->symmetric = graph_symmetric(nnodes, index, edges);
    if (t->symmetric < 0 || mpir_topo_ints(&t->index, index, nnodes)
        || mpir_topo_ints(&t->edges, edges, t->nedges)) {
        mpir_topo_free(t);
        return NULL;
    }
    return t;
}

int mpir_topo_graph_symmetric(const mpir_comm *c)
{
    return c->topo && c->topo->kind == MPI_GRAPH && c->topo->symmetric;
}

/* Ranks 0..nnodes-1 of comm_old form the graph's communicator, in order
 * (reorder is ignored: see topo.c); the others get MPI_COMM_NULL, all of
 * them when nnodes is 0. */
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    static const char fn[] = "MPI_Graph_create";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm_old, c);
    (void)reorder;
    int rc = mpir_check_intra(fn, c);
    if (rc != MPI_SUCCESS)   /* the same on every rank: no agreement */
        return mpir_err_comm(comm_old, rc);
    rc = graph_check(fn, c, nnodes, index, edges);
    if (rc == MPI_SUCCESS && !comm_graph)
        rc = mpir_err(MPI_ERR_ARG, fn, "comm_graph is NULL");
    rc = mpir_topo_agree(fn, c, rc, 0, NULL);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm_old, rc);
    mpir_topo *t = c->dev.rank < nnodes ? graph_new(nnodes, index, edges) : NULL;
    return mpir_topo_comm(fn, comm_old, c, nnodes, t, MPI_INFO_NULL, comm_graph);
}
MPIR_WEAK(Graph_create)

/* The rank MPI_Graph_create would give this process (mpir_topo_map). */
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char fn[] = "MPI_Graph_map";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = mpir_check_intra(fn, c);
    if (rc == MPI_SUCCESS)
        rc = graph_check(fn, c, nnodes, index, edges);
    return rc != MPI_SUCCESS ? mpir_err_comm(comm, rc)
                             : mpir_topo_map(fn, comm, c, nnodes, newrank);
}
MPIR_WEAK(Graph_map)

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char fn[] = "MPI_Graphdims_get";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_GRAPH(fn, comm, c);
    if (!nnodes || !nedges)
        return ARG_ERR(fn, comm, "%s is NULL", nnodes ? "nedges" : "nnodes");
    *nnodes = c->topo->nnodes;
    *nedges = c->topo->nedges;
    return MPI_SUCCESS;
}
MPIR_WEAK(Graphdims_get)

/* Copies min(max, n) ints of from[] to to[]; max < 0 or a NULL to[] that
 * would receive some is MPI_ERR_ARG naming `what`. */
static int copy_prefix(const char *fn, MPI_Comm comm, const char *maxname, int max,
                       const char *what, int *to, const int *from, int n)
{
    if (max < 0)
        return ARG_ERR(fn, comm, "%s is negative (%d)", maxname, max);
    if (max < n)
        n = max;
    if (n > 0 && !to)
        return ARG_ERR(fn, comm, "%s is NULL", what);
    for (int i = 0; i < n; i++)
        to[i] = from[i];
    return MPI_SUCCESS;
}

/* The first maxindex entries of index and maxedges of edges (MPI-3.1
 * 7.5.5: arrays shorter than the graph get its first part). */
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    static const char fn[] = "MPI_Graph_get";
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_GRAPH(fn, comm, c);
    const mpir_topo *t = c->topo;
    if (maxedges < 0)   /* before index is written */
        return ARG_ERR(fn, comm, "maxedges is negative (%d)", maxedges);
    int rc = copy_prefix(fn, comm, "maxindex", maxindex, "index", index, t->index, t->nnodes);
    if (rc == MPI_SUCCESS)
        rc = copy_prefix(fn, comm, "maxedges", maxedges, "edges", edges, t->edges, t->nedges);
    return rc;
}
MPIR_WEAK(Graph_get)

/* The entry of MPI_Graph_neighbors(_count): comm's graph t and node rank's
 * neighbors, their first entry in t->edges and their number. */
static int graph_node(const char *fn, MPI_Comm comm, int rank, const mpir_topo **t, int *first,
                      int *n)
{
    MPIR_ENTER(fn);
    mpir_comm *c;
    GET_GRAPH(fn, comm, c);
    *t = c->topo;
    if (rank < 0 || rank >= (*t)->nnodes)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_RANK, fn, "invalid rank %d (graph of %d nodes)",
                                            rank, (*t)->nnodes));
    *first = rank ? (*t)->index[rank - 1] : 0;
    *n = (*t)->index[rank] - *first;
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char fn[] = "MPI_Graph_neighbors_count";
    MPIR_CS_GUARD;
    const mpir_topo *t;
    int first, n, rc = graph_node(fn, comm, rank, &t, &first, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!nneighbors)
        return ARG_ERR(fn, comm, "nneighbors is NULL");
    *nneighbors = n;
    return MPI_SUCCESS;
}
MPIR_WEAK(Graph_neighbors_count)

/* The first maxneighbors neighbors of node rank, in the order given. */
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char fn[] = "MPI_Graph_neighbors";
    MPIR_CS_GUARD;
    const mpir_topo *t;
    int first, n, rc = graph_node(fn, comm, rank, &t, &first, &n);
    return rc != MPI_SUCCESS ? rc
           : copy_prefix(fn, comm, "maxneighbors", maxneighbors, "neighbors", neighbors,
                         t->edges + first, n);
}
MPIR_WEAK(Graph_neighbors)
