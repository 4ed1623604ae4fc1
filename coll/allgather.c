/*
 * allgather.c — picks the allgather algorithm: Bruck (log2 p steps, one
 * extra copy) while the whole result is small, the ring (p-1 steps, no
 * copy, bandwidth-optimal) above. The threshold is the size where an
 * extra copy of the result starts to cost more than p-1-log2(p) message
 * latencies; CLUMPI_COLL_ALLGATHER_SHORT overrides it.
 */
#include "coll/coll_impl.h"
#include "src/util/param.h"

static long short_limit = -1;

int coll_allgather_tag(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                       void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                       const mpid_comm *comm, int tag)
{
    if (short_limit < 0)
        short_limit = cu_param_int("COLL_ALLGATHER_SHORT", 32768);
    size_t total = cu_dtype_bytes(recvtype, recvcount) * (size_t)comm->size;
    if (comm->size <= 1)
        return sendbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                       : coll_copy(sendbuf, sendcount, sendtype, recvbuf,
                                                   recvcount, recvtype);
    if (total <= (size_t)short_limit)
        return coll_allgather_bruck(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                    recvtype, comm, tag);
    return coll_allgather_ring(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                               comm, tag);
}

int coll_allgather(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                   void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                   const mpid_comm *comm)
{
    return coll_allgather_tag(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                              comm, COLL_TAG_ALLGATHER);
}
