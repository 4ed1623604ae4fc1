/*
 * route.c — the routing table: one entry per world rank naming the channel
 * that reaches it (self, shm, the network for other nodes) and the
 * packets waiting for room there.
 */
#include <stdint.h>
#include <stdlib.h>
#include "mpid/mpidi.h"
#include "src/util/param.h"


/* Ranks no channel reaches (other nodes until a network channel exists):
 * every send fails at once, so callers get an error instead of a hang. */
static int unreach_send(int dest, const void *hdr, size_t hdrlen,
                        const struct iovec *iov, int iovcnt, unsigned flags)
{
    return -EHOSTUNREACH;
}
static int unreach_progress(int budget) { return 0; }
static const mpid_channel unreach = {
    .name = "unreachable",
    .max_payload = SIZE_MAX,
    .send = unreach_send,
    .progress = unreach_progress,
};

/* The eager limit towards a rank reached by ch: CLUMPI_EAGER_LIMIT when
 * set, else the channel's own, the lower one for idle cores while
 * single-copy reads are allowed (single_copy). */
static size_t eager_limit(const mpid_channel *ch, int single_copy)
{
    size_t m = ch->max_payload;
    if (mpid_st.eager_cap >= 0)
        return (size_t)mpid_st.eager_cap < m ? (size_t)mpid_st.eager_cap : m;
    if (single_copy && ch->eager_idle_max && ch->eager_idle_max < m &&
        !mpid_st.wait.oversubscribed)
        return ch->eager_idle_max;
    return m;
}

/* d's peer cannot read this process's memory (it answered an RTS with a
 * CTS), or this process cannot read its: rendezvous pipelines packets,
 * so the channel's full eager limit is the better one. */
void mpid_dest_no_single_copy(mpid_dest *d)
{
    if (d->ch)
        d->eager_max = eager_limit(d->ch, 0);
}

void mpid_dest_set(mpid_dest *d, const mpid_channel *ch)
{
    d->ch = ch;
    /* the counters its messages go to: peers of other jobs are network peers */
    d->cnt_kind = ch == &mpid_channel_self ? MPID_CNT_SELF
                  : ch == mpid_node_chan ? MPID_CNT_SHM : MPID_CNT_NET;
    d->no_rma = mpid_st.no_rma_all;
    d->eager_max = eager_limit(ch, !d->no_rma);
}

int mpid_route_init(const int *node_of, int my_node, int shm_up)
{
    int n = mpid_st.world_size;
    /* The slots of peers of other jobs follow the world's; untouched, they
     * cost address space only. */
    mpid_st.dests = calloc((size_t)n + MPID_DYN_MAX, sizeof *mpid_st.dests);
    if (!mpid_st.dests)
        return -ENOMEM;
    mpid_st.dyn_top = n;
    /* CLUMPI_EAGER_LIMIT replaces the channels' own limits, up to their
     * max_payload (tests use it to force rendezvous for small messages). */
    mpid_st.eager_cap = cu_param_int("EAGER_LIMIT");
    /* CLUMPI_NO_RMA=1 turns single-copy reads off: rendezvous pipelines. */
    mpid_st.no_rma_all = cu_param_int("NO_RMA") != 0;
    for (int w = 0; w < n; w++) {
        mpid_dest *d = &mpid_st.dests[w];
        if (w == mpid_st.world_rank)
            d->ch = &mpid_channel_self;
        else if (shm_up && node_of[w] == my_node)
            d->ch = mpid_node_chan;
        else if (mpid_st.net_chan && node_of[w] != my_node)
            d->ch = mpid_st.net_chan;
        else
            d->ch = &unreach;
        mpid_dest_set(d, d->ch);
    }
    return 0;
}

void mpid_route_finalize(void)
{
    if (!mpid_st.dests)
        return;
    for (int w = 0; w < mpid_st.dyn_top; w++) {
        mpid_ctrl *c = mpid_st.dests[w].chead;
        while (c) {
            mpid_ctrl *n = c->next;
            free(c);
            c = n;
        }
    }
    free(mpid_st.dests);
    mpid_st.dests = NULL;
    mpid_dyn_finalize();
    mpid_st.dirty = NULL;
}
