/*
 * agent.h — the state of the NI agent process (clumpi-agent), shared by
 * agent_main.c (event loop, host side) and agent_net.c (fabric side).
 */
#ifndef AGT_AGENT_H
#define AGT_AGENT_H

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <stdint.h>
#include "netmod/agent/agent_flow.h"
#include "netmod/agent/agent_rel.h"
#include "netmod/agent/agent_ring.h"
#include "netmod/agent/agent_slots.h"
#include "netmod/agent/agent_stats.h"

/* AGT_TX_MC: one forward of a shared multicast slot (its own context,
 * freed when sent). */
/* AGT_TX_BULK: a bounce buffer's send on the bulk endpoint; AGT_TX_LAND:
 * a landing buffer's receive there (agent_bulk.c, k: the buffer).
 * AGT_TX_RUN: a receive run of the main endpoint (agent_net.c, k: the run). */
enum { AGT_TX_RANK = 1, AGT_TX_POOL = 2, AGT_TX_MC = 3, AGT_TX_BULK = 4, AGT_TX_LAND = 5,
       AGT_TX_RUN = 6 };

/* One packet the agent owns: a rank's PIO slot or a pool slot. */
typedef struct agt_tx {
    struct fi_context2 ctx;   /* first: completions return &ctx */
    agt_pend link;            /* blocked-queue link (agent_flow) */
    uint8_t  type;
    uint8_t  npkt;            /* AGT_TX_RANK: packets in this send (a train: slots k..) */
    uint16_t li;              /* AGT_TX_RANK: local rank */
    uint32_t k;               /* slot index */
    int      node;            /* destination node */
    char    *pkt;
    size_t   len;
    /* dgram transport: held until acknowledged (link: agent_rel's queue) */
    agt_rel_hdr rh;
    uint64_t sent_ns;
    uint16_t inflight;        /* fabric sends not completed */
    uint8_t  acked, rexmit, sacked;   /* sacked: the peer holds it (agent_rel.c) */
} agt_tx;

struct agt {
    agt_seg_hdr *h;
    int node, nnodes, nlocal;
    uint32_t mtu;
    int *conn;                /* per local rank: its socket, or -1 */
    int lsock, epfd;
    int quiesce;
    int dgram;                /* CLUMPI_AGENT_TRANSPORT=dgram (agent_rel.c) */
    int hrel;                 /* CLUMPI_AGENT_REL=host: the ranks retransmit, we keep nothing */
    long delay_ns;
    /* host side */
    uint64_t *cmd_head, *cq_hc, *rx_next, *rx_freed_c;
    uint8_t  *txdone;         /* [nlocal * ntx] */
    uint64_t *tx_freed;
    agt_tx   *rank_tx;        /* [nlocal * ntx] */
    uint32_t **dq;            /* per local rank: pool slots awaiting delivery */
    uint64_t *dq_h, *dq_t;    /* its head, tail (64 bits: pool.n need not divide 2^32) */
    /* network side */
    agt_slots pool;
    agt_tx   *pool_tx;        /* [pool.n]: context of each pool slot */
    uint32_t nrx_post;        /* sizes the receive runs and the pool */
    agt_flow flow;
    uint8_t  *ack_owed;       /* explicit ack that could not go yet */
    /* bulk path (agent_bulk.c): bounce buffers for pulled chunks */
    char     *bounce;
    uint32_t nbounce;
};

extern struct agt A;

/* agent_net.c */
int  agt_net_open(void);
void agt_net_close(void);
int  agt_net_poll(int budget);
void agt_net_send(agt_tx *t);          /* through flow control */
/* t and the n-1 packets after it, A.mtu apart, to t->node in one send if
 * the credits allow it now: 1; else 0 (nothing sent). */
int  agt_net_send_train(agt_tx *t, uint32_t n);
void agt_net_ack(int node);
/* A packet from node no longer holds its credit: node gets it back (with
 * the next packet its way, or an ack once W/2 are owed) and the pool's
 * reserve grows by one, since node may send one more. */
void agt_net_credit_back(int node);
int  agt_net_wait_fd(void);
int  agt_net_trywait(void);            /* 0: safe to block */
/* About to block for up to dflt ms: what is owed goes now; the timeout to
 * use so that no timer of the transport is missed. */
long agt_net_sleep_ms(long dflt);
/* the bulk endpoint: one chunk message into a peer node's landing buffer
 * (over datagrams held until acknowledged, agent_rel.c); a landing buffer
 * posted for the next one to arrive here */
void agt_net_bulk_send(int node, void *buf, size_t len, agt_tx *t);
void agt_net_bulk_recv(void *buf, size_t len, agt_tx *t);
size_t agt_net_max_msg(void);

/* agent_main.c */
void agt_die(const char *what) __attribute__((noreturn));   /* message, exit(1) */
/* A received DATA packet, into its rank's queue now: 0; else -EAGAIN and
 * *li is the local rank it waits for (agt_queue_delivery, from a pool slot). */
int  agt_deliver(const char *pkt, int *li);
/* A whole DATA message that came as a train (its n checked packets): to
 * its rank as one entry, payloads back to back in its rx slots: 0; else
 * -EAGAIN (no room now: deliver it packet by packet). */
int  agt_deliver_train(const agt_wire *const *w, uint32_t n);
void agt_tx_done(agt_tx *t);
void agt_delay(void);
int  agt_find_local(uint32_t world);   /* local index of a world rank, or -1 */
void agt_queue_delivery(int li, uint32_t k);   /* pool slot k to rank li, FIFO */
void agt_released(uint32_t k);         /* a received packet's slot k is done with */
void agt_wake_rank(int li);            /* li sleeps on its cq: ring it */
void agt_handed(void);                 /* a rank got something: yield once */

/* agent_mc.c: multicast trees (Verstoep et al. §4.2) */
void agt_mc_install(const agt_tree_cmd *c);
void agt_mc_arrive(uint32_t k);                /* a MCAST packet in receive slot k */
int  agt_mc_origin(const char *pkt, size_t len);   /* from a root rank; -1: no slot */
void agt_mc_put(uint32_t k);                   /* one holder of slot k is done */
void agt_mc_tree_arrive(uint32_t k);           /* a TREE packet from a member's agent */

/* agent_red.c: reductions up a tree (CMD PIO of kind RED from a rank, RED
 * packets from child agents); agent_fadd.c: fetch-and-add served here.
 * The origins own the rank's tx slot t from the call on; -1: no pool slot
 * free, the descriptor waits. */
int  agt_red_origin(agt_tx *t);
void agt_red_arrive(uint32_t k);
int  agt_red_poll(void);                       /* deferred work; >0 if any was done */
int  agt_fadd_origin(agt_tx *t);
void agt_fadd_arrive(uint32_t k);
/* agent_rma.c: one-sided operations served for this node's ranks (Bilas) */
int  agt_rma_origin(agt_tx *t);
void agt_rma_arrive(uint32_t k);
int  agt_rma_poll(void);                       /* waiting requests; >0 if any was served */
int  agt_rma_waiting(void);                    /* nonzero: requests wait (poll soon) */
/* agent_bulk.c: rendezvous reads in chunks (agent_ring.h) */
int  agt_bulk_init(void);                      /* before agt_net_open */
void agt_bulk_start(void);                     /* after it: landing buffers posted */
int  agt_bulk_origin(agt_tx *t);               /* a REQ from a rank's tx slot */
void agt_bulk_arrive(uint32_t k);              /* a BULK packet (REQ, GRANT) */
void agt_bulk_landed(uint32_t j, size_t len);  /* landing buffer j was filled */
void agt_bulk_unlanded(uint32_t j);            /* ... with nothing to take (dgram: a copy) */
void agt_bulk_sent(uint32_t b);                /* bounce buffer b is free */
int  agt_bulk_poll(void);                      /* >0 if any work was done */
int  agt_bulk_idle(void);                      /* about to block: 0 if nothing waits on us */

#endif
