/*
 * agent_mc_rank.c — the rank side of NI multicast (Verstoep et al. §4.2): the
 * root copies its message packet by packet into its tx slots (PIO) as
 * MCAST packets; its agent delivers them to the node's other members and
 * forwards them down the tree, every other agent doing the same. A rank
 * takes the packets of a broadcast it waits for straight into its buffer
 * (under MPI_THREAD_MULTIPLE several threads may each wait for one, on
 * distinct communicators); packets of a later broadcast (a fast root)
 * wait in a stash.
 * The forwarding table is installed by each member's first use of a
 * (communicator, root, shape): the agent keeps the first and holds early
 * packets until it has one.
 *
 * host-packet (AGT_TREE_HOST, Verstoep et al.'s l-sdma-hmc): the agents only
 * deliver; the root and the first member on every other node send each
 * packet on to their children's agents themselves, as they take it in,
 * so a rank that does not progress holds up its whole subtree.
 *
 * CLUMPI_AGENT_REL=host (Verstoep et al.'s l-hrx): the agents forward the
 * tree's packets keeping no copies, so a rank's wait ends when every
 * packet came or none came for a retransmission timeout, saying which
 * came; coll/bcast_ni.c repairs the rest end to end from the root's rank.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netmod/agent/agent_chan.h"
#include "netmod/agent/agent_coll.h"
#include "netmod/agent/agent_hrel.h"
#include "netmod/agent/agent_mc_rank.h"
#include "netmod/agent/agent_ring.h"
#include "netmod/agent/agent_tree.h"
#include "src/util/clock.h"
#include "src/util/log.h"

typedef struct mc_stash { struct mc_stash *next; agt_mc_hdr h; size_t len; char data[]; } mc_stash;

/* every (communicator, root, shape) used, with its broadcast count and
 * (REL=host) the count of broadcasts whose wait ended here */
static struct mc_key { agt_mc_hdr key; uint32_t seq, ended; } *keys;
static int nkeys, capkeys;
/* the receives waiting for their packets: one per thread in an NI
 * collective (MPI_THREAD_MULTIPLE: collectives on distinct communicators
 * at once), each on its caller's stack */
static agt_mc_rx *waiting;
static mc_stash *stash_h;
/* REL=host, for CLUMPI_AGENT_STATS=1: broadcasts whose wait ended with
 * packets missing, those packets, and copies and late packets dropped */
static uint64_t n_short, n_missing, n_dups, n_late;

static int same_key(const agt_mc_hdr *a, const agt_mc_hdr *b)
{
    return a->ctx == b->ctx && a->root == b->root && a->hash == b->hash && a->shape == b->shape;
}

_Static_assert((int)MPID_TREE_BINARY == (int)AGT_TREE_BINARY &&
                   (int)MPID_TREE_BINOMIAL == (int)AGT_TREE_BINOMIAL &&
                   (int)MPID_TREE_SHAPE == (int)AGT_TREE_SHAPE &&
                   (int)MPID_TREE_HOST == (int)AGT_TREE_HOST,
               "the device's tree shapes are the agent's");

const mpid_chan_coll agt_coll_table = {
    .up = agt_chan_ni_up,
    .max_ranks = AGT_TREE_MAX,
    .red_ok = agt_coll_red_ok,
    .lossy = agt_coll_lossy,
    .pkt_bytes = AGT_MAX_PAYLOAD,
    .bcast = agt_coll_bcast,
    .reduce = agt_coll_reduce,
    .fadd = agt_coll_fadd,
};

static void take(agt_mc_rx *rx, const agt_mc_hdr *h, const char *pay, size_t len)
{
    if (h->off + len > rx->total)
        cu_fatal("agent: multicast packet beyond the message (%u+%zu > %zu)", h->off, len,
                 rx->total);
    if (rx->have) {   /* REL=host: a packet may come again through a latecomer */
        size_t i = h->off / AGT_MAX_PAYLOAD;
        if (rx->have[i / 8] & (1u << (i % 8))) {
            n_dups++;
            return;
        }
        rx->have[i / 8] |= (uint8_t)(1u << (i % 8));
        rx->last_ns = (uint64_t)cu_now_ns();
    }
    if (len)   /* a barrier's result has no buffer */
        memcpy(rx->buf + h->off, pay, len);
    rx->got += len;
    rx->npk++;
    if (rx->fwd.nchild) {
        rx->fwd.off[rx->fwd.t] = h->off, rx->fwd.len[rx->fwd.t] = (uint32_t)len;
        rx->fwd.t++;
    }
}

/* One packet of broadcast rx from buf to node's agent (to_node) or
 * multicast by ours (node < 0). */
static int post_packet(const agt_mc_rx *rx, const void *buf, uint32_t off, uint32_t len, int node)
{
    agt_mc_hdr key = rx->key;
    key.off = off, key.total = (uint32_t)rx->total, key.to_node = (uint16_t)(node + 1);
    agt_wire wire = { .kind = AGT_K_MCAST, .hdrlen = sizeof key, .len = (uint16_t)len,
                      .src = rx->root_world, .dst = rx->root_world };
    struct iovec iov[3] = { { &wire, sizeof wire }, { &key, sizeof key },
                            { (char *)buf + off, len } };
    return agt_chan_post(AGT_CMD_PIO, iov, 3);
}

/* Forwards the queued packets to the children while tx slots are free
 * (they may all be in flight: the rest go on a later call). */
static void forward_queued(agt_mc_rx *rx)
{
    while (rx->fwd.h < rx->fwd.t) {
        int rc = post_packet(rx, rx->buf, rx->fwd.off[rx->fwd.h], rx->fwd.len[rx->fwd.h],
                             rx->fwd.child[rx->fwd.next]);
        if (rc == -EAGAIN)
            return;
        if (rc)
            cu_fatal("agent: cannot forward a multicast packet (%d)", rc);
        if (++rx->fwd.next == rx->fwd.nchild)
            rx->fwd.next = 0, rx->fwd.h++;
    }
}

static void mc_packet(const char *hdr, size_t hdrlen, const char *pay, size_t len)
{
    agt_mc_hdr h;
    if (hdrlen < sizeof h)
        cu_fatal("agent: short multicast header");
    memcpy(&h, hdr, sizeof h);
    for (agt_mc_rx *rx = waiting; rx; rx = rx->next)
        if (same_key(&h, &rx->key) && h.seq == rx->key.seq) {
            take(rx, &h, pay, len);
            return;
        }
    /* REL=host: a late packet of a broadcast that ended here (repaired) */
    for (int e = 0; e < nkeys; e++)
        if (same_key(&h, &keys[e].key) && (int32_t)(h.seq - keys[e].ended) < 0) {
            n_late++;
            return;
        }
    mc_stash *s = malloc(sizeof *s + len);
    if (!s)
        cu_fatal("agent: out of memory");
    s->next = NULL, s->h = h, s->len = len;
    memcpy(s->data, pay, len);
    mc_stash **pp = &stash_h;   /* FIFO */
    while (*pp)
        pp = &(*pp)->next;
    *pp = s;
}

void agt_coll_rank_packet(int kind, const char *hdr, size_t hdrlen, const char *pay, size_t len)
{
    if (kind == AGT_RXK_FADD)
        agt_fadd_rank_packet(hdr, hdrlen, pay, len);
    else
        mc_packet(hdr, hdrlen, pay, len);
}

/* REL=host: no packet came for the quiet time */
static uint64_t rx_quiet_end(const agt_mc_rx *rx)
{
    /* before the first packet four times as long: the root may not have
     * begun yet (a report then makes it send everything again) */
    return rx->last_ns + (rx->npk ? rx->quiet_ns : 4 * rx->quiet_ns);
}

static int rx_quiet(const agt_mc_rx *rx)
{
    return rx->have && (uint64_t)cu_now_ns() >= rx_quiet_end(rx);
}

/* done once every byte is in (an empty result: its one packet), or quiet,
 * and sent on */
static int rx_done(void *arg)
{
    agt_mc_rx *rx = arg;
    if (rx->fwd.h < rx->fwd.t)
        forward_queued(rx);
    return ((rx->got >= rx->total && rx->npk > 0) || rx_quiet(rx)) && rx->fwd.h == rx->fwd.t;
}

int agt_coll_lossy(void) { return agt_chan_up() && agt_chan_hrel(); }

long agt_coll_sleep_us(long dflt)
{
    uint64_t now = (uint64_t)cu_now_ns();
    for (const agt_mc_rx *rx = waiting; rx; rx = rx->next)
        if (rx->have) {
            uint64_t end = rx_quiet_end(rx);
            long us = end <= now ? 0 : (long)((end - now + 999) / 1000);
            if (dflt < 0 || us < dflt)
                dflt = us;
        }
    return dflt;
}

/* also when forwards wait for tx slots: those free without waking us */
static int rx_done_or_stuck(void *arg)
{
    agt_mc_rx *rx = arg;
    return rx_done(rx) || rx->fwd.h < rx->fwd.t;
}

void agt_mc_post(uint8_t op, const struct iovec *iov, int n)
{
    for (unsigned spins = 0;; spins++) {
        int rc = agt_chan_post(op, iov, n);
        if (rc == 0)
            return;
        if (rc != -EAGAIN)
            cu_fatal("agent: cannot post a multicast command (%d)", rc);
        agt_mc_idle(spins);
    }
}

int agt_mc_key(agt_mc_hdr *key, int shape, uint32_t ctx, int root, int size, const int *world)
{
    if (!agt_chan_up())
        return -ENOTCONN;
    if ((size_t)size > AGT_TREE_MAX)
        return -E2BIG;
    uint32_t hash = 2166136261u;   /* FNV-1a of the members */
    for (int i = 0; i < size; i++)
        hash = (hash ^ (uint32_t)world[i]) * 16777619u;
    *key = (agt_mc_hdr){ .ctx = ctx, .root = (uint32_t)root, .hash = hash, .shape = (uint8_t)shape };
    int e = 0;
    while (e < nkeys && !same_key(&keys[e].key, key))
        e++;
    if (e == nkeys) {
        if (nkeys == capkeys) {
            int cap = capkeys ? 2 * capkeys : 16;
            struct mc_key *k = realloc(keys, sizeof *k * (size_t)cap);
            if (!k)
                return -ENOMEM;
            keys = k, capkeys = cap;
        }
        keys[e].key = *key;
        keys[e].seq = keys[e].ended = 0;
        nkeys++;
        agt_tree_cmd c = { .key = *key, .n = (uint32_t)size };
        uint32_t wr[AGT_TREE_MAX];
        for (int i = 0; i < size; i++)
            wr[i] = (uint32_t)world[i];
        struct iovec iov[2] = { { &c, sizeof c }, { wr, sizeof(uint32_t) * (size_t)size } };
        agt_mc_post(AGT_CMD_TREE, iov, 2);
    }
    key->seq = keys[e].seq++;
    return 0;
}

void agt_mc_rx_begin(agt_mc_rx *rx, const agt_mc_hdr *key, void *buf, size_t total)
{
    rx->key = *key, rx->buf = buf, rx->total = total, rx->got = 0, rx->npk = 0;
    rx->next = waiting;
    waiting = rx;
    for (mc_stash **pp = &stash_h; *pp;) {   /* what came before we asked */
        mc_stash *s = *pp;
        if (same_key(&s->h, key) && s->h.seq == key->seq) {
            take(rx, &s->h, s->data, s->len);
            *pp = s->next;
            free(s);
        } else {
            pp = &s->next;
        }
    }
}

size_t agt_mc_rx_count(const agt_mc_rx *rx) { return rx->npk; }

void agt_mc_rx_wait(agt_mc_rx *rx)
{
    for (unsigned spins = 0; !rx_done(rx); spins++) {
        if (rx->fwd.h == rx->fwd.t)
            agt_chan_progress_until(rx_done_or_stuck, rx);
        else
            agt_mc_idle(spins);
    }
    agt_mc_rx **pp = &waiting;
    while (*pp != rx)
        pp = &(*pp)->next;
    *pp = rx->next;
    free(rx->fwd.off);
    free(rx->fwd.len);
    rx->fwd.off = rx->fwd.len = NULL;
}

/* host-packet: the child nodes this rank sends to (none unless it is the
 * root or its node's first member in tree order), into rx->fwd. 0 or
 * -errno. */
static int fwd_setup(agt_mc_rx *rx, int shape, int root, int rank, int size, const int *world,
                     size_t len)
{
    const uint32_t *nodes = agt_chan_nodes();
    if (!nodes)
        return -ENOTCONN;
    int nn = 0, me = -1, first = 0;
    int order[AGT_TREE_MAX];
    uint32_t mynode = nodes[world[rank]];
    for (int i = 0; i < size; i++) {
        int r = (root + i) % size;
        uint32_t node = nodes[world[r]];
        int j = 0;
        while (j < nn && order[j] != (int)node)
            j++;
        if (j == nn) {
            order[nn++] = (int)node;
            if (node == mynode)
                me = j, first = r == rank;
        }
    }
    if (!first)
        return 0;
    int rel[AGT_TREE_CHILD_MAX];
    int nc = agt_tree_children(shape, me, nn, rel);
    for (int i = 0; i < nc; i++)
        rx->fwd.child[i] = order[rel[i]];
    if (rank == root || nc == 0) {
        rx->fwd.nchild = nc;   /* the root sends as it goes, without a queue */
        return 0;
    }
    size_t n = len / AGT_MAX_PAYLOAD + 1;
    if (!(rx->fwd.off = malloc(n * sizeof *rx->fwd.off)) ||
        !(rx->fwd.len = malloc(n * sizeof *rx->fwd.len))) {
        free(rx->fwd.off);
        rx->fwd.off = NULL;
        return -ENOMEM;
    }
    rx->fwd.nchild = nc;
    return 0;
}

int agt_coll_bcast(void *buf, size_t len, int root, int shape, uint32_t ctx, int rank, int size,
                   const int *world, uint8_t *have)
{
    if (len > UINT32_MAX)
        return -E2BIG;
    agt_mc_rx rx = { .root_world = (uint32_t)world[root], .total = len };
    int rc = agt_mc_key(&rx.key, shape, ctx, root, size, world);
    if (rc)
        return rc;
    if ((shape & AGT_TREE_HOST) && (rc = fwd_setup(&rx, shape, root, rank, size, world, len)))
        return rc;
    if (rank == root) {
        /* to our agent for this node; host-packet: on to each child's too */
        for (size_t off = 0; off < len; off += AGT_MAX_PAYLOAD) {
            uint32_t n = (uint32_t)(len - off < AGT_MAX_PAYLOAD ? len - off : AGT_MAX_PAYLOAD);
            for (int c = -1; c < rx.fwd.nchild; c++)
                for (unsigned spins = 0;; spins++) {
                    rc = post_packet(&rx, buf, (uint32_t)off, n, c < 0 ? -1 : rx.fwd.child[c]);
                    if (rc != -EAGAIN)
                        break;
                    agt_mc_idle(spins);
                }
            if (rc)
                cu_fatal("agent: cannot post a multicast packet (%d)", rc);
        }
        return 0;
    }
    if (have) {   /* quiet for a timeout toward the root */
        rx.have = have;
        rx.quiet_ns = agt_hrel_rto_ns(world[root]);
        rx.last_ns = (uint64_t)cu_now_ns();
    }
    agt_mc_rx_begin(&rx, &rx.key, buf, len);
    agt_mc_rx_wait(&rx);
    if (!have)
        return 0;
    for (int e = 0; e < nkeys; e++)
        if (same_key(&rx.key, &keys[e].key))
            keys[e].ended = rx.key.seq + 1;
    size_t npk = len / AGT_MAX_PAYLOAD + (len % AGT_MAX_PAYLOAD != 0), missing = 0;
    for (size_t i = 0; i < npk; i++)
        missing += !(have[i / 8] & (1u << (i % 8)));
    n_short += missing != 0;
    n_missing += missing;
    return (int)missing;
}

void agt_coll_stats(int rank)
{
    fprintf(stderr,
            "clumpi rank %d: REL=host: broadcasts short %llu, packets missing %llu "
            "(repaired by the root); copies dropped %llu, late dropped %llu\n",
            rank, (unsigned long long)n_short, (unsigned long long)n_missing,
            (unsigned long long)n_dups, (unsigned long long)n_late);
}
