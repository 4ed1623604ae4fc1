/*
 * alltoall_pairwise.c — pairwise-exchange alltoall: in step s each rank
 * sends to rank+s and receives from rank-s, one pair of messages at a time.
 * p-1 steps with a single message in flight per direction: no congestion
 * at any receiver, the choice for large blocks.
 */
#include "coll/coll_impl.h"

int coll_alltoall_pairwise(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                           size_t rcount, const cu_dtype *rdt, const mpid_comm *comm)
{
    if (sbuf == MPI_IN_PLACE)
        return coll_alltoall_inplace(coll_alltoall_pairwise, rbuf, rcount, rdt, comm);
    int p = comm->size, me = comm->rank;
    ptrdiff_t sx = (ptrdiff_t)scount * sdt->extent, rx = (ptrdiff_t)rcount * rdt->extent;
    const char *sb = sbuf;
    char *rb = rbuf;
    int rc = coll_copy(sb + me * sx, scount, sdt, rb + me * rx, rcount, rdt);
    for (int s = 1; s < p && rc == MPI_SUCCESS; s++) {
        int dst = (me + s) % p, src = (me - s + p) % p;
        rc = coll_sendrecv(sb + dst * sx, scount, sdt, dst, rb + src * rx, rcount, rdt, src,
                           COLL_TAG_ALLTOALL, comm);
    }
    return rc;
}
