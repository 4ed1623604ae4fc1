/*
 * agent_stats.c — counters and the busy fraction (time not spent blocked in
 * epoll_wait over the agent's lifetime; spinning counts as busy, as it
 * would on an NI processor).
 */
#include <stdio.h>
#include <time.h>
#include "netmod/agent/agent_stats.h"
#include "src/util/clock.h"

agt_stats agt_st;

uint64_t agt_now_ns(void) { return (uint64_t)cu_now_ns(); }

void agt_stats_start(void) { agt_st.t_start = agt_now_ns(); }
void agt_stats_sleep(void) { agt_st.t_sleep0 = agt_now_ns(); }
void agt_stats_wake(void) { agt_st.t_idle += agt_now_ns() - agt_st.t_sleep0; }

void agt_stats_print(int node)
{
    uint64_t total = agt_now_ns() - agt_st.t_start;
    double busy = total ? 100.0 * (double)(total - agt_st.t_idle) / (double)total : 0;
    fprintf(stderr,
            "clumpi-agent[node %d]: sent data %llu mcast %llu red %llu fadd %llu ack %llu; "
            "received data %llu mcast %llu red %llu fadd %llu ack %llu; pio %llu dma %llu "
            "(%llu bytes); trains sent %llu delivered whole %llu; "
            "bulk chunks sent %llu landed %llu (%llu bytes); "
            "reduction packets kept in memory %llu (at most %llu at once); "
            "credit stalls %llu; host ring full %llu; busy %.1f%% of %.3f s\n",
            node, (unsigned long long)agt_st.sent[AGT_K_DATA],
            (unsigned long long)agt_st.sent[AGT_K_MCAST], (unsigned long long)agt_st.sent[AGT_K_RED],
            (unsigned long long)agt_st.sent[AGT_K_FADD], (unsigned long long)agt_st.sent[AGT_K_ACK],
            (unsigned long long)agt_st.recv[AGT_K_DATA], (unsigned long long)agt_st.recv[AGT_K_MCAST],
            (unsigned long long)agt_st.recv[AGT_K_RED], (unsigned long long)agt_st.recv[AGT_K_FADD],
            (unsigned long long)agt_st.recv[AGT_K_ACK], (unsigned long long)agt_st.pio,
            (unsigned long long)agt_st.dma, (unsigned long long)agt_st.dma_bytes,
            (unsigned long long)agt_st.trains_out, (unsigned long long)agt_st.trains_in,
            (unsigned long long)agt_st.bulk_out, (unsigned long long)agt_st.bulk_in,
            (unsigned long long)agt_st.bulk_bytes, (unsigned long long)agt_st.red_mem,
            (unsigned long long)agt_st.red_mem_max,
            (unsigned long long)agt_st.stalls, (unsigned long long)agt_st.ring_full, busy,
            (double)total / 1e9);
    if (agt_st.dgram)
        fprintf(stderr,
                "clumpi-agent[node %d]: dgram: retransmits %llu (timeouts %llu, fast %llu); "
                "duplicates dropped %llu, out of order dropped %llu, held %llu; acks sent %llu, "
                "piggybacked %llu; probes %llu; injected loss %llu dup %llu reorder %llu; "
                "REL=host packets lost %llu (late after all: passed on %llu, dropped %llu)\n",
                node, (unsigned long long)agt_st.rexmit, (unsigned long long)agt_st.timeouts,
                (unsigned long long)agt_st.fast_rexmit, (unsigned long long)agt_st.dup_dropped,
                (unsigned long long)agt_st.ooo_dropped, (unsigned long long)agt_st.ooo_held,
                (unsigned long long)agt_st.acks_sent,
                (unsigned long long)agt_st.acks_piggy, (unsigned long long)agt_st.probes,
                (unsigned long long)agt_st.inj_loss, (unsigned long long)agt_st.inj_dup,
                (unsigned long long)agt_st.inj_reorder, (unsigned long long)agt_st.host_lost,
                (unsigned long long)agt_st.host_late, (unsigned long long)agt_st.host_late_drop);
}
