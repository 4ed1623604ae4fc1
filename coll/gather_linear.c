/*
 * gather_linear.c — linear gather: every rank sends its block straight to
 * the root, which has all receives posted at once. One step, p-1 messages
 * at the root, no copies: the choice for large blocks, where the root's
 * link is the bottleneck whatever the tree.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_gather_linear(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                       size_t rcount, const cu_dtype *rdt, int root, const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank;
    if (me != root)
        return cu_dtype_bytes(sdt, scount) == 0
                   ? MPI_SUCCESS
                   : coll_send(sbuf, scount, sdt, root, COLL_TAG_GATHER, comm);
    int rc = MPI_SUCCESS;
    ptrdiff_t ext = (ptrdiff_t)rcount * rdt->extent;
    char *rb = rbuf;
    if (sbuf != MPI_IN_PLACE)
        rc = coll_copy(sbuf, scount, sdt, rb + me * ext, rcount, rdt);
    if (rc != MPI_SUCCESS || p == 1 || cu_dtype_bytes(rdt, rcount) == 0)
        return rc;
    mpid_request **reqs = calloc((size_t)p, sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int src = (root + i) % p;
        rc = mpid_irecv(rb + src * ext, rcount, rdt, src, COLL_TAG_GATHER, comm, MPID_CTX_COLL,
                        &reqs[i]);
    }
    int rc2 = coll_waitall(p, reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}
