/*
 * coll_neighbor_entry.c — the neighborhood collectives on Cartesian and
 * distributed-graph communicators: MPI_Neighbor_allgather(v),
 * Neighbor_alltoall(v,w) and their nonblocking forms. All ten run the same
 * one-round schedule (coll/neighbor.c); the blocking ones wait for it.
 *
 * Neighbors: a distributed graph's sources (in) and destinations (out); a
 * graph's (MPI_Graph_create) list from MPI_Graph_neighbors, both in and out,
 * on symmetric graphs only (MPI-3.1 7.6: others are MPI_ERR_TOPOLOGY); a
 * Cartesian grid's, for each dimension, the source then the destination of
 * a shift by 1 (MPI-3.1 §7.6), both lists alike, MPI_PROC_NULL included.
 * On a periodic dimension of size 1 or 2 both neighbors are the same rank:
 * blocks travelling up and down a dimension then use two tags, so a block
 * sent to my lower neighbor lands in its upper slot and vice versa.
 */
#include <stdlib.h>
#include "src/coll_nbc.h"
#include "src/pt2pt.h"
#include "src/topo.h"

enum { NB_ALLGATHER, NB_ALLGATHERV, NB_ALLTOALL, NB_ALLTOALLV, NB_ALLTOALLW };

/* One side (send or receive) of a call, as the user passed it. */
typedef struct nb_side {
    const void         *buf;       /* the receive side's is the user's writable recvbuf */
    int                 count;     /* plain forms */
    const int          *counts;    /* v and w forms */
    const int          *displs;    /* v: elements */
    const MPI_Aint     *wdispls;   /* w: bytes */
    MPI_Datatype        type;
    const MPI_Datatype *types;     /* w */
} nb_side;

typedef struct nb_list {
    int  nin, nout;
    int *in, *out, *sub_in, *sub_out;   /* one allocation */
} nb_list;

static int neighbors(const char *fn, mpir_comm *c, nb_list *l)
{
    MPI_Comm comm = c->handle;
    int kind = MPI_UNDEFINED, nd = 0, w;
    mpir_Topo_test(comm, &kind);
    if (kind == MPI_CART) {
        mpir_Cartdim_get(comm, &nd);
        l->nin = l->nout = 2 * nd;
    } else if (kind == MPI_DIST_GRAPH) {
        mpir_Dist_graph_neighbors_count(comm, &l->nin, &l->nout, &w);
    } else if (kind == MPI_GRAPH) {
        if (!mpir_topo_graph_symmetric(c))
            return mpir_err(MPI_ERR_TOPOLOGY, fn, "the graph is not symmetric: some pair of "
                            "nodes is joined more often one way than the other");
        mpir_Graph_neighbors_count(comm, c->dev.rank, &l->nin);
        l->nout = l->nin;
    } else {
        return mpir_err(MPI_ERR_TOPOLOGY, fn, "communicator has no topology");
    }
    size_t n = (size_t)(l->nin + l->nout);
    if (!(l->in = malloc(2 * (n ? n : 1) * sizeof(int))))
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    l->out = l->in + l->nin;
    l->sub_in = l->out + l->nout;
    l->sub_out = l->sub_in + l->nin;
    if (kind == MPI_CART) {
        for (int d = 0; d < nd; d++) {
            mpir_Cart_shift(comm, d, 1, &l->in[2 * d], &l->in[2 * d + 1]);
            l->out[2 * d] = l->in[2 * d];
            l->out[2 * d + 1] = l->in[2 * d + 1];
            /* sub-tag 0: travelling up the dimension, 1: down */
            l->sub_in[2 * d] = 0;
            l->sub_in[2 * d + 1] = 1;
            l->sub_out[2 * d] = 1;
            l->sub_out[2 * d + 1] = 0;
        }
    } else {
        if (kind == MPI_GRAPH) {
            mpir_Graph_neighbors(comm, c->dev.rank, l->nin, l->in);
            for (int i = 0; i < l->nin; i++)
                l->out[i] = l->in[i];
        } else {
            mpir_Dist_graph_neighbors(comm, l->nin, l->in, MPI_UNWEIGHTED, l->nout, l->out,
                                      MPI_UNWEIGHTED);
        }
        for (int i = 0; i < l->nin; i++)
            l->sub_in[i] = 0;
        for (int i = 0; i < l->nout; i++)
            l->sub_out[i] = 0;
    }
    return MPI_SUCCESS;
}

/* One side expanded into n blocks: counts, byte displacements, types. */
typedef struct nb_blocks {
    size_t          *cnt;
    ptrdiff_t       *dsp;
    const cu_dtype **ty;
} nb_blocks;

/* Checks one side and expands it (b->cnt is the one allocation). */
static int side(const char *fn, int kind, int send, const nb_side *a, int n, nb_blocks *b)
{
    const char *cn = send ? "sendcount" : "recvcount", *tn = send ? "sendtype" : "recvtype";
    const char *bn = send ? "sendbuf" : "recvbuf";
    int plain = kind == NB_ALLGATHER || kind == NB_ALLTOALL || (send && kind == NB_ALLGATHERV);
    int rc = MPI_SUCCESS;
    cu_dtype *dt = NULL;
    if (a->buf == MPI_IN_PLACE)
        return mpir_err(MPI_ERR_BUFFER, fn, "%s is MPI_IN_PLACE (not allowed for "
                        "neighborhood collectives)", bn);
    if (plain)
        rc = mpir_coll_chk(fn, cn, a->count, tn, a->type, bn, a->buf, &dt);
    else if (kind != NB_ALLTOALLW)
        rc = mpir_coll_chk_counts(fn, send ? "sendcounts" : "recvcounts", a->counts,
                                  send ? "sdispls" : kind == NB_ALLGATHERV ? "displs" : "rdispls",
                                  a->displs, n);
    else if (n > 0 && (!a->counts || !a->wdispls || !a->types))
        rc = mpir_err(MPI_ERR_ARG, fn, "%s is NULL",
                      !a->counts ? (send ? "sendcounts" : "recvcounts")
                      : !a->wdispls ? (send ? "sdispls" : "rdispls")
                      : (send ? "sendtypes" : "recvtypes"));
    if (rc == MPI_SUCCESS && !plain && kind != NB_ALLTOALLW)
        rc = mpir_check_dtype(fn, tn, a->type, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t m = (size_t)(n ? n : 1);
    char *mem = malloc(m * (sizeof *b->cnt + sizeof *b->dsp + sizeof *b->ty));
    if (!mem)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    b->cnt = (size_t *)mem;
    b->dsp = (ptrdiff_t *)(mem + m * sizeof *b->cnt);
    b->ty = (const cu_dtype **)(mem + m * (sizeof *b->cnt + sizeof *b->dsp));
    for (int i = 0; i < n; i++) {
        cu_dtype *t = dt;
        if (kind == NB_ALLTOALLW) {
            if (a->counts[i] < 0)
                rc = mpir_err(MPI_ERR_COUNT, fn, "invalid %s[%d] = %d (must be >= 0)",
                              send ? "sendcounts" : "recvcounts", i, a->counts[i]);
            if (rc == MPI_SUCCESS)
                rc = mpir_check_dtype(fn, send ? "sendtypes[i]" : "recvtypes[i]", a->types[i],
                                      &t);
            if (rc != MPI_SUCCESS) {
                free(mem);
                return rc;
            }
        }
        b->ty[i] = t;
        b->cnt[i] = plain ? (size_t)a->count : (size_t)a->counts[i];
        if (kind == NB_ALLTOALLW)
            b->dsp[i] = (ptrdiff_t)a->wdispls[i];
        else if (send && (kind == NB_ALLGATHER || kind == NB_ALLGATHERV))
            b->dsp[i] = 0;   /* the same block to every neighbor */
        else if (plain)
            b->dsp[i] = (ptrdiff_t)i * a->count * t->extent;
        else
            b->dsp[i] = (ptrdiff_t)a->displs[i] * t->extent;
    }
    return MPI_SUCCESS;
}

static int neighbor(const char *fn, MPI_Comm comm, int kind, const nb_side *snd,
                    const nb_side *rcv, MPI_Request *request)
{
    mpir_comm *c = mpir_comm_get(comm);
    nb_list l = { 0 };
    nb_blocks sb = { 0 }, rb = { 0 };
    int rc = mpir_check_intra(fn, c);
    if (rc == MPI_SUCCESS)
        rc = neighbors(fn, c, &l);
    if (rc == MPI_SUCCESS)
        rc = side(fn, kind, 1, snd, l.nout, &sb);
    if (rc == MPI_SUCCESS)
        rc = side(fn, kind, 0, rcv, l.nin, &rb);
    coll_sched *s = NULL;
    if (rc == MPI_SUCCESS && (s = mpir_nbc_new(c))) {
        for (int i = 0; i < l.nout; i++)
            coll_sched_keep(s, sb.ty[i]);
        for (int i = 0; i < l.nin; i++)
            coll_sched_keep(s, rb.ty[i]);
        rc = coll_neighbor_build(s, l.nin, l.in, l.nout, l.out, snd->buf, sb.cnt, sb.dsp, sb.ty,
                                 (void *)rcv->buf, rb.cnt, rb.dsp, rb.ty, l.sub_in, l.sub_out);
    }
    free(sb.cnt);
    free(rb.cnt);
    free(l.in);
    if (rc != MPI_SUCCESS && !s)
        return mpir_err_comm(comm, rc);
    return request ? mpir_nbc_start(fn, comm, s, rc, request)
                   : mpir_nbc_run(fn, comm, s, rc);
}

#define NB_BLOCKING(fn, comm)                                                        \
    MPIR_ENTER(fn);                                                                  \
    do {                                                                             \
        mpir_comm *c_;                                                               \
        MPIR_GET_COMM(fn, comm, c_);                                                 \
        (void)c_;                                                                    \
    } while (0)
#define NB_NONBLOCKING(fn, comm, request)                                            \
    mpir_comm *c_;                                                                   \
    MPIR_NBC_ENTER(fn, comm, c_, request);                                           \
    (void)c_

#define PLAIN(b, n, t) { .buf = (b), .count = (n), .type = (t) }
#define VEC(b, n, d, t) { .buf = (b), .counts = (n), .displs = (d), .type = (t) }
#define WVEC(b, n, d, t) { .buf = (b), .counts = (n), .wdispls = (d), .types = (t) }

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_allgather";
    NB_BLOCKING(fn, comm);
    nb_side s = PLAIN(sendbuf, sendcount, sendtype), r = PLAIN(recvbuf, recvcount, recvtype);
    return neighbor(fn, comm, NB_ALLGATHER, &s, &r, NULL);
}
MPIR_WEAK(Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_allgather";
    NB_NONBLOCKING(fn, comm, request);
    nb_side s = PLAIN(sendbuf, sendcount, sendtype), r = PLAIN(recvbuf, recvcount, recvtype);
    return neighbor(fn, comm, NB_ALLGATHER, &s, &r, request);
}
MPIR_WEAK(Ineighbor_allgather)

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_allgatherv";
    NB_BLOCKING(fn, comm);
    nb_side s = PLAIN(sendbuf, sendcount, sendtype), r = VEC(recvbuf, recvcounts, displs, recvtype);
    return neighbor(fn, comm, NB_ALLGATHERV, &s, &r, NULL);
}
MPIR_WEAK(Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_allgatherv";
    NB_NONBLOCKING(fn, comm, request);
    nb_side s = PLAIN(sendbuf, sendcount, sendtype), r = VEC(recvbuf, recvcounts, displs, recvtype);
    return neighbor(fn, comm, NB_ALLGATHERV, &s, &r, request);
}
MPIR_WEAK(Ineighbor_allgatherv)

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_alltoall";
    NB_BLOCKING(fn, comm);
    nb_side s = PLAIN(sendbuf, sendcount, sendtype), r = PLAIN(recvbuf, recvcount, recvtype);
    return neighbor(fn, comm, NB_ALLTOALL, &s, &r, NULL);
}
MPIR_WEAK(Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_alltoall";
    NB_NONBLOCKING(fn, comm, request);
    nb_side s = PLAIN(sendbuf, sendcount, sendtype), r = PLAIN(recvbuf, recvcount, recvtype);
    return neighbor(fn, comm, NB_ALLTOALL, &s, &r, request);
}
MPIR_WEAK(Ineighbor_alltoall)

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_alltoallv";
    NB_BLOCKING(fn, comm);
    nb_side s = VEC(sendbuf, sendcounts, sdispls, sendtype),
            r = VEC(recvbuf, recvcounts, rdispls, recvtype);
    return neighbor(fn, comm, NB_ALLTOALLV, &s, &r, NULL);
}
MPIR_WEAK(Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_alltoallv";
    NB_NONBLOCKING(fn, comm, request);
    nb_side s = VEC(sendbuf, sendcounts, sdispls, sendtype),
            r = VEC(recvbuf, recvcounts, rdispls, recvtype);
    return neighbor(fn, comm, NB_ALLTOALLV, &s, &r, request);
}
MPIR_WEAK(Ineighbor_alltoallv)

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    static const char fn[] = "MPI_Neighbor_alltoallw";
    NB_BLOCKING(fn, comm);
    nb_side s = WVEC(sendbuf, sendcounts, sdispls, sendtypes),
            r = WVEC(recvbuf, recvcounts, rdispls, recvtypes);
    return neighbor(fn, comm, NB_ALLTOALLW, &s, &r, NULL);
}
MPIR_WEAK(Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_alltoallw";
    NB_NONBLOCKING(fn, comm, request);
    nb_side s = WVEC(sendbuf, sendcounts, sdispls, sendtypes),
            r = WVEC(recvbuf, recvcounts, rdispls, recvtypes);
    return neighbor(fn, comm, NB_ALLTOALLW, &s, &r, request);
}
MPIR_WEAK(Ineighbor_alltoallw)
