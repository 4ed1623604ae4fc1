/*
 * allreduce_reduce_bcast.c — allreduce as a binomial reduce to rank 0 then
 * a binomial broadcast: 2 log2 p rounds, the textbook baseline to compare
 * the others against. Keeps rank order (the reduce is rooted at 0).
 */
#include "coll/reduce_impl.h"

int coll_allreduce_reduce_bcast(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                                const coll_op *op, const mpid_comm *comm)
{
    if (count == 0)
        return MPI_SUCCESS;
    /* Only rank 0 (the root) may pass MPI_IN_PLACE to the reduce. */
    const void *s = sbuf;
    if (sbuf == MPI_IN_PLACE && comm->rank != 0)
        s = rbuf;
    int rc = coll_reduce_binomial_tag(s, rbuf, count, dt, op, 0, comm, COLL_TAG_ALLREDUCE);
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_bcast_binomial_tag(rbuf, count, dt, 0, comm, COLL_TAG_ALLREDUCE);
}
