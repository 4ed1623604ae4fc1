/*
 * gatherv_linear.c — linear gatherv: blocks of any size straight to the
 * root, all receives posted at once. Empty blocks send nothing (sender and
 * root agree on which are empty: the type signatures match).
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_gatherv_linear(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                        const int *rcounts, const int *displs, const cu_dtype *rdt, int root,
                        const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank;
    if (me != root)
        return cu_dtype_bytes(sdt, scount) == 0
                   ? MPI_SUCCESS
                   : coll_send(sbuf, scount, sdt, root, COLL_TAG_GATHERV, comm);
    int rc = MPI_SUCCESS;
    char *rb = rbuf;
    if (sbuf != MPI_IN_PLACE)
        rc = coll_copy(sbuf, scount, sdt, rb + (ptrdiff_t)displs[me] * rdt->extent,
                       (size_t)rcounts[me], rdt);
    if (rc != MPI_SUCCESS || p == 1)
        return rc;
    mpid_request **reqs = calloc((size_t)p, sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int src = (root + i) % p;
        if (cu_dtype_bytes(rdt, (size_t)rcounts[src]) == 0)
            continue;
        rc = mpid_irecv(rb + (ptrdiff_t)displs[src] * rdt->extent, (size_t)rcounts[src], rdt,
                        src, COLL_TAG_GATHERV, comm, MPID_CTX_COLL, &reqs[i]);
    }
    int rc2 = coll_waitall(p, reqs);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}
