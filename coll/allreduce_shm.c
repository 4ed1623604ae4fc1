/*
 * allreduce_shm.c — allreduce through the communicator's node area, for
 * vectors up to one slot (COLL_SHM_SLOT bytes) of a contiguous type: each
 * rank copies its vector into its slot and arrives, and once every rank has
 * arrived each combines all the slots itself, in rank order (so
 * non-commutative ops are served, and every rank computes the same bits).
 * One store and p - 1 small reductions per rank, no leader and no message:
 * on oversubscribed cores a rank needs its core once to arrive and once to
 * finish (the last to arrive finishes at once), where recursive doubling
 * needs the partner of each of log2 p rounds scheduled in turn.
 * Larger vectors, with single copy: the reduction is split across the
 * ranks (coll/shm_reduce.c): each combines one slice of every vector, read
 * by single copy, and writes it into every rank's result; two rounds of
 * flags, and each core combines 1/p of the vector.
 * Otherwise (other nodes, other types, no single copy) recursive doubling
 * runs, or the ring for vectors above a slot.
 */
#include <string.h>
#include "coll/shm_sync.h"

int coll_allreduce_shm(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                       const coll_op *op, const mpid_comm *comm)
{
    coll_shm s;
    size_t n = dt->size * count;
    int rc = cu_dtype_is_contig(dt) ? coll_shm_open(comm, n, &s) : MPI_ERR_UNSUPPORTED_OPERATION;
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return n <= COLL_SHM_SLOT || !op->commute
                   ? coll_allreduce_recdbl(sbuf, rbuf, count, dt, op, comm)
                   : coll_allreduce_ring(sbuf, rbuf, count, dt, op, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    ptrdiff_t lb = dt->true_lb;   /* contiguous: the data starts at buf + lb */
    int p = comm->size;
    uint32_t e = coll_shm_next(&s);
    if (n > COLL_SHM_SLOT) {
        coll_shm_put_operands(coll_shm_slot_to_write(&s, e), (const char *)mine + lb,
                              (char *)rbuf + lb);
        coll_shm_arrive_all(&s);
        coll_shm_wait_all(&s, e);
        rc = coll_shm_reduce_slice(&s, e, count, dt, op, -1);
        coll_shm_fence(&s);
        return rc;
    }
    memcpy(coll_shm_slot_to_write(&s, e), (const char *)mine + lb, n);
    coll_shm_arrive_all(&s);
    coll_shm_wait_all(&s, e);
    /* x0 op (x1 op (... op x(p-1))), right to left, the same on every rank */
    memcpy((char *)rbuf + lb, coll_shm_slot(&s, e, p - 1), n);
    for (int i = p - 2; i >= 0; i--)
        coll_op_apply(op, coll_shm_slot(&s, e, i) - lb, rbuf, count, dt);
    return MPI_SUCCESS;
}
