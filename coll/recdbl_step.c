/*
 * recdbl_step.c — the exchange of recursive doubling, shared by the
 * allreduce and the scans: both sides swap their partial results and each
 * combines the two in rank order, so non-commutative ops stay correct.
 */
#include "coll/reduce_impl.h"

int coll_recdbl_step(void **acc, void **in, size_t count, const cu_dtype *dt,
                     const coll_op *op, int peer, int peer_first, const mpid_comm *comm, int tag)
{
    int rc = coll_sendrecv(*acc, count, dt, peer, *in, count, dt, peer, tag, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (peer_first || op->commute) {
        coll_op_apply(op, *in, *acc, count, dt);   /* acc = peer's op mine */
    } else {
        /* mine op peer's lands in *in: a pointer swap instead of a copy */
        coll_op_apply(op, *acc, *in, count, dt);
        void *x = *acc;
        *acc = *in;
        *in = x;
    }
    return MPI_SUCCESS;
}
