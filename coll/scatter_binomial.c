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
    int p = comm->size, me = comm->rank, rel = (me - root + p) % p;
    int isroot = rel == 0;
    if (p == 1)
        return rbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                    : coll_copy(sbuf, scount, sdt, rbuf, rcount, rdt);
    size_t blk = isroot ? cu_dtype_bytes(sdt, scount) : cu_dtype_bytes(rdt, rcount);
    if (blk == 0)
        return MPI_SUCCESS;
    int top = 1;
    while (top < p && !(rel & top))
        top <<= 1;
    size_t sub = (size_t)(top < p - rel ? top : p - rel);
    char *tmp = malloc(sub * blk);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    const cu_dtype *byte = coll_byte();
    int rc = MPI_SUCCESS;
    if (isroot) {
        ptrdiff_t ext = (ptrdiff_t)scount * sdt->extent;
        for (int r = 0; r < p; r++)
            cu_dtype_pack((const char *)sbuf + ((r + root) % p) * ext, scount, sdt, 0,
                          tmp + (size_t)r * blk, blk);
    } else {
        rc = coll_recv(tmp, sub * blk, byte, (me - top + p) % p, COLL_TAG_SCATTER, comm);
    }
    mpid_request *reqs[32] = { 0 };
    int n = 0;
    for (int m = top >> 1; m > 0 && rc == MPI_SUCCESS; m >>= 1) {
        if (rel + m >= p)
            continue;
        size_t cn = (size_t)(m < p - rel - m ? m : p - rel - m);
        rc = mpid_isend(tmp + (size_t)m * blk, cn * blk, byte, (me + m) % p, COLL_TAG_SCATTER,
                        comm, MPID_CTX_COLL, MPID_SEND_STANDARD, &reqs[n++]);
    }
    int rc2 = coll_waitall(n, reqs);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS && !(isroot && rbuf == MPI_IN_PLACE)) {
        if (cu_dtype_bytes(rdt, rcount) < blk)
            rc = MPI_ERR_TRUNCATE;
        else
            cu_dtype_unpack(rbuf, rcount, rdt, 0, tmp, blk);
    }
    free(tmp);
    return rc;
}
