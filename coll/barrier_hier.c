/*
 * barrier_hier.c — hierarchical barrier: each node's ranks check in with
 * their node leader, the leaders run a dissemination barrier among
 * themselves, and each leader releases its node. Inter-node traffic is
 * log2(nodes) messages per leader instead of log2(p) per rank.
 */
#include "coll/coll_impl.h"

int coll_barrier_hier(const mpid_comm *comm)
{
    if (comm->size <= 1)
        return MPI_SUCCESS;
    coll_hier h;
    int rc = coll_hier_init(&h, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    const cu_dtype *byte = coll_byte();
    const int tag = COLL_TAG_HIER_NODE;
    if (h.node.rank != 0) {
        rc = coll_send(NULL, 0, byte, 0, tag, &h.node);
        if (rc == MPI_SUCCESS)
            rc = coll_recv(NULL, 0, byte, 0, tag, &h.node);
    } else {
        for (int j = 1; j < h.node.size && rc == MPI_SUCCESS; j++)
            rc = coll_recv(NULL, 0, byte, j, tag, &h.node);
        if (rc == MPI_SUCCESS && h.lead.size > 1)
            rc = coll_barrier_dissemination_tag(&h.lead, COLL_TAG_HIER_LEAD);
        for (int j = 1; j < h.node.size && rc == MPI_SUCCESS; j++)
            rc = coll_send(NULL, 0, byte, j, tag, &h.node);
    }
    coll_hier_free(&h);
    return rc;
}
