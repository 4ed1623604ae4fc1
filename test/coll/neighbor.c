/*
 * neighbor.c — the neighborhood collectives, blocking and nonblocking,
 * against a local reference (standard MPI only; validated with Open MPI).
 *
 * Topologies: a periodic ring, a 2-D grid periodic in one dimension only
 * (MPI_PROC_NULL neighbors at the edges: their receive slots stay
 * untouched), a 3-D fully periodic grid (dimensions of size 1 and 2 make
 * both neighbors the same rank), and a distributed graph with asymmetric
 * in/out neighbors, weights, and repeated edges on few ranks.
 *
 * Every sender's out-block j holds val(sender, j * n + i); in-block k comes
 * from in-neighbor in[k]'s out-block src[k] (Cartesian: k ^ 1, the block it
 * sent the other way along the dimension; graph: k by construction).
 * Open MPI 4's blocking forms agree; its nonblocking ones (libnbc) swap the
 * two blocks on periodic dimensions of size 1 or 2 (build with
 * -DNB_FORMS=1 to check the blocking forms alone against it).
 */
#include "ctest.h"

#define UNTOUCHED (-77)
#ifndef NB_FORMS
#define NB_FORMS 2   /* -DNB_FORMS=1: blocking forms only */
#endif

static int val(int r, long i) { return (int)((r * 1000003L + i * 13) % 100000); }

typedef struct {
    MPI_Comm comm;
    int nin, nout, in[16], out[16], src[16];
    const char *name;
} topo;

static void check_block(const int *buf, int k, long n, const topo *t, const char *what)
{
    for (long i = 0; i < n; i++) {
        int want = t->in[k] == MPI_PROC_NULL ? UNTOUCHED : val(t->in[k], (long)t->src[k] * n + i);
        CT_CHECK(buf[i] == want, "%s on %s: in-block %d (from %d) [%ld] = %d, expected %d",
                 what, t->name, k, t->in[k], i, buf[i], want);
    }
}

static void run(const topo *t, long n, int nonblocking)
{
    int me;
    MPI_Comm_rank(t->comm, &me);
    long outn = t->nout * n + 1, inn = (t->nin + 1) * (n + 3);
    int *s = malloc(sizeof(int) * (size_t)outn), *r = malloc(sizeof(int) * (size_t)inn);
    int rc[16], rd[16], sc[16], sd[16];
    MPI_Aint rdw[16], sdw[16];
    MPI_Datatype st[16], rt[16];
    MPI_Request q = MPI_REQUEST_NULL;
    const char *nb = nonblocking ? "Ineighbor" : "Neighbor";
    char what[64];
    for (long i = 0; i < outn; i++)
        s[i] = val(me, i);
    for (int k = 0; k < t->nin; k++) {
        rc[k] = (int)n;
        rd[k] = (t->nin - 1 - k) * (int)(n + 3) + 1;   /* reversed, with gaps */
        rdw[k] = (MPI_Aint)rd[k] * (MPI_Aint)sizeof(int);
        rt[k] = MPI_INT;
    }
    for (int j = 0; j < t->nout; j++) {
        sc[j] = (int)n;
        sd[j] = j * (int)n;
        sdw[j] = (MPI_Aint)sd[j] * (MPI_Aint)sizeof(int);
        st[j] = MPI_INT;
    }
#define RESET() for (long i = 0; i < inn; i++) r[i] = UNTOUCHED
#define DONE() do { if (nonblocking) CT_OK(MPI_Wait(&q, MPI_STATUS_IGNORE)); } while (0)

    /* allgather: every out-neighbor gets out-block 0 */
    RESET();
    if (nonblocking)
        CT_OK(MPI_Ineighbor_allgather(s, (int)n, MPI_INT, r, (int)n, MPI_INT, t->comm, &q));
    else
        CT_OK(MPI_Neighbor_allgather(s, (int)n, MPI_INT, r, (int)n, MPI_INT, t->comm));
    DONE();
    snprintf(what, sizeof what, "%s_allgather", nb);
    for (int k = 0; k < t->nin; k++) {
        topo t0 = *t;
        t0.src[k] = 0;
        check_block(r + k * n, k, n, &t0, what);
    }
    RESET();
    if (nonblocking)
        CT_OK(MPI_Ineighbor_allgatherv(s, (int)n, MPI_INT, r, rc, rd, MPI_INT, t->comm, &q));
    else
        CT_OK(MPI_Neighbor_allgatherv(s, (int)n, MPI_INT, r, rc, rd, MPI_INT, t->comm));
    DONE();
    snprintf(what, sizeof what, "%s_allgatherv", nb);
    for (int k = 0; k < t->nin; k++) {
        topo t0 = *t;
        t0.src[k] = 0;
        check_block(r + rd[k], k, n, &t0, what);
    }
    /* alltoall(v,w) */
    RESET();
    if (nonblocking)
        CT_OK(MPI_Ineighbor_alltoall(s, (int)n, MPI_INT, r, (int)n, MPI_INT, t->comm, &q));
    else
        CT_OK(MPI_Neighbor_alltoall(s, (int)n, MPI_INT, r, (int)n, MPI_INT, t->comm));
    DONE();
    snprintf(what, sizeof what, "%s_alltoall", nb);
    for (int k = 0; k < t->nin; k++)
        check_block(r + k * n, k, n, t, what);
    RESET();
    if (nonblocking)
        CT_OK(MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, t->comm, &q));
    else
        CT_OK(MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, t->comm));
    DONE();
    snprintf(what, sizeof what, "%s_alltoallv", nb);
    for (int k = 0; k < t->nin; k++)
        check_block(r + rd[k], k, n, t, what);
    RESET();
    if (nonblocking)
        CT_OK(MPI_Ineighbor_alltoallw(s, sc, sdw, st, r, rc, rdw, rt, t->comm, &q));
    else
        CT_OK(MPI_Neighbor_alltoallw(s, sc, sdw, st, r, rc, rdw, rt, t->comm));
    DONE();
    snprintf(what, sizeof what, "%s_alltoallw", nb);
    for (int k = 0; k < t->nin; k++)
        check_block(r + rd[k], k, n, t, what);
    free(s);
    free(r);
}

static void cart(topo *t, int ndims, const int *periods, const char *name)
{
    int size, dims[3] = { 0, 0, 0 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CT_OK(MPI_Dims_create(size, ndims, dims));
    CT_OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &t->comm));
    t->nin = t->nout = 2 * ndims;
    for (int d = 0; d < ndims; d++) {
        CT_OK(MPI_Cart_shift(t->comm, d, 1, &t->in[2 * d], &t->in[2 * d + 1]));
        t->out[2 * d] = t->in[2 * d];
        t->out[2 * d + 1] = t->in[2 * d + 1];
        t->src[2 * d] = 2 * d + 1;
        t->src[2 * d + 1] = 2 * d;
    }
    t->name = name;
}

static void graph(topo *t, int weighted)
{
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    /* out: me+1, me+3, and me+2 from even ranks; in: the mirror image */
    t->nout = 0;
    t->out[t->nout++] = (me + 1) % p;
    t->out[t->nout++] = (me + 3) % p;
    if (me % 2 == 0)
        t->out[t->nout++] = (me + 2) % p;
    t->nin = 0;
    t->in[t->nin++] = (me - 1 + 3 * p) % p;
    t->in[t->nin++] = (me - 3 + 3 * p) % p;
    if ((me - 2 + 2 * p) % p % 2 == 0)
        t->in[t->nin++] = (me - 2 + 2 * p) % p;
    for (int k = 0; k < t->nin; k++)
        t->src[k] = k;
    int iw[16], ow[16];
    for (int k = 0; k < 16; k++)
        iw[k] = ow[k] = k + 1;
    CT_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t->nin, t->in,
                                         weighted ? iw : MPI_UNWEIGHTED, t->nout, t->out,
                                         weighted ? ow : MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                         &t->comm));
    int indeg, outdeg, w;
    CT_OK(MPI_Dist_graph_neighbors_count(t->comm, &indeg, &outdeg, &w));
    CT_CHECK(indeg == t->nin && outdeg == t->nout && w == weighted, "graph degrees");
    t->name = weighted ? "weighted graph" : "graph";
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "neighbor");
    topo t[5];
    int ring[1] = { 1 }, half[2] = { 1, 0 }, all3[3] = { 1, 1, 1 };
    cart(&t[0], 1, ring, "periodic ring");
    cart(&t[1], 2, half, "2-D grid, periodic in dim 0");
    cart(&t[2], 3, all3, "3-D periodic grid");
    graph(&t[3], 0);
    graph(&t[4], 1);
    long counts[] = { 0, 1, 7, ct_long() ? 65537 : 1031 };
    for (int k = 0; k < 5; k++) {
        MPI_Comm_set_errhandler(t[k].comm, MPI_ERRORS_RETURN);
        for (int c = 0; c < 4; c++)
            for (int nbk = 0; nbk < NB_FORMS; nbk++)
                run(&t[k], counts[c], nbk);
    }
    /* several nonblocking ones outstanding on different topologies */
    int *s = malloc(sizeof(int) * 64), *r[5];
    MPI_Request q[5];
    for (int i = 0; i < 64; i++)
        s[i] = val(ct_wrank, i);
    for (int k = 0; k < 5; k++) {
        r[k] = malloc(sizeof(int) * 16 * 4);
        for (int i = 0; i < 16 * 4; i++)
            r[k][i] = UNTOUCHED;
        CT_OK(MPI_Ineighbor_alltoall(s, 4, MPI_INT, r[k], 4, MPI_INT, t[k].comm, &q[k]));
    }
    CT_OK(MPI_Waitall(5, q, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 5; k++) {
        for (int b = 0; b < t[k].nin; b++)
            check_block(r[k] + b * 4, b, 4, &t[k], "outstanding Ineighbor_alltoall");
        free(r[k]);
    }
    free(s);
    /* no topology: MPI_ERR_TOPOLOGY */
    int x = 0, y[4], cls;
    MPI_Request rq;
    int rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CT_CHECK(cls == MPI_ERR_TOPOLOGY, "Neighbor_allgather without topology: class %d", cls);
    rc = MPI_Ineighbor_alltoall(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &rq);
    MPI_Error_class(rc, &cls);
    CT_CHECK(cls == MPI_ERR_TOPOLOGY, "Ineighbor_alltoall without topology: class %d", cls);
    for (int k = 0; k < 5; k++)
        MPI_Comm_free(&t[k].comm);
    if (ct_wrank == 0)
        printf("neighbor: %d ranks ok\n", ct_wsize);
    return ct_finish();
}
