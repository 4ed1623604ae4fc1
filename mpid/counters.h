/*
 * counters.h — the device's per-process counters: messages and bytes per
 * channel, the protocol each send took, the lengths of the matching
 * queues, progress passes, yields and blocks, and in offload mode how this
 * rank hands packets to its NI agent (netmod/agent/agent_chan.c). MPI_T's
 * performance variables read them (src/mpit/pvar.c); the device and the
 * channels only increment, with plain adds (no atomics, no branches but the
 * high-water marks').
 */
#ifndef MPID_COUNTERS_H
#define MPID_COUNTERS_H

#include <stddef.h>

/* The channel kinds messages are counted by. */
enum { MPID_CNT_SELF, MPID_CNT_SHM, MPID_CNT_NET, MPID_CNT_KINDS };

typedef struct mpid_counters {
    unsigned long long sent_msgs[MPID_CNT_KINDS], sent_bytes[MPID_CNT_KINDS];
    unsigned long long recv_msgs[MPID_CNT_KINDS], recv_bytes[MPID_CNT_KINDS];
    unsigned long long eager_sent, rndv_sent;   /* messages by protocol */
    unsigned long long unexp_len, unexp_hwm;    /* unexpected messages queued */
    unsigned long long posted_len, posted_hwm;  /* receives posted, unmatched */
    unsigned long long progress_passes, yields, blocks;
    /* offload mode, this rank's side of its node's NI agent */
    unsigned long long agent_pio, agent_pio_slots;   /* sends copied into slots */
    unsigned long long agent_dma;                    /* sends the agent pulls */
    unsigned long long agent_slot_waits;             /* sends that found no free slot */
    unsigned long long agent_doorbells;              /* wake-ups of a sleeping agent */
    unsigned long long dyn_slots, dyn_slots_hwm;     /* routed processes of other jobs */
} mpid_counters;

extern mpid_counters mpid_cnt;

/* A send of `bytes` to a rank behind channel kind `kind`, when called. */
static inline void mpid_count_send(int kind, size_t bytes)
{
    mpid_cnt.sent_msgs[kind]++;
    mpid_cnt.sent_bytes[kind] += bytes;
}

/* Its protocol, counted when its first packet leaves: a send queued
 * behind others meets the eager limit of that moment, and an eager send
 * the receiver's buffers refuse goes by rendezvous. */
static inline void mpid_count_eager(void) { mpid_cnt.eager_sent++; }
static inline void mpid_count_rndv(void) { mpid_cnt.rndv_sent++; }

/* A message of `bytes` arrived (before matching). */
static inline void mpid_count_recv(int kind, size_t bytes)
{
    mpid_cnt.recv_msgs[kind]++;
    mpid_cnt.recv_bytes[kind] += bytes;
}

static inline void mpid_count_unexp_add(void)
{
    if (++mpid_cnt.unexp_len > mpid_cnt.unexp_hwm)
        mpid_cnt.unexp_hwm = mpid_cnt.unexp_len;
}
static inline void mpid_count_unexp_del(void) { mpid_cnt.unexp_len--; }

static inline void mpid_count_posted_add(void)
{
    if (++mpid_cnt.posted_len > mpid_cnt.posted_hwm)
        mpid_cnt.posted_hwm = mpid_cnt.posted_len;
}
static inline void mpid_count_posted_del(void) { mpid_cnt.posted_len--; }

#endif
