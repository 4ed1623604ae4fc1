/*
 * agent_fadd_rank.c — the rank side of the agent's fetch-and-add
 * (agent_fadd.c): post the request as a FADD packet to our agent and wait
 * for the reply with our request number. One request is outstanding per
 * rank (the calls are blocking), so a reply is either ours or stale.
 */
#include <errno.h>
#include <string.h>
#include "netmod/agent/agent_chan.h"
#include "netmod/agent/agent_coll.h"
#include "netmod/agent/agent_mc_rank.h"
#include "netmod/agent/agent_red.h"
#include "src/util/log.h"

static struct { uint32_t seq; int done, missing; int64_t value; } want;

void agt_fadd_rank_packet(const char *hdr, size_t hdrlen, const char *pay, size_t len)
{
    (void)pay, (void)len;
    agt_fadd_hdr h;
    if (hdrlen < sizeof h)
        cu_fatal("agent: short fetch-and-add reply");
    memcpy(&h, hdr, sizeof h);
    if (h.op != AGT_FADD_REPLY || h.seq != want.seq || want.done)
        cu_fatal("agent: unexpected fetch-and-add reply (request %u)", h.seq);
    want.value = h.value;
    want.missing = h.pad[0] != 0;
    want.done = 1;
}

static int got(void *arg)
{
    (void)arg;
    return want.done;
}

_Static_assert((int)MPID_FADD_INIT == (int)AGT_FADD_INIT &&
                   (int)MPID_FADD_ADD == (int)AGT_FADD_ADD &&
                   (int)MPID_FADD_FREE == (int)AGT_FADD_FREE,
               "the device's fetch-and-add operations are the agent's");

int agt_coll_fadd(int op, uint32_t owner, uint32_t id, int64_t value, int64_t *old,
                  uint32_t me)
{
    if (!agt_chan_up())
        return -ENOTCONN;
    agt_fadd_hdr h = { .owner = owner, .id = id, .from = me, .seq = ++want.seq,
                       .value = value, .op = (uint8_t)op };
    agt_wire wire = { .kind = AGT_K_FADD, .hdrlen = sizeof h, .src = me, .dst = owner };
    want.done = 0;
    struct iovec iov[2] = { { &wire, sizeof wire }, { &h, sizeof h } };
    agt_mc_post(AGT_CMD_PIO, iov, 2);
    if (!want.done)
        agt_chan_progress_until(got, NULL);
    if (want.missing)
        return -ENOENT;
    if (old)
        *old = want.value;
    return 0;
}
