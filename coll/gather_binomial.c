/*
 * gather_binomial.c — binomial-tree gather: ranks relative to the root;
 * each rank collects the packed blocks of its subtree from its children
 * (all receives posted at once) and passes them up in one message.
 * ceil(log2 p) steps instead of p-1 messages at the root: the choice for
 * small blocks, where per-message latency dominates. Blocks travel as
 * packed bytes in relative order; the root unpacks them into place.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_gather_binomial(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                         size_t rcount, const cu_dtype *rdt, int root, const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank, isroot = me == root;
    size_t blk = isroot ? cu_dtype_bytes(rdt, rcount) : cu_dtype_bytes(sdt, scount);
    coll_subtree t;
    int rc = coll_subtree_open(&t, sbuf, scount, sdt, rbuf, rcount, rdt, blk, root, comm);
    if (rc != MPI_SUCCESS || !t.blocks)
        return rc;
    ptrdiff_t ext = (ptrdiff_t)rcount * (isroot ? rdt->extent : 0);
    char *rb = rbuf;
    if (isroot && sbuf == MPI_IN_PLACE)
        cu_dtype_pack(rb + me * ext, rcount, rdt, 0, t.blocks, blk);
    else if (cu_dtype_pack(sbuf, scount, sdt, 0, t.blocks, blk) < blk) {
        free(t.blocks);
        return MPI_ERR_TRUNCATE;
    }
    const cu_dtype *byte = coll_byte();
    mpid_request *reqs[32] = { 0 };
    int n = 0;
    for (int m = 1; m < t.top && t.rel + m < p && rc == MPI_SUCCESS; m <<= 1)
        rc = mpid_irecv(coll_subtree_block(&t, m), coll_subtree_child_bytes(&t, m), byte,
                        (me + m) % p, COLL_TAG_GATHER, comm, MPID_CTX_COLL, &reqs[n++]);
    int rc2 = coll_waitall(n, reqs);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS && !isroot)
        rc = coll_send(t.blocks, (size_t)coll_binomial_span(t.rel, t.top, p) * blk, byte,
                       (me - t.top + p) % p, COLL_TAG_GATHER, comm);
    if (rc == MPI_SUCCESS && isroot)
        for (int r = 1; r < p; r++)
            cu_dtype_unpack(rb + ((r + root) % p) * ext, rcount, rdt, 0,
                            coll_subtree_block(&t, r), blk);
    if (rc == MPI_SUCCESS && isroot && sbuf != MPI_IN_PLACE)
        cu_dtype_unpack(rb + me * ext, rcount, rdt, 0, t.blocks, blk);
    free(t.blocks);
    return rc;
}
