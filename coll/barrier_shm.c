/*
 * barrier_shm.c — the shared-memory flag barrier: every rank stores its
 * arrival in its own cache line of the communicator's node area and waits
 * until every line shows it (coll/shm_sync.c). One store per rank and no
 * message: on oversubscribed cores each rank needs the core once to arrive
 * and once to leave (the last to arrive leaves at once), where a
 * dissemination barrier needs every partner of each of log2 p rounds
 * scheduled in turn.
 * On a communicator that is not on one node's shared memory it runs the
 * hierarchical barrier, whose node phase is this one.
 */
#include "coll/shm_sync.h"

int coll_barrier_shm(const mpid_comm *comm)
{
    if (comm->size <= 1)
        return MPI_SUCCESS;
    coll_shm s;
    int rc = coll_shm_get(comm, &s);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return coll_barrier_hier(comm);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_shm_wait_all(&s, coll_shm_arrive_all(&s));
    return MPI_SUCCESS;
}
