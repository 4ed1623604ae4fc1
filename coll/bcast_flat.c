/*
 * bcast_flat.c — flat broadcast: the root sends to every other rank. One
 * step deep, p-1 sends at the root: best for very few ranks (with 2 it is
 * the only sensible tree) and a baseline for the others.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_bcast_flat(void *buf, size_t count, const cu_dtype *dt, int root,
                    const mpid_comm *comm)
{
    int p = comm->size;
    if (p <= 1 || cu_dtype_bytes(dt, count) == 0)
        return MPI_SUCCESS;
    if (comm->rank != root)
        return coll_recv(buf, count, dt, root, COLL_TAG_BCAST, comm);
    mpid_request *stack[16], **reqs = p - 1 <= 16 ? stack : malloc(sizeof *reqs * (size_t)(p - 1));
    if (!reqs)
        return MPI_ERR_NO_MEM;
    int n = 0, rc = MPI_SUCCESS;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        rc = mpid_send(buf, count, dt, (root + i) % p, COLL_TAG_BCAST, comm, MPID_CTX_COLL,
                        MPID_SEND_STANDARD, &reqs[n]);
        if (rc == MPI_SUCCESS)
            n++;
    }
    int rc2 = coll_waitall(n, reqs);
    if (reqs != stack)
        free(reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}
