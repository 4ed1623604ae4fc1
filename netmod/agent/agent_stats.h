/*
 * agent_stats.h — the agent's counters (Verstoep et al.'s comparison needs them):
 * packets by kind each way, credit stalls, and the fraction of time the
 * agent was busy (not blocked waiting). CLUMPI_AGENT_STATS=1 prints them
 * when the agent ends.
 */
#ifndef AGT_STATS_H
#define AGT_STATS_H

#include <stdint.h>
#include "netmod/agent/agent_ring.h"

typedef struct agt_stats {
    uint64_t sent[AGT_K_NKINDS], recv[AGT_K_NKINDS];
    uint64_t pio, dma, dma_bytes, stalls, ring_full;
    uint64_t trains_out, trains_in;   /* messages sent as one train; delivered whole */
    uint64_t bulk_out, bulk_in, bulk_bytes;   /* chunks sent, landed; bytes landed */
    /* reduction packets that waited in agent memory (pool low): in all,
     * now, the most at once */
    uint64_t red_mem, red_mem_now, red_mem_max;
    /* dgram transport (agent_rel.c, agent_fault.c): datagrams sent again,
     * timeouts and fast retransmits that sent them, copies and out-of-order
     * ones dropped, explicit acks, acks that rode on data, probes; faults
     * injected on receive */
    uint64_t rexmit, timeouts, fast_rexmit, dup_dropped, ooo_dropped, ooo_held;
    uint64_t host_lost;   /* REL=host: packets found lost, their credits given back */
    uint64_t host_late, host_late_drop;   /* of those, came after all: passed on, no room */
    uint64_t acks_sent, acks_piggy, probes;
    uint64_t inj_loss, inj_dup, inj_reorder;
    int dgram;
    uint64_t t_start, t_idle, t_sleep0;   /* ns */
} agt_stats;

extern agt_stats agt_st;

uint64_t agt_now_ns(void);
void agt_stats_start(void);
void agt_stats_sleep(void);   /* before blocking */
void agt_stats_wake(void);    /* after */
void agt_stats_print(int node);

#endif
