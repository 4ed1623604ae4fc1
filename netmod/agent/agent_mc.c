/*
 * agent_mc.c — NI-level multicast in the agent (Verstoep et al. §4.2, §5.3): a
 * forwarding table per (communicator, root, shape) — a binary or binomial
 * tree over the communicator's nodes, installed by AGT_CMD_TREE at first
 * use by a local member, and announced at once to the other members'
 * agents (TREE packets). A multicast packet (from the root rank, or from
 * the parent agent) lives in one pool slot with a reference count: one reference per local
 * rank it is delivered to and one per child agent it is forwarded to, all
 * from the same slot, the forwards under the usual credit flow control. A
 * large broadcast is just a stream of such packets, each forwarded as it
 * arrives (pipelining needs nothing more).
 *
 * Deadlock between overlapping trees: an arriving multicast packet's
 * sender gets its credit back at once (so it need not wait for our
 * children) while the pool has slots beyond its reserve for arriving
 * packets; only then does the packet hold its credit until done. The pool
 * beyond that reserve is the spill area shared by all trees. Packets of a
 * tree not installed yet wait the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netmod/agent/agent.h"
#include "netmod/agent/agent_mc.h"
#include "netmod/agent/agent_red.h"
#include "netmod/agent/agent_tree.h"

#define MC_CHILD AGT_TREE_CHILD_MAX

typedef struct mc_tree {
    agt_mc_hdr key;      /* ctx, root, hash, shape */
    int used;
    int parent;          /* parent node, -1 at the root's node */
    int nchild, child[MC_CHILD];
    int nloc;
    uint32_t *loc_world; /* local members' world ranks */
    uint16_t *loc_li;
} mc_tree;

static mc_tree *trees;
static int ntrees, captrees;
static uint16_t *ref;        /* [pool.n] holders of a multicast slot */
static uint8_t *held;        /* [pool.n] 1: still our receive slot (credit not returned) */
static uint16_t *from;       /* [pool.n] sender node of a held slot */
static uint32_t *pend;       /* slots waiting for their tree */
static uint32_t npend;
static unsigned ninstalled;

static int same_key(const agt_mc_hdr *a, const agt_mc_hdr *b)
{
    return a->ctx == b->ctx && a->root == b->root && a->hash == b->hash && a->shape == b->shape;
}

static mc_tree *find_tree(const agt_mc_hdr *k)
{
    for (int i = 0; i < ntrees; i++)
        if (trees[i].used && same_key(&trees[i].key, k))
            return &trees[i];
    return NULL;
}

static void oom(void)
{
    fprintf(stderr, "clumpi-agent[node %d]: out of memory\n", A.node);
    exit(1);
}

static int mc_init(void)
{
    if (ref)
        return 0;
    ref = calloc(A.pool.n, sizeof *ref);
    held = calloc(A.pool.n, 1);
    from = calloc(A.pool.n, sizeof *from);
    pend = malloc(A.pool.n * sizeof *pend);
    if (!ref || !held || !from || !pend)
        oom();
    return 0;
}

/* The slot is done with (all deliveries and forwards): back to the
 * pool, with its sender's credit if it still holds that. */
static void mc_put(uint32_t k)
{
    if (--ref[k])
        return;
    agt_slot_put(&A.pool, k);
    if (held[k]) {
        held[k] = 0;
        agt_net_credit_back(from[k]);
    }
}

void agt_mc_put(uint32_t k) { mc_put(k); }

/* Keep the packet in received slot k: while more than `reserve` slots
 * are free beyond the pool's reserve for arriving packets, the sender's
 * credit returns now (the slot counts as spill), else it is held with the
 * slot until done. */
void agt_mc_keep(uint32_t k, uint32_t reserve)
{
    mc_init();
    agt_wire *w = (agt_wire *)agt_slot_mem(&A.pool, k);
    if (agt_slot_avail(&A.pool) > reserve) {
        held[k] = 0;
        agt_net_credit_back(w->src_node);
    } else {
        held[k] = 1;
        from[k] = w->src_node;
    }
    ref[k] = 1;
}

void agt_mc_own(uint32_t k)
{
    mc_init();
    held[k] = 0;
    ref[k] = 1;
}

static agt_tx *mc_tx(uint32_t k, int node)
{
    agt_tx *x = calloc(1, sizeof *x);
    if (!x)
        oom();
    agt_wire *w = (agt_wire *)agt_slot_mem(&A.pool, k);
    x->type = AGT_TX_MC, x->k = k, x->node = node, x->pkt = (char *)w;
    x->len = sizeof *w + w->hdrlen + w->len;
    return x;
}

void agt_mc_send(uint32_t k, int node)
{
    agt_wire *w = (agt_wire *)agt_slot_mem(&A.pool, k);
    w->credits = 0;
    w->src_node = (uint16_t)A.node;
    agt_net_send(mc_tx(k, node));   /* its completion puts our reference */
}

void agt_mc_deliver_one(uint32_t k, uint32_t world)
{
    int li = agt_find_local(world);
    if (li < 0) {
        fprintf(stderr, "clumpi-agent[node %d]: rank %u is not here\n", A.node, world);
        exit(1);
    }
    agt_queue_delivery(li, k);   /* flush_deliveries puts our reference */
}

/* Deliver to the node's members and forward to the children. */
static void mc_start(uint32_t k, mc_tree *t)
{
    char *p = agt_slot_mem(&A.pool, k);
    agt_wire *w = (agt_wire *)p;
    int nd = 0;
    for (int i = 0; i < t->nloc; i++)
        nd += t->loc_world[i] != w->dst;   /* a broadcast's root has its data */
    ref[k] = (uint16_t)(ref[k] + nd + t->nchild);   /* ours (1) stays until all are queued */
    /* fixed before the first send: every child reads the same bytes */
    w->credits = 0;
    w->src_node = (uint16_t)A.node;
    for (int c = 0; c < t->nchild; c++)
        agt_net_send(mc_tx(k, t->child[c]));
    for (int i = 0; i < t->nloc; i++)
        if (t->loc_world[i] != w->dst)
            agt_queue_delivery(t->loc_li[i], k);
    mc_put(k);
}

static void mc_dispatch(uint32_t k)
{
    agt_mc_hdr *h = (agt_mc_hdr *)(agt_slot_mem(&A.pool, k) + sizeof(agt_wire));
    mc_tree *t = find_tree(h);
    if (t)
        mc_start(k, t);
    else
        pend[npend++] = k;   /* each slot at most once: fits pool.n */
}

void agt_mc_arrive(uint32_t k)
{
    agt_mc_keep(k, 0);
    mc_dispatch(k);
}

void agt_mc_start(uint32_t k)
{
    mc_dispatch(k);
}

int agt_mc_origin(const char *pkt, size_t len)
{
    mc_init();
    int k = agt_slot_get(&A.pool);
    if (k < 0)
        return -1;
    memcpy(agt_slot_mem(&A.pool, (uint32_t)k), pkt, len);
    agt_mc_own((uint32_t)k);
    const agt_mc_hdr *h = (const agt_mc_hdr *)(agt_slot_mem(&A.pool, (uint32_t)k) +
                                               sizeof(agt_wire));
    if (h->to_node) {   /* host-packet: a rank forwards to one child's agent */
        if (h->to_node > A.nnodes) {
            fprintf(stderr, "clumpi-agent[node %d]: forward to node %d of %d\n", A.node,
                    h->to_node - 1, A.nnodes);
            exit(1);
        }
        agt_mc_send((uint32_t)k, h->to_node - 1);
        return 0;
    }
    mc_dispatch((uint32_t)k);
    return 0;
}

/* Tell the other member nodes' agents (TREE packets), so that forwarding
 * through a node never waits for one of its ranks to call the collective
 * (an intermediate rank busy in another communicator's operation would
 * otherwise hold up its whole subtree). Without a free slot the node's
 * own members' first use installs it there, as before. */
static void announce(const agt_tree_cmd *c, const int *order, int nn)
{
    size_t len = sizeof *c + sizeof(uint32_t) * c->n;
    for (int j = 0; j < nn; j++) {
        if (order[j] == A.node)
            continue;
        int k = agt_slot_get(&A.pool);
        if (k < 0)
            return;
        agt_wire *w = (agt_wire *)agt_slot_mem(&A.pool, (uint32_t)k);
        memset(w, 0, sizeof *w);
        w->kind = AGT_K_TREE, w->len = (uint16_t)len;
        memcpy(w + 1, c, len);
        agt_mc_own((uint32_t)k);
        agt_mc_send((uint32_t)k, order[j]);
    }
}

static void mc_install(const agt_tree_cmd *c, int tell)
{
    mc_init();
    if (find_tree(&c->key))
        return;   /* every member installs; the first one wins */
    if (ntrees == captrees) {
        int cap = captrees ? 2 * captrees : 16;
        mc_tree *nt = realloc(trees, sizeof *nt * (size_t)cap);
        if (!nt)
            oom();
        trees = nt, captrees = cap;
    }
    int shape = c->key.shape & AGT_TREE_SHAPE;
    if (c->n == 0 || c->n > AGT_TREE_MAX || c->key.root >= c->n ||
        (shape != AGT_TREE_BINARY && shape != AGT_TREE_BINOMIAL) ||
        (c->key.shape & ~(AGT_TREE_SHAPE | AGT_TREE_HOST))) {
        fprintf(stderr, "clumpi-agent[node %d]: bad multicast tree command\n", A.node);
        exit(1);
    }
    mc_tree *t = &trees[ntrees];
    memset(t, 0, sizeof *t);
    t->key = c->key;
    /* nodes in the order they first appear from the root on: root's is 0 */
    int *order = malloc(sizeof(int) * (size_t)A.nnodes), nn = 0, me = -1;
    t->loc_world = malloc(sizeof(uint32_t) * c->n);
    t->loc_li = malloc(sizeof(uint16_t) * c->n);
    if (!order || !t->loc_world || !t->loc_li)
        oom();
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t wr = c->world[(c->key.root + i) % c->n];
        if (wr >= A.h->nworld) {
            fprintf(stderr, "clumpi-agent[node %d]: tree member %u out of range\n", A.node, wr);
            exit(1);
        }
        int node = (int)agt_nodes(A.h)[wr], seen = 0;
        for (int j = 0; j < nn && !seen; j++)
            seen = order[j] == node;
        if (!seen) {
            if (node == A.node)
                me = nn;
            order[nn++] = node;
        }
        if (node == A.node) {
            int li = agt_find_local(wr);
            if (li < 0) {
                fprintf(stderr, "clumpi-agent[node %d]: rank %u is not here\n", A.node, wr);
                exit(1);
            }
            t->loc_world[t->nloc] = wr;
            t->loc_li[t->nloc++] = (uint16_t)li;
        }
    }
    t->parent = -1;
    if (me >= 0 && !(c->key.shape & AGT_TREE_HOST)) {   /* host-packet: ranks forward */
        int rel[MC_CHILD];
        t->nchild = agt_tree_children(c->key.shape, me, nn, rel);
        for (int i = 0; i < t->nchild; i++)
            t->child[i] = order[rel[i]];
        if (me > 0)
            t->parent = order[agt_tree_parent(c->key.shape, me)];
    }
    if (tell)
        announce(c, order, nn);
    free(order);
    t->used = 1;
    ntrees++;
    ninstalled++;
    /* packets that came first */
    uint32_t n = npend;
    npend = 0;
    for (uint32_t i = 0; i < n; i++)
        mc_dispatch(pend[i]);
}

int agt_mc_tree(const agt_mc_hdr *key, agt_mc_info *out)
{
    mc_tree *t = find_tree(key);
    if (!t)
        return -1;
    out->parent = t->parent, out->nchild = t->nchild, out->nloc = t->nloc;
    return 0;
}

unsigned agt_mc_installed(void) { return ninstalled; }

void agt_mc_install(const agt_tree_cmd *c) { mc_install(c, 1); }

void agt_mc_tree_arrive(uint32_t k)
{
    const agt_wire *w = (const agt_wire *)agt_slot_mem(&A.pool, k);
    const agt_tree_cmd *c = (const agt_tree_cmd *)(w + 1);
    if (w->hdrlen || w->len < sizeof *c || c->n > AGT_TREE_MAX ||
        w->len != sizeof *c + sizeof(uint32_t) * c->n) {
        fprintf(stderr, "clumpi-agent[node %d]: corrupt tree packet\n", A.node);
        exit(1);
    }
    mc_install(c, 0);
    agt_released(k);   /* consumed at once */
}
