/*
 * barrier_hier.c — hierarchical barrier: each node's ranks check in with
 * their node leader, the leaders run a dissemination barrier among
 * themselves, and each leader releases its node. Inter-node traffic is
 * log2(nodes) messages per leader instead of log2(p) per rank. The node
 * phase uses the flags of the node's shared area (coll/shm_sync.c) where
 * the node's ranks share memory, zero-byte messages otherwise.
 */
#include "coll/shm_sync.h"

/* The node phase by flags; MPI_ERR_UNSUPPORTED_OPERATION when the node has
 * no shared area (everywhere alike: nothing was done then). */
static int by_flags(coll_hier *h)
{
    coll_shm s;
    int rc = h->node.size > 1 ? coll_shm_get(&h->node, &s) : MPI_ERR_UNSUPPORTED_OPERATION;
    if (rc != MPI_SUCCESS)
        return rc;
    uint32_t e = coll_shm_arrive(&s);
    if (h->node.rank != 0) {
        coll_shm_wait_release(&s, e);
        return MPI_SUCCESS;
    }
    coll_shm_wait_all(&s, e);
    if (h->lead.size > 1)
        rc = coll_barrier_dissemination_tag(&h->lead, COLL_TAG_HIER_LEAD);
    coll_shm_release(&s, e);
    return rc;
}

/* The node phase by zero-byte messages to and from the leader. */
static int by_messages(coll_hier *h)
{
    const cu_dtype *byte = coll_byte();
    const int tag = COLL_TAG_HIER_NODE;
    int rc = MPI_SUCCESS;
    if (h->node.rank != 0) {
        rc = coll_send(NULL, 0, byte, 0, tag, &h->node);
        if (rc == MPI_SUCCESS)
            rc = coll_recv(NULL, 0, byte, 0, tag, &h->node);
        return rc;
    }
    for (int j = 1; j < h->node.size && rc == MPI_SUCCESS; j++)
        rc = coll_recv(NULL, 0, byte, j, tag, &h->node);
    if (rc == MPI_SUCCESS && h->lead.size > 1)
        rc = coll_barrier_dissemination_tag(&h->lead, COLL_TAG_HIER_LEAD);
    for (int j = 1; j < h->node.size && rc == MPI_SUCCESS; j++)
        rc = coll_send(NULL, 0, byte, j, tag, &h->node);
    return rc;
}

int coll_barrier_hier(const mpid_comm *comm)
{
    if (comm->size <= 1)
        return MPI_SUCCESS;
    coll_hier h;
    int rc = coll_hier_init(&h, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = by_flags(&h);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        rc = by_messages(&h);
    coll_hier_free(&h);
    return rc;
}
