/*
 * reduce_scatter_shm.c — Reduce_scatter and Reduce_scatter_block through
 * the communicator's node area, for a whole input up to one slot
 * (COLL_SHM_SLOT bytes) of a contiguous type: each rank copies its input
 * into its slot and arrives, and once all have arrived each combines its
 * own block of all the slots, in rank order (non-commutative ops are
 * served). One round and no message: oversubscribed, a rank needs its core
 * once to arrive and once to finish, where reducing to rank 0 and
 * scattering needs log2 p + 1 rounds of peers scheduled in turn; and each
 * rank combines only its block, where allreduce_shm combines the whole.
 * Larger inputs, with single copy: each rank combines its own block of
 * every input, read from the peers' buffers in cache-sized chunks, straight
 * into its result; two rounds of flags, every core combining its share.
 * Otherwise (other types, no area, no single copy) the reduce and scatterv
 * runs.
 */
#include <stdint.h>
#include <string.h>
#include "coll/reduce_impl.h"
#include "coll/shm_sync.h"

/* Above a slot: every rank publishes its input and combines its own block
 * of all the inputs by single copy (coll_shm_reduce_range), in chunks that
 * stay in cache, into its result; a fence keeps the inputs until all are
 * done. In place the result's start is input peers still read, so the
 * block is combined into a work buffer and copied after the fence. */
static int by_single_copy(coll_shm *s, uint32_t e, const char *in, int inplace, void *rbuf,
                          size_t off, size_t mine, const cu_dtype *dt, const coll_op *op)
{
    coll_tmp t;
    int rc = coll_tmp_alloc(&t, inplace ? mine : 0, dt);
    void *to = inplace ? t.buf : rbuf;
    if (rc != MPI_SUCCESS)
        to = NULL;   /* still in the rounds, so the others are not left waiting */
    /* the result is published as the whole vector's start, where
     * element off is my block's first */
    uintptr_t at = (uintptr_t)to + (uintptr_t)dt->true_lb - off * dt->size;
    coll_shm_put_operands(coll_shm_slot_to_write(s, e), in, to && mine ? (void *)at : NULL);
    coll_shm_arrive_all(s);
    coll_shm_wait_all(s, e);
    if (to)
        rc = coll_shm_reduce_range(s, e, off, off + mine, dt, op, s->view->rank);
    coll_shm_fence(s);
    if (rc == MPI_SUCCESS && inplace)
        rc = coll_copy_same(t.buf, rbuf, mine, dt);
    coll_tmp_free(&t);
    return rc;
}

/* My block [off, off + mine) of total elements through the area, or
 * MPI_ERR_UNSUPPORTED_OPERATION (alike on every rank: total is) when this
 * call cannot go that way. */
static int through_area(const void *sbuf, void *rbuf, size_t total, size_t off, size_t mine,
                        const cu_dtype *dt, const coll_op *op, const mpid_comm *comm)
{
    size_t n = dt->size * total;
    if (!cu_dtype_is_contig(dt))
        return MPI_ERR_UNSUPPORTED_OPERATION;
    coll_shm s;
    int rc = coll_shm_open(comm, n, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    ptrdiff_t lb = dt->true_lb;   /* contiguous: the data starts at buf + lb */
    /* in place the input is the whole of rbuf: copied out before my block
     * overwrites its start */
    const char *in = (const char *)(sbuf == MPI_IN_PLACE ? rbuf : sbuf) + lb;
    int p = comm->size;
    uint32_t e = coll_shm_next(&s);
    if (n > COLL_SHM_SLOT)
        return by_single_copy(&s, e, in, sbuf == MPI_IN_PLACE, rbuf, off, mine, dt, op);
    memcpy(coll_shm_slot_to_write(&s, e), in, n);
    coll_shm_arrive_all(&s);
    coll_shm_wait_all(&s, e);
    if (mine == 0)
        return MPI_SUCCESS;
    /* x0 op (x1 op (... op x(p-1))), right to left as allreduce_shm */
    size_t at = off * dt->size;
    memcpy((char *)rbuf + lb, coll_shm_slot(&s, e, p - 1) + at, mine * dt->size);
    for (int i = p - 2; i >= 0; i--)
        coll_op_apply(op, coll_shm_slot(&s, e, i) + at - lb, rbuf, mine, dt);
    return MPI_SUCCESS;
}

int coll_reduce_scatter_shm(const void *sbuf, void *rbuf, const int *rcounts,
                            const cu_dtype *dt, const coll_op *op, const mpid_comm *comm)
{
    size_t total = 0, off = 0;
    for (int i = 0; i < comm->size; i++) {
        if (i == comm->rank)
            off = total;
        total += (size_t)rcounts[i];
    }
    int rc = through_area(sbuf, rbuf, total, off, (size_t)rcounts[comm->rank], dt, op, comm);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        rc = coll_reduce_scatter_reduce_scatterv(sbuf, rbuf, rcounts, dt, op, comm);
    return rc;
}

int coll_reduce_scatter_block_shm(const void *sbuf, void *rbuf, size_t rcount,
                                  const cu_dtype *dt, const coll_op *op,
                                  const mpid_comm *comm)
{
    int rc = through_area(sbuf, rbuf, rcount * (size_t)comm->size, rcount * (size_t)comm->rank,
                          rcount, dt, op, comm);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        rc = coll_reduce_scatter_block_reduce_scatter(sbuf, rbuf, rcount, dt, op, comm);
    return rc;
}
