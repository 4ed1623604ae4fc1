/*
 * allreduce_shm.c — allreduce through the communicator's node area, for
 * vectors up to one slot (COLL_SHM_SLOT bytes) of a contiguous type: each
 * rank copies its vector into its slot and arrives, and once every rank has
 * arrived each combines all the slots itself, in rank order (so
 * non-commutative ops are served, and every rank computes the same bits).
 * One store and p - 1 small reductions per rank, no leader and no message:
 * on oversubscribed cores a rank needs its core once to arrive and once to
 * finish (the last to arrive finishes at once), where recursive doubling
 * needs the partner of each of log2 p rounds scheduled in turn. Otherwise
 * (other nodes, larger vectors, other types) recursive doubling runs.
 */
#include <string.h>
#include "coll/shm_sync.h"

/* The shm path applies; alike on every rank (same count, type and comm). */
static int fits(const mpid_comm *comm, size_t count, const cu_dtype *dt, coll_shm *s, int *rc)
{
    *rc = MPI_SUCCESS;
    if (!cu_dtype_is_contig(dt) || dt->size * count > COLL_SHM_SLOT)
        return 0;
    *rc = coll_shm_get(comm, s);
    if (*rc == MPI_ERR_UNSUPPORTED_OPERATION)
        *rc = MPI_SUCCESS;
    else if (*rc == MPI_SUCCESS)
        return 1;
    return 0;
}

int coll_allreduce_shm(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                       const coll_op *op, const mpid_comm *comm)
{
    coll_shm s;
    int rc = MPI_SUCCESS;
    if (comm->size <= 1 || count == 0 || !fits(comm, count, dt, &s, &rc))
        return rc != MPI_SUCCESS ? rc : coll_allreduce_recdbl(sbuf, rbuf, count, dt, op, comm);
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    size_t n = dt->size * count;
    ptrdiff_t lb = dt->true_lb;   /* contiguous: the data starts at buf + lb */
    int p = comm->size;
    uint32_t e = coll_shm_next(&s);
    memcpy(coll_shm_slot_to_write(&s, e), (const char *)mine + lb, n);
    coll_shm_arrive_all(&s);
    coll_shm_wait_all(&s, e);
    /* x0 op (x1 op (... op x(p-1))), right to left, the same on every rank */
    memcpy((char *)rbuf + lb, coll_shm_slot(&s, e, p - 1), n);
    for (int i = p - 2; i >= 0; i--)
        coll_op_apply(op, coll_shm_slot(&s, e, i) - lb, rbuf, count, dt);
    return MPI_SUCCESS;
}
