/*
 * bcast_ni.c — NI-forwarded broadcast (Verstoep et al. §4.2, §7.4): the root
 * hands its message to its agent packet by packet; agents deliver each
 * packet once to their node's members and forward it to their children in
 * a binary or binomial tree over nodes, with no rank polling in between.
 * Large messages pipeline packet by packet. A noncontiguous type is
 * packed on the way in and unpacked on the way out (every rank must take
 * the same path whatever its type map).
 * host-packet-* is the comparison of Verstoep et al. (l-sdma-hmc): the same
 * packets and agents, but the forwarding done by one rank per node in its
 * own progress (netmod/agent/agent_mc_rank.c).
 */
#include <errno.h>
#include <stdlib.h>
#include "coll/coll_impl.h"
#include "coll/ni.h"

static int bcast_ni(void *buf, size_t count, const cu_dtype *dt, int root,
                    const mpid_comm *comm, int shape)
{
    size_t bytes = cu_dtype_bytes(dt, count);
    if (comm->size <= 1 || bytes == 0)
        return MPI_SUCCESS;
    if (!mpid_offload_usable(comm)) {
        coll_ni_fallback_note("broadcast", shape, comm, root,
                              "needs the NI agent (CLUMPI_NET=agent, several nodes, "
                              "a communicator that fits a forwarding table)");
        return (shape & MPID_TREE_SHAPE) == MPID_TREE_BINARY
                   ? coll_bcast_binary(buf, count, dt, root, comm)
                                        : coll_bcast_binomial(buf, count, dt, root, comm);
    }
    char *p = (char *)buf + dt->true_lb, *tmp = NULL;
    if (!cu_dtype_is_contig(dt)) {
        if (!(tmp = malloc(bytes)))
            return MPI_ERR_NO_MEM;
        if (comm->rank == root)
            cu_dtype_pack(buf, count, dt, 0, tmp, bytes);
        p = tmp;
    }
    int rc = mpid_offload_bcast(p, bytes, root, shape, comm);
    if (tmp) {
        if (rc == 0 && comm->rank != root)
            cu_dtype_unpack(buf, count, dt, 0, tmp, bytes);
        free(tmp);
    }
    return coll_ni_err(rc);
}

int coll_bcast_ni_binary(void *buf, size_t count, const cu_dtype *dt, int root,
                         const mpid_comm *comm)
{
    return bcast_ni(buf, count, dt, root, comm, MPID_TREE_BINARY);
}

int coll_bcast_ni_binomial(void *buf, size_t count, const cu_dtype *dt, int root,
                           const mpid_comm *comm)
{
    return bcast_ni(buf, count, dt, root, comm, MPID_TREE_BINOMIAL);
}

int coll_bcast_host_packet_binary(void *buf, size_t count, const cu_dtype *dt, int root,
                                  const mpid_comm *comm)
{
    return bcast_ni(buf, count, dt, root, comm, MPID_TREE_BINARY | MPID_TREE_HOST);
}

int coll_bcast_host_packet_binomial(void *buf, size_t count, const cu_dtype *dt, int root,
                                    const mpid_comm *comm)
{
    return bcast_ni(buf, count, dt, root, comm, MPID_TREE_BINOMIAL | MPID_TREE_HOST);
}
