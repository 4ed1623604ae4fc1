/*
 * allgather_ring.c — ring allgather: in step s each rank passes the block it
 * received in step s-1 to its right neighbour. p-1 steps for any p.
 *
 * Why the ring here: it is bandwidth-optimal (each rank sends and receives
 * (p-1)/p of the result exactly once), needs no power of two (recursive
 * doubling does) and no temporary buffer or final rotation (Bruck does),
 * and every block moves straight between user buffers with the user's
 * datatype. Its p-1 latency terms matter for small blocks: there Bruck's
 * log2(p) steps win (allgather_bruck.c); coll/select.c picks by size.
 */
#include "coll/coll_impl.h"

int coll_allgather_ring_tag(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                        void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                        const mpid_comm *comm, int tag)
{
    int p = comm->size, me = comm->rank;
    ptrdiff_t blk = (ptrdiff_t)recvcount * recvtype->extent;
    char *rb = recvbuf;
    int right = (me + 1) % p, left = (me - 1 + p) % p;
    int s = 0;
    if (sendbuf != MPI_IN_PLACE) {
        /* My block leaves from sendbuf, not from its copy in recvbuf: the
         * exchange starts at once, the copy runs while the peer reads, and
         * the peer does not read lines this core has just dirtied. */
        mpid_request *r[2] = { NULL, NULL };
        int rc = p > 1 ? coll_sendrecv_start(sendbuf, sendcount, sendtype, right,
                                             rb + left * blk, recvcount, recvtype, left,
                                             tag, comm, r)
                       : MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = coll_copy(sendbuf, sendcount, sendtype, rb + me * blk, recvcount, recvtype);
        int rc2 = coll_waitall(2, r);
        if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS)
            return rc != MPI_SUCCESS ? rc : rc2;
        s = 1;
    }
    for (; s < p - 1; s++) {
        int sblk = (me - s + p) % p, rblk = (me - s - 1 + p) % p;
        int rc = coll_sendrecv(rb + sblk * blk, recvcount, recvtype, right,
                               rb + rblk * blk, recvcount, recvtype, left, tag, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int coll_allgather_ring(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                        void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                        const mpid_comm *comm)
{
    return coll_allgather_ring_tag(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm, COLL_TAG_ALLGATHER);
}
