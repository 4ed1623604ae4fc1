/*
 * barrier_binomial.c — binomial-tree barrier: arrivals travel up a binomial
 * tree rooted at rank 0, then the release travels down the same tree.
 * 2*ceil(log2 p) steps but only 2(p-1) messages in all (dissemination sends
 * p*log2 p), which matters when many ranks share few cores.
 */
#include "coll/coll_impl.h"

int coll_barrier_binomial(const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank;
    const cu_dtype *byte = coll_byte();
    int mask = 1, rc = MPI_SUCCESS;
    /* up: wait for each child me+m (m below my lowest set bit), then tell
     * the parent */
    while (mask < p && !(me & mask)) {
        if (me + mask < p && (rc = coll_recv(NULL, 0, byte, me + mask, COLL_TAG_BARRIER, comm)))
            return rc;
        mask <<= 1;
    }
    if (me != 0) {
        int parent = me - mask;
        if ((rc = coll_send(NULL, 0, byte, parent, COLL_TAG_BARRIER, comm)) ||
            (rc = coll_recv(NULL, 0, byte, parent, COLL_TAG_BARRIER, comm)))
            return rc;
    }
    /* down: release the children, largest subtree first */
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < p && (rc = coll_send(NULL, 0, byte, me + mask, COLL_TAG_BARRIER, comm)))
            return rc;
    return MPI_SUCCESS;
}
