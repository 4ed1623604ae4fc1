/*
 * offload.h — the device's offloaded collectives: broadcast, reductions and
 * fetch-and-add whose forwarding and combining run in the network agents
 * (the channel's optional mpid_chan_coll table, CLUMPI_NET=agent). coll/'s
 * NI algorithms call these and fall back to a host algorithm when
 * mpid_offload_usable says no.
 */
#ifndef MPID_OFFLOAD_H
#define MPID_OFFLOAD_H

#include <stdint.h>
#include "mpid/channel.h"   /* MPID_TREE_*, MPID_FADD_* */
#include "mpid/mpid.h"

/* Nonzero when comm's collectives can run in the agents (the same answer
 * on every member). */
int mpid_offload_usable(const mpid_comm *comm);
/* Nonzero when the agents hold counters (mpid_offload_fadd). */
int mpid_offload_fadd_up(void);
/* Nonzero when the agents can apply op (src/util/op.h index) to elements
 * of the predefined type basic. */
int mpid_offload_red_ok(int op, int basic);

/* Nonzero when comm's broadcasts can run in the agents only without
 * their repair (CLUMPI_AGENT_REL=host): mpid_offload_bcast then takes
 * `have` and its bytes per packet come from mpid_offload_pkt_bytes. */
int mpid_offload_lossy(const mpid_comm *comm);
size_t mpid_offload_pkt_bytes(void);

/* The operations of mpid_chan_coll on comm's collective context (shape:
 * MPID_TREE_*); each returns 0 or a negative errno (-ENOTCONN: no agents);
 * bcast with have: the packets missing (mpid_chan_coll). */
int mpid_offload_bcast(void *buf, size_t len, int root, int shape, const mpid_comm *comm,
                       uint8_t *have);
int mpid_offload_reduce(const void *in, void *out, size_t bytes, int op, int basic, int all,
                        int root, int shape, const mpid_comm *comm);
/* Fetch-and-add (MPID_FADD_*) on the counter (comm rank owner, id), held by
 * the agent of the owner's node; -ENOENT: no such counter. */
int mpid_offload_fadd(int op, const mpid_comm *comm, int owner, uint32_t id, int64_t value,
                      int64_t *old);

#endif
