/* np: 1 2 3 4 5 7 8
 * env: CLUMPI_EAGER_LIMIT=0
 *
 * Graph topologies: MPI_Graph_create (MPI-3.1's 4-node example of 7.5.3,
 * random multigraphs with self-loops, an asymmetric one, the empty graph,
 * fewer nodes than ranks) and every query, Graph_map and Cart_map; the
 * general MPI_Dist_graph_create with each edge stated by a random rank
 * (ranks stating edges of others, one source split over several entries,
 * repeated edges, weights, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY, an info),
 * checked against the graph as built here and against the adjacent form's
 * view of it; the ten neighborhood collectives on both kinds of graph
 * against a reference; the error classes of bad arguments (on an
 * intercommunicator too).
 *
 * All ranks draw the same graphs from one fixed seed.
 */
#include "mtest.h"

/* MPI_UNWEIGHTED is a sentinel pointer; GCC 11+ thinks it is a 0-byte array */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define UNTOUCHED (-77)
#define N 2   /* ints per block of the plain forms */

static unsigned long long rng;

static void rng_seed(unsigned long long s) { rng = s * 0x9E3779B97F4A7C15ull + 12345; }

static int rnd(int n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (unsigned long long)n);
}

static int val(int r, long i) { return (int)((r * 1000003L + i * 13 + 7) % 100000); }

/* Ints a sender puts on its out-edge j in the v and w forms. */
static int vcount(int sender, int j) { return 1 + (sender + j) % 3; }

/* This rank's neighborhood as the test expects it: in-slot k receives from
 * in[k] the block that rank sends on its out-edge inpos[k]. */
typedef struct {
    int nin, nout;
    int *in, *inpos, *out;
} nbhood;

static void expect_eq(const int *got, const int *want, int n, const char *what, const char *name)
{
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s on %s: [%d] = %d, expected %d", what, name, i, got[i],
              want[i]);
}

/* Runs the five neighborhood collectives, blocking then nonblocking, on
 * comm and checks every int of the receive buffer (gaps included). */
static void neighbor_colls(MPI_Comm comm, const nbhood *h, const char *name)
{
    int me, nin = h->nin, nout = h->nout;
    MPI_OK(MPI_Comm_rank(comm, &me));
    int ns = 4 * nout + N, nr = 5 * nin + 1;
    int *s = mt_malloc(sizeof(int) * (size_t)ns), *r = mt_malloc(sizeof(int) * (size_t)nr);
    int *want = mt_malloc(sizeof(int) * (size_t)nr);
    int *sc = mt_malloc(sizeof(int) * (size_t)(nout + 1));
    int *sd = mt_malloc(sizeof(int) * (size_t)(nout + 1));
    int *rc = mt_malloc(sizeof(int) * (size_t)(nin + 1));
    int *rd = mt_malloc(sizeof(int) * (size_t)(nin + 1));
    MPI_Aint *sdw = mt_malloc(sizeof(MPI_Aint) * (size_t)(nout + 1));
    MPI_Aint *rdw = mt_malloc(sizeof(MPI_Aint) * (size_t)(nin + 1));
    MPI_Datatype *st = mt_malloc(sizeof(MPI_Datatype) * (size_t)(nout + 1));
    MPI_Datatype *rt = mt_malloc(sizeof(MPI_Datatype) * (size_t)(nin + 1));
    for (int i = 0; i < ns; i++)
        s[i] = val(me, i);
    for (int j = 0; j < nout; j++) {
        sc[j] = vcount(me, j);
        sd[j] = 4 * j;
        sdw[j] = (MPI_Aint)sd[j] * (MPI_Aint)sizeof(int);
        st[j] = MPI_INT;
    }
    for (int k = 0; k < nin; k++) {
        rd[k] = 5 * (nin - 1 - k) + 1;   /* reversed, with gaps */
        rdw[k] = (MPI_Aint)rd[k] * (MPI_Aint)sizeof(int);
        rt[k] = MPI_INT;
    }
    static const char *ops[] = { "allgather", "allgatherv", "alltoall", "alltoallv",
                                 "alltoallw" };
    for (int nb = 0; nb < 2; nb++)
        for (int op = 0; op < 5; op++) {
            char what[64];
            snprintf(what, sizeof what, "%sneighbor_%s", nb ? "I" : "", ops[op]);
            for (int i = 0; i < nr; i++)
                r[i] = want[i] = UNTOUCHED;
            for (int k = 0; k < nin; k++) {
                int from = h->in[k], j = h->inpos[k];
                if (op == 0 || op == 2) {
                    for (int i = 0; i < N; i++)
                        want[k * N + i] = val(from, (op == 2 ? j * N : 0) + i);
                } else if (op == 1) {
                    rc[k] = vcount(from, 0);
                    for (int i = 0; i < rc[k]; i++)
                        want[rd[k] + i] = val(from, i);
                } else {
                    rc[k] = vcount(from, j);
                    for (int i = 0; i < rc[k]; i++)
                        want[rd[k] + i] = val(from, 4 * j + i);
                }
            }
            MPI_Request q = MPI_REQUEST_NULL;
            MPI_Request *qp = nb ? &q : NULL;
            switch (op) {
            case 0:
                MPI_OK(nb ? MPI_Ineighbor_allgather(s, N, MPI_INT, r, N, MPI_INT, comm, qp)
                          : MPI_Neighbor_allgather(s, N, MPI_INT, r, N, MPI_INT, comm));
                break;
            case 1:
                MPI_OK(nb ? MPI_Ineighbor_allgatherv(s, vcount(me, 0), MPI_INT, r, rc, rd,
                                                     MPI_INT, comm, qp)
                          : MPI_Neighbor_allgatherv(s, vcount(me, 0), MPI_INT, r, rc, rd,
                                                    MPI_INT, comm));
                break;
            case 2:
                MPI_OK(nb ? MPI_Ineighbor_alltoall(s, N, MPI_INT, r, N, MPI_INT, comm, qp)
                          : MPI_Neighbor_alltoall(s, N, MPI_INT, r, N, MPI_INT, comm));
                break;
            case 3:
                MPI_OK(nb ? MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT,
                                                    comm, qp)
                          : MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT,
                                                   comm));
                break;
            default:
                MPI_OK(nb ? MPI_Ineighbor_alltoallw(s, sc, sdw, st, r, rc, rdw, rt, comm, qp)
                          : MPI_Neighbor_alltoallw(s, sc, sdw, st, r, rc, rdw, rt, comm));
                break;
            }
            if (nb)
                MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
            expect_eq(r, want, nr, what, name);
        }
    free(s), free(r), free(want), free(sc), free(sd), free(rc), free(rd);
    free(sdw), free(rdw), free(st), free(rt);
}

/* ---- MPI_Graph_create ------------------------------------------------------ */

typedef struct {
    int nnodes, nedges;
    int index[64], edges[512];
} graph;

/* Position of the k-th occurrence (from 0) of x in a[0..n), or -1. */
static int kth(const int *a, int n, int x, int k)
{
    for (int i = 0; i < n; i++)
        if (a[i] == x && k-- == 0)
            return i;
    return -1;
}

/* How often x occurs in a[0..n). */
static int occurrences(const int *a, int n, int x)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += a[i] == x;
    return c;
}

/* Node r's neighbor list in g, and its length. */
static const int *nbrs(const graph *g, int r, int *n)
{
    int first = r ? g->index[r - 1] : 0;
    *n = g->index[r] - first;
    return g->edges + first;
}

static void graph_queries(MPI_Comm comm, const graph *g, const char *name)
{
    int st, nn, ne, size, rank;
    MPI_OK(MPI_Topo_test(comm, &st));
    CHECK(st == MPI_GRAPH, "%s: Topo_test = %d", name, st);
    MPI_OK(MPI_Comm_size(comm, &size));
    MPI_OK(MPI_Comm_rank(comm, &rank));
    CHECK(size == g->nnodes && rank == mt_rank, "%s: rank %d of %d", name, rank, size);
    MPI_OK(MPI_Graphdims_get(comm, &nn, &ne));
    CHECK(nn == g->nnodes && ne == g->nedges, "%s: Graphdims_get %d %d", name, nn, ne);
    int idx[65], edg[513];
    MPI_OK(MPI_Graph_get(comm, g->nnodes, g->nedges, idx, edg));
    expect_eq(idx, g->index, g->nnodes, "Graph_get index", name);
    expect_eq(edg, g->edges, g->nedges, "Graph_get edges", name);
    /* shorter arrays get the first part, nothing past them */
    int mi = g->nnodes / 2, me = g->nedges / 2;
    for (int i = 0; i < 65; i++)
        idx[i] = UNTOUCHED;
    for (int i = 0; i < 513; i++)
        edg[i] = UNTOUCHED;
    MPI_OK(MPI_Graph_get(comm, mi, me, idx, edg));
    expect_eq(idx, g->index, mi, "Graph_get index, truncated", name);
    expect_eq(edg, g->edges, me, "Graph_get edges, truncated", name);
    CHECK(idx[mi] == UNTOUCHED && edg[me] == UNTOUCHED, "%s: Graph_get wrote past max", name);
    for (int r = 0; r < g->nnodes; r++) {
        int n, c, nb[513];
        const int *want = nbrs(g, r, &n);
        MPI_OK(MPI_Graph_neighbors_count(comm, r, &c));
        CHECK(c == n, "%s: Graph_neighbors_count(%d) = %d, expected %d", name, r, c, n);
        MPI_OK(MPI_Graph_neighbors(comm, r, n, nb));
        expect_eq(nb, want, n, "Graph_neighbors", name);
        if (n > 0) {
            for (int i = 0; i < n; i++)
                nb[i] = UNTOUCHED;
            MPI_OK(MPI_Graph_neighbors(comm, r, n - 1, nb));
            expect_eq(nb, want, n - 1, "Graph_neighbors, truncated", name);
            CHECK(nb[n - 1] == UNTOUCHED, "%s: Graph_neighbors wrote past max", name);
        }
    }
}

/* Whether each pair is joined as often both ways. */
static int symmetric(const graph *g)
{
    for (int a = 0; a < g->nnodes; a++) {
        int na, nb;
        const int *la = nbrs(g, a, &na);
        for (int b = 0; b < g->nnodes; b++) {
            const int *lb = nbrs(g, b, &nb);
            if (occurrences(la, na, b) != occurrences(lb, nb, a))
                return 0;
        }
    }
    return 1;
}

static void graph_test(const graph *g, const char *name)
{
    MPI_Comm comm, dup;
    int newrank;
    MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, g->nnodes, g->index, g->edges, &newrank));
    CHECK(newrank == (mt_rank < g->nnodes ? mt_rank : MPI_UNDEFINED), "%s: Graph_map = %d",
          name, newrank);
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, g->nnodes, g->index, g->edges, 1, &comm));
    if (mt_rank >= g->nnodes) {
        CHECK(comm == MPI_COMM_NULL, "%s: rank beyond nnodes got a communicator", name);
        return;
    }
    CHECK(comm != MPI_COMM_NULL, "%s: no communicator", name);
    graph_queries(comm, g, name);
    MPI_OK(MPI_Comm_dup(comm, &dup));
    graph_queries(dup, g, name);
    MPI_OK(MPI_Comm_free(&dup));
    int n, sbuf = 1, rbuf[513];
    const int *l = nbrs(g, mt_rank, &n);
    if (!symmetric(g)) {
        MPI_FAILS(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgather(&sbuf, 1, MPI_INT, rbuf, 1, MPI_INT,
                                                           comm));
        MPI_OK(MPI_Comm_free(&comm));
        return;
    }
    nbhood h = { n, n, mt_malloc(sizeof(int) * (size_t)(n + 1)),
                 mt_malloc(sizeof(int) * (size_t)(n + 1)), (int *)l };
    for (int k = 0; k < n; k++) {
        int s = l[k], ns;
        const int *ls = nbrs(g, s, &ns);
        h.in[k] = s;
        h.inpos[k] = kth(ls, ns, mt_rank, occurrences(l, k, s));
        CHECK(h.inpos[k] >= 0, "%s: test graph not symmetric", name);
    }
    neighbor_colls(comm, &h, name);
    free(h.in);
    free(h.inpos);
    MPI_OK(MPI_Comm_free(&comm));
}

/* A random multigraph on nnodes nodes with about m edges: self-loops listed
 * once, other edges in both lists when sym, else one way only. */
static void random_graph(graph *g, int nnodes, int m, int sym)
{
    int deg[64] = { 0 }, adj[64][64];
    for (int e = 0; e < m; e++) {
        int a = rnd(nnodes), b = rnd(nnodes);
        if (deg[a] >= 60 || deg[b] >= 60)
            continue;
        adj[a][deg[a]++] = b;
        if (sym && a != b)
            adj[b][deg[b]++] = a;
    }
    g->nnodes = nnodes;
    g->nedges = 0;
    for (int a = 0; a < nnodes; a++) {
        for (int i = deg[a] - 1; i > 0; i--) {   /* shuffle each list */
            int j = rnd(i + 1), t = adj[a][i];
            adj[a][i] = adj[a][j];
            adj[a][j] = t;
        }
        for (int i = 0; i < deg[a]; i++)
            g->edges[g->nedges++] = adj[a][i];
        g->index[a] = g->nedges;
    }
}

static void graph_tests(void)
{
    char name[64];
    if (mt_size >= 4) {
        /* MPI-3.1 7.5.3: 0-1, 0-3, 2-3 */
        graph ex = { 4, 6, { 2, 3, 4, 6 }, { 1, 3, 0, 3, 0, 2 } };
        graph_test(&ex, "the standard's example");
    }
    graph empty = { 0, 0, { 0 }, { 0 } };
    graph_test(&empty, "the empty graph");
    for (int t = 0; t < 4; t++) {
        graph g;
        int nnodes = t == 1 ? (mt_size > 2 ? mt_size - 2 : 1) : mt_size;
        random_graph(&g, nnodes, 3 * nnodes, t != 3);
        snprintf(name, sizeof name, "random graph %d (%d nodes, %d edges)", t, nnodes,
                 g.nedges);
        graph_test(&g, name);
    }
    if (mt_size >= 2) {
        graph one_way = { 2, 1, { 1, 1 }, { 1 } };   /* 0 -> 1 only */
        graph_test(&one_way, "a one-way edge");
    }
}

/* ---- MPI_Cart_map ------------------------------------------------------------- */

static void cart_map_tests(void)
{
    static const int shapes[][3] = { { 1, 1, 1 }, { 2, 1, 1 }, { 1, 2, 2 }, { 3, 1, 2 },
                                     { 2, 2, 2 }, { 1, 1, 5 }, { 7, 1, 1 } };
    int periods[3] = { 1, 0, 1 };
    for (int ndims = 0; ndims <= 3; ndims++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int p = 1, newrank, rank;
            for (int i = 0; i < ndims; i++)
                p *= shapes[s][i];
            if (p > mt_size)
                continue;
            MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, ndims, shapes[s], periods, &newrank));
            CHECK(newrank == (mt_rank < p ? mt_rank : MPI_UNDEFINED),
                  "Cart_map of %d dims, %d points: %d", ndims, p, newrank);
            MPI_Comm cart;
            MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, shapes[s], periods, 1, &cart));
            CHECK((cart == MPI_COMM_NULL) == (newrank == MPI_UNDEFINED),
                  "Cart_map and Cart_create disagree on membership");
            if (cart != MPI_COMM_NULL) {
                MPI_OK(MPI_Comm_rank(cart, &rank));
                CHECK(rank == newrank, "Cart_map %d, Cart_create gave rank %d", newrank, rank);
                MPI_OK(MPI_Comm_free(&cart));
            }
        }
}

/* ---- MPI_Dist_graph_create -------------------------------------------------- */

typedef struct {
    int m;
    int src[256], dst[256], w[256], by[256];   /* by: the rank that states the edge */
} edges;

/* This rank's arguments for the edges it states, in order: consecutive
 * edges from the same source share an entry of sources[] except every third
 * edge, so a source may appear in several entries. */
static int my_args(const edges *E, int *sources, int *degrees, int *dests, int *w)
{
    int n = 0, k = 0;
    for (int e = 0; e < E->m; e++) {
        if (E->by[e] != mt_rank)
            continue;
        if (n == 0 || sources[n - 1] != E->src[e] || e % 3 == 0) {
            sources[n] = E->src[e];
            degrees[n++] = 0;
        }
        degrees[n - 1]++;
        dests[k] = E->dst[e];
        w[k++] = E->w[e];
    }
    return n;
}

static void dist_check(MPI_Comm comm, int indeg, const int *in, const int *inw, int outdeg,
                       const int *out, const int *outw, int weighted, const char *name)
{
    int st, i, o, wt, src[256], sw[256], dst[256], dw[256];
    MPI_OK(MPI_Topo_test(comm, &st));
    CHECK(st == MPI_DIST_GRAPH, "%s: Topo_test = %d", name, st);
    MPI_OK(MPI_Dist_graph_neighbors_count(comm, &i, &o, &wt));
    CHECK(i == indeg && o == outdeg && wt == weighted, "%s: neighbors_count %d %d %d, expected "
          "%d %d %d", name, i, o, wt, indeg, outdeg, weighted);
    MPI_OK(MPI_Dist_graph_neighbors(comm, indeg, src, sw, outdeg, dst, dw));
    expect_eq(src, in, indeg, "Dist_graph_neighbors sources", name);
    expect_eq(dst, out, outdeg, "Dist_graph_neighbors destinations", name);
    if (weighted) {
        expect_eq(sw, inw, indeg, "Dist_graph_neighbors sourceweights", name);
        expect_eq(dw, outw, outdeg, "Dist_graph_neighbors destweights", name);
    }
    /* shorter arrays get the first part, nothing past them */
    for (int k = 0; k < 256; k++)
        src[k] = sw[k] = dst[k] = dw[k] = UNTOUCHED;
    int mi = indeg / 2, mo = outdeg ? outdeg - 1 : 0;
    MPI_OK(MPI_Dist_graph_neighbors(comm, mi, src, sw, mo, dst, dw));
    expect_eq(src, in, mi, "Dist_graph_neighbors sources, truncated", name);
    expect_eq(dst, out, mo, "Dist_graph_neighbors destinations, truncated", name);
    CHECK(src[mi] == UNTOUCHED && dst[mo] == UNTOUCHED && sw[mi] == UNTOUCHED
          && dw[mo] == UNTOUCHED, "%s: Dist_graph_neighbors wrote past max", name);
}

static void dist_test(const edges *E, int weighted, MPI_Info info, const char *name)
{
    int sources[256], degrees[256], dests[256], w[256], order[256], pos[256];
    int in[256], inw[256], inpos[256], out[256], outw[256], nin = 0, nout = 0;
    int n = my_args(E, sources, degrees, dests, w);
    /* the documented order: by stating rank, then position in its arguments */
    int k = 0, cnt[64] = { 0 };
    for (int r = 0; r < mt_size; r++)
        for (int e = 0; e < E->m; e++)
            if (E->by[e] == r)
                order[k++] = e;
    for (k = 0; k < E->m; k++) {
        int e = order[k];
        pos[e] = cnt[E->src[e]]++;   /* its position among its source's out-edges */
        if (E->src[e] == mt_rank) {
            out[nout] = E->dst[e];
            outw[nout++] = E->w[e];
        }
    }
    for (k = 0; k < E->m; k++) {
        int e = order[k];
        if (E->dst[e] == mt_rank) {
            in[nin] = E->src[e];
            inw[nin] = E->w[e];
            inpos[nin++] = pos[e];
        }
    }
    const int *wts = !weighted ? MPI_UNWEIGHTED : n > 0 ? w
                     : mt_rank % 2 ? MPI_WEIGHTS_EMPTY : NULL;
    MPI_Comm comm, adj;
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, wts, info, 1,
                                 &comm));
    dist_check(comm, nin, in, inw, nout, out, outw, weighted, name);
    /* the adjacent form over the same lists sees the same graph */
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, !weighted ? MPI_UNWEIGHTED
                                          : nin ? inw : NULL, nout, out,
                                          !weighted ? MPI_UNWEIGHTED : nout ? outw : NULL,
                                          MPI_INFO_NULL, 0, &adj));
    dist_check(adj, nin, in, inw, nout, out, outw, weighted, name);
    nbhood h = { nin, nout, in, inpos, out };
    neighbor_colls(comm, &h, name);
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(comm, &dup));
    dist_check(dup, nin, in, inw, nout, out, outw, weighted, name);
    neighbor_colls(dup, &h, name);
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Comm_free(&adj));
    MPI_OK(MPI_Comm_free(&comm));
}

/* m random edges (self-loops and repeats likely), each stated by a random
 * rank; the edge 0 -> size-1 twice more, stated by the last rank and by 0. */
static void random_edges(edges *E, int m)
{
    E->m = 0;
    for (int e = 0; e < m; e++) {
        E->src[E->m] = rnd(mt_size);
        E->dst[E->m] = rnd(mt_size);
        E->w[E->m] = rnd(100);
        E->by[E->m++] = rnd(mt_size);
    }
    for (int t = 0; t < 2; t++) {
        E->src[E->m] = 0;
        E->dst[E->m] = mt_size - 1;
        E->w[E->m] = 1000 + t;
        E->by[E->m++] = t ? 0 : mt_size - 1;
    }
}

static void dist_tests(void)
{
    char name[64];
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "no_local", "false"));
    for (int t = 0; t < 4; t++) {
        edges E;
        random_edges(&E, t == 3 ? 0 : 4 * mt_size + 3 * t);
        snprintf(name, sizeof name, "dist graph %d (%d edges, %s)", t, E.m,
                 t % 2 ? "weighted" : "unweighted");
        dist_test(&E, t % 2, t == 1 ? info : MPI_INFO_NULL, name);
    }
    MPI_OK(MPI_Info_free(&info));
}

/* ---- bad arguments ---------------------------------------------------------- */

static void error_tests(void)
{
    int index[2] = { 1, 2 }, edges[2] = { 0, 0 }, r, st, n = 1, deg = 1, dst = 0, w = 1;
    int dims[2] = { 1, 1 }, periods[2] = { 0, 0 }, buf[8];
    MPI_Comm comm;
    /* MPI_Graph_create and MPI_Graph_map */
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, mt_size + 1, index, edges, 0, &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_map(MPI_COMM_WORLD, mt_size + 1, index, edges, &r));
    edges[0] = 1;   /* node 1 of a 1-node graph */
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_map(MPI_COMM_WORLD, 1, index, edges, &r));
    edges[0] = -1;
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &comm));
    index[0] = -1;
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 1, NULL, edges, 0, &comm));
    if (mt_size >= 2) {
        index[0] = 2, index[1] = 1;   /* decreasing */
        MPI_FAILS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &comm));
    }
    index[0] = 1, edges[0] = 0;
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, NULL));
    /* queries on the wrong kind of communicator */
    MPI_FAILS(MPI_ERR_TOPOLOGY, MPI_Graphdims_get(MPI_COMM_WORLD, &r, &st));
    MPI_FAILS(MPI_ERR_TOPOLOGY, MPI_Graph_get(MPI_COMM_WORLD, 1, 1, index, edges));
    MPI_FAILS(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &r));
    MPI_FAILS(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors(MPI_COMM_WORLD, 0, 1, buf));
    MPI_FAILS(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgather(buf, 1, MPI_INT, buf + 1, 1, MPI_INT,
                                                       MPI_COMM_WORLD));
    MPI_FAILS(MPI_ERR_COMM, MPI_Graph_create(MPI_COMM_NULL, 1, index, edges, 0, &comm));
    MPI_FAILS(MPI_ERR_COMM, MPI_Graphdims_get(MPI_COMM_NULL, &r, &st));
    /* on a graph: bad ranks and lengths; it is no distributed graph */
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &comm));
    if (comm != MPI_COMM_NULL) {
        MPI_FAILS(MPI_ERR_RANK, MPI_Graph_neighbors_count(comm, 1, &r));
        MPI_FAILS(MPI_ERR_RANK, MPI_Graph_neighbors(comm, -1, 1, buf));
        MPI_FAILS(MPI_ERR_ARG, MPI_Graph_neighbors(comm, 0, -1, buf));
        MPI_FAILS(MPI_ERR_ARG, MPI_Graph_get(comm, -1, 1, index, edges));
        MPI_FAILS(MPI_ERR_ARG, MPI_Graph_get(comm, 1, -1, index, edges));
        MPI_FAILS(MPI_ERR_ARG, MPI_Graphdims_get(comm, NULL, &r));
        MPI_FAILS(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors_count(comm, &r, &st, &n));
        MPI_FAILS(MPI_ERR_TOPOLOGY, MPI_Cartdim_get(comm, &r));
        MPI_OK(MPI_Comm_free(&comm));
    }
    /* MPI_Cart_map */
    MPI_FAILS(MPI_ERR_DIMS, MPI_Cart_map(MPI_COMM_WORLD, -1, dims, periods, &r));
    dims[1] = 0;
    MPI_FAILS(MPI_ERR_DIMS, MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &r));
    dims[1] = mt_size + 1;
    MPI_FAILS(MPI_ERR_ARG, MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &r));
    dims[1] = 1;
    MPI_FAILS(MPI_ERR_ARG, MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, NULL));
    MPI_FAILS(MPI_ERR_ARG, MPI_Cart_map(MPI_COMM_WORLD, 2, NULL, periods, &r));
    /* MPI_Dist_graph_create: bad arguments on one rank fail every rank,
     * with that rank's class; the next call works */
    int last = mt_rank == mt_size - 1, bad = mt_size;
    MPI_FAILS(MPI_ERR_RANK, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, last ? &bad : &dst, &deg,
                                                  &dst, &w, MPI_INFO_NULL, 0, &comm));
    MPI_FAILS(MPI_ERR_RANK, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &dst, &deg,
                                                  last ? &bad : &dst, &w, MPI_INFO_NULL, 0,
                                                  &comm));
    int negw = last ? -1 : 1, negd = last ? -1 : 1, negn = last ? -1 : 1;
    MPI_FAILS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &dst, &deg, &dst, &negw,
                                                 MPI_INFO_NULL, 0, &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &dst, &negd, &dst, &w,
                                                 MPI_INFO_NULL, 0, &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, negn, &dst, &deg, &dst, &w,
                                                 MPI_INFO_NULL, 0, &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &dst, &deg, &dst,
                                                 last ? MPI_WEIGHTS_EMPTY : &w, MPI_INFO_NULL,
                                                 0, &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &dst, &deg, &dst, &w,
                                                 MPI_INFO_NULL, 0, last ? NULL : &comm));
    if (mt_size >= 2)   /* MPI_UNWEIGHTED on some ranks only */
        MPI_FAILS(MPI_ERR_ARG, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &dst, &deg, &dst,
                                                     last ? MPI_UNWEIGHTED : &w,
                                                     MPI_INFO_NULL, 0, &comm));
    /* the other constructors too: one rank's bad arguments fail them all */
    MPI_FAILS(MPI_ERR_RANK, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, last ? &bad : &dst,
                                                           &w, 1, &dst, &w, MPI_INFO_NULL, 0,
                                                           &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &dst, &negw, 1,
                                                          &dst, &w, MPI_INFO_NULL, 0, &comm));
    if (mt_size >= 2)
        MPI_FAILS(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &dst,
                                                              last ? MPI_UNWEIGHTED : &w, 1,
                                                              &dst, last ? MPI_UNWEIGHTED : &w,
                                                              MPI_INFO_NULL, 0, &comm));
    dims[0] = last ? mt_size + 1 : 1, dims[1] = 1;
    MPI_FAILS(MPI_ERR_ARG, MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm));
    dims[0] = 1;
    MPI_FAILS(MPI_ERR_ARG, MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0,
                                           last ? NULL : &comm));
    MPI_FAILS(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0,
                                            last ? NULL : &comm));
    MPI_Info info, freed;
    MPI_OK(MPI_Info_create(&info));
    freed = info;
    MPI_OK(MPI_Info_free(&info));
    MPI_FAILS(MPI_ERR_INFO, MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &dst, &deg, &dst, &w,
                                                  freed, 0, &comm));
    MPI_FAILS(MPI_ERR_COMM, MPI_Dist_graph_create(MPI_COMM_NULL, 1, &dst, &deg, &dst, &w,
                                                  MPI_INFO_NULL, 0, &comm));
    if (mt_size >= 2) {   /* topologies need an intracommunicator */
        MPI_Comm half, inter;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &half));
        MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - mt_rank % 2, 7, &inter));
        MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
        dims[1] = 1;
        MPI_FAILS(MPI_ERR_COMM, MPI_Cart_create(inter, 2, dims, periods, 0, &comm));
        MPI_FAILS(MPI_ERR_COMM, MPI_Cart_map(inter, 2, dims, periods, &r));
        MPI_FAILS(MPI_ERR_COMM, MPI_Graph_create(inter, 1, index, edges, 0, &comm));
        MPI_FAILS(MPI_ERR_COMM, MPI_Graph_map(inter, 1, index, edges, &r));
        MPI_FAILS(MPI_ERR_COMM, MPI_Dist_graph_create(inter, 1, &dst, &deg, &dst, &w,
                                                      MPI_INFO_NULL, 0, &comm));
        MPI_FAILS(MPI_ERR_COMM, MPI_Dist_graph_create_adjacent(inter, 1, &dst, &w, 1, &dst, &w,
                                                               MPI_INFO_NULL, 0, &comm));
        MPI_FAILS(MPI_ERR_COMM, MPI_Neighbor_alltoall(buf, 1, MPI_INT, buf + 1, 1, MPI_INT,
                                                      inter));
        MPI_OK(MPI_Comm_free(&inter));
        MPI_OK(MPI_Comm_free(&half));
    }
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &dst, &deg, &dst, &w, MPI_INFO_NULL, 0,
                                 &comm));
    MPI_OK(MPI_Dist_graph_neighbors_count(comm, &r, &st, &n));
    CHECK(r == (mt_rank == 0 ? mt_size : 0) && st == (mt_rank == 0 ? mt_size : 0) && n == 1,
          "Dist_graph_create after errors: degrees %d %d weighted %d", r, st, n);
    MPI_FAILS(MPI_ERR_ARG, MPI_Dist_graph_neighbors(comm, -1, buf, buf, 1, buf, buf));
    MPI_FAILS(MPI_ERR_TOPOLOGY, MPI_Graphdims_get(comm, &r, &st));
    MPI_OK(MPI_Comm_free(&comm));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "topo_graph");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rng_seed(20260325);
    graph_tests();
    cart_map_tests();
    dist_tests();
    error_tests();
    return mt_finish();
}
