/*
 * agent_hrel.h — CLUMPI_AGENT_REL=host (Verstoep et al.'s l-hrx): each
 * rank's channel makes its DATA packets to other nodes reliable end to
 * end, over agents that keep nothing once a datagram has left. Packets
 * are numbered per destination rank; the sender keeps a copy of each
 * until the destination rank acknowledges it (cumulative acks, carried
 * back through both agents on reverse traffic, or alone after a short
 * delay or every few packets). The receiver hands packets on in order,
 * keeps those after a gap, says which in every header, and drops copies;
 * the sender sends again those it does not hold (selective repeat) on the
 * receiver's second report of a gap and on a timeout from the smoothed
 * round trip with backoff, taken in its own progress.
 */
#ifndef AGT_HREL_H
#define AGT_HREL_H

#include <stddef.h>
#include <stdint.h>
#include "netmod/agent/agent_ring.h"

/* First in every DATA packet's payload under REL=host: its number, every
 * packet of the destination's numbered below ack arrived, and held[]'s bit
 * i (of 64, held[0] the low half) says ack + i arrived after a gap and is
 * kept (selective repeat: only the others are sent again). */
typedef struct agt_hrel_hdr { uint32_t seq, ack, flags, held[2]; } agt_hrel_hdr;
/* It takes the room of a device header in each packet but the first, so
 * a message still fits its AGT_FRAG_MAX packets. */
_Static_assert(AGT_FRAG_MAX * sizeof(agt_hrel_hdr) + AGT_HDR_MAX <= AGT_FRAG_MAX * AGT_HDR_MAX,
               "agt_hrel_hdr too big");
/* ACK: an ack alone (no seq); GAP: it answers a packet that came after a
 * gap (the sender counts them toward a fast retransmission) */
enum { AGT_HREL_ACK = 1, AGT_HREL_GAP = 2 };

/* Packets held per destination: a send beyond them waits (-EAGAIN); the
 * receiver's held set covers them all. */
#define AGT_HREL_WINDOW 64u
_Static_assert(AGT_HREL_WINDOW <= 64, "the held set has 64 bits");

int  agt_hrel_init(int nworld, int me);
void agt_hrel_fini(void);
/* n more packets to dest may be held now */
int  agt_hrel_room(int dest, uint32_t n);
/* The header of the next packet to dest (n packets before it already
 * filled in this send). */
agt_hrel_hdr agt_hrel_next(int dest, uint32_t n);
/* Packet pkt (len bytes, wire header first) to dest, about to go to the
 * agent: keep a copy until acknowledged. Then agt_hrel_posted once the
 * send's packets went, or agt_hrel_unkeep(dest, n) for its n kept ones
 * if they could not. */
void agt_hrel_keep(int dest, const char *pkt, size_t len);
void agt_hrel_posted(int dest);
void agt_hrel_unkeep(int dest, uint32_t n);
/* A DATA packet from src: its device header, its payload (len bytes,
 * agt_hrel_hdr first), its wire more bit. Returns its data (*len
 * shortened) when it is the next in order, then the packets kept after it
 * come from agt_hrel_ready (the caller frees each); NULL: nothing to take
 * now (an ack alone, a copy, or one after a gap, kept). */
typedef struct agt_hrel_pkt { size_t hdrlen, len; int more; char data[]; } agt_hrel_pkt;
const char *agt_hrel_in(uint32_t src, const char *hdr, size_t hdrlen, const char *pay,
                        size_t *len, int more);
agt_hrel_pkt *agt_hrel_ready(uint32_t src);
/* Timers: retransmissions and explicit acks due. */
void agt_hrel_poll(void);
/* Anything held or an ack owed: the longest sleep (us, <= dflt; dflt < 0:
 * none) before a timer is due. */
long agt_hrel_sleep_us(long dflt);
/* Packets held, to all destinations. */
uint64_t agt_hrel_held(void);
/* The retransmission timeout toward dest from its round trip, without
 * backoff (ns). */
uint64_t agt_hrel_rto_ns(int dest);
/* the counters for CLUMPI_AGENT_STATS=1 */
void agt_hrel_stats(int rank);

/* agent_chan.c: one packet (wire header first) to the agent as a PIO
 * command; -EAGAIN: no tx slot or command unit now. */
int  agt_chan_raw(const char *pkt, size_t len);

#endif
