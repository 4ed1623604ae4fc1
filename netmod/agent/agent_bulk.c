/*
 * agent_bulk.c — the agents' bulk path for rendezvous reads (agent_ring.h
 * has the protocol): large messages move in chunks of
 * CLUMPI_AGENT_BULK_CHUNK bytes, each one process_vm_readv from the
 * sending rank, one fabric message and one copy out by the receiving rank,
 * instead of 2 KiB slots that every cost a credit, a command and a cq
 * entry (64 KiB ping-pong: 253-296 us through slots, 32-35 direct).
 *
 * Two roles, both in every agent:
 *   reader's agent: a REQ from a local rank goes out with a first grant;
 *     chunks land in the node's landing buffers (posted on the bulk
 *     endpoint, any chunk into any buffer: each names its read) and go to
 *     the rank's land ring; as the rank takes them the buffers are posted
 *     again and granted on, at most `window` chunks per read in flight.
 *   owner's agent: a REQ names a local rank's exposure; its key and bounds
 *     are checked once, then each granted chunk is pulled into a free
 *     bounce buffer and sent. A failure (bad key, a pull refused) goes as
 *     the read's last chunk, with err set, behind the chunks before it.
 * Grants never exceed the landing buffers posted, so a chunk always finds
 * one; a read holds none while it waits for a grant, so reads never wait
 * on each other. The owner rank is never involved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "netmod/agent/agent.h"
#include "src/util/param.h"

/* ---- the reader's side ------------------------------------------------ */

typedef struct rd {
    int      active, node;
    uint32_t id, owner;        /* read number, the owner's world rank */
    uint32_t nchunks, granted, landed;
    uint32_t grant_due;        /* granted here, not sent yet (no pool slot) */
} rd;

static rd *rds;                /* [nlocal]: one read per rank at a time */
static agt_tx *land_tx;        /* [nbulk]: a landing buffer's receive */
static uint32_t *land_of;      /* [nlocal * AGT_BULK_RING]: buffer of each land entry */
static uint64_t *posted, *taken;   /* per rank: land entries given, seen taken */
static uint32_t land_free;     /* landing buffers posted and not granted */
static uint32_t window;        /* chunks per read in flight */

static size_t chunk(void) { return A.h->bulk_chunk; }

static void post_landing(uint32_t j)
{
    agt_tx *t = &land_tx[j];
    t->type = AGT_TX_LAND;
    t->k = j;
    agt_net_bulk_recv(agt_landing(A.h, j), AGT_BULK_HDR + chunk(), t);
}

/* More chunks read r may have in flight now. */
static uint32_t grantable(int li)
{
    rd *r = &rds[li];
    uint32_t held = (uint32_t)(posted[li] - taken[li]);
    uint32_t fly = r->granted - r->landed + held;
    uint32_t g = r->nchunks - r->granted;
    if (fly >= window)
        return 0;
    if (g > window - fly)
        g = window - fly;
    return g < land_free ? g : land_free;
}

/* Grant read li what it may have in flight now: the count. */
static uint32_t grant(int li)
{
    uint32_t g = grantable(li);
    rds[li].granted += g;
    land_free -= g;
    return g;
}

int agt_bulk_origin(agt_tx *t)
{
    agt_wire *w = (agt_wire *)t->pkt;
    agt_bulk_hdr *h = (agt_bulk_hdr *)(w + 1);
    int li = t->li;
    if (w->hdrlen != sizeof *h || h->op != AGT_BULK_REQ || h->nseg > AGT_BULK_SEGS ||
        w->len != h->nseg * 16u || !h->total || w->dst >= A.h->nworld)
        agt_die("bad bulk read request from a rank");
    if (rds[li].active) {   /* the rank ended a read this agent still serves */
        char why[160];
        snprintf(why, sizeof why, "bulk read %u from local rank %d while its read %u has %u "
                 "of %u chunks landed (%u granted)", h->id, li, rds[li].id, rds[li].landed,
                 rds[li].nchunks, rds[li].granted);
        agt_die(why);
    }
    int node = (int)agt_nodes(A.h)[w->dst];
    if (node == A.node)
        agt_die("bulk read request for a rank of this node");
    rd *r = &rds[li];
    *r = (rd){ .active = 1, .node = node, .id = h->id, .owner = w->dst,
               .nchunks = (uint32_t)((h->total + chunk() - 1) / chunk()) };
    h->grant = grant(li);
    t->node = node;
    agt_net_send(t);   /* the tx slot is freed when sent */
    return 0;
}

/* Send the grants read li owes its owner's agent; 0 when none is left. */
static int send_grant(int li)
{
    rd *r = &rds[li];
    int k = agt_slot_get(&A.pool);
    if (k < 0)
        return -1;
    char *p = agt_slot_mem(&A.pool, (uint32_t)k);
    agt_wire *w = (agt_wire *)p;
    agt_bulk_hdr *h = (agt_bulk_hdr *)(w + 1);
    memset(p, 0, sizeof *w + sizeof *h);
    w->kind = AGT_K_BULK, w->hdrlen = sizeof *h;
    w->src = agt_rank(A.h, li)->world_rank, w->dst = r->owner;
    h->op = AGT_BULK_GRANT, h->id = r->id, h->grant = r->grant_due;
    r->grant_due = 0;
    agt_tx *t = &A.pool_tx[k];
    t->type = AGT_TX_POOL, t->k = (uint32_t)k, t->pkt = p, t->node = r->node;
    t->len = sizeof *w + sizeof *h;
    agt_net_send(t);
    return 0;
}

void agt_bulk_landed(uint32_t j, size_t len)
{
    const agt_bulk_chunk *c = (const agt_bulk_chunk *)agt_landing(A.h, j);
    int li = len >= sizeof *c ? agt_find_local(c->reader) : -1;
    if (li < 0 || !rds[li].active || rds[li].id != c->id || len != AGT_BULK_HDR + c->len ||
        c->len > chunk())
        agt_die("corrupt bulk chunk");
    rd *r = &rds[li];
    agt_rank_blk *b = agt_rank(A.h, li);
    uint64_t n = posted[li]++;
    if (n - atomic_load_explicit(&b->bulk_taken, memory_order_acquire) >= AGT_BULK_RING)
        agt_die("bulk land ring overrun");
    b->land[n % AGT_BULK_RING] = (agt_bulk_land){ .buf = j, .err = c->err, .len = c->len,
                                                  .off = c->off };
    land_of[(size_t)li * AGT_BULK_RING + n % AGT_BULK_RING] = j;
    r->landed++;
    agt_st.bulk_in++;
    agt_st.bulk_bytes += c->len;
    if (c->err || r->landed == r->nchunks) {   /* the read's last chunk */
        land_free += r->granted - r->landed;   /* grants it will not use */
        r->active = 0;
        r->grant_due = 0;
    }
    /* seq_cst against the rank's sleep bit, as dma_done (agt_arm_sleep) */
    atomic_store_explicit(&b->bulk_posted, posted[li], memory_order_seq_cst);
    agt_handed();
    if (atomic_load_explicit(&agt_cq(A.h, li)->tail, memory_order_seq_cst) & 1)
        agt_wake_rank(li);
}

void agt_bulk_unlanded(uint32_t j) { post_landing(j); }

/* Landing buffers the ranks took: post them again, grant on. */
static int reader_poll(void)
{
    int work = 0;
    for (int li = 0; li < A.nlocal; li++) {
        if (posted[li] != taken[li]) {
            uint64_t t = atomic_load_explicit(&agt_rank(A.h, li)->bulk_taken, memory_order_acquire);
            for (; taken[li] < t; taken[li]++, work++) {
                post_landing(land_of[(size_t)li * AGT_BULK_RING + taken[li] % AGT_BULK_RING]);
                land_free++;
            }
        }
    }
    for (int li = 0; li < A.nlocal; li++) {
        rd *r = &rds[li];
        if (!r->active)
            continue;
        r->grant_due += grant(li);
        if (r->grant_due && send_grant(li) == 0)
            work++;
    }
    return work;
}

/* ---- the owner's side ------------------------------------------------- */

typedef struct srv {
    struct srv *next;
    int      node, li;         /* the reader's node, the owner's local index */
    uint32_t reader, id, grants;
    int32_t  err;
    uint64_t total, off;
    uint32_t nseg;
    struct iovec seg[AGT_BULK_SEGS];
} srv;

static srv *serving;           /* reads being served, in arrival order */
static agt_tx *bounce_tx;      /* [nbounce] */
static uint32_t *bounce_free, nbounce_free;

static char *bounce(uint32_t b) { return A.bounce + (size_t)b * (AGT_BULK_HDR + chunk()); }

/* The read's key and bounds against the owner's exposure table. */
static int32_t check(srv *s, uint64_t key)
{
    agt_rank_blk *b = agt_rank(A.h, s->li);
    agt_bulk_expo *e = &b->expo[key % AGT_BULK_EXPOSE];
    if (!key || atomic_load_explicit(&e->key, memory_order_acquire) != key)
        return -EACCES;
    uint64_t base = atomic_load_explicit(&e->base, memory_order_relaxed);
    uint64_t len = atomic_load_explicit(&e->len, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&e->key, memory_order_relaxed) != key)   /* changed meanwhile */
        return -EACCES;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < s->nseg; i++) {
        uint64_t a = (uint64_t)(uintptr_t)s->seg[i].iov_base, l = s->seg[i].iov_len;
        if (a < base || l > len || a - base > len - l)
            return -EACCES;
        sum += l;
    }
    return sum == s->total ? 0 : -EINVAL;
}

static void on_req(const agt_wire *w, const agt_bulk_hdr *h)
{
    if (h->nseg > AGT_BULK_SEGS || w->len != h->nseg * 16u)
        agt_die("corrupt bulk read request");
    srv *s = calloc(1, sizeof *s);
    if (!s)
        agt_die("out of memory");
    s->node = w->src_node, s->reader = w->src, s->id = h->id, s->grants = h->grant;
    s->total = h->total, s->nseg = h->nseg;
    if ((s->li = agt_find_local(w->dst)) < 0)
        agt_die("bulk read request for a rank not on this node");
    const unsigned char *pairs = (const unsigned char *)(h + 1);
    for (uint32_t i = 0; i < s->nseg; i++) {
        uint64_t a, l;
        memcpy(&a, pairs + 16 * i, 8);
        memcpy(&l, pairs + 16 * i + 8, 8);
        s->seg[i] = (struct iovec){ (void *)(uintptr_t)a, (size_t)l };
    }
    /* chunks are cut by the reader's size (landing buffers, its count of
     * chunks): a job whose nodes differ in it reads through CTS instead */
    s->err = h->chunk != chunk() ? -ENOTSUP : check(s, h->key);
    srv **pp = &serving;
    while (*pp)
        pp = &(*pp)->next;
    *pp = s;
}

static void on_grant(const agt_wire *w, const agt_bulk_hdr *h)
{
    for (srv *s = serving; s; s = s->next)
        if (s->reader == w->src && s->id == h->id) {
            s->grants += h->grant;
            return;
        }
    /* a read that failed here: its last chunk (err) crossed this grant */
}

void agt_bulk_arrive(uint32_t k)
{
    const agt_wire *w = (const agt_wire *)agt_slot_mem(&A.pool, k);
    const agt_bulk_hdr *h = (const agt_bulk_hdr *)(w + 1);
    if (w->hdrlen != sizeof *h)
        agt_die("corrupt bulk packet");
    if (h->op == AGT_BULK_REQ)
        on_req(w, h);
    else if (h->op == AGT_BULK_GRANT)
        on_grant(w, h);
    else
        agt_die("corrupt bulk packet");
    agt_released(k);
}

/* The owner's memory [off, off + len) of read s, as at most AGT_BULK_SEGS
 * pieces of its segments. */
static int pieces(const srv *s, uint64_t off, size_t len, struct iovec *v)
{
    int n = 0;
    for (uint32_t i = 0; i < s->nseg && len; i++) {
        if (off >= s->seg[i].iov_len) {
            off -= s->seg[i].iov_len;
            continue;
        }
        size_t l = s->seg[i].iov_len - off;
        if (l > len)
            l = len;
        v[n++] = (struct iovec){ (char *)s->seg[i].iov_base + off, l };
        len -= l;
        off = 0;
    }
    return n;
}

/* Pull and send the next chunk of s into bounce buffer b; 1 when s is done. */
static int serve_one(srv *s, uint32_t b)
{
    char *p = bounce(b);
    agt_bulk_chunk *c = (agt_bulk_chunk *)p;
    size_t len = s->total - s->off < chunk() ? s->total - s->off : chunk();
    /* the whole AGT_BULK_HDR goes on the wire, not only the agt_bulk_chunk
     * in it: no stale heap bytes to the other node (memcheck) */
    memset(p, 0, AGT_BULK_HDR);
    *c = (agt_bulk_chunk){ .reader = s->reader, .id = s->id, .off = s->off };
    if (!s->err) {
        struct iovec local = { p + AGT_BULK_HDR, len }, remote[AGT_BULK_SEGS];
        int n = pieces(s, s->off, len, remote);
        pid_t pid = agt_rank(A.h, s->li)->pid;
        ssize_t got = process_vm_readv(pid, &local, 1, remote, (unsigned long)n, 0);
        if (got != (ssize_t)len)
            s->err = got < 0 ? -errno : -EIO;
    }
    c->err = s->err;
    c->len = s->err ? 0 : (uint32_t)len;
    s->off += c->len;
    s->grants--;
    agt_tx *t = &bounce_tx[b];
    t->type = AGT_TX_BULK, t->k = b;
    agt_st.bulk_out++;
    agt_net_bulk_send(s->node, p, AGT_BULK_HDR + c->len, t);
    return s->err || s->off == s->total;
}

static int owner_poll(void)
{
    int work = 0;
    srv **pp = &serving;
    while (*pp && nbounce_free) {
        srv *s = *pp;
        if (!s->grants) {
            pp = &s->next;
            continue;
        }
        work++;
        if (serve_one(s, bounce_free[--nbounce_free])) {
            *pp = s->next;
            free(s);
        }
    }
    return work;
}

void agt_bulk_sent(uint32_t b) { bounce_free[nbounce_free++] = b; }

/* ---- both ------------------------------------------------------------- */

int agt_bulk_poll(void) { return reader_poll() + owner_poll(); }

/* About to block: ranks holding landed chunks ring us once they take one
 * (want_room); grants that could not go keep us polling. */
int agt_bulk_idle(void)
{
    int busy = 0;
    for (int li = 0; li < A.nlocal; li++) {
        busy |= rds[li].grant_due != 0;
        if (posted[li] != taken[li])
            atomic_store_explicit(&agt_rank(A.h, li)->want_room, 1, memory_order_seq_cst);
    }
    atomic_thread_fence(memory_order_seq_cst);
    return busy | (agt_bulk_poll() > 0);
}

int agt_bulk_init(void)
{
    size_t nl = (size_t)A.nlocal;
    uint32_t nb = A.h->nbulk;
    /* chunks cut to one datagram (agent_chan.c): twice as many in flight */
    uint32_t cut = A.dgram && (long)chunk() < cu_param_int("AGENT_BULK_CHUNK") ? 2 : 1;
    window = cut * (uint32_t)cu_param_int("AGENT_BULK_WINDOW");
    if (window < 1)
        window = 1;
    if (window > AGT_BULK_RING)
        window = AGT_BULK_RING;
    if (window > nb)
        window = nb ? nb : 1;
    A.nbounce = cut * (uint32_t)cu_param_int("AGENT_BULK_BOUNCE");
    if (A.nbounce < 1)
        A.nbounce = 1;
    rds = calloc(nl, sizeof *rds);
    land_of = calloc(nl * AGT_BULK_RING, sizeof *land_of);
    posted = calloc(nl, sizeof *posted);
    taken = calloc(nl, sizeof *taken);
    land_tx = calloc(nb ? nb : 1, sizeof *land_tx);
    bounce_tx = calloc(A.nbounce, sizeof *bounce_tx);
    bounce_free = calloc(A.nbounce, sizeof *bounce_free);
    A.bounce = aligned_alloc(4096, ((size_t)A.nbounce * (AGT_BULK_HDR + chunk()) + 4095) & ~(size_t)4095);
    if (!rds || !land_of || !posted || !taken || !land_tx || !bounce_tx || !bounce_free || !A.bounce)
        return -ENOMEM;
    for (uint32_t b = 0; b < A.nbounce; b++)
        bounce_free[nbounce_free++] = b;
    return 0;
}

void agt_bulk_start(void)
{
    if (A.h->nbulk && AGT_BULK_HDR + chunk() > agt_net_max_msg()) {
        /* before READY: the ranks see no landing buffers and use CTS */
        fprintf(stderr, "clumpi-agent[node %d]: CLUMPI_AGENT_BULK_CHUNK=%u is above the "
                "provider's largest message (%zu): no bulk path\n", A.node, A.h->bulk_chunk,
                agt_net_max_msg());
        A.h->nbulk = 0;
    }
    for (uint32_t j = 0; j < A.h->nbulk; j++)
        post_landing(j);
    land_free = A.h->nbulk;
}
