/*
 * agent_fadd.c — fetch-and-add served by the agent (Verstoep et al. §4.2: LFC's
 * F&A lives in NI memory, so a remote process can take the next ticket
 * while the owner computes). A counter is a 64-bit value held by the agent
 * of its owner rank's node, named by (owner world rank, id). A request
 * (FADD packet, from a rank's tx slot) goes to the owner's node, where it
 * is applied in arrival order and turned into the reply in place; the
 * reply goes back to the requester's node and up to the requester. The
 * owner rank is never involved after it created the counter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netmod/agent/agent.h"
#include "netmod/agent/agent_mc.h"
#include "netmod/agent/agent_red.h"

typedef struct counter { uint32_t owner, id; int64_t value; } counter;
static counter *ctrs;
static size_t nctrs, capctrs;

static agt_fadd_hdr *hdr_of(char *pkt) { return (agt_fadd_hdr *)(pkt + sizeof(agt_wire)); }

static int node_of(uint32_t world)
{
    if (world >= A.h->nworld)
        agt_die("fetch-and-add: rank out of range");
    return (int)agt_nodes(A.h)[world];
}

/* Apply request h to its counter (here); h becomes the reply: the old
 * value, pad[0] = 1 when there is no such counter. */
static void apply(agt_fadd_hdr *h)
{
    size_t i = 0;
    while (i < nctrs && !(ctrs[i].owner == h->owner && ctrs[i].id == h->id))
        i++;
    h->pad[0] = 0;
    if (h->op == AGT_FADD_INIT) {
        if (i == nctrs) {
            if (nctrs == capctrs) {
                size_t cap = capctrs ? 2 * capctrs : 16;
                counter *c = realloc(ctrs, cap * sizeof *c);
                if (!c)
                    agt_die("out of memory");
                ctrs = c, capctrs = cap;
            }
            ctrs[nctrs++] = (counter){ h->owner, h->id, 0 };
        }
        ctrs[i].value = h->value;
    } else if (i == nctrs) {
        h->pad[0] = 1;
    } else if (h->op == AGT_FADD_ADD) {
        int64_t old = ctrs[i].value;
        /* wraps like the MPI_SUM kernels, never undefined */
        ctrs[i].value = (int64_t)((uint64_t)old + (uint64_t)h->value);
        h->value = old;
    } else if (h->op == AGT_FADD_FREE) {
        h->value = ctrs[i].value;
        ctrs[i] = ctrs[--nctrs];
    } else {
        agt_die("bad fetch-and-add request");
    }
    h->op = AGT_FADD_REPLY;
}

int agt_fadd_origin(agt_tx *t)
{
    agt_wire *w = (agt_wire *)t->pkt;
    agt_fadd_hdr *h = hdr_of(t->pkt);
    if (w->hdrlen < sizeof *h || h->op == AGT_FADD_REPLY)
        agt_die("bad fetch-and-add command");
    int node = node_of(h->owner);
    if (node != A.node) {   /* to the owner's agent; the tx slot is freed when sent */
        t->node = node;
        agt_net_send(t);
        return 0;
    }
    int k = agt_slot_get(&A.pool);   /* the reply, to a rank on this node */
    if (k < 0)
        return -1;
    char *p = agt_slot_mem(&A.pool, (uint32_t)k);
    memcpy(p, t->pkt, t->len);
    agt_tx_done(t);
    apply(hdr_of(p));
    agt_mc_own((uint32_t)k);
    agt_mc_deliver_one((uint32_t)k, hdr_of(p)->from);
    return 0;
}

void agt_fadd_arrive(uint32_t k)
{
    char *p = agt_slot_mem(&A.pool, k);
    agt_fadd_hdr *h = hdr_of(p);
    if (((agt_wire *)p)->hdrlen < sizeof *h)
        agt_die("corrupt fetch-and-add packet");
    agt_mc_keep(k, (uint32_t)A.flow.W);
    if (h->op == AGT_FADD_REPLY) {
        agt_mc_deliver_one(k, h->from);
        return;
    }
    if (node_of(h->owner) != A.node)
        agt_die("fetch-and-add request for a counter not held here");
    apply(h);
    agt_mc_send(k, node_of(h->from));
}
