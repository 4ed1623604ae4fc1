/*
 * scatter_binomial.c — binomial-tree scatter, the gather tree run
 * backwards: the root packs the blocks in relative order, each rank
 * receives its subtree's blocks in one message and passes each child its
 * share. ceil(log2 p) steps: the choice for small blocks.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_scatter_binomial(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                          size_t rcount, const cu_dtype *rdt, int root, const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank, isroot = me == root;
    size_t blk = isroot ? cu_dtype_bytes(sdt, scount) : cu_dtype_bytes(rdt, rcount);
    coll_subtree t;
    int rc = coll_subtree_open(&t, sbuf, scount, sdt, rbuf, rcount, rdt, blk, root, comm);
    if (rc != MPI_SUCCESS || !t.blocks)
        return rc;
    const cu_dtype *byte = coll_byte();
    if (isroot) {
        ptrdiff_t ext = (ptrdiff_t)scount * sdt->extent;
        for (int r = 0; r < p; r++)
            cu_dtype_pack((const char *)sbuf + ((r + root) % p) * ext, scount, sdt, 0,
                          coll_subtree_block(&t, r), blk);
    } else {
        rc = coll_recv(t.blocks, (size_t)coll_binomial_span(t.rel, t.top, p) * blk, byte,
                       (me - t.top + p) % p, COLL_TAG_SCATTER, comm);
    }
    mpid_request *reqs[32] = { 0 };
    int n = 0;
    for (int m = t.top >> 1; m > 0 && rc == MPI_SUCCESS; m >>= 1)
        if (t.rel + m < p)
            rc = mpid_isend(coll_subtree_block(&t, m), coll_subtree_child_bytes(&t, m), byte,
                            (me + m) % p, COLL_TAG_SCATTER, comm, MPID_CTX_COLL,
                            MPID_SEND_STANDARD, &reqs[n++]);
    int rc2 = coll_waitall(n, reqs);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS && !(isroot && rbuf == MPI_IN_PLACE)) {
        if (cu_dtype_bytes(rdt, rcount) < blk)
            rc = MPI_ERR_TRUNCATE;
        else
            cu_dtype_unpack(rbuf, rcount, rdt, 0, t.blocks, blk);
    }
    free(t.blocks);
    return rc;
}
