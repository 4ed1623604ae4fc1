/*
 * agent_rel.h — the agents' own reliability protocol over unreliable
 * datagrams (CLUMPI_AGENT_TRANSPORT=dgram), after Bilas's VMMC firmware and
 * Verstoep et al.'s NI-level retransmission: per-peer sequence numbers with
 * an epoch; a datagram stays in its slot until the peer acknowledges it, so
 * the credit window (agent_flow) is also the retransmission window;
 * cumulative acks ride on every datagram, and an explicit one goes after
 * CLUMPI_AGENT_ACK_EVERY datagrams, a short delay, or before the agent
 * sleeps; selective repeat (or, with CLUMPI_AGENT_ARQ=gbn, go-back-N) with
 * a timeout from the smoothed round trip (Jacobson) and fast retransmit on
 * the receiver's gap reports. Credits travel as a
 * running total in every header, so a lost ack loses none; a sender out of
 * credits with nothing unacknowledged probes until they come.
 *
 * Every datagram starts with an agt_rel_hdr; a header alone is an ack or a
 * probe, a header with AGT_REL_DATA carries one packet or a train.
 */
#ifndef AGT_REL_H
#define AGT_REL_H

#include <stdint.h>

typedef struct agt_rel_hdr {
    uint32_t epoch;     /* the sending agent's incarnation */
    uint32_t seq;       /* AGT_REL_DATA: this datagram's number on its way to us */
    uint32_t ack;       /* every datagram of ours numbered below arrived */
    uint32_t credits;   /* slots of ours the sender released, in all (mod 2^32) */
    uint32_t back;      /* as ack, for the bulk stream */
    uint16_t src_node;
    uint8_t  flags;
    uint8_t  pad;
    /* sack: bit i set: datagram ack + i (bulk: back + i) arrived and is held */
    uint32_t sack, bsack;
} agt_rel_hdr;

/* DATA: packets follow; PROBE: answer with an ack now; GAP (BGAP): this
 * ack answers a datagram of the main (bulk) stream that came out of order
 * (counts toward fast retransmit); BULK: a bulk chunk, numbered in the
 * bulk stream. Two streams per peer, each with its numbers, window and
 * timers: bulk chunks travel on an endpoint of their own, and the two
 * sockets reorder against each other. */
enum { AGT_REL_DATA = 1, AGT_REL_PROBE = 2, AGT_REL_GAP = 4, AGT_REL_BULK = 8,
       AGT_REL_BGAP = 16 };

struct agt_tx;

int  agt_rel_init(void);                 /* after agt_flow_init */
void agt_rel_fini(void);
/* t leaves for t->node for the first time: it gets the next number of its
 * stream (bulk for AGT_TX_BULK) and is held until acknowledged. */
void agt_rel_queue(struct agt_tx *t);
/* The header of a datagram to node (acks and credits as of now). */
void agt_rel_fill(agt_rel_hdr *h, int node, int flags);
/* A datagram's header arrived (len: the whole datagram's bytes). *credits:
 * credits it gives back. 1: its packets are new, take them, then call
 * agt_rel_accepted (and take what agt_rel_pop gives); 0: drop them;
 * AGT_REL_HOLD (sack): it came after a gap, keep it under its number until
 * agt_rel_pop names it; AGT_REL_LATE (REL=host): it came after a later
 * one and was counted lost, its credit given back: pass its packets to
 * their ranks only if they take no slot (agt_net.c), and call nothing
 * more. */
enum { AGT_REL_HOLD = 2, AGT_REL_LATE = 3 };
int  agt_rel_input(const agt_rel_hdr *h, int *credits);
/* After an in-order datagram of node's stream bulk (0/1) was taken: 1 and
 * *seq when the next one in order is held (take it now, then ask again). */
int  agt_rel_pop(int node, int bulk, uint32_t *seq);
/* Out-of-order datagrams a receiver may hold per peer and stream (sack). */
#define AGT_REL_SACK_MAX 32u
void agt_rel_accepted(int node, uint32_t npkt);   /* npkt: the packets taken */
/* t's first send went out (REL=host: it is freed now unless in flight). */
void agt_rel_sent(struct agt_tx *t);
/* A fabric send of t completed. */
void agt_rel_send_done(struct agt_tx *t);
/* Timers (retransmission, delayed acks, probes, the silent-peer deadline). */
void agt_rel_poll(void);
/* About to block: delayed acks go now; the longest sleep (ms, <= dflt)
 * before a timer is due. */
long agt_rel_sleep_ms(long dflt);

/* agent_net.c: send t's datagram again (header refreshed); a bulk chunk's;
 * an ack or probe alone to node. */
void agt_net_dgram_out(struct agt_tx *t);
void agt_net_bulk_out(struct agt_tx *t);
void agt_net_ctl(int node, int flags);

#endif
