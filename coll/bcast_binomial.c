/*
 * bcast_binomial.c — binomial-tree broadcast: ceil(log2 p) steps, ranks
 * numbered relative to the root, so any root and any p work. Each rank
 * receives once from its parent, then sends to its children, largest
 * subtree first so the far half of the tree starts earliest.
 */
#include "coll/coll_impl.h"

int coll_bcast(void *buf, size_t count, const cu_dtype *dt, int root, const mpid_comm *comm)
{
    int p = comm->size;
    if (p <= 1 || cu_dtype_bytes(dt, count) == 0)
        return MPI_SUCCESS;
    int rel = (comm->rank - root + p) % p;
    int mask = 1;
    while (mask < p) {
        if (rel & mask) {
            int parent = (comm->rank - mask + p) % p;
            mpid_request *r = NULL;
            int rc = mpid_irecv(buf, count, dt, parent, COLL_TAG_BCAST, comm, MPID_CTX_COLL, &r);
            if (rc == MPI_SUCCESS)
                rc = coll_waitall(1, &r);
            if (rc != MPI_SUCCESS)
                return rc;
            break;
        }
        mask <<= 1;
    }
    /* Children: rel + m for every m below the bit we received on. */
    mpid_request *reqs[32];
    int n = 0, rc = MPI_SUCCESS;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask >= p)
            continue;
        int child = (comm->rank + mask) % p;
        rc = mpid_isend(buf, count, dt, child, COLL_TAG_BCAST, comm, MPID_CTX_COLL,
                        MPID_SEND_STANDARD, &reqs[n]);
        if (rc != MPI_SUCCESS)
            break;
        n++;
    }
    int rc2 = coll_waitall(n, reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}
