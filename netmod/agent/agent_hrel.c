/*
 * agent_hrel.c — end-to-end retransmission between ranks under
 * CLUMPI_AGENT_REL=host (see agent_hrel.h).
 *
 * The copy is the rank's own (Verstoep et al.'s l-hrx keeps it in host
 * memory), not its tx slot: the agent frees those in order as packets
 * leave, and one slow destination would otherwise hold the slots of all.
 * Selective repeat, as between the agents (agent_rel.c): the receiver
 * keeps packets that came after a gap (one window per source) and says
 * which in every header, and the sender sends again only those it does
 * not hold: on the second gap report those below the newest held, on a
 * timeout those whose own timeout has passed. Sending only the oldest
 * again repairs one hole per round trip, and at 30% loss a full window
 * holds a dozen.
 * A time-based loss rule besides (RACK, Cheng et al.): a packet sent
 * earlier than one the receiver has, by more than the round trip of that
 * one and a reordering window of a quarter of the smoothed round trip, is
 * lost, retransmissions included, found on an ack or by the reordering
 * timer. Without it a lost retransmission waited for the timeout (the gap
 * reports fire once per recovery), and at 30% loss about one in three does.
 * There is no deadline here: a peer rank computing outside MPI leaves our
 * packets unacknowledged for as long as it likes, and a peer node that is
 * gone is found by the agents' own deadline (agent_rel.c), which runs in
 * either mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netmod/agent/agent_hrel.h"
#include "netmod/agent/agent_ring.h"
#include "netmod/agent/agent_rtt.h"
#include "src/util/clock.h"
#include "src/util/log.h"
#include "src/util/param.h"

/* An explicit ack waits at most this long for reverse traffic to carry it. */
#define ACK_DELAY_NS 200000ull
/* Gap reports that trigger a retransmission before the timeout. */
#define DUPACK_FAST 2

typedef struct held {
    struct held *next;
    uint32_t seq;
    uint8_t rexmit, sacked, due;   /* sent again; the receiver holds it; to go again */
    uint64_t sent_ns;
    size_t len;
    char pkt[];
} held;

typedef struct hout {   /* to one destination rank */
    uint32_t next_seq;
    held *qh, *qt;        /* held, oldest first */
    int resend;           /* packets marked due go again at the next chance */
    uint32_t nq;
    agt_rtt t;
    uint64_t rto_at;      /* 0: no timer */
    uint32_t gaps, recover;   /* gap reports at the oldest; none counted below recover */
    uint32_t tmo_run;     /* timeouts since dest last acknowledged something new */
    uint64_t rexmit_ns;   /* our last retransmission to dest */
    /* RACK: the send time and round trip of the newest-sent packet dest
     * has; the least round trip seen; when the next packet sent before
     * that one is due to be taken for lost (0: none) */
    uint64_t rack_xmit, rack_rtt, rtt_min, reo_at;
} hout;

typedef struct hin {    /* from one source rank */
    uint32_t rx_next, unacked;
    uint64_t held;        /* bit i: rx_next + i is in ooo */
    uint64_t ack_at;      /* explicit ack due (0: none) */
    agt_hrel_pkt **ooo;   /* [AGT_HREL_WINDOW]: packets after a gap, by seq */
} hin;

static struct {
    hout *o;
    hin *i;
    int n, me;
    uint32_t ack_every;
    uint64_t nheld, nacks;   /* packets held, acks due: nothing to do at 0 */
    unsigned long long rexmit, timeouts, fast, rack, dups, ooo, acks, kept;
} H;

static int after(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }

int agt_hrel_init(int nworld, int me)
{
    memset(&H, 0, sizeof H);
    H.o = calloc((size_t)nworld, sizeof *H.o);
    H.i = calloc((size_t)nworld, sizeof *H.i);
    if (!H.o || !H.i)
        return -1;
    H.n = nworld, H.me = me;
    long k = cu_param_int("AGENT_ACK_EVERY");
    H.ack_every = k < 1 ? 1u : (uint32_t)k;
    for (int r = 0; r < nworld; r++) {
        H.o[r].next_seq = 1;
        H.o[r].t.rto = AGT_RTO_INIT_NS;
        H.i[r].rx_next = 1;
    }
    return 0;
}

void agt_hrel_fini(void)
{
    for (int r = 0; H.o && r < H.n; r++)
        while (H.o[r].qh) {
            held *h = H.o[r].qh;
            H.o[r].qh = h->next;
            free(h);
        }
    for (int r = 0; H.i && r < H.n; r++) {
        for (unsigned k = 0; H.i[r].ooo && k < AGT_HREL_WINDOW; k++)
            free(H.i[r].ooo[k]);
        free(H.i[r].ooo);
    }
    free(H.o);
    free(H.i);
    H.o = NULL, H.i = NULL;
}

int agt_hrel_room(int dest, uint32_t n) { return H.o[dest].nq + n <= AGT_HREL_WINDOW; }

/* Our ack to dest, fields ack and held[] of h. */
static void fill_ack(agt_hrel_hdr *h, int dest)
{
    h->ack = H.i[dest].rx_next;
    h->held[0] = (uint32_t)H.i[dest].held;
    h->held[1] = (uint32_t)(H.i[dest].held >> 32);
}

agt_hrel_hdr agt_hrel_next(int dest, uint32_t n)
{
    agt_hrel_hdr h = { .seq = H.o[dest].next_seq + n, .flags = 0 };
    fill_ack(&h, dest);
    return h;
}

/* Our ack to src went (alone or with a packet). */
static void acked(int src)
{
    hin *i = &H.i[src];
    i->unacked = 0;
    if (i->ack_at) {
        i->ack_at = 0;
        H.nacks--;
    }
}

void agt_hrel_keep(int dest, const char *pkt, size_t len)
{
    hout *o = &H.o[dest];
    held *h = malloc(sizeof *h + len);
    if (!h)
        cu_fatal("agent: out of memory (a packet kept for retransmission)");
    memcpy(h->pkt, pkt, len);
    h->len = len;
    h->seq = o->next_seq++;
    h->rexmit = h->sacked = h->due = 0;
    h->sent_ns = (uint64_t)cu_now_ns();
    h->next = NULL;
    if (o->qt)
        o->qt->next = h;
    else
        o->qh = h;
    o->qt = h;
    if (!o->nq++)
        o->rto_at = h->sent_ns + o->t.rto;
    H.nheld++;
    H.kept++;
}

void agt_hrel_posted(int dest) { acked(dest); }

void agt_hrel_unkeep(int dest, uint32_t n)
{
    hout *o = &H.o[dest];
    for (; n; n--) {   /* the newest n: unlink the last */
        held **pp = &o->qh, *prev = NULL;
        while ((*pp)->next)
            prev = *pp, pp = &(*pp)->next;
        free(*pp);
        *pp = NULL;
        o->qt = prev;
        o->next_seq--;
        o->nq--;
        H.nheld--;
        H.kept--;
    }
    if (!o->nq)
        o->rto_at = 0;
}

/* Where a kept packet's header sits: after the wire and device headers. */
static agt_hrel_hdr *hdr_of(char *pkt)
{
    const agt_wire *w = (const agt_wire *)pkt;
    return (agt_hrel_hdr *)(pkt + sizeof *w + w->hdrlen);
}

/* Mark the unheld packets to dest below seq top (all: top 0) due, those
 * sent at least min_age ago; the oldest always, even one dest reported
 * held: acks are not sent again, so once every packet left is reported
 * held and the cumulative ack that covers them is lost, only a copy
 * (answered with dest's ack) can end the wait (as TCP forgets its SACKed
 * bits on a timeout, RFC 2018). */
static void mark_due(hout *o, uint32_t top, uint64_t min_age, uint64_t now)
{
    for (held *h = o->qh; h && (!top || after(top, h->seq)); h = h->next)
        if (h == o->qh || (!h->sacked && now - h->sent_ns >= min_age)) {
            h->due = 1;
            o->resend = 1;
        }
}

/* RACK: dest has packet h (reported held or acknowledged) as of now. A
 * retransmitted one answered within the least round trip was the
 * original's arrival, which says nothing of when it was sent. */
static void rack_seen(hout *o, const held *h, uint64_t now)
{
    uint64_t rtt = now - h->sent_ns;
    if (!o->rtt_min || rtt < o->rtt_min) {
        if (h->rexmit)
            return;
        o->rtt_min = rtt;
    }
    if (h->sent_ns > o->rack_xmit) {
        o->rack_xmit = h->sent_ns;
        o->rack_rtt = rtt;
    }
}

/* RACK: the packets not held, sent before the newest one dest has and
 * not answered by the round trip of that one and a reordering window, go
 * again; the timer is set for the next such packet still inside it. */
static void rack_detect(hout *o, uint64_t now)
{
    uint64_t wnd = (o->t.srtt ? o->t.srtt : o->rack_rtt) / 4;
    o->reo_at = 0;
    for (held *h = o->qh; h; h = h->next) {
        if (h->sacked || h->due || h->sent_ns >= o->rack_xmit)
            continue;
        uint64_t at = h->sent_ns + o->rack_rtt + wnd;
        if (now >= at) {
            h->due = 1;
            o->resend = 1;
            H.rack++;
        } else if (!o->reo_at || at < o->reo_at) {
            o->reo_at = at;
        }
    }
}

/* The receiver's held set as of ack (an older header's is older news). A
 * packet's round trip is sampled when first reported held: its cumulative
 * ack waits for the gap before it to fill. */
static void note_held(hout *o, uint32_t ack, uint64_t set, uint64_t now)
{
    if (!set || !o->qh || after(o->qh->seq, ack))
        return;
    for (held *h = o->qh; h; h = h->next) {
        uint32_t d = h->seq - ack;
        if (d >= 64)
            break;
        if ((set >> d & 1) && !h->sacked) {
            h->sacked = 1;
            h->due = 0;
            rack_seen(o, h, now);
            if (!h->rexmit)
                agt_rtt_sample(&o->t, now - h->sent_ns);
        }
    }
}

static void on_ack(int dest, const agt_hrel_hdr *a)
{
    hout *o = &H.o[dest];
    uint32_t ack = a->ack;
    uint64_t set = (uint64_t)a->held[1] << 32 | a->held[0];
    if (after(ack, o->next_seq))
        cu_fatal("agent: rank %d acknowledged a packet rank %d never sent it", dest, H.me);
    if (!o->qh)
        return;
    uint64_t now = (uint64_t)cu_now_ns();
    if (!after(ack, o->qh->seq)) {
        note_held(o, ack, set, now);
        if ((a->flags & AGT_HREL_GAP) && ack == o->qh->seq && !after(o->recover, ack) &&
            ++o->gaps >= DUPACK_FAST) {
            /* those below the newest held; the rest may be on the way */
            uint32_t top = ack + 1;
            for (uint32_t d = 63; d; d--)
                if (set >> d & 1) {
                    top = ack + d;
                    break;
                }
            o->gaps = 0;
            o->recover = o->next_seq;
            mark_due(o, top, 0, now);
            H.fast++;
        }
        rack_detect(o, now);
        return;
    }
    o->gaps = 0;
    o->tmo_run = 0;
    /* The cumulative ack gives one sample, from the newest packet it
     * covers, never sent again and sent after our last retransmission
     * (Karn) nor reported held before: one sent before may have waited
     * behind the hole that retransmission filled, and sampled with that
     * wait the estimate, and so the next wait, grows with every hole. */
    held *last = NULL;
    while (o->qh && after(ack, o->qh->seq)) {
        held *h = o->qh;
        o->qh = h->next;
        if (!h->sacked)
            rack_seen(o, h, now);
        free(last);
        last = h;
        o->nq--;
        H.nheld--;
    }
    if (!last->rexmit && !last->sacked && last->sent_ns > o->rexmit_ns)
        agt_rtt_sample(&o->t, now - last->sent_ns);
    free(last);
    if (!o->qh)
        o->qt = NULL;
    note_held(o, ack, set, now);
    agt_rtt_reset(&o->t);
    o->rto_at = o->nq ? now + o->t.rto : 0;
    rack_detect(o, now);
}

static void send_ack(int src, uint32_t flags)
{
    struct { agt_wire w; agt_hrel_hdr h; } p = {
        .w = { .kind = AGT_K_DATA, .len = sizeof(agt_hrel_hdr), .src = (uint32_t)H.me,
               .dst = (uint32_t)src },
        .h = { .seq = 0, .flags = AGT_HREL_ACK | flags } };
    fill_ack(&p.h, src);
    if (agt_chan_raw((const char *)&p, sizeof p) == 0) {
        H.acks++;
        acked(src);
    } else if (!H.i[src].ack_at) {   /* no slot now: from the next poll */
        H.i[src].ack_at = (uint64_t)cu_now_ns();
        H.nacks++;
    }
}

/* Packet seq of src, after a gap: kept until the gap is filled. */
static void hold(hin *i, uint32_t seq, const char *hdr, size_t hdrlen, const char *pay,
                 size_t len, int more)
{
    uint32_t at = seq % AGT_HREL_WINDOW;
    if (seq - i->rx_next >= AGT_HREL_WINDOW)
        cu_fatal("agent: a packet beyond the sender's window (CLUMPI_AGENT_REL=host)");
    if (!i->ooo && !(i->ooo = calloc(AGT_HREL_WINDOW, sizeof *i->ooo)))
        cu_fatal("agent: out of memory");
    if (i->ooo[at]) {
        H.dups++;
        return;
    }
    agt_hrel_pkt *q = malloc(sizeof *q + hdrlen + len);
    if (!q)
        cu_fatal("agent: out of memory");
    q->hdrlen = hdrlen, q->len = len, q->more = more;
    memcpy(q->data, hdr, hdrlen);
    memcpy(q->data + hdrlen, pay, len);
    i->ooo[at] = q;
    i->held |= 1ull << (seq - i->rx_next);
    H.ooo++;
}

/* One more packet of src taken in order: ack it now or soon. */
static void took(int src)
{
    hin *i = &H.i[src];
    i->rx_next++;
    i->held >>= 1;
    if (++i->unacked >= H.ack_every) {
        send_ack(src, 0);
    } else if (!i->ack_at) {
        i->ack_at = (uint64_t)cu_now_ns() + ACK_DELAY_NS;
        H.nacks++;
    }
}

agt_hrel_pkt *agt_hrel_ready(uint32_t src)
{
    hin *i = &H.i[src];
    agt_hrel_pkt *q;
    if (!i->ooo || !(q = i->ooo[i->rx_next % AGT_HREL_WINDOW]))
        return NULL;
    i->ooo[i->rx_next % AGT_HREL_WINDOW] = NULL;
    took((int)src);
    return q;
}

const char *agt_hrel_in(uint32_t src, const char *hdr, size_t hdrlen, const char *pay,
                        size_t *len, int more)
{
    agt_hrel_hdr h;
    if (src >= (uint32_t)H.n || *len < sizeof h)
        cu_fatal("agent: a packet from rank %u without its end-to-end header "
                 "(CLUMPI_AGENT_REL must be the same everywhere)", src);
    memcpy(&h, pay, sizeof h);
    on_ack((int)src, &h);
    if (h.flags & AGT_HREL_ACK)
        return NULL;
    hin *i = &H.i[src];
    if (h.seq == i->rx_next) {
        took((int)src);
        *len -= sizeof h;
        return pay + sizeof h;
    }
    /* a copy (our ack was lost or late) or one after a gap: say where we are */
    if (after(i->rx_next, h.seq)) {
        H.dups++;
        send_ack((int)src, 0);
    } else {
        hold(i, h.seq, hdr, hdrlen, pay + sizeof h, *len - sizeof h, more);
        send_ack((int)src, AGT_HREL_GAP);
    }
    return NULL;
}

/* The packets to dest marked due, oldest first; no slot now: the rest at
 * the next poll. */
static void resend(int dest, uint64_t now)
{
    hout *o = &H.o[dest];
    o->resend = 0;
    for (held *h = o->qh; h; h = h->next) {
        if (!h->due)
            continue;
        fill_ack(hdr_of(h->pkt), dest);
        if (agt_chan_raw(h->pkt, h->len)) {
            o->resend = 1;
            return;
        }
        acked(dest);
        h->due = 0;
        h->rexmit = 1;
        h->sent_ns = now;
        o->rexmit_ns = now;
        H.rexmit++;
    }
}

void agt_hrel_poll(void)
{
    if (!H.nheld && !H.nacks)
        return;
    uint64_t now = (uint64_t)cu_now_ns();
    for (int r = 0; r < H.n; r++) {
        hout *o = &H.o[r];
        if (o->rto_at && now >= o->rto_at) {
            H.timeouts++;
            /* those whose own timeout passed, by the timeout before
             * backing off: the others may still be acknowledged */
            mark_due(o, 0, o->t.rto, now);
            o->t.rto = agt_backoff(o->t.rto, &o->tmo_run);
            o->rto_at = now + o->t.rto;
            o->recover = o->next_seq;
        }
        if (o->reo_at && now >= o->reo_at)
            rack_detect(o, now);
        if (o->resend)
            resend(r, now);
        if (H.i[r].ack_at && now >= H.i[r].ack_at)
            send_ack(r, 0);
    }
}

long agt_hrel_sleep_us(long dflt)
{
    if (!H.nheld && !H.nacks)
        return dflt;
    uint64_t now = (uint64_t)cu_now_ns(), next = UINT64_MAX;
    for (int r = 0; r < H.n; r++) {
        if (H.o[r].resend)
            return 0;
        if (H.o[r].rto_at && H.o[r].rto_at < next)
            next = H.o[r].rto_at;
        if (H.o[r].reo_at && H.o[r].reo_at < next)
            next = H.o[r].reo_at;
        if (H.i[r].ack_at && H.i[r].ack_at < next)
            next = H.i[r].ack_at;
    }
    long us = next <= now ? 0 : (long)((next - now + 999) / 1000);
    return dflt < 0 || us < dflt ? us : dflt;
}

uint64_t agt_hrel_held(void) { return H.nheld; }

uint64_t agt_hrel_rto_ns(int dest)
{
    agt_rtt t = H.o[dest].t;   /* without the backoff of the current run of timeouts */
    agt_rtt_reset(&t);
    return t.rto;
}

void agt_hrel_stats(int rank)
{
    fprintf(stderr,
            "clumpi rank %d: REL=host: packets kept %llu, sent again %llu (timeouts %llu, "
            "fast %llu, found lost by time %llu); duplicates dropped %llu, out of order kept "
            "%llu; acks alone %llu\n",
            rank, H.kept, H.rexmit, H.timeouts, H.fast, H.rack, H.dups, H.ooo, H.acks);
}
