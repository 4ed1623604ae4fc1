/*
 * agent_flow.h — agent-to-agent credit flow control, after Verstoep et al. §4.1
 * (l-sdma): each agent reserves W receive slots per sending node, so a
 * sender may have at most W packets unreleased at each receiver. Released
 * slots go back to the sender piggybacked on any packet flowing its way,
 * or by an explicit ack once W/2 are owed. Packets without a credit wait in
 * a FIFO per destination, drained when credits come back; other
 * destinations are not held up.
 */
#ifndef AGT_FLOW_H
#define AGT_FLOW_H

#include <stdint.h>

/* Intrusive link, embedded in whatever the caller queues. */
typedef struct agt_pend { struct agt_pend *next; } agt_pend;

typedef struct agt_flow {
    int       nnodes, W;
    int32_t  *credits;    /* packets we may still send to each node */
    int32_t  *owed;       /* slots of each node's packets we released */
    agt_pend **qh, **qt;  /* blocked packets per destination */
    uint32_t *qlen;
    uint64_t  stalls;     /* packets that had to wait for a credit */
} agt_flow;

int  agt_flow_init(agt_flow *f, int nnodes, int W);
void agt_flow_fini(agt_flow *f);
/* A packet to node is ready: 1 = a credit is taken, send it now;
 * 0 = it was queued behind the blocked ones (p is linked in). */
int  agt_flow_admit(agt_flow *f, int node, agt_pend *p);
/* n packets to node that would leave as one train: 1 = n credits taken,
 * send them now; 0 = not all at once (nothing is queued: the caller
 * admits them one by one instead, so that none overtakes another). */
int  agt_flow_admit_n(agt_flow *f, int node, int n);
/* Credits arrived from node. */
void agt_flow_credit(agt_flow *f, int node, int n);
/* The next blocked packet to node that may go now (credit taken), or NULL. */
agt_pend *agt_flow_next(agt_flow *f, int node);
/* We released one slot of node's: 1 when an explicit ack is due. */
int  agt_flow_released(agt_flow *f, int node);
/* Credits to piggyback on a packet to node (taken: owed drops to 0). */
int  agt_flow_take_owed(agt_flow *f, int node);

#endif
