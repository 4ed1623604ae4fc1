/*
 * bcast_hier.c — hierarchical broadcast: the root hands the message to its
 * node's leader (when it is not the leader), the leaders broadcast among
 * themselves (binomial over nodes), then every leader broadcasts inside its
 * node (the node area's shm broadcast, coll/bcast_shm.c, where the node's
 * ranks share memory; binomial otherwise). Each byte crosses between nodes
 * once per node rather than once per rank.
 */
#include "coll/shm_sync.h"

int coll_bcast_hier(void *buf, size_t count, const cu_dtype *dt, int root,
                    const mpid_comm *comm)
{
    if (comm->size <= 1 || cu_dtype_bytes(dt, count) == 0)
        return MPI_SUCCESS;
    coll_hier h;
    int rc = coll_hier_init(&h, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    /* the root's node and its leader */
    int rnode = 0;
    for (int k = 0; k < h.nnodes; k++)
        for (int j = h.start[k]; j < h.start[k + 1]; j++)
            if (h.order[j] == root)
                rnode = k;
    int rleader = coll_hier_leader(&h, rnode);
    if (root != rleader) {
        if (comm->rank == root)
            rc = coll_send(buf, count, dt, rleader, COLL_TAG_HIER_ROOT, comm);
        else if (comm->rank == rleader)
            rc = coll_recv(buf, count, dt, root, COLL_TAG_HIER_ROOT, comm);
    }
    if (rc == MPI_SUCCESS && h.lead.rank >= 0 && h.lead.size > 1)
        rc = coll_bcast_binomial_tag(buf, count, dt, rnode, &h.lead, COLL_TAG_HIER_LEAD);
    if (rc == MPI_SUCCESS && h.node.size > 1)
        rc = coll_bcast_shm_tag(buf, count, dt, 0, &h.node, COLL_TAG_HIER_NODE);
    coll_hier_free(&h);
    return rc;
}
