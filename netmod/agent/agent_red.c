/*
 * agent_red.c — reductions in the agent: our step beyond Verstoep et al., whose
 * reductions combined on the hosts. Every member rank posts its packed
 * contribution packet by packet (RED packets, PIO); the agent combines, per
 * packet offset, its node's contributions and its child agents' partial
 * results with the MPI op (src/util/op.h's packed kernels), and once all
 * nloc + nchild are in sends the one result packet up the tree of
 * agent_mc.c. At the root's node the finished packet is delivered to the
 * root rank (reduce) or multicast down the same tree (allreduce); barrier
 * is an allreduce of one empty packet. Large messages pipeline packet by
 * packet under the usual credit flow control.
 *
 * Where an accumulator lives: in a pool slot while more than W are free
 * (a received packet keeps its slot, its credit going back at once; a
 * rank's contribution is copied there, its tx slot given back at once),
 * else in agent memory (malloc). A reduction's packets may wait here until
 * a local rank calls it, so they never hold a sender's credit, a receive
 * slot or a rank's tx slot while they wait: those are what point-to-point
 * traffic and other reductions need to get through (with a child's credits
 * held, a lagging root's own send would wait behind them for ever). Packets of
 * a tree not installed yet wait in memory too. Only a node's lone
 * contribution, finished at once, goes up straight from the rank's tx slot
 * (it waits for credits, not for a rank). A result in memory needs a pool
 * slot to leave; without one it waits here and is retried from the event
 * loop. Predefined ops are commutative, so the
 * order of combination does not matter; an allreduce's result is computed
 * once, at the root's node, so every rank gets the same bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netmod/agent/agent.h"
#include "netmod/agent/agent_mc.h"
#include "netmod/agent/agent_red.h"
#include "src/util/op.h"

#define RED_HEAP UINT32_MAX   /* red_acc.k: the packet is in agent memory */

typedef struct red_acc {
    struct red_acc *next;
    agt_red_hdr key;     /* tree, seq, off */
    int have, need;
    int parent;          /* node, or -1: this is the root's node */
    uint32_t k;          /* pool slot (agent_mc owned), or RED_HEAP: pkt is malloc'd */
    char *pkt;
} red_acc;

/* A packet of a tree not installed yet, in agent memory. */
typedef struct red_early { struct red_early *next; char pkt[]; } red_early;

static red_acc *accs;            /* open accumulators */
static red_acc *ready, **ready_t = &ready;   /* finished, waiting for a pool slot */
static red_early *early, **early_t = &early;
static unsigned seen_installed;

static agt_red_hdr *hdr_of(char *pkt) { return (agt_red_hdr *)(pkt + sizeof(agt_wire)); }

static size_t pkt_len(const char *pkt)
{
    const agt_wire *w = (const agt_wire *)pkt;
    return sizeof *w + w->hdrlen + w->len;
}

/* A copy of pkt in agent memory, after `before` bytes of the caller's;
 * heap_free gives it back (the counters show how much waited so). */
static char *heap_copy(const char *pkt, size_t before)
{
    char *m = malloc(before + pkt_len(pkt));
    if (!m)
        agt_die("out of memory");
    memcpy(m + before, pkt, pkt_len(pkt));
    agt_st.red_mem++;
    if (++agt_st.red_mem_now > agt_st.red_mem_max)
        agt_st.red_mem_max = agt_st.red_mem_now;
    return m;
}

static void heap_free(void *m)
{
    agt_st.red_mem_now--;
    free(m);
}

static int same_slot(const agt_red_hdr *a, const agt_red_hdr *b)
{
    return a->mc.ctx == b->mc.ctx && a->mc.root == b->mc.root && a->mc.hash == b->mc.hash &&
           a->mc.shape == b->mc.shape && a->mc.seq == b->mc.seq && a->mc.off == b->mc.off;
}

static red_acc **find(const agt_red_hdr *h)
{
    red_acc **pp = &accs;
    while (*pp && !same_slot(&(*pp)->key, h))
        pp = &(*pp)->next;
    return pp;
}

/* inout (the accumulator's payload) = in op inout */
static void combine(red_acc *a, const char *pkt)
{
    const agt_wire *w = (const agt_wire *)pkt, *aw = (const agt_wire *)a->pkt;
    const agt_red_hdr *h = hdr_of((char *)pkt);
    if (w->len != aw->len || h->op != a->key.op || h->basic != a->key.basic)
        agt_die("reduction packets of one operation disagree (length, op or type)");
    if (w->len) {
        cu_op_kernel *kern = cu_op_kernel_packed(h->op, h->basic);
        size_t ps = cu_op_packed_size(h->basic);
        kern(pkt + sizeof *w + w->hdrlen, a->pkt + sizeof *aw + aw->hdrlen, w->len / ps);
    }
    a->have++;
}

/* The result leaves this node: up to the parent, or from the root's node
 * to the root rank or down the tree. 0, or -1 if it must wait for a slot. */
static int finish(red_acc *a)
{
    if (a->k == RED_HEAP) {   /* sends and deliveries go from a pool slot */
        int k = agt_slot_get(&A.pool);
        if (k < 0)
            return -1;
        memcpy(agt_slot_mem(&A.pool, (uint32_t)k), a->pkt, pkt_len(a->pkt));
        heap_free(a->pkt);
        agt_mc_own((uint32_t)k);
        a->k = (uint32_t)k, a->pkt = agt_slot_mem(&A.pool, (uint32_t)k);
    }
    agt_wire *w = (agt_wire *)a->pkt;
    if (a->parent >= 0) {
        w->kind = AGT_K_RED;
        agt_mc_send(a->k, a->parent);
        return 0;
    }
    w->kind = AGT_K_MCAST;
    if (hdr_of(a->pkt)->what == AGT_RED_ALLREDUCE) {
        w->dst = AGT_MC_ALL;
        agt_mc_start(a->k);
    } else {
        agt_mc_deliver_one(a->k, w->dst);   /* dst: the root's world rank */
    }
    return 0;
}

static void check(red_acc *a)
{
    if (a->have < a->need)
        return;
    red_acc **pp = find(&a->key);
    *pp = a->next;
    a->next = NULL;
    if (finish(a) < 0) {
        *ready_t = a;
        ready_t = &a->next;
        return;
    }
    free(a);
}

/* The tree of a reduction packet, checked. */
static void tree_of(char *pkt, agt_mc_info *ti)
{
    agt_red_hdr *h = hdr_of(pkt);
    agt_wire *w = (agt_wire *)pkt;
    if (agt_mc_tree(&h->mc, ti) < 0)
        agt_die("reduction on a tree that is not installed");
    if (h->op >= CU_OP_COUNT || (w->len && (!cu_op_kernel_packed(h->op, h->basic) ||
                                            w->len % cu_op_packed_size(h->basic))) ||
        (h->what != AGT_RED_REDUCE && h->what != AGT_RED_ALLREDUCE))
        agt_die("bad reduction packet (op, type or length)");
}

/* A first contribution, owned by the caller in pool slot k or in agent
 * memory (k == RED_HEAP): it becomes the accumulator. */
static void open_acc(char *pkt, uint32_t k)
{
    agt_mc_info ti;
    tree_of(pkt, &ti);
    red_acc *a = calloc(1, sizeof *a);
    if (!a)
        agt_die("out of memory");
    a->key = *hdr_of(pkt);
    a->have = 1, a->need = ti.nloc + ti.nchild, a->parent = ti.parent;
    a->k = k, a->pkt = pkt;
    a->next = accs;
    accs = a;
    check(a);
}

/* Room for one more accumulator in the pool (else it goes to memory). */
static int pool_spare(void) { return agt_slot_avail(&A.pool) > (uint32_t)A.flow.W; }

int agt_red_origin(agt_tx *t)
{
    red_acc *a = *find(hdr_of(t->pkt));
    agt_mc_info ti;
    if (a) {
        combine(a, t->pkt);
        agt_tx_done(t);
        check(a);
    } else if (pool_spare()) {   /* the rank's slot back at once */
        uint32_t k = (uint32_t)agt_slot_get(&A.pool);
        memcpy(agt_slot_mem(&A.pool, k), t->pkt, t->len);
        agt_tx_done(t);
        agt_mc_own(k);
        open_acc(agt_slot_mem(&A.pool, k), k);
    } else if (tree_of(t->pkt, &ti), ti.nloc + ti.nchild == 1 && ti.parent >= 0) {
        ((agt_wire *)t->pkt)->kind = AGT_K_RED;   /* done here: up from the tx slot */
        t->node = ti.parent;
        agt_net_send(t);   /* the tx slot is freed when sent */
    } else {
        char *m = heap_copy(t->pkt, 0);
        agt_tx_done(t);
        open_acc(m, RED_HEAP);
    }
    return 0;
}

/* A child's packet, owned by the caller in pool slot k (its credit given
 * back or not yet) or in agent memory (k == RED_HEAP), of an installed tree. */
static void arrived(char *pkt, uint32_t k)
{
    red_acc *a = *find(hdr_of(pkt));
    if (a) {
        combine(a, pkt);
        if (k == RED_HEAP)
            heap_free(pkt);
        else
            agt_released(k);
        check(a);
        return;
    }
    if (k != RED_HEAP && pool_spare()) {
        agt_mc_keep(k, (uint32_t)A.flow.W);   /* more than W free: the credit goes back */
        open_acc(pkt, k);
        return;
    }
    if (k != RED_HEAP) {
        pkt = heap_copy(pkt, 0);
        agt_released(k);
    }
    open_acc(pkt, RED_HEAP);
}

void agt_red_arrive(uint32_t k)
{
    char *pkt = agt_slot_mem(&A.pool, k);
    agt_mc_info ti;
    if (agt_mc_tree(&hdr_of(pkt)->mc, &ti) == 0) {
        arrived(pkt, k);
        return;
    }
    /* our members have not called yet: the packet waits in memory, its
     * slot and its sender's credit back at once */
    red_early *e = (red_early *)heap_copy(pkt, sizeof *e);
    e->next = NULL;
    *early_t = e;
    early_t = &e->next;
    agt_released(k);
}

int agt_red_poll(void)
{
    int work = 0;
    if (early && agt_mc_installed() != seen_installed) {
        seen_installed = agt_mc_installed();
        red_early *list = early;
        early = NULL, early_t = &early;
        while (list) {
            red_early *e = list;
            list = e->next;
            agt_mc_info ti;
            if (agt_mc_tree(&hdr_of(e->pkt)->mc, &ti) == 0) {
                arrived(heap_copy(e->pkt, 0), RED_HEAP);
                heap_free(e);
                work++;
            } else {
                e->next = NULL;
                *early_t = e;
                early_t = &e->next;
            }
        }
    }
    while (ready && finish(ready) == 0) {
        red_acc *a = ready;
        if (!(ready = a->next))
            ready_t = &ready;
        free(a);
        work++;
    }
    return work;
}
