/*
 * alltoall_linear.c — linear alltoall with a bounded window: each rank
 * posts receives from rank-i and sends to rank+i for i = 1, 2, ..., keeping
 * at most CLUMPI_COLL_ALLTOALL_WINDOW pairs (default 16) in flight. Many
 * messages overlap (good for medium blocks) without every rank flooding
 * every other at once.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_alltoall_linear(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                         size_t rcount, const cu_dtype *rdt, const mpid_comm *comm)
{
    if (sbuf == MPI_IN_PLACE)
        return coll_alltoall_inplace(coll_alltoall_linear, rbuf, rcount, rdt, comm);
    int p = comm->size, me = comm->rank, w = coll_param_alltoall_window();
    ptrdiff_t sx = (ptrdiff_t)scount * sdt->extent, rx = (ptrdiff_t)rcount * rdt->extent;
    const char *sb = sbuf;
    char *rb = rbuf;
    int rc = coll_copy(sb + me * sx, scount, sdt, rb + me * rx, rcount, rdt);
    if (rc != MPI_SUCCESS || p == 1)
        return rc;
    if (w > p - 1)
        w = p - 1;
    mpid_request **reqs = calloc((size_t)w * 2, sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        mpid_request **slot = &reqs[((i - 1) % w) * 2];
        if ((rc = coll_waitall(2, slot)) != MPI_SUCCESS)   /* the pair i-w */
            break;
        int src = (me - i + p) % p, dst = (me + i) % p;
        rc = mpid_irecv(rb + src * rx, rcount, rdt, src, COLL_TAG_ALLTOALL, comm, MPID_CTX_COLL,
                        &slot[0]);
        if (rc == MPI_SUCCESS)
            rc = mpid_send(sb + dst * sx, scount, sdt, dst, COLL_TAG_ALLTOALL, comm,
                            MPID_CTX_COLL, MPID_SEND_STANDARD, &slot[1]);
    }
    int rc2 = coll_waitall(w * 2, reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}
