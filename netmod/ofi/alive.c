/*
 * alive.c — telling a vanished peer from a quiet one.
 *
 * An RDM endpoint says a peer is gone only by failing an operation that was
 * in flight to it when its connection broke (progress.c then ends the
 * job naming the peer). Operations started later get nothing: net retries
 * the refused connection forever, without an error. A rank that waits for
 * a packet (a pipelined rendezvous receiver whose CTS met a dead sender) or
 * for a read from a dead peer would wait forever if the death does not
 * reach mpirun (the peer's host vanished). So a rank that has waited
 * OFI_QUIET_NS without a completion sends each peer it has talked to an
 * empty probe (with a completion): a live peer's kernel takes 8 bytes at
 * once, whether or not the peer runs. A probe still not sent after
 * CLUMPI_OFI_PROBE_S seconds, posted when nothing else of ours was queued to
 * that peer (so it is not stuck behind data a busy peer has not read yet),
 * means the peer's endpoint is gone: the job ends naming it (about 7 s
 * after the death with 5 s). Busy ranks do not probe; an idle one sends
 * one small packet per peer and second. A peer that finalized says so
 * first (OFI_WIRE_BYE), so that a probe failing on its closed endpoint is
 * no error.
 * Opt-in (CLUMPI_OFI_PROBE_S=seconds, 0 by default): a live peer that does
 * not read its socket for that long while it is full of our small
 * (injected, so not counted) packets looks the same from here. Measured:
 * 200,000 100-byte sends to a peer asleep for 8 s, then a wait for it: the
 * probe queued behind them and ended a correct job. Where mpirun sees the
 * processes (emulated nodes, ssh that dies with the rank) it ends the job
 * anyway; probes are for hosts that can vanish silently.
 * Processes of other jobs (dynamic peers) are probed by default
 * (CLUMPI_DYN_PROBE_S, 5 s): no mpirun of ours sees them die, and a
 * receive from one that did would wait forever. Their loss does not end
 * the job: the peer is marked lost (a warning names its slot and address),
 * nothing more is sent or probed to it, and the device fails what waits
 * for it (mpid/peer_lost.c).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "netmod/ofi/fab.h"
#include "src/util/clock.h"
#include "src/util/param.h"

#define OFI_QUIET_NS 1000000000LL   /* idle this long: probe */

/* The limit for peer r: world ranks and dynamic peers have their own. */
static long long limit_of(int r)
{
    return r < fab_st.size ? fab_st.probe_limit_ns : fab_st.dyn_limit_ns;
}

int fab_alive_open(void)
{
    size_t n = (size_t)fab_st.cap;
    fab_st.probe_limit_ns = cu_param_int("OFI_PROBE_S") * 1000000000LL;
    fab_st.dyn_limit_ns = cu_param_int("DYN_PROBE_S") * 1000000000LL;
    fab_st.dyn_top = fab_st.size;
    fab_st.bye = calloc(n, 1);
    fab_st.tx_out = calloc((size_t)fab_st.cap, sizeof *fab_st.tx_out);
    fab_st.probe_at = calloc(n, sizeof *fab_st.probe_at);
    fab_st.probe_again = calloc(n, sizeof *fab_st.probe_again);
    fab_st.probe_judged = calloc(n, 1);
    fab_st.probe_ctx = calloc(n, sizeof *fab_st.probe_ctx);
    fab_st.lost = calloc(n, 1);
    if (!fab_st.bye || !fab_st.tx_out || !fab_st.probe_at || !fab_st.probe_again ||
        !fab_st.probe_judged || !fab_st.probe_ctx || !fab_st.lost)
        return -1;
    return 0;
}

void fab_alive_close(void)
{
    if (fab_st.probe_mr)
        fi_close(&fab_st.probe_mr->fid);
    free(fab_st.bye);
    free(fab_st.tx_out);
    free(fab_st.probe_at);
    free(fab_st.probe_again);
    free(fab_st.probe_judged);
    free(fab_st.probe_ctx);
    free(fab_st.lost);
    fab_st.lost = NULL;
    fab_st.lost_news = 0;
}

int fab_alive_probe_peer(const void *ctx)
{
    if (!fab_st.probe_ctx)
        return -1;
    const struct fi_context2 *c = ctx;
    if (c < fab_st.probe_ctx || c >= fab_st.probe_ctx + fab_st.cap)
        return -1;
    return (int)(c - fab_st.probe_ctx);
}

void fab_alive_probe_done(int rank)
{
    fab_st.probe_at[rank] = 0;
}

/* Probe `rank`, or judge the probe already out to it. */
static void probe(int rank, long long t)
{
    if (fab_st.bye[rank] || fab_lost(rank))
        return;
    if (fab_st.probe_at[rank]) {
        if (fab_st.probe_judged[rank] && t - fab_st.probe_at[rank] > limit_of(rank))
            fab_lost_peer(rank, FI_ETIMEDOUT, "an 8-byte probe could not be sent in "
                                              "CLUMPI_OFI_PROBE_S (_DYN_PROBE_S)");
        return;
    }
    if (!fab_st.probe_desc && fab_st.mr_local &&
        fab_mr_reg(&fab_st.probe_msg, sizeof fab_st.probe_msg, FI_SEND, &fab_st.probe_mr,
                   &fab_st.probe_desc))
        return;
    fab_st.probe_msg = (fab_wire){ .src = (uint32_t)fab_st.rank, .kind = OFI_WIRE_PROBE };
    ssize_t rc = fi_send(fab_st.ep, &fab_st.probe_msg, sizeof fab_st.probe_msg,
                         fab_st.probe_desc, fab_st.addr[rank], &fab_st.probe_ctx[rank]);
    if (rc == -FI_EAGAIN) {
        /* net says EAGAIN while it retries a refused connection: that
         * counts as not sent, unless our own data is queued first */
        if (!fab_st.probe_again[rank] || fab_st.tx_out[rank])
            fab_st.probe_again[rank] = t;
        else if (t - fab_st.probe_again[rank] > limit_of(rank))
            fab_lost_peer(rank, FI_ETIMEDOUT, "an 8-byte probe could not be sent in "
                                              "CLUMPI_OFI_PROBE_S (_DYN_PROBE_S)");
        return;
    }
    if (rc) {
        fab_lost_peer(rank, (int)-rc, NULL);
        return;
    }
    fab_st.probe_again[rank] = 0;
    fab_st.probe_at[rank] = t;
    fab_st.probe_judged[rank] = fab_st.tx_out[rank] == 0;
}

void fab_alive_check(int only)
{
    if (fab_st.probe_limit_ns <= 0 && (fab_st.dyn_limit_ns <= 0 || fab_st.dyn_top == fab_st.size))
        return;
    long long t = cu_now_ns();
    if (fab_st.ncqe != fab_st.quiet_cqe || !fab_st.quiet_ns) {
        fab_st.quiet_cqe = fab_st.ncqe;
        fab_st.quiet_ns = t;
    }
    if (t - fab_st.quiet_ns < OFI_QUIET_NS || t - fab_st.probe_ns < OFI_QUIET_NS)
        return;
    fab_st.probe_ns = t;
    for (int r = fab_st.probe_limit_ns > 0 ? 0 : fab_st.size; r < fab_st.dyn_top; r++)
        if ((only < 0 || r == only) && fab_st.addr[r] != FI_ADDR_NOTAVAIL && limit_of(r) > 0)
            probe(r, t);
}

/* Probes out and not yet answered: while one is, idle sleeps are short
 * naps (wait.c), because net moves a connection to a dead peer along
 * (refusals, retries) only inside progress calls; blocked on the CQ fd
 * for the 100 ms timeouts, judging the probe took ~11 s instead of ~7. */
int fab_alive_probing(void)
{
    if (fab_st.probe_limit_ns <= 0 && (fab_st.dyn_limit_ns <= 0 || fab_st.dyn_top == fab_st.size))
        return 0;
    for (int r = 0; r < fab_st.dyn_top; r++)
        if (fab_st.probe_at[r] || fab_st.probe_again[r])
            return 1;
    return 0;
}

void fab_alive_bye(void)
{
    fab_wire w = { .src = (uint32_t)fab_st.rank, .kind = OFI_WIRE_BYE };
    for (int r = 0; r < fab_st.dyn_top; r++) {
        if (fab_st.addr[r] == FI_ADDR_NOTAVAIL || fab_lost(r))
            continue;
        if (r >= fab_st.size)   /* a dynamic peer knows us by its own number */
            w.src = fab_st.dyn_src[r - fab_st.size];
        for (int k = 0; k < 1000 && fi_inject(fab_st.ep, &w, sizeof w, fab_st.addr[r]) == -FI_EAGAIN;
             k++)
            fab_poll(16);
    }
}

int fab_alive_said_bye(int rank)
{
    return fab_st.bye && (unsigned)rank < (unsigned)fab_st.cap && fab_st.bye[rank];
}

void fab_alive_reset(int peer)
{
    fab_st.bye[peer] = 0;
    fab_st.probe_again[peer] = 0;
    fab_st.probe_judged[peer] = 0;
    fab_st.probe_at[peer] = 0;
    fab_st.lost[peer] = 0;
    if (peer >= fab_st.dyn_top)
        fab_st.dyn_top = peer + 1;
}

int fab_alive_packet(const fab_wire *w)
{
    if (w->kind == OFI_WIRE_DATA)
        return 0;
    if (w->kind == OFI_WIRE_BYE)
        fab_st.bye[w->src] = 1;
    return 1;
}
