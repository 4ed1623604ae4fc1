/*
 * rma_agent.c — the agent path: in offload mode a target on another node
 * is served by its node's NI agent (netmod/agent/agent_rma.c), not by its
 * progress engine, so a target that computes without calling MPI delays
 * no origin (Bilas: remote deposit, remote fetch, NI locks).
 * The origin side is the active-message one (chunks, lazy locks,
 * rma_am.c); each packet goes to the channel's agent_rma->post instead of send,
 * and answers come back through mpid_on_agent_rma_answer.
 *
 * Atomicity: a window is agent-served on every rank or on none (every
 * rank's window index must have an agent line). Then each node's ranks
 * take their lock and accumulate words from the agent's lines, so the
 * direct and single-copy paths (same-node origins, the target itself) and
 * the agent (remote origins) serialize on the same words.
 */
#include <sched.h>
#include "mpid/rma_impl.h"
#include "src/util/param.h"

_Static_assert(offsetof(mpid_rma_tstate, lock) == 0 &&
                   offsetof(mpid_rma_tstate, acc) == sizeof(int) &&
                   sizeof(mpid_rma_tstate) == MPID_AGENT_WORDS,
               "the agent's words are the device's lock words");

/* The channel serving window rank t's node by agent, or NULL. */
static const mpid_channel *agent_of(const mpid_win *w, int t)
{
    const mpid_channel *ch = mpid_st.dests[w->comm->world_ranks[t]].ch;
    return ch && ch->agent_rma ? ch : NULL;
}

int mpid_rma_agent_open(mpid_win *w)
{
    /* CLUMPI_RMA_AGENT=0: targets on other nodes progress their own
     * requests (active messages), for comparison. */
    static int on = -1;
    if (on < 0)
        on = cu_param_int("RMA_AGENT") != 0;
    int n = w->comm->size, me = w->comm->rank;
    const mpid_channel *ag = NULL;
    for (int t = 0; t < n && !ag; t++)
        ag = agent_of(w, t);
    if (!on || !ag || w->dynamic)
        return 0;
    /* Every window index must have a line (the same answer on every rank:
     * lines exist for the same indices on every node). */
    int myworld = w->comm->world_ranks[me];
    for (int t = 0; t < n; t++)
        if (!ag->agent_rma->words(myworld, (uint32_t)w->peers[t].win_index))
            return 0;
    for (int t = 0; t < n; t++) {
        if (agent_of(w, t))
            continue;   /* another node's rank */
        w->peers[t].ts = ag->agent_rma->words(w->comm->world_ranks[t],
                                              (uint32_t)w->peers[t].win_index);
    }
    ag->agent_rma->open((uint32_t)w->peers[me].win_index, w->base, w->size);
    w->my_ts = w->peers[me].ts;
    w->agent = ag->agent_rma;
    return 1;
}

void mpid_rma_agent_close(mpid_win *w)
{
    if (!w->agent)
        return;
    /* Win_free: every epoch is over, no request is in flight. */
    w->agent->close((uint32_t)w->index);   /* = peers[my rank].win_index */
    w->agent = NULL;
}

/* From the user's call: the request to the target's agent, progressing
 * (which drains the answers) while our tx slots are busy. */
static int agent_post(mpid_win *w, int target, const mpid_pkt_rma *h, const struct iovec *iov,
                      int n)
{
    int world = w->comm->world_ranks[target];
    const mpid_channel *ch = mpid_st.dests[world].ch;
    int lk = h->kind == MPID_RMA_LOCK || h->kind == MPID_RMA_UNLOCK;
    mpid_chan_agent_op c = { .kind = h->kind, .op = lk ? 0 : h->op, .basic = h->basic,
                      .ltype = lk ? h->op : 0, .win = h->win, .nseg = h->nseg,
                      .len = (uint32_t)h->len, .addr = h->addr, .oreq = h->oreq,
                      .ooff = h->ooff, .owin = (uint32_t)w->index, .osrc = target };
    for (unsigned pass = 0;; pass++) {
        int rc = ch->agent_rma->post(world, &c, iov, n);
        if (rc != -EAGAIN)
            return rc;
        /* The agents free our slots as answers come: leave them the core
         * now and then (two cores shared by ranks and agents). */
        if (mpid_progress() == 0 && (pass & 15) == 15)
            mpid_core_yield();
        else
            mpid_pass_done();
    }
}

/* The MPI error class of an agent's answer (MPID_AGENT_OK..EACCESS). */
static uint32_t answer_class(uint32_t outcome)
{
    switch (outcome) {
    case MPID_AGENT_OK:      return MPI_SUCCESS;
    case MPID_AGENT_ERANGE:  return MPI_ERR_RMA_RANGE;
    case MPID_AGENT_EACCESS: return MPI_ERR_OTHER;
    default:                 return MPI_ERR_INTERN;   /* EBADREQ */
    }
}

void mpid_on_agent_rma_answer(const mpid_chan_agent_op *c, const void *payload, size_t len)
{
    mpid_pkt_rma h = { .type = MPID_PKT_RMA, .kind = c->kind, .win = c->owin,
                       .oreq = c->oreq, .ooff = c->ooff, .len = c->len,
                       .nseg = answer_class(c->nseg), .src = c->osrc };
    mpid_rma_on_answer(&h, payload, len);
}

static int agent_issue(mpid_win *w, const mpid_rma_args *a, mpid_rma_rec *rec)
{
    return mpid_rma_msg_issue(w, a, rec,
                              mpid_st.dests[w->comm->world_ranks[a->target]].ch->agent_rma->max,
                              agent_post);
}

static int agent_lock(mpid_win *w, int target, int type)
{
    return mpid_rma_msg_lock(w, target, type, agent_post);
}

static int agent_unlock(mpid_win *w, int target, int type)
{
    return mpid_rma_msg_unlock(w, target, type, agent_post);
}

const mpid_rma_path mpid_rma_path_agent = {
    .name = "agent",
    .issue = agent_issue,
    .lock = agent_lock,
    .unlock = agent_unlock,
};
