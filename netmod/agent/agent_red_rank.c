/*
 * agent_red_rank.c — the rank side of reductions in the agent
 * (agent_red.c): every member posts its packed contribution as RED packets
 * of whole elements (PIO, so the buffer is free at once) and, for an
 * allreduce or at a reduce's root, receives the result as the tree's
 * MCAST packets. The receive is armed before posting, so result packets
 * that come back while we still post land in place (a result packet needs
 * our own contribution to that packet first, so even an in-place buffer is
 * safe). An allreduce keeps at most a window of packets posted beyond
 * the results it has, so one fast rank cannot fill its agent with open
 * accumulators (each holds a pool slot, or agent memory, until the slowest
 * member catches up). A reduce's members do not wait: what they post ahead
 * of their node waits in the agents (agent_red.c), never in credits or tx
 * slots that other traffic needs.
 */
#include <errno.h>
#include "netmod/agent/agent_chan.h"
#include "netmod/agent/agent_coll.h"
#include "netmod/agent/agent_mc_rank.h"
#include "netmod/agent/agent_red.h"
#include "src/util/op.h"

/* How many packets an allreduce posts beyond the results it has: three
 * quarters of its tx slots (a node's lone contribution waits for credits
 * in its tx slot; the rest stay free for the rank's other traffic): the
 * agents' window W (16) alone would make it a stop-and-go over the tree's
 * levels up and down (about 20% slower at 1 MiB on 8 nodes). A full window waits for
 * results asleep (the agent wakes us with the next one), not yielding in
 * a loop: on a few shared cores the spinning ranks took the cores the
 * agents needed. It reopens at half the window: one wake-up, several
 * packets. What bounds it after that is the cost per packet of every hop:
 * a larger CLUMPI_AGENT_MTU is what makes large reductions fast. */
typedef struct red_window { const agt_mc_rx *rx; size_t posted, ahead; } red_window;
static int window_open(void *arg)
{
    const red_window *w = arg;
    return w->posted + w->ahead / 2 <= agt_mc_rx_count(w->rx) + w->ahead;
}

int agt_coll_red_ok(int op, int basic)
{
    return op > 0 && op < CU_OP_COUNT && cu_op_valid(op, basic) &&
           cu_op_kernel_packed(op, basic) != NULL && cu_op_packed_size(basic) > 0 &&
           cu_op_packed_size(basic) <= AGT_MAX_PAYLOAD;
}

int agt_coll_reduce(const void *in, void *out, size_t bytes, int op, int basic, int all, int root,
                    int shape, uint32_t ctx, int rank, int size, const int *world)
{
    if (bytes > UINT32_MAX)
        return -E2BIG;
    if (bytes && !agt_coll_red_ok(op, basic))
        return -EINVAL;
    agt_red_hdr h = { .op = (uint8_t)(bytes ? op : 0), .basic = (uint8_t)(bytes ? basic : 0),
                      .what = all ? AGT_RED_ALLREDUCE : AGT_RED_REDUCE };
    int rc = agt_mc_key(&h.mc, shape, ctx, root, size, world);
    if (rc)
        return rc;
    h.mc.total = (uint32_t)bytes;
    int wants = all || rank == root;
    agt_mc_rx rx = { 0 };
    if (wants)
        agt_mc_rx_begin(&rx, &h.mc, out, bytes);
    /* packets as large as this run's slots (CLUMPI_AGENT_MTU): every hop's
     * cost is per packet, so a larger MTU makes a large reduction faster */
    size_t fp = agt_frag_payload(agt_chan_seg()->mtu);
    red_window win = { .rx = &rx, .ahead = agt_chan_seg()->ntx - agt_chan_seg()->ntx / 4 };
    size_t chunk = bytes ? fp / cu_op_packed_size(basic) * cu_op_packed_size(basic) : 1;
    agt_wire wire = { .kind = AGT_K_RED, .hdrlen = sizeof h, .src = (uint32_t)world[rank],
                      .dst = (uint32_t)world[root] };
    size_t off = 0, i = 0;
    do {   /* an empty operation (barrier) is one empty packet */
        if (all && i >= agt_mc_rx_count(&rx) + win.ahead) {
            win.posted = i;
            agt_chan_progress_until(window_open, &win);
        }
        i++;
        size_t n = bytes - off < chunk ? bytes - off : chunk;
        wire.len = (uint16_t)n;
        h.mc.off = (uint32_t)off;
        struct iovec iov[3] = { { &wire, sizeof wire }, { &h, sizeof h },
                                { (char *)in + off, n } };
        agt_mc_post(AGT_CMD_PIO, iov, n ? 3 : 2);   /* a barrier has no buffer */
        off += n;
    } while (off < bytes);
    if (wants)
        agt_mc_rx_wait(&rx);
    return 0;
}
