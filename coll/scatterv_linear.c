/*
 * scatterv_linear.c — linear scatterv: the root sends each rank its block
 * of any size directly. Empty blocks send nothing (root and receiver agree
 * on which are empty: the type signatures match).
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_scatterv_linear(const void *sbuf, const int *scounts, const int *displs,
                         const cu_dtype *sdt, void *rbuf, size_t rcount, const cu_dtype *rdt,
                         int root, const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank;
    if (me != root)
        return cu_dtype_bytes(rdt, rcount) == 0
                   ? MPI_SUCCESS
                   : coll_recv(rbuf, rcount, rdt, root, COLL_TAG_SCATTERV, comm);
    int rc = MPI_SUCCESS;
    const char *sb = sbuf;
    if (p > 1) {
        mpid_request **reqs = calloc((size_t)p, sizeof *reqs);
        if (!reqs)
            return MPI_ERR_NO_MEM;
        for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
            int dst = (root + i) % p;
            if (cu_dtype_bytes(sdt, (size_t)scounts[dst]) == 0)
                continue;
            rc = mpid_isend(sb + (ptrdiff_t)displs[dst] * sdt->extent, (size_t)scounts[dst], sdt,
                            dst, COLL_TAG_SCATTERV, comm, MPID_CTX_COLL, MPID_SEND_STANDARD,
                            &reqs[i]);
        }
        int rc2 = coll_waitall(p, reqs);
        free(reqs);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
        rc = coll_copy(sb + (ptrdiff_t)displs[me] * sdt->extent, (size_t)scounts[me], sdt,
                       rbuf, rcount, rdt);
    return rc;
}
