/*
 * reduce_shm.c — reduce through the communicator's node area, for vectors
 * of a contiguous type.
 * Up to one slot: each rank copies its vector into its slot and arrives;
 * the root waits for all and combines the slots in rank order. No message,
 * and a non-root never waits.
 * Larger, with single copy: the reduction is split across the ranks
 * (coll/shm_reduce.c): each combines one slice of every vector, read by
 * single copy, and writes it into the root's buffer; two rounds of flags.
 * Otherwise (other types, no area, no single copy) the binomial tree runs.
 * Both forms combine in rank order, so non-commutative ops are served.
 * The hierarchical reductions run it as their node phase
 * (coll_reduce_shm_tag).
 */
#include <string.h>
#include "coll/reduce_impl.h"
#include "coll/shm_sync.h"

int coll_reduce_shm_tag(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                        const coll_op *op, int root, const mpid_comm *comm, int tag)
{
    size_t n = dt->size * count;
    coll_shm s;
    int me = comm->rank, p = comm->size;
    int rc = cu_dtype_is_contig(dt) ? coll_shm_open(comm, n, &s) : MPI_ERR_UNSUPPORTED_OPERATION;
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return coll_reduce_binomial_tag(sbuf, rbuf, count, dt, op, root, comm, tag);
    if (rc != MPI_SUCCESS)
        return rc;
    const char *mine = (const char *)(sbuf == MPI_IN_PLACE ? rbuf : sbuf) + dt->true_lb;
    uint32_t e = coll_shm_next(&s);
    if (n > COLL_SHM_SLOT) {
        coll_shm_put_operands(coll_shm_slot_to_write(&s, e), mine,
                              me == root ? (char *)rbuf + dt->true_lb : NULL);
        coll_shm_arrive_all(&s);
        coll_shm_wait_all(&s, e);
        rc = coll_shm_reduce_slice(&s, e, count, dt, op, root);
        coll_shm_fence(&s);
        return rc;
    }
    memcpy(coll_shm_slot_to_write(&s, e), mine, n);
    coll_shm_arrive(&s);
    if (me != root) {
        mpid_node_wake(comm, root);
        return MPI_SUCCESS;
    }
    coll_shm_wait_all(&s, e);
    memcpy((char *)rbuf + dt->true_lb, coll_shm_slot(&s, e, p - 1), n);
    for (int i = p - 2; i >= 0; i--)
        coll_op_apply(op, coll_shm_slot(&s, e, i) - dt->true_lb, rbuf, count, dt);
    return MPI_SUCCESS;
}

int coll_reduce_shm(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                    const coll_op *op, int root, const mpid_comm *comm)
{
    return coll_reduce_shm_tag(sbuf, rbuf, count, dt, op, root, comm, COLL_TAG_REDUCE);
}
