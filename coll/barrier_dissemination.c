/*
 * barrier_dissemination.c — the dissemination barrier (Hensgen, Finkel and
 * Manber): in round k each rank signals rank+2^k and waits for rank-2^k.
 * ceil(log2 p) rounds for any p, no root and no power-of-two special case.
 */
#include "coll/coll_impl.h"

int coll_barrier_dissemination_tag(const mpid_comm *comm, int tag)
{
    int p = comm->size, me = comm->rank;
    const cu_dtype *byte = coll_byte();
    for (int k = 1; k < p; k <<= 1) {
        int rc = coll_sendrecv(NULL, 0, byte, (me + k) % p, NULL, 0, byte, (me - k + p) % p,
                               tag, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int coll_barrier_dissemination(const mpid_comm *comm)
{
    return coll_barrier_dissemination_tag(comm, COLL_TAG_BARRIER);
}
