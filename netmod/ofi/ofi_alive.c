/*
 * ofi_alive.c — telling a vanished peer from a quiet one.
 *
 * An RDM endpoint says a peer is gone only by failing an operation that was
 * in flight to it when its connection broke (ofi_progress.c then ends the
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
 * receive from one that did would wait forever. Their loss ends the job
 * naming the peer's slot and address.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "netmod/ofi/ofi.h"
#include "src/util/clock.h"
#include "src/util/param.h"

#define OFI_QUIET_NS 1000000000LL   /* idle this long: probe */

static long long probe_limit_ns;   /* a probe not sent after this: lost peer; 0: off */
static long long dyn_limit_ns;     /* the same for dynamic peers */

/* The limit for peer r: world ranks and dynamic peers have their own. */
static long long limit_of(int r)
{
    return r < ofi_st.size ? probe_limit_ns : dyn_limit_ns;
}

int ofi_alive_open(void)
{
    size_t n = (size_t)ofi_st.cap;
    probe_limit_ns = cu_param_int("OFI_PROBE_S") * 1000000000LL;
    dyn_limit_ns = cu_param_int("DYN_PROBE_S") * 1000000000LL;
    ofi_st.dyn_top = ofi_st.size;
    ofi_st.bye = calloc(n, 1);
    ofi_st.tx_out = calloc((size_t)ofi_st.cap, sizeof *ofi_st.tx_out);
    ofi_st.probe_at = calloc(n, sizeof *ofi_st.probe_at);
    ofi_st.probe_again = calloc(n, sizeof *ofi_st.probe_again);
    ofi_st.probe_judged = calloc(n, 1);
    ofi_st.probe_ctx = calloc(n, sizeof *ofi_st.probe_ctx);
    if (!ofi_st.bye || !ofi_st.tx_out || !ofi_st.probe_at || !ofi_st.probe_again ||
        !ofi_st.probe_judged ||
        !ofi_st.probe_ctx)
        return -1;
    return 0;
}

void ofi_alive_close(void)
{
    if (ofi_st.probe_mr)
        fi_close(&ofi_st.probe_mr->fid);
    free(ofi_st.bye);
    free(ofi_st.tx_out);
    free(ofi_st.probe_at);
    free(ofi_st.probe_again);
    free(ofi_st.probe_judged);
    free(ofi_st.probe_ctx);
}

int ofi_alive_probe_peer(const void *ctx)
{
    if (!ofi_st.probe_ctx)
        return -1;
    const struct fi_context2 *c = ctx;
    if (c < ofi_st.probe_ctx || c >= ofi_st.probe_ctx + ofi_st.cap)
        return -1;
    return (int)(c - ofi_st.probe_ctx);
}

void ofi_alive_probe_done(int rank)
{
    ofi_st.probe_at[rank] = 0;
}

/* Probe `rank`, or judge the probe already out to it. */
static void probe(int rank, long long t)
{
    if (ofi_st.bye[rank])
        return;
    if (ofi_st.probe_at[rank]) {
        if (ofi_st.probe_judged[rank] && t - ofi_st.probe_at[rank] > limit_of(rank))
            ofi_lost_peer(rank, FI_ETIMEDOUT, "an 8-byte probe could not be sent in "
                                              "CLUMPI_OFI_PROBE_S (_DYN_PROBE_S)");
        return;
    }
    if (!ofi_st.probe_desc && ofi_st.mr_local &&
        ofi_mr_reg(&ofi_st.probe_msg, sizeof ofi_st.probe_msg, FI_SEND, &ofi_st.probe_mr,
                   &ofi_st.probe_desc))
        return;
    ofi_st.probe_msg = (ofi_wire){ .src = (uint32_t)ofi_st.rank, .kind = OFI_WIRE_PROBE };
    ssize_t rc = fi_send(ofi_st.ep, &ofi_st.probe_msg, sizeof ofi_st.probe_msg,
                         ofi_st.probe_desc, ofi_st.addr[rank], &ofi_st.probe_ctx[rank]);
    if (rc == -FI_EAGAIN) {
        /* net says EAGAIN while it retries a refused connection: that
         * counts as not sent, unless our own data is queued first */
        if (!ofi_st.probe_again[rank] || ofi_st.tx_out[rank])
            ofi_st.probe_again[rank] = t;
        else if (t - ofi_st.probe_again[rank] > limit_of(rank))
            ofi_lost_peer(rank, FI_ETIMEDOUT, "an 8-byte probe could not be sent in "
                                              "CLUMPI_OFI_PROBE_S (_DYN_PROBE_S)");
        return;
    }
    if (rc)
        ofi_lost_peer(rank, (int)-rc, NULL);
    ofi_st.probe_again[rank] = 0;
    ofi_st.probe_at[rank] = t;
    ofi_st.probe_judged[rank] = ofi_st.tx_out[rank] == 0;
}

void ofi_alive_check(int only)
{
    if (probe_limit_ns <= 0 && (dyn_limit_ns <= 0 || ofi_st.dyn_top == ofi_st.size))
        return;
    long long t = cu_now_ns();
    if (ofi_st.ncqe != ofi_st.quiet_cqe || !ofi_st.quiet_ns) {
        ofi_st.quiet_cqe = ofi_st.ncqe;
        ofi_st.quiet_ns = t;
    }
    if (t - ofi_st.quiet_ns < OFI_QUIET_NS || t - ofi_st.probe_ns < OFI_QUIET_NS)
        return;
    ofi_st.probe_ns = t;
    for (int r = probe_limit_ns > 0 ? 0 : ofi_st.size; r < ofi_st.dyn_top; r++)
        if ((only < 0 || r == only) && ofi_st.addr[r] != FI_ADDR_NOTAVAIL && limit_of(r) > 0)
            probe(r, t);
}

/* Probes out and not yet answered: while one is, idle sleeps are short
 * naps (ofi_wait.c), because net moves a connection to a dead peer along
 * (refusals, retries) only inside progress calls; blocked on the CQ fd
 * for the 100 ms timeouts, judging the probe took ~11 s instead of ~7. */
int ofi_alive_probing(void)
{
    if (probe_limit_ns <= 0 && (dyn_limit_ns <= 0 || ofi_st.dyn_top == ofi_st.size))
        return 0;
    for (int r = 0; r < ofi_st.dyn_top; r++)
        if (ofi_st.probe_at[r] || ofi_st.probe_again[r])
            return 1;
    return 0;
}

void ofi_alive_bye(void)
{
    ofi_wire w = { .src = (uint32_t)ofi_st.rank, .kind = OFI_WIRE_BYE };
    for (int r = 0; r < ofi_st.dyn_top; r++) {
        if (ofi_st.addr[r] == FI_ADDR_NOTAVAIL)
            continue;
        if (r >= ofi_st.size)   /* a dynamic peer knows us by its own number */
            w.src = ofi_st.dyn_src[r - ofi_st.size];
        for (int k = 0; k < 1000 && fi_inject(ofi_st.ep, &w, sizeof w, ofi_st.addr[r]) == -FI_EAGAIN;
             k++)
            ofi_poll(16);
    }
}

int ofi_alive_said_bye(int rank)
{
    return ofi_st.bye && (unsigned)rank < (unsigned)ofi_st.cap && ofi_st.bye[rank];
}

void ofi_alive_reset(int peer)
{
    ofi_st.bye[peer] = 0;
    ofi_st.probe_again[peer] = 0;
    ofi_st.probe_judged[peer] = 0;
    if (peer >= ofi_st.dyn_top)
        ofi_st.dyn_top = peer + 1;
}

int ofi_alive_packet(const ofi_wire *w)
{
    if (w->kind == OFI_WIRE_DATA)
        return 0;
    if (w->kind == OFI_WIRE_BYE)
        ofi_st.bye[w->src] = 1;
    return 1;
}
