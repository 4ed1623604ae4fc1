/*
 * gather_linear.c — linear gather and gatherv: every rank sends its block
 * straight to the root, which has all receives posted at once. One step,
 * p-1 messages at the root, no copies: the choice for large blocks, where
 * the root's link is the bottleneck whatever the tree. Empty blocks send
 * nothing (sender and root agree on which are empty: the type signatures
 * match).
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

/* Both forms: block i is coll_blk(rbuf, displs, rcount, i) of
 * coll_blk_count(rcounts, rcount, i) elements (rcounts NULL: MPI_Gather's). */
static int gather_linear(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                         const int *rcounts, const int *displs, size_t rcount,
                         const cu_dtype *rdt, int root, const mpid_comm *comm, int tag)
{
    int p = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    if (me != root)
        return cu_dtype_bytes(sdt, scount) == 0 ? MPI_SUCCESS
                                                : coll_send(sbuf, scount, sdt, root, tag, comm);
    if (sbuf != MPI_IN_PLACE)
        rc = coll_copy(sbuf, scount, sdt, coll_blk(rbuf, displs, rcount, me, rdt),
                       coll_blk_count(rcounts, rcount, me), rdt);
    if (rc != MPI_SUCCESS || p == 1)
        return rc;
    mpid_request *local[COLL_REQS_LOCAL], **reqs = coll_reqs_get(local, p);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int src = (root + i) % p;
        size_t n = coll_blk_count(rcounts, rcount, src);
        if (cu_dtype_bytes(rdt, n) > 0)
            rc = mpid_irecv(coll_blk(rbuf, displs, rcount, src, rdt), n, rdt, src, tag, comm,
                            MPID_CTX_COLL, &reqs[i]);
    }
    int rc2 = coll_waitall(p, reqs);
    coll_reqs_put(reqs, local);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int coll_gather_linear(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                       size_t rcount, const cu_dtype *rdt, int root, const mpid_comm *comm)
{
    return gather_linear(sbuf, scount, sdt, rbuf, NULL, NULL, rcount, rdt, root, comm,
                         COLL_TAG_GATHER);
}

int coll_gatherv_linear(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                        const int *rcounts, const int *displs, const cu_dtype *rdt, int root,
                        const mpid_comm *comm)
{
    return gather_linear(sbuf, scount, sdt, rbuf, rcounts, displs, 0, rdt, root, comm,
                         COLL_TAG_GATHERV);
}
