/*
 * progress.c — the progress engine. One pass polls every channel and then,
 * only when something waits (queued packets, rendezvous reads, streams,
 * polled requests), drains the work lists.
 *
 * Waiting, two regimes:
 *  - ranks <= cores: spin (CLUMPI_SPIN polls), then block in the channels
 *    (mpid_idle_sleep: shm futex/eventfd, network wait fd).
 *  - ranks outnumber cores (oversubscribed): poll + sched_yield until
 *    CLUMPI_YIELD_US (1 ms) of nothing happening, then block. A yielding
 *    rank is still runnable, so the peer it waits for gets the core at
 *    once and a packet sent to it costs the sender no syscall (the sleep
 *    bit in the shm queue tail stays clear); blocking at once costs a
 *    futex wake and the wakee's switch per hop. After the bounded yield
 *    the rank sleeps for real. Figures: doc/ARCHITECTURE.md, "Progress
 *    and waiting".
 *  "Cores" are the ones this host's ranks can use and "ranks" every rank on
 *  the host, not just this emulated node (CLUMPI_HOST_NRANKS/HOST_CPUS from
 *  mpirun; else the node's ranks and our affinity mask).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "mpid/mpidi.h"
#include "src/util/clock.h"
#include "src/util/log.h"
#include "src/util/param.h"

#define BUDGET 32


/* Cores the ranks of this host share: mpirun's own affinity (it runs
 * unbound, so a rank bound to one core still counts the whole set), else
 * ours. */
static long host_cpus(void)
{
    long c = cu_param_int("HOST_CPUS");
    if (c > 0)
        return c;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? c : 1;
}

int mpid_host_oversubscribed(int local_size, int agents, long *tasks)
{
    long nranks = cu_param_int("HOST_NRANKS");
    if (nranks < local_size)
        nranks = local_size;
    /* Offload mode: each node's NI agent is one more process on these
     * cores (one per local_size ranks here), and a rank spinning without a
     * yield keeps its agent off the core until it blocks. */
    if (agents)
        nranks += (nranks + local_size - 1) / local_size;
    *tasks = nranks;
    if (cu_param_int("OVERSUBSCRIBED") >= 0)
        return cu_param_int("OVERSUBSCRIBED") != 0;
    return nranks > host_cpus();
}

void mpid_progress_init(int oversubscribed, long host_tasks)
{
    mpid_st.wait.oversubscribed = oversubscribed;
    mpid_st.wait.host_tasks = host_tasks;
    mpid_st.wait.spin_polls = cu_param_int("SPIN");
    /* 1 ms by default: longer than a collective round of many ranks on
     * few cores, so the next round's packet is found by yielding; a longer
     * wait pays one futex wakeup on top of more than 1 ms. */
    mpid_st.wait.yield_ns = cu_param_int("YIELD_US") * 1000LL;
    mpid_st.wait.yield_long_ns = cu_param_int("YIELD_LONG_US") * 1000LL;
    mpid_st.wait.sleep_us = cu_param_int("SLEEP_US");
    cu_debug("progress: %ld ranks on this host, %ld cores: %s", mpid_st.wait.host_tasks, host_cpus(),
             mpid_st.wait.oversubscribed ? "oversubscribed, yield then block"
                                         : "spin then block");
}

int mpid_oversubscribed(void) { return mpid_st.wait.job_oversubscribed; }

/* One pass over the channels. net_urgent: poll the network in this pass
 * whatever its interval (a wait that only the network can end). */
static inline __attribute__((always_inline)) int progress_pass(int net_urgent)
{
    int n = 0;
    mpid_cnt.progress_passes++;
    for (int i = 0; i < mpid_st.nchans; i++)
        n += mpid_st.chans[i]->progress(BUDGET);
    if (mpid_st.net_chan && (--mpid_st.net_countdown <= 0 || net_urgent ||
                          __builtin_expect(mpid_work_pending(), 0)))
        n += mpid_net_poll();
    if (__builtin_expect(mpid_self_pending(), 0))
        n += mpid_channel_self.progress(BUDGET);
    if (__builtin_expect(mpid_work_pending(), 0))
        n += mpid_do_work();
    return n;
}

int mpid_progress(void)
{
    return progress_pass(0);
}

static inline int is_done(int (*done)(void *), void *arg)
{
    return done ? done(arg) : ((mpid_request *)arg)->done;
}

void mpid_core_yield(void)
{
    if (cu_mt)
        cu_lock_sched_yield();
    else
        sched_yield();
}

/* Inlined into their callers (the blocking calls' path): as one call,
 * not three. */
static inline __attribute__((always_inline)) int
progress_until(int (*done)(void *arg), void *arg, long block_us, int net_urgent);
static inline __attribute__((always_inline)) int
until(int (*done)(void *arg), void *arg, long block_us);

/* Blocks of at most 1 ms: a store's wake-up can be lost (see mpid.h). */
#define STORE_NAP_US 1000

int mpid_progress_until_store(int (*done)(void *arg), void *arg)
{
    long cap = mpid_st.wait.sleep_us;
    return until(done, arg, cap > STORE_NAP_US ? STORE_NAP_US : cap);
}

/* Waiting on one request whose peer is on another node: only the network
 * can complete it, so poll the network on every call meanwhile. */
static int net_only(int (*done)(void *), void *arg)
{
    if (!mpid_st.net_chan || done)
        return 0;
    int peer = mpid_req_of((mpid_request *)arg)->p.peer;
    return peer >= 0 && peer < mpid_st.dyn_top && mpid_st.dests[peer].ch == mpid_st.net_chan;
}

int mpid_progress_until(int (*done)(void *arg), void *arg)
{
    return until(done, arg, mpid_st.wait.sleep_us);
}

/* A wait blocking for at most block_us at a time; one that only the network
 * can end polls it on every pass. */
static inline int until(int (*done)(void *arg), void *arg, long block_us)
{
    int net_urgent = __builtin_expect(mpid_st.net_chan != NULL, 0) && net_only(done, arg);
    return progress_until(done, arg, block_us, net_urgent);
}

/* Oversubscribed: poll, yielding the core whenever a pass finds nothing,
 * until CLUMPI_YIELD_US pass without progress. 1 when done.
 * Yields that keep us off the core for long (CLUMPI_YIELD_LONG_US), one
 * after another, mean processes outside the job run whole slices, and a
 * blocked rank gets back faster, by wakeup preemption: switch to blocking
 * for a while. One long yield alone is a burst (a process starting, a
 * compiler's slice) after which yielding is fast again, while blocking
 * makes every hop of the off time a futex wake-up: the switch takes
 * LONG_RUN long yields, each starting within LONG_GAP_NS of the last one's
 * end (under lasting load every yield is long). The bound must stay above a
 * round of yields among the job's own ranks (doc/ARCHITECTURE.md, "Progress
 * and waiting"), but the job's own large copies can still make a run, and
 * blocking then only adds wake-ups: so the switch trips only if, at the end of one of the
 * run's yields, the host had more runnable tasks than the job has
 * processes here (foreign_load). The off time starts at YIELD_OFF_MIN_NS
 * and doubles up to YIELD_OFF_NS while the switch trips again soon after
 * the last off time ended, as it does under lasting load. The count misses
 * foreign tasks while enough of the job's ranks are blocked, hence
 * evidence from any yield of the run. */
#define YIELD_OFF_MIN_NS 5000000LL
#define YIELD_OFF_NS  100000000LL
#define LONG_RUN      3
#define LONG_GAP_NS   10000000LL

/* Oversubscribed and yielding is on (not switched off by a long yield). */
static int yielding(void)
{
    return mpid_st.wait.oversubscribed && mpid_st.wait.yield_ns > 0 &&
           (mpid_st.wait.noyield_until == 0 ||
            cu_now_ns() >= mpid_st.wait.noyield_until);
}

/* A yield counts toward the next network look as that many empty passes
 * as the time it took covers: netpoll.c's interval is sized for passes of
 * nanoseconds, a yield takes up to a slice, and without the charge a rank
 * yielding across nodes would look at the network far too rarely. A test
 * call counts 16 ns a pass, a wait 64, which keeps a wait's looks from
 * slowing shm (doc/PERFORMANCE.md, "Progress by test calls"). A wait on
 * the network alone polls it every pass anyway (progress_pass). */
static long long yield_charged(int ns_per_pass)
{
    long long t = cu_now_ns();
    mpid_core_yield();
    mpid_cnt.yields++;
    long long d = cu_now_ns() - t;
    if (mpid_st.net_chan) {   /* (else nothing resets the count) */
        long long passes = d / ns_per_pass;
        mpid_st.net_countdown -= passes < 1024 ? (int)passes : 1024;
    }
    return d;
}

/* 1 when the host has more runnable tasks than the job has processes on
 * it (the running count of /proc/loadavg, which counts us; its sum over
 * all of the host's cores), or when that cannot be read. Read only after a
 * long yield, which took a millisecond or more. */
static int foreign_load(void)
{
    char buf[128];
    int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    long running;
    if (n <= 0)
        return 1;
    buf[n] = 0;
    if (sscanf(buf, "%*s %*s %*s %ld/", &running) != 1)
        return 1;
    return running > mpid_st.wait.host_tasks;
}

/* sched_yield; 0 when it was the last of a run of long ones: yielding is
 * then off for a while. */
static int yield_core(void)
{
    long long d = yield_charged(64);
    if (mpid_st.wait.yield_long_ns <= 0 || d <= mpid_st.wait.yield_long_ns)
        return 1;
    long long now = cu_now_ns();
    if (now - d - mpid_st.wait.long_end > LONG_GAP_NS)
        mpid_st.wait.long_run = mpid_st.wait.run_foreign = 0;
    mpid_st.wait.long_end = now;
    if (!mpid_st.wait.run_foreign)
        mpid_st.wait.run_foreign = foreign_load();
    if (++mpid_st.wait.long_run < LONG_RUN)
        return 1;
    int foreign = mpid_st.wait.run_foreign;
    mpid_st.wait.long_run = mpid_st.wait.run_foreign = 0;
    if (!foreign)
        return 1;   /* the job's own copies: its ranks come back by yielding */
    long long start = now - d, off = mpid_st.wait.off_ns;
    if (mpid_st.wait.noyield_until == 0 || start - mpid_st.wait.noyield_until > 2 * off)
        off = YIELD_OFF_MIN_NS;   /* a burst: back to the short switch */
    else
        off = off * 2 > YIELD_OFF_NS ? YIELD_OFF_NS : off * 2;
    mpid_st.wait.off_ns = off;
    mpid_st.wait.noyield_until = start + off;
    cu_debug("progress: %d long yields, foreign tasks runnable: blocking for %lld ms", LONG_RUN,
             off / 1000000);
    return 0;
}

static int yield_until(int (*done)(void *arg), void *arg, int net_urgent)
{
    long long t0 = 0;
    for (;;) {
        if (is_done(done, arg))
            return 1;
        if (progress_pass(net_urgent) > 0) {
            t0 = 0;   /* the window restarts */
            mpid_pass_done();
            continue;
        }
        long long t = cu_now_ns();
        if (t0 == 0)
            t0 = t;
        else if (t - t0 >= mpid_st.wait.yield_ns)
            return 0;
        if (!yield_core())
            return 0;
    }
}

/* One pass for a test call (MPI_Test*, MPI_Request_get_status, MPI_Iprobe)
 * that has not found what it looks for. Oversubscribed, a pass that moved
 * nothing also yields the core: a program's loop of tests otherwise keeps
 * it from the ranks it waits for until its time slice ends. Always, not
 * under the long-yield switch (yield_core): a wait can block instead, a
 * loop of tests cannot, and a loop spinning for whole slices makes its
 * core-mates' yields slow so that they switch off too. */
int mpid_progress_test(void)
{
    int n = mpid_progress();
    if (n == 0 && mpid_st.wait.oversubscribed && mpid_st.wait.yield_ns > 0)
        yield_charged(16);
    return n;
}

static inline int progress_until(int (*done)(void *arg), void *arg, long block_us,
                                 int net_urgent)
{
    for (;;) {
        if (mpid_st.wait.oversubscribed) {
            if (yielding()) {
                if (yield_until(done, arg, net_urgent))
                    return 0;
            } else {
                /* block after one pass: more polls before blocking only
                 * delay the peer that holds the core */
                progress_pass(net_urgent);
                mpid_pass_done();
            }
        } else {
            /* one pass at least: with CLUMPI_SPIN=0 a wait that has
             * packets to push out (below) otherwise never polls again */
            for (long i = 0; i < mpid_st.wait.spin_polls || i == 0; i++) {
                if (is_done(done, arg))
                    return 0;
                progress_pass(net_urgent);
                mpid_pass_done();
            }
        }
        if (is_done(done, arg))
            return 0;
        /* Blocked. A wakeup that does not finish the wait and brings no
         * packet (a timeout, a bounded nap) goes back to sleep after one
         * pass instead of spinning again: waits that need many wakeups
         * (polled requests, bounded naps) would otherwise spin most of the
         * time. A wakeup that brings packets means a peer is talking to us
         * again: spin/yield again, the next step is likely soon. */
        for (;;) {
            /* Packets we still have to push out depend on a peer draining
             * its queue, which wakes nobody: keep polling, but yield. */
            if (mpid_st.dirty || mpid_st.streams || mpid_self_pending()) {
                mpid_core_yield();
                break;
            }
            if (__builtin_expect(cu_mt, 0)) {
                /* threads that waited while we slept go first; what they
                 * did may have finished our wait */
                cu_lock_yield();
                if (is_done(done, arg))
                    return 0;
            }
            mpid_idle_sleep(mpid_st.polled ? 1000 : block_us);
            mpid_cnt.blocks++;
            int n = progress_pass(net_urgent);
            if (is_done(done, arg))
                return 0;
            if (n > 0 && !mpid_st.polled)
                break;
        }
    }
}
