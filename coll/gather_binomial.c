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
    int p = comm->size, me = comm->rank, rel = (me - root + p) % p;
    int isroot = rel == 0;
    if (p == 1)
        return sbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                    : coll_copy(sbuf, scount, sdt, rbuf, rcount, rdt);
    /* one rank's packed block: the signatures match, so every rank agrees */
    size_t blk = isroot ? cu_dtype_bytes(rdt, rcount) : cu_dtype_bytes(sdt, scount);
    if (blk == 0)
        return MPI_SUCCESS;
    int top = 1;
    while (top < p && !(rel & top))
        top <<= 1;
    size_t sub = (size_t)(top < p - rel ? top : p - rel);
    char *tmp = malloc(sub * blk);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    ptrdiff_t ext = (ptrdiff_t)rcount * (isroot ? rdt->extent : 0);
    char *rb = rbuf;
    if (isroot && sbuf == MPI_IN_PLACE)
        cu_dtype_pack(rb + me * ext, rcount, rdt, 0, tmp, blk);
    else if (cu_dtype_pack(sbuf, scount, sdt, 0, tmp, blk) < blk) {
        free(tmp);
        return MPI_ERR_TRUNCATE;
    }
    const cu_dtype *byte = coll_byte();
    mpid_request *reqs[32] = { 0 };
    int n = 0, rc = MPI_SUCCESS;
    for (int m = 1; m < top && rel + m < p && rc == MPI_SUCCESS; m <<= 1) {
        size_t cn = (size_t)(m < p - rel - m ? m : p - rel - m);
        rc = mpid_irecv(tmp + (size_t)m * blk, cn * blk, byte, (me + m) % p, COLL_TAG_GATHER,
                        comm, MPID_CTX_COLL, &reqs[n++]);
    }
    int rc2 = coll_waitall(n, reqs);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS && !isroot)
        rc = coll_send(tmp, sub * blk, byte, (me - top + p) % p, COLL_TAG_GATHER, comm);
    if (rc == MPI_SUCCESS && isroot)
        for (int r = 1; r < p; r++)
            cu_dtype_unpack(rb + ((r + root) % p) * ext, rcount, rdt, 0, tmp + (size_t)r * blk,
                            blk);
    if (rc == MPI_SUCCESS && isroot && sbuf != MPI_IN_PLACE)
        cu_dtype_unpack(rb + me * ext, rcount, rdt, 0, tmp, blk);
    free(tmp);
    return rc;
}
