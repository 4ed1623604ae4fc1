/*
 * reduce_impl.h — private to the reduction algorithms of coll/: work buffers
 * in the user's datatype layout, element blocks, and the tagged forms the
 * hierarchical algorithms run on node views.
 *
 * Work buffers keep the user's layout (count elements of dt, extent apart)
 * rather than packed bytes, because user functions read and write that
 * layout; messages carry (buffer, count, dt) as the user would.
 */
#ifndef COLL_REDUCE_IMPL_H
#define COLL_REDUCE_IMPL_H

#include "coll/coll_impl.h"

/* Tags of the phases of the hierarchical reductions (node views number
 * ranks differently from the communicator, so each view gets its own tag),
 * in the range coll_impl.h reserves for the reductions (-32 .. -47). */
#define COLL_TAG_RED_NODE  (-40)   /* reduce inside a node view */
#define COLL_TAG_RED_LEAD  (-41)   /* among the node leaders */
#define COLL_TAG_RED_BCAST (-42)   /* result back down a node view */
#define COLL_TAG_RED_ROOT  (-43)   /* leader to a root that does not lead */

/* A work buffer of count elements of dt. `buf` is what algorithms pass as
 * the buffer argument (it may point before the allocation when the type's
 * true lower bound is positive, like any MPI buffer). Small buffers live in
 * the struct: the latency of 8-byte allreduce has no room for malloc. */
typedef struct coll_tmp {
    char  *buf;
    void  *heap;
    _Alignas(max_align_t) char small[256];
} coll_tmp;

int  coll_tmp_alloc(coll_tmp *t, size_t count, const cu_dtype *dt);
/* Inline: most work buffers of small reductions never leave t->small. */
static inline void coll_tmp_free(coll_tmp *t)
{
    if (t->heap)
        coll_scratch_put(t->heap);
    t->heap = NULL;
}

/* The address of element i of a buffer of dt (blocks of a vector). */
static inline char *coll_elem(const void *buf, size_t i, const cu_dtype *dt)
{
    return (char *)buf + (ptrdiff_t)i * dt->extent;
}

/* A (buffer, count, dt) -> same in another buffer of the same layout. */
static inline int coll_copy_same(const void *src, void *dst, size_t count, const cu_dtype *dt)
{
    if (src == dst || count == 0)
        return MPI_SUCCESS;
    return coll_copy(src, count, dt, dst, count, dt);
}

/* The opening of an allreduce or an inclusive scan: rbuf takes my operand
 * unless it is in place, and t (unless NULL) room for count elements.
 * 1 when that is all (no elements, one rank) or failed, *rc saying which,
 * and nothing is left allocated; 0 when the algorithm goes on. */
static inline int coll_red_prologue(const void *sbuf, void *rbuf, size_t count,
                                    const cu_dtype *dt, const mpid_comm *comm, coll_tmp *t,
                                    int *rc)
{
    *rc = MPI_SUCCESS;
    if (count == 0)
        return 1;
    if (sbuf != MPI_IN_PLACE && (*rc = coll_copy_same(sbuf, rbuf, count, dt)) != MPI_SUCCESS)
        return 1;
    if (comm->size == 1)
        return 1;
    return t && (*rc = coll_tmp_alloc(t, count, dt)) != MPI_SUCCESS;
}

/* The opening of a rooted reduction: *mine is my operand (rbuf when in
 * place). 1 when that is all (no elements; one rank: my operand copied to
 * rbuf), *rc saying how it went; 0 when the algorithm goes on. */
static inline int coll_reduce_prologue(const void *sbuf, void *rbuf, size_t count,
                                       const cu_dtype *dt, const mpid_comm *comm,
                                       const void **mine, int *rc)
{
    *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    *rc = count == 0 || comm->size > 1 ? MPI_SUCCESS : coll_copy_same(*mine, rbuf, count, dt);
    return count == 0 || comm->size == 1;
}

/* One step of recursive doubling (recdbl_step.c): send *acc to peer while
 * receiving its partial result into *in, then combine in rank order: *acc
 * becomes peer's op mine when peer_first, else mine op peer's. In the second
 * case a non-commutative op combines into *in and the two pointers trade
 * places; when peer_first, *in still holds the peer's data afterwards. */
int coll_recdbl_step(void **acc, void **in, size_t count, const cu_dtype *dt,
                     const coll_op *op, int peer, int peer_first, const mpid_comm *comm, int tag);

/* Blocks of the ring and Rabenseifner algorithms: count elements split into
 * n nearly equal blocks; block i starts at element coll_block_start(i). */
static inline size_t coll_block_start(size_t count, int n, int i)
{
    size_t q = count / (size_t)n, r = count % (size_t)n;
    return q * (size_t)i + ((size_t)i < r ? (size_t)i : r);
}

/* Tagged forms (the public algorithms call them with their own tags). */
int coll_reduce_binomial_tag(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                             const coll_op *op, int root, const mpid_comm *comm, int tag);
int coll_allreduce_recdbl_tag(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                              const coll_op *op, const mpid_comm *comm, int tag);
int coll_allreduce_rabenseifner_tag(const void *sbuf, void *rbuf, size_t count,
                                    const cu_dtype *dt, const coll_op *op,
                                    const mpid_comm *comm, int tag);

/* Rabenseifner's first phase (reduce_rabenseifner.c): the p - pof2 extra
 * ranks fold their data into a neighbour, then recursive halving over pof2
 * blocks of count. mine is my contribution (count elements, left as it is
 * unless it is acc); acc has room for count elements and tmp for
 * coll_rab_tmp_count of them. On return *newrank is my index among the pof2 survivors (-1 when
 * folded out) and acc's block *newrank holds that block fully reduced.
 * Commutative ops only. */
int coll_rab_reduce_scatter(const void *mine, void *acc, void *tmp, size_t count,
                            const cu_dtype *dt, const coll_op *op, const mpid_comm *comm,
                            int tag, int *newrank, int *pof2);
/* The elements tmp must hold for coll_rab_reduce_scatter on comm: the
 * larger half of the blocks, or all of them for a rank that takes a folded
 * neighbour's data while mine is acc. */
size_t coll_rab_tmp_count(size_t count, const mpid_comm *comm, int mine_is_acc);
/* Comm rank of survivor index nr. */
static inline int coll_rab_rank(int nr, int rem)
{
    return nr < rem ? 2 * nr + 1 : nr + rem;
}

/* Ring reduce-scatter core over blocks given by displacements (elements):
 * mine is my full contribution (acc itself when in place) and acc ends
 * holding, in block `final`, the reduced block (final = (rank + shift) mod
 * p), and in the others partial blocks. tmp holds the largest block when
 * mine is acc (else it is not used). */
int coll_ring_reduce_scatter(const void *mine, void *acc, void *tmp, const size_t *bstart,
                             const size_t *bcount, const cu_dtype *dt, const coll_op *op,
                             int shift, const mpid_comm *comm, int tag);

/* Above this many bytes the leaders' phase of allreduce_hier uses
 * Rabenseifner, below it recursive doubling. */
#define COLL_RED_LONG 65536

#endif
