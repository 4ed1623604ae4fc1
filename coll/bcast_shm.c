/*
 * bcast_shm.c — broadcast through the communicator's node area, for
 * messages up to one slot (COLL_SHM_SLOT bytes, packed): the root packs the
 * message into its slot and stores its round number; every other rank waits
 * for that number and unpacks. One store and one copy each, no leader and
 * no message. Otherwise (other nodes, larger messages) the binomial tree
 * runs.
 */
#include "coll/shm_sync.h"

int coll_bcast_shm(void *buf, size_t count, const cu_dtype *dt, int root,
                   const mpid_comm *comm)
{
    size_t n = cu_dtype_bytes(dt, count);
    if (comm->size <= 1 || n == 0)
        return MPI_SUCCESS;
    coll_shm s;
    int rc = n <= COLL_SHM_SLOT ? coll_shm_get(comm, &s) : MPI_ERR_UNSUPPORTED_OPERATION;
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return coll_bcast_binomial(buf, count, dt, root, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    uint32_t e = coll_shm_next(&s);
    if (comm->rank == root) {
        coll_copy(buf, count, dt, coll_shm_slot_to_write(&s, e), n, coll_byte());
        coll_shm_arrive(&s);
        for (int i = 0; i < comm->size; i++)
            if (i != root)
                mpid_node_wake(comm, i);
        return MPI_SUCCESS;
    }
    coll_shm_arrive(&s);
    coll_shm_wait_line(&s, root, e);
    return coll_copy(coll_shm_slot(&s, e, root), n, coll_byte(), buf, count, dt);
}
