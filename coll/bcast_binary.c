/*
 * bcast_binary.c — segmented, pipelined binary-tree broadcast: the message
 * is cut into segments of CLUMPI_COLL_SEGSIZE bytes (default 32 KiB) of the
 * packed stream, and each rank forwards segment k to its two children while
 * segment k+1 is still arriving. Every rank sends at most twice per segment,
 * so for large messages the time approaches (depth + segments) segment
 * transfers instead of log2(p) whole-message transfers (the LFC paper's
 * observation: binary trees give the higher throughput).
 *
 * Receives are posted a window ahead and sends are bounded too, so a very
 * small segment size does not flood the device with requests.
 */
#include "coll/coll_impl.h"

#define WIN 8

int coll_bcast_binary(void *buf, size_t count, const cu_dtype *dt, int root,
                      const mpid_comm *comm)
{
    int p = comm->size;
    if (p <= 1 || cu_dtype_bytes(dt, count) == 0)
        return MPI_SUCCESS;
    int me = comm->rank, rel = (me - root + p) % p;
    int isroot = rel == 0;
    coll_bytes b;
    int rc = coll_bytes_get(&b, buf, count, dt, isroot);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t seg = coll_param_segsize(), nseg = (b.n + seg - 1) / seg;
    int parent = isroot ? -1 : ((rel - 1) / 2 + root) % p;
    int child[2], nch = 0;
    for (int j = 1; j <= 2; j++)
        if (2 * rel + j < p)
            child[nch++] = (2 * rel + j + root) % p;
    const cu_dtype *byte = coll_byte();
    mpid_request *rr[WIN] = { 0 }, *sr[2 * WIN] = { 0 };
    size_t posted = 0;
    for (size_t k = 0; k < nseg && rc == MPI_SUCCESS; k++) {
        if (!isroot) {
            for (; posted < nseg && posted < k + WIN && rc == MPI_SUCCESS; posted++) {
                size_t off = posted * seg, len = b.n - off < seg ? b.n - off : seg;
                rc = mpid_irecv(b.p + off, len, byte, parent, COLL_TAG_BCAST, comm,
                                MPID_CTX_COLL, &rr[posted % WIN]);
            }
            if (rc == MPI_SUCCESS)
                rc = coll_waitall(1, &rr[k % WIN]);
        }
        size_t off = k * seg, len = b.n - off < seg ? b.n - off : seg;
        for (int c = 0; c < nch && rc == MPI_SUCCESS; c++) {
            mpid_request **slot = &sr[(k * 2 + (size_t)c) % (2 * WIN)];
            if (*slot && (rc = coll_waitall(1, slot)) != MPI_SUCCESS)
                break;
            rc = mpid_isend(b.p + off, len, byte, child[c], COLL_TAG_BCAST, comm,
                            MPID_CTX_COLL, MPID_SEND_STANDARD, slot);
        }
    }
    int rc2 = coll_waitall(WIN, rr);
    int rc3 = coll_waitall(2 * WIN, sr);
    if (rc == MPI_SUCCESS)
        rc = rc2 != MPI_SUCCESS ? rc2 : rc3;
    coll_bytes_put(&b, buf, count, dt, !isroot && rc == MPI_SUCCESS);
    return rc;
}
