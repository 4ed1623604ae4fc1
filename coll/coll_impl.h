/*
 * coll_impl.h — private to coll/: tags, the point-to-point helpers the
 * algorithms share, and the node views of the hierarchical forms.
 */
#ifndef COLL_IMPL_H
#define COLL_IMPL_H

#include "coll/algos.h"

/* Internal tags on the collective context. Negative, so they can never equal
 * a user tag (MPI_Comm_create_group runs with user tags on the same context);
 * MPI_ANY_TAG (-1) is never used here, nor MPI_ANY_SOURCE. Collectives on one
 * communicator run in the same order everywhere and messages between two
 * ranks do not overtake, so one tag per operation is enough as long as every
 * algorithm numbers ranks the same way. Sub-views (a node, the node leaders)
 * number ranks differently, so their messages get tags of their own. */
#define COLL_TAG_BARRIER    (-16)
#define COLL_TAG_BCAST      (-17)
#define COLL_TAG_ALLGATHER  (-18)
#define COLL_TAG_GATHER     (-19)
#define COLL_TAG_SCATTER    (-20)
#define COLL_TAG_ALLGATHERV (-21)
#define COLL_TAG_ALLTOALL   (-22)
#define COLL_TAG_ALLTOALLV  (-23)
#define COLL_TAG_ALLTOALLW  (-24)
#define COLL_TAG_GATHERV    (-25)
#define COLL_TAG_SCATTERV   (-26)
#define COLL_TAG_HIER_ROOT  (-27)   /* root to its node leader, full view */
#define COLL_TAG_HIER_NODE  (-28)   /* inside one node's view */
#define COLL_TAG_HIER_LEAD  (-29)   /* among node leaders */
#define COLL_TAG_INTER      (-30)   /* between an intercommunicator's groups */
/* -32 .. -47: the reductions (coll/reduce_*.c, allreduce_*.c, ...). */
#define COLL_TAG_REDUCE         (-32)
#define COLL_TAG_ALLREDUCE      (-33)
#define COLL_TAG_REDUCE_SCATTER (-34)
#define COLL_TAG_SCAN           (-35)
#define COLL_TAG_EXSCAN         (-36)

/* The same, started: r[0] the receive, r[1] the send (NULL where not
 * posted, or where the message went at once); the caller ends it with
 * coll_waitall(2, r) whatever it returns, and may work on other buffers
 * meanwhile. */
int coll_sendrecv_start(const void *sbuf, size_t scount, const cu_dtype *sdt, int dst,
                        void *rbuf, size_t rcount, const cu_dtype *rdt, int src,
                        int tag, const mpid_comm *comm, mpid_request *r[2]);
/* Exchange with two peers: receive from src while sending to dst. */
int coll_sendrecv(const void *sbuf, size_t scount, const cu_dtype *sdt, int dst,
                  void *rbuf, size_t rcount, const cu_dtype *rdt, int src,
                  int tag, const mpid_comm *comm);
/* Blocking send / receive on the collective context. */
int coll_send(const void *buf, size_t count, const cu_dtype *dt, int dst, int tag,
              const mpid_comm *comm);
int coll_recv(void *buf, size_t count, const cu_dtype *dt, int src, int tag,
              const mpid_comm *comm);

/* Large work buffers that stay allocated between calls (coll/scratch.c):
 * as malloc and free, without the page faults of fresh memory each call. */
void *coll_scratch_get(size_t n);
void  coll_scratch_put(void *p);

/* Wait for n requests (NULL entries skipped), free them; first error wins. */
int coll_waitall(int n, mpid_request **reqs);

/* n zeroed request slots: the caller's array of COLL_REQS_LOCAL when n
 * fits (a small group's call allocates nothing), else calloc'd memory;
 * coll_reqs_put frees what coll_reqs_get allocated. */
#define COLL_REQS_LOCAL 16
mpid_request **coll_reqs_get(mpid_request **local, int n);
void coll_reqs_put(mpid_request **reqs, mpid_request **local);

/* Local copy between two typed buffers holding the same packed bytes. */
int coll_copy(const void *sbuf, size_t scount, const cu_dtype *sdt,
              void *rbuf, size_t rcount, const cu_dtype *rdt);

/* The MPI_BYTE type: packed bytes and zero-byte synchronisation messages. */
const cu_dtype *coll_byte(void);

/* A typed buffer as packed bytes, for algorithms that cut messages at byte
 * offsets (pipelining, scatter+allgather): every rank must cut the same
 * packed stream the same way even when their datatypes differ. Contiguous
 * buffers are used in place; others go through a temporary copy. */
typedef struct coll_bytes {
    char  *p;       /* the packed bytes */
    size_t n;       /* their number */
    char  *tmp;     /* allocated copy, or NULL when p points into the buffer */
} coll_bytes;
/* pack: fill the copy from the buffer (senders); else leave it for receiving. */
int  coll_bytes_get(coll_bytes *b, const void *buf, size_t count, const cu_dtype *dt, int pack);
/* unpack: copy received bytes back into the buffer; frees the copy. */
void coll_bytes_put(coll_bytes *b, void *buf, size_t count, const cu_dtype *dt, int unpack);

/* Block i of a buffer of per-rank blocks (gather's result, scatter's
 * source): counts NULL is the plain form (count elements each, block i at
 * i * count), else counts[i] elements at displs[i]; in elements of dt. */
static inline size_t coll_blk_count(const int *counts, size_t count, int i)
{
    return counts ? (size_t)counts[i] : count;
}
static inline char *coll_blk(const void *buf, const int *displs, size_t count, int i,
                             const cu_dtype *dt)
{
    ptrdiff_t d = displs ? (ptrdiff_t)displs[i] : (ptrdiff_t)i * (ptrdiff_t)count;
    return (char *)buf + d * dt->extent;
}

/* The binomial tree over p ranks numbered from the root (relative rank 0):
 * a rank's lowest set bit `top` (p at the root) leads to its parent,
 * rel - top; its children are rel + m for the powers of two m < top with
 * rel + m < p (child rel + m has top m); its subtree is the span ranks
 * rel .. rel + span - 1. */
static inline int coll_binomial_top(int rel, int p)
{
    int top = 1;
    while (top < p && !(rel & top))
        top <<= 1;
    return top;
}
static inline int coll_binomial_span(int rel, int top, int p)
{
    return top < p - rel ? top : p - rel;
}

/* A rank's blocks in a binomial gather or scatter: those of its subtree,
 * blk bytes each, in relative order from its own (the root holds all p). */
typedef struct coll_subtree {
    int    p, rel, top;   /* ranks; mine relative to the root; its lowest bit */
    size_t blk;           /* bytes per block */
    char  *blocks;        /* the subtree's blocks (malloc'd) */
} coll_subtree;
/* The opening of a binomial gather or scatter from root, blk being every
 * rank's packed block (the signatures match). Done at once, t->blocks
 * NULL: one rank (sbuf copied to rbuf unless either is MPI_IN_PLACE) or
 * empty blocks. Otherwise t->blocks has room for the subtree's blocks and
 * the caller frees it. MPI_SUCCESS, or the copy's error, or
 * MPI_ERR_NO_MEM. */
int coll_subtree_open(coll_subtree *t, const void *sbuf, size_t scount, const cu_dtype *sdt,
                      void *rbuf, size_t rcount, const cu_dtype *rdt, size_t blk, int root,
                      const mpid_comm *comm);
/* Block of relative rank rel + i, and the bytes of the subtree of child
 * rel + m (0 past the last rank). */
static inline char *coll_subtree_block(const coll_subtree *t, int i)
{
    return t->blocks + (size_t)i * t->blk;
}
static inline size_t coll_subtree_child_bytes(const coll_subtree *t, int m)
{
    return t->rel + m < t->p ? (size_t)coll_binomial_span(t->rel + m, m, t->p) * t->blk : 0;
}

/* Chunks [lo, hi) of n bytes cut in chunks of c (the last ones short or
 * empty): byte offset and length, for scatter+allgather. */
static inline void coll_chunk(size_t n, size_t c, long lo, long hi, size_t *off, size_t *len)
{
    size_t a = (size_t)lo * c, b = (size_t)hi * c;
    *off = a < n ? a : n;
    *len = (b < n ? b : n) - *off;
}

/* Tunables (CLUMPI_COLL_SEGSIZE, CLUMPI_COLL_KNOMIAL_K, ...), read once. */
size_t coll_param_segsize(void);
int    coll_param_knomial_k(void);
int    coll_param_alltoall_window(void);

/* ---- tagged forms, for sub-views and internal callers ------------------- */
int coll_barrier_dissemination_tag(const mpid_comm *comm, int tag);
int coll_bcast_binomial_tag(void *buf, size_t count, const cu_dtype *dt, int root,
                            const mpid_comm *comm, int tag);
int coll_allgather_ring_tag(const void *sbuf, size_t scount, const cu_dtype *sdt,
                            void *rbuf, size_t rcount, const cu_dtype *rdt,
                            const mpid_comm *comm, int tag);
int coll_allgather_bruck_tag(const void *sbuf, size_t scount, const cu_dtype *sdt,
                             void *rbuf, size_t rcount, const cu_dtype *rdt,
                             const mpid_comm *comm, int tag);
int coll_allgatherv_ring_tag(const void *sbuf, size_t scount, const cu_dtype *sdt,
                             void *rbuf, const int *rcounts, const int *displs,
                             const cu_dtype *rdt, const mpid_comm *comm, int tag);

/* MPI_IN_PLACE alltoall: packs the receive buffer and runs fn from the copy. */
int coll_alltoall_inplace(coll_alltoall_fn *fn, void *rbuf, size_t rcount,
                          const cu_dtype *rdt, const mpid_comm *comm);

/* ---- node views (hier.c) ------------------------------------------------
 * The communicator's ranks grouped by node: nodes numbered by their lowest
 * rank, which is the node's leader; `node` is a view of my node's ranks and
 * `lead` of the leaders (lead.rank < 0 when I am not one). Views share the
 * communicator's context, so their traffic uses the COLL_TAG_HIER_* tags. */
typedef struct coll_hier {
    int        nnodes;
    int        mynode;
    int       *order;       /* [size] comm ranks, node by node, ascending */
    int       *start;       /* [nnodes+1] node k's ranks: order[start[k]..start[k+1]) */
    int       *node_wr;     /* world ranks of my node's view */
    int       *lead_wr;     /* world ranks of the leaders' view */
    mpid_comm  node;
    mpid_comm  lead;
} coll_hier;
int  coll_hier_init(coll_hier *h, const mpid_comm *comm);
/* Node of a world rank, and the number of nodes, as the collectives see
 * them: the device's map, or with CLUMPI_COLL_NODE_PPN=k every k
 * consecutive world ranks form a node (exercises the hierarchical forms on
 * one machine, where they run over shared memory). */
int  coll_node_of(int world_rank);
int  coll_node_count(void);
void coll_hier_free(coll_hier *h);
static inline int coll_hier_leader(const coll_hier *h, int node)
{
    return h->order[h->start[node]];
}

#endif
