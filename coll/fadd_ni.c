/*
 * fadd_ni.c — fetch-and-add served by the NI agent of the owner's node
 * (Verstoep et al. §4.3; netmod/agent/agent_fadd.c), for src/counter.c's
 * MPIX_Counter: requests travel agent to agent and the owner rank takes no
 * part. Without an agent the caller uses an RMA window instead.
 */
#include <errno.h>
#include "coll/coll_impl.h"
#include "coll/ni.h"

int coll_fadd_ni_up(void) { return mpid_offload_fadd_up(); }

static int fadd(int op, const mpid_comm *comm, int owner, uint32_t id, long long value,
                long long *old)
{
    int64_t o = 0;
    int rc = mpid_offload_fadd(op, comm, owner, id, value, &o);
    if (old)
        *old = o;
    return rc == -ENOENT ? MPI_ERR_ARG : coll_ni_err(rc);
}

int coll_fadd_ni_init(const mpid_comm *comm, int owner, uint32_t id, long long value)
{
    return fadd(MPID_FADD_INIT, comm, owner, id, value, NULL);
}

int coll_fadd_ni(const mpid_comm *comm, int owner, uint32_t id, long long add, long long *old)
{
    return fadd(MPID_FADD_ADD, comm, owner, id, add, old);
}

int coll_fadd_ni_free(const mpid_comm *comm, int owner, uint32_t id)
{
    return fadd(MPID_FADD_FREE, comm, owner, id, 0, NULL);
}
