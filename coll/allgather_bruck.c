/*
 * allgather_bruck.c — Bruck's allgather: ceil(log2 p) steps for any p. In
 * step k each rank sends the min(k, p-k) blocks it holds to rank-k and gets
 * as many from rank+k, so after the last step its buffer holds the blocks
 * of ranks me, me+1, ..., me+p-1; one local rotation puts them in place.
 *
 * Works on packed bytes in a temporary buffer, so it costs a copy of the
 * result; worth it only while latency dominates (small blocks), which is
 * where the ring's p-1 steps hurt most, above all on oversubscribed cores
 * where every step may wait for a peer to be scheduled.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_allgather_bruck_tag(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                         void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                         const mpid_comm *comm, int tag)
{
    int p = comm->size, me = comm->rank;
    size_t blk = cu_dtype_bytes(recvtype, recvcount);
    ptrdiff_t ext = (ptrdiff_t)recvcount * recvtype->extent;
    char *rb = recvbuf;
    char *tmp = malloc(blk * (size_t)p + 1);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    if (sendbuf == MPI_IN_PLACE) {
        cu_dtype_pack(rb + me * ext, recvcount, recvtype, 0, tmp, blk);
    } else {
        if (cu_dtype_bytes(sendtype, sendcount) > blk) {
            free(tmp);
            return MPI_ERR_TRUNCATE;
        }
        cu_dtype_pack(sendbuf, sendcount, sendtype, 0, tmp, blk);
    }
    const cu_dtype *byte = coll_byte();
    int rc = MPI_SUCCESS;
    for (int k = 1; k < p && rc == MPI_SUCCESS; k <<= 1) {
        size_t n = (size_t)(k < p - k ? k : p - k) * blk;
        rc = coll_sendrecv(tmp, n, byte, (me - k + p) % p,
                           tmp + (size_t)k * blk, n, byte, (me + k) % p, tag, comm);
    }
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < p; i++) {
            int owner = (me + i) % p;
            if (owner != me || sendbuf != MPI_IN_PLACE)
                cu_dtype_unpack(rb + owner * ext, recvcount, recvtype, 0, tmp + (size_t)i * blk, blk);
        }
    free(tmp);
    return rc;
}

int coll_allgather_bruck(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                         void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                         const mpid_comm *comm)
{
    return coll_allgather_bruck_tag(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm, COLL_TAG_ALLGATHER);
}
