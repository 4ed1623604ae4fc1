/*
 * hier.c — node views for the hierarchical algorithms: which ranks of a
 * communicator share a node, who leads each node, and two sub-views (my
 * node, the leaders) the flat algorithms can run on unchanged.
 *
 * A view is an mpid_comm with the communicator's context and a subset of
 * its world ranks: the device routes by world rank and matches by view rank,
 * so both ends of every message must use the same view — which they do,
 * since every rank computes the views from the same node map. Leaders are
 * the lowest rank of each node, whatever the root, so the views are the
 * same in every call and the FIFO order between two ranks keeps successive
 * calls apart.
 */
#include <stdlib.h>
#include <string.h>
#include "coll/coll_impl.h"
#include "src/util/param.h"

static long fake_ppn = -1;

static int ppn(void)
{
    if (fake_ppn < 0)
        fake_ppn = cu_param_int("COLL_NODE_PPN");
    return (int)fake_ppn;
}

int coll_node_of(int world_rank)
{
    return ppn() > 0 ? world_rank / ppn() : mpid_node_of(world_rank);
}

int coll_node_count(void)
{
    return ppn() > 0 ? (mpid_world_size() + ppn() - 1) / ppn() : mpid_node_count();
}

int coll_hier_init(coll_hier *h, const mpid_comm *comm)
{
    /* processes of other jobs: no node map both jobs share, so each
     * member counts as a node of its own, alike in every member's view */
    int p = comm->size, total = comm->foreign ? p : coll_node_count();
    memset(h, 0, sizeof *h);
    if (total < 1)
        total = 1;
    int *dense = malloc(sizeof(int) * (size_t)total);     /* device node -> index */
    int *nodeof = malloc(sizeof(int) * (size_t)p);        /* comm rank -> index */
    h->order = malloc(sizeof(int) * (size_t)p);
    h->start = calloc((size_t)p + 2, sizeof(int));
    h->node_wr = malloc(sizeof(int) * (size_t)p);
    h->lead_wr = malloc(sizeof(int) * (size_t)p);
    if (!dense || !nodeof || !h->order || !h->start || !h->node_wr || !h->lead_wr) {
        free(dense);
        free(nodeof);
        coll_hier_free(h);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < total; i++)
        dense[i] = -1;
    int n = 0;
    for (int i = 0; i < p; i++) {
        int d = comm->foreign ? i : coll_node_of(comm->world_ranks[i]);
        if (d < 0 || d >= total)
            d = 0;
        if (dense[d] < 0)
            dense[d] = n++;
        nodeof[i] = dense[d];
        h->start[nodeof[i] + 1]++;
    }
    for (int k = 0; k < n; k++)
        h->start[k + 1] += h->start[k];
    int *fill = calloc((size_t)n, sizeof(int));
    if (!fill) {
        free(dense);
        free(nodeof);
        coll_hier_free(h);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < p; i++)       /* ascending i: ranks ascending per node */
        h->order[h->start[nodeof[i]] + fill[nodeof[i]]++] = i;
    h->nnodes = n;
    h->mynode = nodeof[comm->rank];
    free(fill);
    free(nodeof);
    free(dense);

    int me = h->mynode, ls = h->start[me + 1] - h->start[me];
    h->node = *comm;
    h->node.size = ls;
    h->node.rank = -1;
    for (int j = 0; j < ls; j++) {
        int r = h->order[h->start[me] + j];
        h->node_wr[j] = comm->world_ranks[r];
        if (r == comm->rank)
            h->node.rank = j;
    }
    h->node.world_ranks = h->node_wr;
    h->lead = *comm;
    h->lead.size = n;
    h->lead.rank = -1;
    for (int k = 0; k < n; k++) {
        int r = coll_hier_leader(h, k);
        h->lead_wr[k] = comm->world_ranks[r];
        if (r == comm->rank)
            h->lead.rank = k;
    }
    h->lead.world_ranks = h->lead_wr;
    return MPI_SUCCESS;
}

void coll_hier_free(coll_hier *h)
{
    free(h->order);
    free(h->start);
    free(h->node_wr);
    free(h->lead_wr);
    memset(h, 0, sizeof *h);
}
