/*
 * scatter_linear.c — linear scatter: the root sends every rank its block
 * directly, all sends posted at once. No copies; the choice for large
 * blocks.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_scatter_linear(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                        size_t rcount, const cu_dtype *rdt, int root, const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank;
    if (me != root)
        return cu_dtype_bytes(rdt, rcount) == 0
                   ? MPI_SUCCESS
                   : coll_recv(rbuf, rcount, rdt, root, COLL_TAG_SCATTER, comm);
    int rc = MPI_SUCCESS;
    ptrdiff_t ext = (ptrdiff_t)scount * sdt->extent;
    const char *sb = sbuf;
    if (p > 1 && cu_dtype_bytes(sdt, scount) > 0) {
        mpid_request **reqs = calloc((size_t)p, sizeof *reqs);
        if (!reqs)
            return MPI_ERR_NO_MEM;
        for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
            int dst = (root + i) % p;
            rc = mpid_isend(sb + dst * ext, scount, sdt, dst, COLL_TAG_SCATTER, comm,
                            MPID_CTX_COLL, MPID_SEND_STANDARD, &reqs[i]);
        }
        int rc2 = coll_waitall(p, reqs);
        free(reqs);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
        rc = coll_copy(sb + me * ext, scount, sdt, rbuf, rcount, rdt);
    return rc;
}
