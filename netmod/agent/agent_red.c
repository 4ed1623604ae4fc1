/*
 * agent_red.c — reductions in the agent: our step beyond seed 002, whose
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
 * (the first contribution copied there, its tx slot or receive slot given
 * back at once), else in the first contribution's own buffer — the rank's
 * tx slot (PIO), kept until the result leaves, or the receive slot with
 * its credit (agent_mc_keep). So when the pool runs low a rank running
 * ahead is held back by its own tx slots, and a child by its credits,
 * never by another communicator's reduction. (An allreduce's ranks also
 * keep at most a window of packets ahead of the results they got,
 * agent_red_rank.c.) A finished result at the root that sits in a tx slot
 * needs a pool slot to be shared by the deliveries and forwards; without
 * one it waits here and is retried from the event loop. Predefined ops are commutative, so the
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

typedef struct red_acc {
    struct red_acc *next;
    agt_red_hdr key;     /* tree, seq, off */
    int have, need;
    int parent;          /* node, or -1: this is the root's node */
    agt_tx *t;           /* in a rank's tx slot, or NULL: pool slot k (agent_mc owned) */
    uint32_t k;
    char *pkt;
} red_acc;

static red_acc *accs;            /* open accumulators */
static red_acc *ready, **ready_t = &ready;   /* finished at the root, waiting for a pool slot */
static uint32_t *early;          /* child packets of a tree not installed yet */
static uint32_t nearly;
static unsigned seen_installed;

static agt_red_hdr *hdr_of(char *pkt) { return (agt_red_hdr *)(pkt + sizeof(agt_wire)); }

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
    agt_wire *w = (agt_wire *)a->pkt;
    agt_red_hdr *h = hdr_of(a->pkt);
    if (a->parent >= 0) {
        w->kind = AGT_K_RED;
        if (a->t) {
            a->t->node = a->parent;
            agt_net_send(a->t);   /* the tx slot is freed when sent */
        } else {
            agt_mc_send(a->k, a->parent);
        }
        return 0;
    }
    if (a->t) {   /* deliveries and forwards share one pool slot */
        int k = agt_slot_get(&A.pool);
        if (k < 0)
            return -1;
        memcpy(agt_slot_mem(&A.pool, (uint32_t)k), a->pkt, a->t->len);
        agt_tx_done(a->t);
        agt_mc_own((uint32_t)k);
        a->t = NULL, a->k = (uint32_t)k, a->pkt = agt_slot_mem(&A.pool, (uint32_t)k);
        w = (agt_wire *)a->pkt;
        h = hdr_of(a->pkt);
    }
    w->kind = AGT_K_MCAST;
    if (h->what == AGT_RED_ALLREDUCE) {
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

/* A first contribution: it becomes the accumulator. */
static void open_acc(char *pkt, agt_tx *t, uint32_t k)
{
    agt_red_hdr *h = hdr_of(pkt);
    agt_wire *w = (agt_wire *)pkt;
    agt_mc_info ti;
    if (agt_mc_tree(&h->mc, &ti) < 0)
        agt_die("reduction on a tree that is not installed");
    if (h->op >= CU_OP_COUNT || (w->len && (!cu_op_kernel_packed(h->op, h->basic) ||
                                            w->len % cu_op_packed_size(h->basic))) ||
        (h->what != AGT_RED_REDUCE && h->what != AGT_RED_ALLREDUCE))
        agt_die("bad reduction packet (op, type or length)");
    red_acc *a = calloc(1, sizeof *a);
    if (!a)
        agt_die("out of memory");
    a->key = *h;
    a->have = 1, a->need = ti.nloc + ti.nchild, a->parent = ti.parent;
    a->t = t, a->k = k, a->pkt = pkt;
    a->next = accs;
    accs = a;
    check(a);
}

int agt_red_origin(agt_tx *t)
{
    red_acc *a = *find(hdr_of(t->pkt));
    if (a) {
        combine(a, t->pkt);
        agt_tx_done(t);
        check(a);
    } else if (agt_slot_avail(&A.pool) > (uint32_t)A.flow.W) {   /* the rank's slot back at once */
        uint32_t k = (uint32_t)agt_slot_get(&A.pool);
        memcpy(agt_slot_mem(&A.pool, k), t->pkt, t->len);
        agt_tx_done(t);
        agt_mc_own(k);
        open_acc(agt_slot_mem(&A.pool, k), NULL, k);
    } else {
        open_acc(t->pkt, t, 0);
    }
    return 0;
}

static void arrived(uint32_t k)
{
    char *pkt = agt_slot_mem(&A.pool, k);
    red_acc *a = *find(hdr_of(pkt));
    if (a) {
        combine(a, pkt);
        agt_released(k);
        check(a);
        return;
    }
    agt_mc_keep(k, (uint32_t)A.flow.W);
    open_acc(pkt, NULL, k);
}

void agt_red_arrive(uint32_t k)
{
    agt_mc_info ti;
    if (agt_mc_tree(&hdr_of(agt_slot_mem(&A.pool, k))->mc, &ti) == 0) {
        arrived(k);
        return;
    }
    /* our members have not called yet: the packet keeps its receive slot
     * (and its sender's credit) until the tree is here */
    if (!early && !(early = malloc(A.pool.n * sizeof *early)))
        agt_die("out of memory");
    early[nearly++] = k;   /* each slot at most once: fits pool.n */
}

int agt_red_poll(void)
{
    int work = 0;
    if (nearly && agt_mc_installed() != seen_installed) {
        seen_installed = agt_mc_installed();
        uint32_t n = nearly;
        nearly = 0;
        for (uint32_t i = 0; i < n; i++) {
            agt_mc_info ti;
            if (agt_mc_tree(&hdr_of(agt_slot_mem(&A.pool, early[i]))->mc, &ti) == 0) {
                arrived(early[i]);
                work++;
            } else {
                early[nearly++] = early[i];
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
