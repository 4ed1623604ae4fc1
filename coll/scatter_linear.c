/*
 * scatter_linear.c — linear scatter and scatterv: the root sends every
 * rank its block at once. One step, p-1 messages at the root: the choice
 * for large blocks. Empty blocks send nothing (root and receiver agree on
 * which are empty: the type signatures match).
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

/* Both forms: block i is coll_blk(sbuf, displs, scount, i) of
 * coll_blk_count(scounts, scount, i) elements (scounts NULL: MPI_Scatter's). */
static int scatter_linear(const void *sbuf, const int *scounts, const int *displs, size_t scount,
                          const cu_dtype *sdt, void *rbuf, size_t rcount, const cu_dtype *rdt,
                          int root, const mpid_comm *comm, int tag)
{
    int p = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    if (me != root)
        return cu_dtype_bytes(rdt, rcount) == 0 ? MPI_SUCCESS
                                                : coll_recv(rbuf, rcount, rdt, root, tag, comm);
    mpid_request *local[COLL_REQS_LOCAL], **reqs = coll_reqs_get(local, p);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    /* A blocking send's start: an eager block leaves at once with no
     * request to make, wait for and free. */
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int dst = (root + i) % p;
        size_t n = coll_blk_count(scounts, scount, dst);
        if (cu_dtype_bytes(sdt, n) > 0)
            rc = mpid_send(coll_blk(sbuf, displs, scount, dst, sdt), n, sdt, dst, tag, comm,
                           MPID_CTX_COLL, MPID_SEND_STANDARD, &reqs[i]);
    }
    /* The root's own block while the others are in flight. */
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE)
        rc = coll_copy(coll_blk(sbuf, displs, scount, me, sdt),
                       coll_blk_count(scounts, scount, me), sdt, rbuf, rcount, rdt);
    int rc2 = coll_waitall(p, reqs);
    coll_reqs_put(reqs, local);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    return rc;
}

int coll_scatter_linear(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                        size_t rcount, const cu_dtype *rdt, int root, const mpid_comm *comm)
{
    return scatter_linear(sbuf, NULL, NULL, scount, sdt, rbuf, rcount, rdt, root, comm,
                          COLL_TAG_SCATTER);
}

int coll_scatterv_linear(const void *sbuf, const int *scounts, const int *displs,
                         const cu_dtype *sdt, void *rbuf, size_t rcount, const cu_dtype *rdt,
                         int root, const mpid_comm *comm)
{
    return scatter_linear(sbuf, scounts, displs, 0, sdt, rbuf, rcount, rdt, root, comm,
                          COLL_TAG_SCATTERV);
}
