/*
 * agent_fadd_rank.c — the rank side of the agent's fetch-and-add
 * (agent_fadd.c): post the request as a FADD packet to our agent and wait
 * for the reply with our request number. Under MPI_THREAD_MULTIPLE several
 * threads may each wait for one (the wait gives the library's lock away):
 * each request waits on its caller's stack in a list, and a reply goes to
 * the request with its number.
 */
#include <errno.h>
#include <string.h>
#include "netmod/agent/agent_chan.h"
#include "netmod/agent/agent_coll.h"
#include "netmod/agent/agent_mc_rank.h"
#include "netmod/agent/agent_red.h"
#include "src/util/log.h"

typedef struct want {
    struct want *next;
    uint32_t seq;
    int done, missing;
    int64_t value;
} want;

static want *waiting;   /* requests without their reply */
static uint32_t seq_next;

void agt_fadd_rank_packet(const char *hdr, size_t hdrlen, const char *pay, size_t len)
{
    (void)pay, (void)len;
    agt_fadd_hdr h;
    if (hdrlen < sizeof h)
        cu_fatal("agent: short fetch-and-add reply");
    memcpy(&h, hdr, sizeof h);
    want **pp = &waiting;
    while (*pp && (*pp)->seq != h.seq)
        pp = &(*pp)->next;
    if (h.op != AGT_FADD_REPLY || !*pp)
        cu_fatal("agent: unexpected fetch-and-add reply (request %u)", h.seq);
    want *w = *pp;
    *pp = w->next;
    w->value = h.value;
    w->missing = h.pad[0] != 0;
    w->done = 1;
}

static int got(void *arg)
{
    return ((want *)arg)->done;
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
    want w = { .next = waiting, .seq = ++seq_next };
    waiting = &w;   /* before the post: a reply may come while it waits */
    agt_fadd_hdr h = { .owner = owner, .id = id, .from = me, .seq = w.seq,
                       .value = value, .op = (uint8_t)op };
    agt_wire wire = { .kind = AGT_K_FADD, .hdrlen = sizeof h, .src = me, .dst = owner };
    struct iovec iov[2] = { { &wire, sizeof wire }, { &h, sizeof h } };
    agt_mc_post(AGT_CMD_PIO, iov, 2);
    if (!w.done)
        agt_chan_progress_until(got, &w);
    if (w.missing)
        return -ENOENT;
    if (old)
        *old = w.value;
    return 0;
}
