/*
 * bcast_binomial.c — binomial-tree broadcast: ceil(log2 p) steps, ranks
 * numbered relative to the root, so any root and any p work. Each rank
 * receives once from its parent, then sends to its children, largest
 * subtree first so the far half of the tree starts earliest. The whole
 * message moves in every step: the latency choice for small messages.
 */
#include "coll/coll_impl.h"

int coll_bcast_binomial_tag(void *buf, size_t count, const cu_dtype *dt, int root,
                            const mpid_comm *comm, int tag)
{
    int p = comm->size;
    if (p <= 1 || cu_dtype_bytes(dt, count) == 0)
        return MPI_SUCCESS;
    int rel = (comm->rank - root + p) % p;
    int mask = 1;
    while (mask < p) {
        if (rel & mask) {
            int rc = coll_recv(buf, count, dt, (comm->rank - mask + p) % p, tag, comm);
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
        rc = mpid_send(buf, count, dt, child, tag, comm, MPID_CTX_COLL,
                        MPID_SEND_STANDARD, &reqs[n]);
        if (rc != MPI_SUCCESS)
            break;
        n++;
    }
    int rc2 = coll_waitall(n, reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int coll_bcast_binomial(void *buf, size_t count, const cu_dtype *dt, int root,
                        const mpid_comm *comm)
{
    return coll_bcast_binomial_tag(buf, count, dt, root, comm, COLL_TAG_BCAST);
}
