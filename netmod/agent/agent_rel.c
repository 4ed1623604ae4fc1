/*
 * agent_rel.c — the reliability protocol over datagrams (see agent_rel.h).
 *
 * Selective repeat by default (CLUMPI_AGENT_ARQ=sack): the receiver keeps up
 * to AGT_REL_SACK_MAX datagrams that came after a gap (main-stream copies in
 * agent_net.c, bulk chunks in their landing buffers), says which in every
 * header, and the sender sends again only the ones not yet there.
 * CLUMPI_AGENT_ARQ=gbn is go-back-N: the receiver keeps nothing out of
 * order and the sender sends its whole window again after a loss. doc/
 * OFFLOAD.md measures both. Sequence numbers count datagrams (a train is
 * one); credits count packets.
 *
 * CLUMPI_AGENT_REL=host (Verstoep et al.'s l-hrx): the ranks' channels
 * retransmit end to end (agent_hrel.c); here a datagram is freed once it
 * left and nothing is acknowledged, held or resent, whatever the ARQ
 * setting. The numbers stay, to drop copies, and each header carries the
 * packets sent so far (in the ack field, which no ack needs then), so that
 * the receiver gives back the credits of lost ones: an ack or probe names
 * the next number too, and everything below it that has not come is
 * taken for lost. One that comes after all (overtaken, not lost) is passed
 * on to its rank as a latecomer (AGT_REL_LATE) if the rank's ring has room:
 * its credit went back already, so it takes no slot and gives none back;
 * the ranks' channels put it in order. Dropping it would make the
 * reordering of the network loss.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "netmod/agent/agent.h"
#include "netmod/agent/agent_rtt.h"
#include "src/util/param.h"

/* An explicit ack waits at most this long for reverse traffic to carry it. */
#define ACK_DELAY_NS 200000ull
/* Gap reports that trigger a retransmission before the timeout. */
#define DUPACK_FAST 2
/* A peer silent this part of the deadline is probed, and again as often
 * until it answers: at 30% loss a probe and its answer both arrive only
 * about half the time, and a deadline must not pass on a live peer whose
 * node merely has nothing to say (0.51^32: about once in 10^9). */
#define PROBE_DIV 32

/* The sending half of one stream to a peer. */
typedef struct rel_out {
    uint32_t next_seq, una;      /* next number; oldest unacknowledged */
    agt_pend *qh, *qt;           /* held datagrams, oldest first */
    uint32_t nq;
    agt_rtt t;
    uint64_t rto_at;             /* 0: no timer */
    uint32_t gaps, recover;      /* gap reports at una; no fast retransmit below recover */
    uint32_t sacked;             /* sack: bit i: una + i is held by the peer */
    uint32_t tmo_run;            /* timeouts since the peer last acknowledged something new */
    uint32_t pkts;               /* REL=host: packets sent in all */
} rel_out;

enum { MAIN, BULK, NSTREAM };

typedef struct rel_peer {
    rel_out out[NSTREAM];        /* packets and trains; bulk chunks */
    uint64_t probe_at, probe_gap;
    uint32_t probe_run;          /* persist probes since we last had credits */
    uint64_t heard;              /* the peer's last datagram (or our start) */
    uint64_t alive_at;           /* next keepalive probe (0: none due) */
    uint32_t cred_seen;          /* its running total of credits, as far as we know */
    /* receiving from the peer */
    uint32_t epoch;              /* 0: not heard yet */
    uint32_t rx_next[NSTREAM];   /* next number we take */
    uint32_t rx_held[NSTREAM];   /* sack: bit i: rx_next + i arrived and is held */
    uint32_t unacked;            /* datagrams taken since our last ack */
    uint64_t ack_at;             /* explicit ack due (0: none) */
    uint32_t cred_ret;           /* credits returned to it, in all */
    uint32_t rx_pkts;            /* REL=host: its packets come or known lost, in all */
    uint32_t pend_seq, pend_pkts;   /* REL=host: the datagram being taken */
    uint64_t rx_seen;            /* REL=host: bit i: rx_next - 1 - i came */
} rel_peer;

static rel_peer *P;
static uint32_t my_epoch;
static long ack_every;
static int sack;                 /* CLUMPI_AGENT_ARQ=sack */
static uint64_t deadline_ns;

static int after(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }

static agt_tx *tx_of(agt_pend *p) { return (agt_tx *)((char *)p - offsetof(agt_tx, link)); }

int agt_rel_init(void)
{
    P = calloc((size_t)A.nnodes, sizeof *P);
    if (!P)
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    my_epoch = (uint32_t)(ts.tv_nsec ^ (ts.tv_sec << 20) ^ ((uint64_t)getpid() << 8)) | 1u;
    ack_every = cu_param_int("AGENT_ACK_EVERY");
    const char *arq = cu_param_str("AGENT_ARQ");
    sack = !arq || strcmp(arq, "gbn");
    if (ack_every < 1)
        ack_every = 1;
    const char *to = cu_param_str("AGENT_PEER_TIMEOUT");
    deadline_ns = (uint64_t)((to ? strtod(to, NULL) : 10.0) * 1e9);
    uint64_t now = agt_now_ns();
    for (int n = 0; n < A.nnodes; n++) {
        for (int s = 0; s < NSTREAM; s++) {
            P[n].out[s].next_seq = P[n].out[s].una = P[n].rx_next[s] = 1;
            P[n].out[s].t.rto = AGT_RTO_INIT_NS;
        }
        P[n].heard = now;
    }
    return 0;
}

void agt_rel_fini(void)
{
    free(P);
    P = NULL;
}

void agt_rel_fill(agt_rel_hdr *h, int node, int flags)
{
    rel_peer *p = &P[node];
    p->cred_ret += (uint32_t)agt_flow_take_owed(&A.flow, node);
    h->epoch = my_epoch;
    h->ack = p->rx_next[MAIN];
    h->back = p->rx_next[BULK];
    if (A.hrel) {
        h->ack = p->out[MAIN].pkts;
        if (!(flags & AGT_REL_DATA))
            h->seq = p->out[MAIN].next_seq;
    }
    h->credits = p->cred_ret;
    h->src_node = (uint16_t)A.node;
    h->flags = (uint8_t)flags;
    h->pad = 0;
    h->sack = p->rx_held[MAIN];
    h->bsack = p->rx_held[BULK];
    if (p->unacked && (flags & AGT_REL_DATA))
        agt_st.acks_piggy++;
    p->unacked = 0;
    p->ack_at = 0;
}

static rel_out *out_of(const agt_tx *t)
{
    return &P[t->node].out[t->type == AGT_TX_BULK ? BULK : MAIN];
}

void agt_rel_queue(agt_tx *t)
{
    rel_out *o = out_of(t);
    uint64_t now = agt_now_ns();
    t->rh.seq = o->next_seq++;
    t->acked = 0, t->rexmit = 0, t->sacked = 0, t->inflight = 0;
    if (A.hrel) {   /* freed once sent (agt_rel_sent) */
        o->pkts += t->npkt ? t->npkt : 1u;
        t->acked = 1;
        return;
    }
    t->sent_ns = now;
    t->link.next = NULL;
    if (o->qt)
        o->qt->next = &t->link;
    else
        o->qh = &t->link;
    o->qt = &t->link;
    if (!o->nq++)
        o->rto_at = now + o->t.rto;
    if (t->type != AGT_TX_BULK)
        P[t->node].probe_at = 0;
}

void agt_rel_sent(agt_tx *t)
{
    if (A.hrel && !t->inflight)
        agt_tx_done(t);
}

static void release(agt_tx *t)
{
    t->acked = 1;
    if (!t->inflight)
        agt_tx_done(t);
}

void agt_rel_send_done(agt_tx *t)
{
    if (t->inflight)
        t->inflight--;
    if (t->acked && !t->inflight)
        agt_tx_done(t);
}


/* Every held datagram of stream s to node again, oldest first (go back N);
 * with sack only those the peer does not hold, and on a gap report
 * (fast) only those below the newest it holds: the rest may be on the way. */
static void resend_all(int node, int s, uint64_t now, int fast)
{
    rel_out *o = &P[node].out[s];
    uint32_t top = AGT_REL_SACK_MAX;
    if (sack && fast)
        for (top = AGT_REL_SACK_MAX; top > 1 && !(o->sacked >> (top - 1) & 1); top--)
            ;   /* holding nothing we know of: the oldest alone */
    for (agt_pend *q = o->qh; q; q = q->next) {
        agt_tx *t = tx_of(q);
        if (t->sacked)
            continue;
        if (sack && fast && t->rh.seq - o->una >= top)
            break;
        t->rexmit = 1;
        t->sent_ns = now;
        if (s == BULK)
            agt_net_bulk_out(t);
        else
            agt_net_dgram_out(t);
        agt_st.rexmit++;
    }
    o->rto_at = now + o->t.rto;
}

/* sack: the peer's held set as of ack (an older header's is older news).
 * A datagram's round trip is sampled when the peer first says it holds it:
 * its cumulative ack waits for the gap before it to fill, often a timeout,
 * and sampled then the timeout would feed on itself. */
static void note_sacked(rel_out *p, uint32_t ack, uint32_t held, uint64_t now)
{
    p->sacked = held;
    if (!held)
        return;
    for (agt_pend *q = p->qh; q; q = q->next) {
        agt_tx *t = tx_of(q);
        uint32_t d = t->rh.seq - ack;
        if (d >= AGT_REL_SACK_MAX)
            continue;
        if ((held >> d & 1) && !t->sacked) {
            t->sacked = 1;
            if (!t->rexmit)
                agt_rtt_sample(&p->t, now - t->sent_ns);
        }
    }
}

static void on_ack(int node, int s, uint32_t ack, uint32_t held, int gap, uint64_t now)
{
    rel_out *p = &P[node].out[s];
    if (after(ack, p->next_seq))
        agt_die("a peer agent acknowledged a datagram never sent");
    if (sack && !after(p->una, ack))
        note_sacked(p, ack, held, now);
    if (after(ack, p->una)) {
        while (p->qh && after(ack, tx_of(p->qh)->rh.seq)) {
            agt_tx *t = tx_of(p->qh);
            p->qh = p->qh->next;
            if (!p->qh)
                p->qt = NULL;
            p->nq--;
            if (!t->rexmit && !t->sacked)   /* Karn: no sample from a retransmitted one */
                agt_rtt_sample(&p->t, now - t->sent_ns);
            release(t);
        }
        p->una = ack;
        p->gaps = 0;
        p->tmo_run = 0;
        agt_rtt_reset(&p->t);
        p->rto_at = p->nq ? now + p->t.rto : 0;
        return;
    }
    if (gap && p->nq && ack == p->una && !after(p->recover, p->una) &&
        ++p->gaps >= DUPACK_FAST) {
        p->gaps = 0;
        p->recover = p->next_seq;
        agt_st.fast_rexmit++;
        resend_all(node, s, now, 1);
    }
}

/* REL=host: the peer sent every datagram below seq and pkts packets in
 * all; those not come are lost, and their credits go back to it (none of
 * them took a slot here). */
static void host_lost(rel_peer *p, int node, uint32_t seq, uint32_t pkts)
{
    if (after(seq, p->rx_next[MAIN])) {
        uint32_t d = seq - p->rx_next[MAIN];
        p->rx_seen = d >= 64 ? 0 : p->rx_seen << d;
        p->rx_next[MAIN] = seq;
    }
    while (after(pkts, p->rx_pkts)) {
        p->rx_pkts++;
        agt_st.host_lost++;
        if (agt_flow_released(&A.flow, node))
            agt_net_ack(node);
    }
}

static int host_input(rel_peer *p, int node, const agt_rel_hdr *h)
{
    if (!(h->flags & AGT_REL_DATA)) {
        host_lost(p, node, h->seq, h->ack);
        if (h->flags & AGT_REL_PROBE)
            agt_net_ctl(node, 0);
        return 0;
    }
    if (h->flags & AGT_REL_BULK)
        agt_die("a bulk chunk under CLUMPI_AGENT_REL=host (its bulk path is off)");
    if (h->flags & AGT_REL_PROBE)
        agt_net_ctl(node, 0);
    if (after(p->rx_next[MAIN], h->seq)) {   /* a copy, or one that came after a later one */
        uint32_t d = p->rx_next[MAIN] - 1 - h->seq;
        if (d < 64 && !(p->rx_seen >> d & 1)) {
            p->rx_seen |= 1ull << d;
            return AGT_REL_LATE;
        }
        agt_st.dup_dropped++;
        return 0;
    }
    p->pend_seq = h->seq;
    p->pend_pkts = h->ack;
    return 1;
}

int agt_rel_input(const agt_rel_hdr *h, int *credits)
{
    *credits = 0;
    int node = h->src_node;
    if (node >= A.nnodes || node == A.node) {
        fprintf(stderr, "clumpi-agent[node %d]: a datagram from no peer (node %d)\n", A.node,
                node);
        exit(1);
    }
    rel_peer *p = &P[node];
    if (!p->epoch) {
        p->epoch = h->epoch;
    } else if (p->epoch != h->epoch) {
        fprintf(stderr, "clumpi-agent[node %d]: the agent of node %d started again (a new "
                "epoch); its packets in flight are lost, ending the job\n", A.node, node);
        exit(1);
    }
    uint64_t now = agt_now_ns();
    p->heard = now;
    p->alive_at = 0;
    if (after(h->credits, p->cred_seen)) {
        *credits = (int)(h->credits - p->cred_seen);
        p->cred_seen = h->credits;
    }
    if (A.hrel)
        return host_input(p, node, h);
    on_ack(node, MAIN, h->ack, h->sack, h->flags & AGT_REL_GAP, now);
    on_ack(node, BULK, h->back, h->bsack, h->flags & AGT_REL_BGAP, now);
    if (h->flags & AGT_REL_PROBE)
        agt_net_ctl(node, 0);
    if (!(h->flags & AGT_REL_DATA))
        return 0;
    int s = h->flags & AGT_REL_BULK ? BULK : MAIN;
    if (h->seq == p->rx_next[s]) {
        p->rx_next[s]++;
        p->rx_held[s] >>= 1;
        return 1;
    }
    /* a copy (our ack was lost or late) or one after a gap: say where we are */
    uint32_t d = h->seq - p->rx_next[s];
    int gap = s == BULK ? AGT_REL_BGAP : AGT_REL_GAP;
    if (after(p->rx_next[s], h->seq) || (sack && d < AGT_REL_SACK_MAX && (p->rx_held[s] >> d & 1))) {
        agt_st.dup_dropped++;
        agt_net_ctl(node, 0);
    } else if (sack && d < AGT_REL_SACK_MAX) {
        p->rx_held[s] |= 1u << d;
        agt_st.ooo_held++;
        agt_net_ctl(node, gap);
        return AGT_REL_HOLD;
    } else {
        agt_st.ooo_dropped++;
        agt_net_ctl(node, gap);
    }
    return 0;
}

int agt_rel_pop(int node, int bulk, uint32_t *seq)
{
    rel_peer *p = &P[node];
    int s = bulk ? BULK : MAIN;
    if (!(p->rx_held[s] & 1))
        return 0;
    *seq = p->rx_next[s]++;
    p->rx_held[s] >>= 1;
    return 1;
}

void agt_rel_accepted(int node, uint32_t npkt)
{
    rel_peer *p = &P[node];
    if (A.hrel) {
        host_lost(p, node, p->pend_seq, p->pend_pkts - npkt);
        p->rx_seen = p->rx_seen << 1 | 1;
        p->rx_next[MAIN] = p->pend_seq + 1;
        p->rx_pkts = p->pend_pkts;
        return;
    }
    if (++p->unacked >= (uint32_t)ack_every)
        agt_net_ctl(node, 0);
    else if (!p->ack_at)
        p->ack_at = agt_now_ns() + ACK_DELAY_NS;
}

/* Out of credits with nothing held: the credits may have gone with a lost
 * ack, so ask (TCP's persist timer). */
static int starved(int n)
{
    return !P[n].out[MAIN].nq && A.flow.qh[n] && A.flow.credits[n] <= 0;
}

/* The first probe of a starved sender goes after the timeout toward the
 * peer, or the floor while no round trip was sampled: always under
 * REL=host, whose agents acknowledge nothing, so the timeout stayed at its
 * initial 10 ms. There a lost ack, or the last datagrams before the
 * credits ran out lost, leave both sides waiting for this probe (the
 * receiver cannot know), and a probe is a header alone. */
static uint64_t probe_first(const rel_peer *p)
{
    return p->out[MAIN].t.srtt ? p->out[MAIN].t.rto : AGT_RTO_MIN_NS;
}

/* Datagrams held for node, both streams. */
static uint32_t held(int n) { return P[n].out[MAIN].nq + P[n].out[BULK].nq; }

/* When a peer we talked with is probed next, if it stays silent. */
static uint64_t alive_due(const rel_peer *p)
{
    return p->alive_at ? p->alive_at : p->heard + deadline_ns / PROBE_DIV;
}

/* Silence while this agent itself did not run (descheduled for seconds on
 * a loaded host, or stopped with its whole job) is not the peer's: what
 * the peer sent meanwhile waits unread in our socket, and the first pass
 * after the gap reads one datagram at most before the deadline is checked.
 * The part of a gap between passes beyond the longest idle sleep (a probe
 * interval) is taken off every peer's silence. */
static void not_ours(uint64_t now)
{
    static uint64_t last;
    uint64_t idle = deadline_ns / PROBE_DIV;
    if (last && now - last > idle) {
        uint64_t away = now - last - idle;
        for (int n = 0; n < A.nnodes; n++)
            if (P[n].heard < last)
                P[n].heard = P[n].heard + away < now ? P[n].heard + away : now;
    }
    last = now;
}

void agt_rel_poll(void)
{
    uint64_t now = agt_now_ns();
    not_ours(now);
    for (int n = 0; n < A.nnodes; n++) {
        rel_peer *p = &P[n];
        if (p->ack_at && now >= p->ack_at)
            agt_net_ctl(n, 0);
        if (A.quiesce)
            continue;   /* peers may be gone for good: nothing is owed any more */
        for (int s = 0; s < NSTREAM; s++) {
            rel_out *o = &p->out[s];
            if (o->rto_at && now >= o->rto_at) {
                agt_st.timeouts++;
                o->t.rto = agt_backoff(o->t.rto, &o->tmo_run);
                resend_all(n, s, now, 0);
            }
        }
        if (starved(n)) {
            if (!p->probe_at) {
                p->probe_gap = probe_first(p);
                p->probe_at = now + p->probe_gap;
                p->probe_run = 0;
            } else if (now >= p->probe_at) {
                agt_st.probes++;
                agt_net_ctl(n, AGT_REL_PROBE);
                p->probe_gap = agt_backoff(p->probe_gap, &p->probe_run);   /* as the timeout */
                p->probe_at = now + p->probe_gap;
            }
        } else {
            p->probe_at = 0;
        }
        /* Silence matters when we hold its packets, wait for its credits,
         * or talked with it before (its ranks may wait on it: ask how it
         * is, PROBE_DIV times per deadline). */
        if (!held(n) && !starved(n) && !p->epoch)
            continue;
        if (p->epoch && now >= alive_due(p)) {
            agt_st.probes++;
            agt_net_ctl(n, AGT_REL_PROBE);
            p->alive_at = now + deadline_ns / PROBE_DIV;
        }
        if (now - p->heard > deadline_ns) {
            fprintf(stderr, "clumpi-agent[node %d]: the agent of node %d has not answered for "
                    "%.1f s (%u datagrams unacknowledged; CLUMPI_AGENT_PEER_TIMEOUT); "
                    "ending the job\n", A.node, n, (double)(now - p->heard) / 1e9, held(n));
            exit(1);
        }
    }
}

long agt_rel_sleep_ms(long dflt)
{
    uint64_t now = agt_now_ns(), next = now + (uint64_t)dflt * 1000000;
    for (int n = 0; n < A.nnodes; n++) {
        rel_peer *p = &P[n];
        if (p->ack_at)
            agt_net_ctl(n, 0);
        if (A.quiesce)
            continue;
        for (int s = 0; s < NSTREAM; s++)
            if (p->out[s].rto_at && p->out[s].rto_at < next)
                next = p->out[s].rto_at;
        if (starved(n)) {
            uint64_t at = p->probe_at ? p->probe_at : now + probe_first(p);
            if (at < next)
                next = at;
        }
        if (p->epoch && alive_due(p) < next)
            next = alive_due(p);
    }
    long ms = next > now ? (long)((next - now + 999999) / 1000000) : 0;
    return ms < dflt ? ms : dflt;
}
