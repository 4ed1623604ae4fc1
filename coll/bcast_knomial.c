/*
 * bcast_knomial.c — k-nomial-tree broadcast (k = CLUMPI_COLL_KNOMIAL_K,
 * default 4): ranks relative to the root written in base k; a rank receives
 * from the rank that zeroes its lowest non-zero digit and sends to the
 * ranks that set each lower digit to 1..k-1. ceil(log_k p) levels with up
 * to (k-1) sends per level: fewer levels than binomial when a wake-up costs
 * more than a send, as on oversubscribed cores.
 */
#include "coll/coll_impl.h"

int coll_bcast_knomial(void *buf, size_t count, const cu_dtype *dt, int root,
                       const mpid_comm *comm)
{
    int p = comm->size, k = coll_param_knomial_k();
    if (p <= 1 || cu_dtype_bytes(dt, count) == 0)
        return MPI_SUCCESS;
    int rel = (comm->rank - root + p) % p;
    long mask = 1;
    while (mask < p) {
        long digit = (rel / mask) % k;
        if (digit) {
            int parent = (int)((rel - digit * mask + root) % p);
            int rc = coll_recv(buf, count, dt, parent, COLL_TAG_BCAST, comm);
            if (rc != MPI_SUCCESS)
                return rc;
            break;
        }
        mask *= k;
    }
    /* children: rel + j*m for m = k^i below my digit position, j = 1..k-1,
     * the largest subtrees first */
    int rc = MPI_SUCCESS, n = 0;
    mpid_request *reqs[64];
    for (mask /= k; mask > 0; mask /= k) {
        for (int j = 1; j < k; j++) {
            long child = rel + j * mask;
            if (child >= p)
                break;
            if (n == 64) {
                rc = coll_waitall(n, reqs);
                n = 0;
                if (rc != MPI_SUCCESS)
                    return rc;
            }
            rc = mpid_send(buf, count, dt, (int)((child + root) % p), COLL_TAG_BCAST, comm,
                            MPID_CTX_COLL, MPID_SEND_STANDARD, &reqs[n]);
            if (rc != MPI_SUCCESS)
                break;
            n++;
        }
        if (rc != MPI_SUCCESS)
            break;
    }
    int rc2 = coll_waitall(n, reqs);
    return rc != MPI_SUCCESS ? rc : rc2;
}
