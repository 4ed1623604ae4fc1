/*
 * agent_rtt.h — the retransmission timeout from the smoothed round trip
 * (Jacobson), shared by the agents' protocol (agent_rel.c) and the ranks'
 * (agent_hrel.c, CLUMPI_AGENT_REL=host).
 */
#ifndef AGT_RTT_H
#define AGT_RTT_H

#include <stdint.h>

/* Round trips between agents sharing cores with ranks are scheduler
 * wake-ups, not wire times: the timeout stays within these bounds. */
#define AGT_RTO_MIN_NS   2000000ull
#define AGT_RTO_INIT_NS 10000000ull
#define AGT_RTO_MAX_NS 200000000ull

typedef struct agt_rtt { uint64_t rto, srtt, rttvar; } agt_rtt;   /* ns; srtt 0: no sample */

static inline void agt_rtt_sample(agt_rtt *p, uint64_t r)
{
    if (!p->srtt) {
        p->srtt = r;
        p->rttvar = r / 2;
    } else {
        uint64_t d = p->srtt > r ? p->srtt - r : r - p->srtt;
        p->rttvar = (3 * p->rttvar + d) / 4;
        p->srtt = (7 * p->srtt + r) / 8;
    }
}

/* The timeout without backoff, taken again whenever the peer acknowledges
 * something new: a peer that answers is not congested the way a network
 * is (a lost datagram here is a full socket buffer or an injected fault). */
static inline void agt_rtt_reset(agt_rtt *p)
{
    /* no sample yet (Karn: everything so far was sent again) */
    uint64_t rto = p->srtt ? p->srtt + 4 * p->rttvar : AGT_RTO_INIT_NS;
    p->rto = rto < AGT_RTO_MIN_NS ? AGT_RTO_MIN_NS : rto > AGT_RTO_MAX_NS ? AGT_RTO_MAX_NS : rto;
}

/* Timeouts in a row, without news from the peer, before a timeout
 * doubles: a datagram lost here is an injected fault or a full socket
 * buffer, not a congested network; at 30% loss a datagram and its answer
 * both arrive only half the time, and doubling from the first timeout on
 * would make the expected wait unbounded (2 ms x 2^k with probability
 * 0.51^k). */
#define AGT_BACKOFF_AFTER 2

/* Interval t after one more timeout of a run (*run counts them; the caller
 * zeroes it on news): doubled, within the bound, from the third on. */
static inline uint64_t agt_backoff(uint64_t t, uint32_t *run)
{
    if (++*run <= AGT_BACKOFF_AFTER)
        return t;
    return t * 2 > AGT_RTO_MAX_NS ? AGT_RTO_MAX_NS : t * 2;
}

#endif
