/*
 * progress.c — the progress engine. One pass polls every channel and then,
 * only when something waits (queued packets, rendezvous reads, streams,
 * polled requests), drains the work lists. Waiting spins briefly and then
 * blocks in the shm channel (arm_sleep/sleep/disarm_sleep), so ranks that
 * outnumber the cores hand the core to the peer they are waiting for.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include "mpid/mpidi.h"
#include "src/util/param.h"

const mpid_channel *mpid_chans[4];
int mpid_nchans;
const mpid_channel *mpid_sleep_chan;

#define BUDGET 32

static long spin_polls = 4000;   /* polls before blocking */
static long sleep_us = 100000;   /* blocking timeout: a safety net only */
static int oversubscribed;

void mpid_progress_init(int local_size)
{
    /* Compare with the machine's processors, not our affinity mask: a rank
     * bound to one core is not oversubscribed. */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    oversubscribed = local_size > (online > 0 ? online : 1);
    /* Oversubscribed, the peer we wait for needs our core: block at once
     * (measured: 8 ranks on 2 cores, ring hop 2.6-2.9 us with 1 poll,
     * 8-10 us with 4-256). */
    spin_polls = cu_param_int("SPIN", oversubscribed ? 1 : 4000);
    sleep_us = cu_param_int("SLEEP_US", 100000);
}

int mpid_progress(void)
{
    int n = 0;
    for (int i = 0; i < mpid_nchans; i++)
        n += mpid_chans[i]->progress(BUDGET);
    if (mpid_net_chan && (--mpid_net_countdown <= 0 || mpid_net_urgent ||
                          __builtin_expect(mpid_work_pending(), 0)))
        n += mpid_net_poll();
    if (__builtin_expect(mpid_self_pending(), 0))
        n += mpid_channel_self.progress(BUDGET);
    if (__builtin_expect(mpid_work_pending(), 0))
        n += mpid_do_work();
    return n;
}

static inline int is_done(int (*done)(void *), void *arg)
{
    return done ? done(arg) : ((mpid_request *)arg)->done;
}

static int progress_until(int (*done)(void *arg), void *arg);

/* Waiting on one request whose peer is on another node: only the network
 * can complete it, so poll the network on every call meanwhile. */
static int net_only(int (*done)(void *), void *arg)
{
    if (!mpid_net_chan || done)
        return 0;
    int peer = mpid_req_of((mpid_request *)arg)->p.peer;
    return peer >= 0 && peer < mpid_my_world_size && mpid_dests[peer].ch == mpid_net_chan;
}

int mpid_progress_until(int (*done)(void *arg), void *arg)
{
    int urgent = mpid_net_urgent;
    if (__builtin_expect(mpid_net_chan != NULL, 0))
        mpid_net_urgent = net_only(done, arg);
    int rc = progress_until(done, arg);
    mpid_net_urgent = urgent;
    return rc;
}

static int progress_until(int (*done)(void *arg), void *arg)
{
    for (;;) {
        for (long i = 0; i < spin_polls; i++) {
            if (is_done(done, arg))
                return 0;
            if (mpid_progress() == 0 && oversubscribed)
                sched_yield();
        }
        if (is_done(done, arg))
            return 0;
        /* Blocked. A wakeup that does not finish the wait (a timeout, a
         * packet for something else) goes back to sleep after one pass
         * instead of spinning again: waits that need many wakeups (polled
         * requests, bounded naps) would otherwise spin most of the time. */
        for (;;) {
            /* Packets we still have to push out depend on a peer draining
             * its queue, which wakes nobody: keep polling, but yield. */
            if (mpid_dirty || mpid_pump || mpid_self_pending()) {
                sched_yield();
                break;
            }
            mpid_idle_sleep(mpid_others ? 1000 : sleep_us);
            mpid_progress();
            if (is_done(done, arg))
                return 0;
        }
    }
}
