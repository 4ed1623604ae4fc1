/*
 * allgather_hier.c — hierarchical allgather: each node's leader collects
 * its node's blocks, the leaders exchange their nodes' runs (ring
 * allgatherv over leaders), and each leader broadcasts the whole result in
 * its node. Data cross between nodes once per node, not once per rank.
 * Works on packed bytes laid out node by node; each rank unpacks at the end.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

int coll_allgather_hier(const void *sbuf, size_t scount, const cu_dtype *sdt, void *rbuf,
                        size_t rcount, const cu_dtype *rdt, const mpid_comm *comm)
{
    int p = comm->size, me = comm->rank;
    ptrdiff_t ext = (ptrdiff_t)rcount * rdt->extent;
    char *rb = rbuf;
    if (p == 1)
        return sbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                    : coll_copy(sbuf, scount, sdt, rbuf, rcount, rdt);
    size_t blk = cu_dtype_bytes(rdt, rcount);
    if (blk == 0)
        return MPI_SUCCESS;
    coll_hier h;
    int rc = coll_hier_init(&h, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    const cu_dtype *byte = coll_byte();
    char *all = malloc((size_t)p * blk);
    int *cnt = malloc(sizeof(int) * (size_t)h.nnodes * 2);
    mpid_request **reqs = calloc((size_t)h.node.size, sizeof *reqs);
    if (!all || !cnt || !reqs) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    const void *mine = sbuf == MPI_IN_PLACE ? rb + me * ext : sbuf;
    size_t mcount = sbuf == MPI_IN_PLACE ? rcount : scount;
    const cu_dtype *mdt = sbuf == MPI_IN_PLACE ? rdt : sdt;
    char *nodebase = all + (size_t)h.start[h.mynode] * blk;
    if (h.node.rank != 0) {
        rc = coll_send(mine, mcount, mdt, 0, COLL_TAG_HIER_NODE, &h.node);
    } else {
        cu_dtype_pack(mine, mcount, mdt, 0, nodebase, blk);
        for (int j = 1; j < h.node.size && rc == MPI_SUCCESS; j++)
            rc = mpid_irecv(nodebase + (size_t)j * blk, blk, byte, j, COLL_TAG_HIER_NODE,
                            &h.node, MPID_CTX_COLL, &reqs[j]);
        int rc2 = coll_waitall(h.node.size, reqs);
        if (rc == MPI_SUCCESS)
            rc = rc2;
        if (rc == MPI_SUCCESS && h.lead.size > 1) {
            int *displs = cnt + h.nnodes;
            for (int k = 0; k < h.nnodes; k++) {
                cnt[k] = (int)((size_t)(h.start[k + 1] - h.start[k]) * blk);
                displs[k] = (int)((size_t)h.start[k] * blk);
            }
            rc = coll_allgatherv_ring_tag(MPI_IN_PLACE, 0, byte, all, cnt, displs, byte,
                                          &h.lead, COLL_TAG_HIER_LEAD);
        }
    }
    if (rc == MPI_SUCCESS && h.node.size > 1)
        rc = coll_bcast_binomial_tag(all, (size_t)p * blk, byte, 0, &h.node, COLL_TAG_HIER_NODE);
    if (rc == MPI_SUCCESS)
        for (int q = 0; q < p; q++)
            if (h.order[q] != me || sbuf != MPI_IN_PLACE)
                cu_dtype_unpack(rb + h.order[q] * ext, rcount, rdt, 0, all + (size_t)q * blk,
                                blk);
out:
    free(all);
    free(cnt);
    free(reqs);
    coll_hier_free(&h);
    return rc;
}
