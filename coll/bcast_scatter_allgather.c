/*
 * bcast_scatter_allgather.c — van de Geijn's broadcast for large messages:
 * a binomial scatter cuts the packed message into p chunks (one per rank,
 * numbered relative to the root), then a ring allgather completes every
 * rank's copy. Each rank sends and receives about 2n bytes in all, against
 * n*log2(p) at the binomial root.
 */
#include "coll/coll_impl.h"

int coll_bcast_scatter_allgather(void *buf, size_t count, const cu_dtype *dt, int root,
                                 const mpid_comm *comm)
{
    int p = comm->size;
    if (p <= 1 || cu_dtype_bytes(dt, count) == 0)
        return MPI_SUCCESS;
    int me = comm->rank, rel = (me - root + p) % p;
    coll_bytes b;
    int rc = coll_bytes_get(&b, buf, count, dt, rel == 0);
    if (rc != MPI_SUCCESS)
        return rc;
    const cu_dtype *byte = coll_byte();
    size_t c = (b.n + (size_t)p - 1) / (size_t)p, off, len;

    /* scatter: rank rel gets chunks [rel, rel + subtree size) */
    int top = coll_binomial_top(rel, p);
    if (rel != 0) {
        coll_chunk(b.n, c, rel, rel + coll_binomial_span(rel, top, p), &off, &len);
        if (len)
            rc = coll_recv(b.p + off, len, byte, (me - top + p) % p, COLL_TAG_BCAST, comm);
    }
    for (int m = top >> 1; m > 0 && rc == MPI_SUCCESS; m >>= 1) {
        if (rel + m >= p)
            continue;
        coll_chunk(b.n, c, rel + m, rel + m + coll_binomial_span(rel + m, m, p), &off, &len);
        if (len)
            rc = coll_send(b.p + off, len, byte, (me + m) % p, COLL_TAG_BCAST, comm);
    }

    /* ring allgather of the chunks, in relative numbering; the root holds
     * every chunk already, so the link into it stays idle (at 2 ranks that
     * halves the bytes moved) */
    int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int s = 0; s < p - 1 && rc == MPI_SUCCESS; s++) {
        size_t soff = 0, slen = 0, roff = 0, rlen = 0;
        long sc = (rel - s + p) % p, rcv = (rel - s - 1 + 2 * p) % p;
        if (rel != p - 1)
            coll_chunk(b.n, c, sc, sc + 1, &soff, &slen);
        if (rel != 0)
            coll_chunk(b.n, c, rcv, rcv + 1, &roff, &rlen);
        mpid_request *r[2] = { NULL, NULL };
        if (rlen)
            rc = mpid_irecv(b.p + roff, rlen, byte, left, COLL_TAG_BCAST, comm, MPID_CTX_COLL,
                            &r[0]);
        if (slen && rc == MPI_SUCCESS)
            rc = mpid_isend(b.p + soff, slen, byte, right, COLL_TAG_BCAST, comm, MPID_CTX_COLL,
                            MPID_SEND_STANDARD, &r[1]);
        int rc2 = coll_waitall(2, r);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    coll_bytes_put(&b, buf, count, dt, rel != 0 && rc == MPI_SUCCESS);
    return rc;
}
