/*
 * internal.c — the collectives the MPI layer runs for itself (communicator
 * creation, Finalize): fixed algorithms, outside the selection table, so a
 * user's CLUMPI_COLL_* override or verbose output never touches them.
 * Allgather takes Bruck while the whole result is small (log2 p steps),
 * the ring above CLUMPI_COLL_ALLGATHER_SHORT (32 KiB).
 */
#include "coll/coll_impl.h"
#include "src/util/param.h"

static cu_param_cache short_limit;

int coll_barrier(const mpid_comm *comm)
{
    return coll_barrier_dissemination(comm);
}

int coll_bcast(void *buf, size_t count, const cu_dtype *dt, int root, const mpid_comm *comm)
{
    return coll_bcast_binomial(buf, count, dt, root, comm);
}

int coll_allgather_tag(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                       void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                       const mpid_comm *comm, int tag)
{
    size_t total = cu_dtype_bytes(recvtype, recvcount) * (size_t)comm->size;
    if (comm->size <= 1)
        return sendbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                       : coll_copy(sendbuf, sendcount, sendtype, recvbuf,
                                                   recvcount, recvtype);
    if (total <= (size_t)cu_param_cached(&short_limit, "COLL_ALLGATHER_SHORT"))
        return coll_allgather_bruck_tag(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, comm, tag);
    return coll_allgather_ring_tag(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm, tag);
}

int coll_allgather(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                   void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                   const mpid_comm *comm)
{
    return coll_allgather_tag(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                              comm, COLL_TAG_ALLGATHER);
}
