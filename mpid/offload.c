/*
 * offload.c — the device's offloaded collectives (offload.h): each forwards
 * to the network channel's mpid_chan_coll table, when it has one.
 */
#include <errno.h>
#include "mpid/mpidi.h"
#include "mpid/offload.h"

/* The network channel's table, or NULL (one node, direct mode). */
static const mpid_chan_coll *offload(void)
{
    return mpid_st.net_chan ? mpid_st.net_chan->coll : NULL;
}

int mpid_offload_usable(const mpid_comm *comm)
{
    const mpid_chan_coll *c = offload();
    return c && c->up() && (size_t)comm->size <= c->max_ranks;
}

int mpid_offload_fadd_up(void)
{
    const mpid_chan_coll *c = offload();
    return c && c->up();
}

int mpid_offload_red_ok(int op, int basic)
{
    const mpid_chan_coll *c = offload();
    return c && c->red_ok(op, basic);
}

int mpid_offload_lossy(const mpid_comm *comm)
{
    const mpid_chan_coll *c = offload();
    return c && c->lossy() && (size_t)comm->size <= c->max_ranks;
}

size_t mpid_offload_pkt_bytes(void)
{
    const mpid_chan_coll *c = offload();
    return c ? c->pkt_bytes : 0;
}

int mpid_offload_bcast(void *buf, size_t len, int root, int shape, const mpid_comm *comm,
                       uint8_t *have)
{
    const mpid_chan_coll *c = offload();
    if (!c)
        return -ENOTCONN;
    return c->bcast(buf, len, root, shape, comm->context_id + MPID_CTX_COLL, comm->rank,
                    comm->size, comm->world_ranks, have);
}

int mpid_offload_reduce(const void *in, void *out, size_t bytes, int op, int basic, int all,
                        int root, int shape, const mpid_comm *comm)
{
    const mpid_chan_coll *c = offload();
    if (!c)
        return -ENOTCONN;
    return c->reduce(in, out, bytes, op, basic, all, root, shape,
                     comm->context_id + MPID_CTX_COLL, comm->rank, comm->size, comm->world_ranks);
}

int mpid_offload_fadd(int op, const mpid_comm *comm, int owner, uint32_t id, int64_t value,
                      int64_t *old)
{
    const mpid_chan_coll *c = offload();
    if (!c)
        return -ENOTCONN;
    return c->fadd(op, (uint32_t)comm->world_ranks[owner], id, value, old,
                   (uint32_t)comm->world_ranks[comm->rank]);
}
