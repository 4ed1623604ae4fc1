/*
 * netpoll.c — when progress polls the network channel, and how an idle rank
 * blocks on every channel at once.
 *
 * Adaptive polling (after Lumetta et al.): shm is polled on every progress call;
 * the network every `interval` calls, set by how many of the last 32 network
 * polls found a packet: every ival_max calls with no hits, down to every
 * ival_min calls with 8 or more. The paper's 1-in-8..1-in-32 came from a
 * 10x cost ratio between an empty network poll and an empty local one; here
 * it is 25-30x (an empty fi_cq_read enters the provider's socket progress),
 * so the network may take ~10% of an idle polling loop at 1 in 256 (the
 * costs: doc/ARCHITECTURE.md, "Progress and waiting"). When packets keep
 * coming the network is polled on every call (ival_min = 1).
 * CLUMPI_NET_POLL_MIN / CLUMPI_NET_POLL_MAX override both.
 * A wait on a network-only event, and any pending device work, poll the
 * network on every pass (progress.c).
 *
 * Idle blocking: with one sleep-capable channel its own arm/sleep/disarm
 * (shm's futex, or the CQ wait fd). With shm and the network together both
 * are armed and their wait fds polled at once: shm's is an eventfd its
 * local peers write (shmmod/shm.c), the network's the CQ wait fd. A channel
 * without a wait fd (shm when peers could not get the eventfd, a CQ fd
 * given up as spurious) makes it a bounded sleep (CLUMPI_NET_NAP_US) so it
 * is looked at again soon; the shared eventfd lets a blocked rank sleep
 * through instead of waking every nap, and wake sooner.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "mpid/mpidi.h"
#include "src/util/biglock.h"
#include "src/util/param.h"



void mpid_net_init(const mpid_channel *ch)
{
    mpid_st.net_chan = ch;
    mpid_st.net.hit_bits = 0;
    mpid_st.net.ival_min = (int)cu_param_int("NET_POLL_MIN");
    mpid_st.net.ival_max = (int)cu_param_int("NET_POLL_MAX");
    if (mpid_st.net.ival_min < 1)
        mpid_st.net.ival_min = 1;
    if (mpid_st.net.ival_max < mpid_st.net.ival_min)
        mpid_st.net.ival_max = mpid_st.net.ival_min;
    mpid_st.net.nap_us = cu_param_int("NET_NAP_US");
    mpid_st.net_countdown = 0;
}

int mpid_net_poll(void)
{
    int n = mpid_st.net_chan->progress(32);
    mpid_st.net.hit_bits = (mpid_st.net.hit_bits << 1) | (n > 0);
    int hits = __builtin_popcount(mpid_st.net.hit_bits);
    /* 0 hits: every ival_max calls; 8 or more of 32: every ival_min */
    int lo = mpid_st.net.ival_min, hi = mpid_st.net.ival_max;
    int iv = hits >= 8 ? lo : hi - (hi - lo) * hits / 8;
    mpid_st.net_countdown = iv;
    return n;
}

static void nap(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/*
 * MPI_THREAD_MULTIPLE: the thread that blocks here releases the library
 * lock for the block and stays the device's sleeper (src/util/biglock.h);
 * another thread that wants the lock kicks it: through shm's own wake-up
 * (its futex word or eventfd) when shm is armed, and through kick_fd,
 * which every other block polls too (the network's fd, bounded naps).
 */

static void idle_kick(void)
{
    if (mpid_st.sleep_chan && mpid_st.sleep_chan->wake)
        mpid_st.sleep_chan->wake(mpid_st.world_rank);
    if (mpid_st.net.kick_fd >= 0) {
        uint64_t one = 1;
        if (write(mpid_st.net.kick_fd, &one, sizeof one) < 0) {
            /* EAGAIN only: it is readable already */
        }
    }
}

void mpid_thread_multiple(void)
{
    mpid_st.net.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    cu_lock_set_kick(idle_kick);
}

/* MULTIPLE: a block on the fds p[0..nfd) and kick_fd for at most
 * timeout_us (< 0: no limit); returns what ppoll did (the kick's entry is
 * drained and not reported in revents of p). */
static int block_fds(struct pollfd *p, int nfd, long timeout_us)
{
    struct pollfd q[4];
    for (int i = 0; i < nfd; i++)
        q[i] = p[i];
    q[nfd] = (struct pollfd){ .fd = mpid_st.net.kick_fd, .events = POLLIN };
    struct timespec ts = { timeout_us / 1000000, (timeout_us % 1000000) * 1000 };
    int d = cu_lock_sleep_begin();
    int rc = ppoll(q, (nfds_t)nfd + 1, timeout_us < 0 ? NULL : &ts, NULL);
    cu_lock_sleep_end(d);
    if (rc > 0 && q[nfd].revents) {
        uint64_t v;
        if (read(mpid_st.net.kick_fd, &v, sizeof v) < 0) {
            /* EAGAIN: another reader drained it */
        }
    }
    for (int i = 0; i < nfd; i++)
        p[i].revents = q[i].revents;
    return rc;
}

/* A channel's own sleep, with the lock released under MULTIPLE. */
static void chan_sleep(const mpid_channel *ch, long timeout_us)
{
    int d = cu_lock_sleep_begin();
    ch->sleep(timeout_us);
    cu_lock_sleep_end(d);
}

void mpid_idle_sleep(long timeout_us)
{
    /* a direct endpoint beside the agent (offload mode, other jobs) has
     * nothing that wakes us: look at it again soon */
    if (__builtin_expect(mpid_st.dyn_chan != NULL, 0) && mpid_st.dyn_chan != mpid_st.net_chan &&
        (timeout_us < 0 || timeout_us > mpid_st.net.nap_us))
        timeout_us = mpid_st.net.nap_us;
    if (mpid_st.net_chan && mpid_st.net_chan->sleep_bound)
        timeout_us = mpid_st.net_chan->sleep_bound(timeout_us);
    const mpid_channel *ch[2];
    int n = 0;
    if (mpid_st.sleep_chan && mpid_st.sleep_chan->arm_sleep)
        ch[n++] = mpid_st.sleep_chan;
    if (mpid_st.net_chan && mpid_st.net_chan->arm_sleep)
        ch[n++] = mpid_st.net_chan;
    if (n == 0) {
        /* No channel can wake us (singleton): nothing but a polled
         * request (or another thread) can still change anything. */
        if (mpid_st.net.kick_fd >= 0)
            block_fds(NULL, 0, mpid_st.polled ? 20 : 1000);
        else
            nap(mpid_st.polled ? 20 : 1000);
        return;
    }
    if (n == 1) {
        if (!ch[0]->arm_sleep()) {
            if (mpid_st.net.kick_fd >= 0 && ch[0] != mpid_st.sleep_chan) {
                /* the network alone: its fd (or a nap) and the kick */
                struct pollfd p = { .fd = ch[0]->wait_fd ? ch[0]->wait_fd() : -1,
                                    .events = POLLIN };
                long t = timeout_us;
                if (p.fd < 0 && (t < 0 || t > mpid_st.net.nap_us))
                    t = mpid_st.net.nap_us;
                block_fds(&p, p.fd >= 0, t);
            } else {
                chan_sleep(ch[0], timeout_us);
            }
        }
        ch[0]->disarm_sleep();
        mpid_st.net_countdown = 0;
        return;
    }
    int armed = 0, busy = 0, local_only = 0;
    for (; armed < n && !busy; armed++)
        busy = ch[armed]->arm_sleep();
    if (!busy) {
        struct pollfd p[2];
        int nfd = 0, nofd = -1, netfd = -1;
        for (int i = 0; i < n; i++) {
            int fd = ch[i]->wait_fd ? ch[i]->wait_fd() : -1;
            if (fd >= 0 && ch[i] == mpid_st.net_chan)
                netfd = nfd;
            if (fd >= 0)
                p[nfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
            else if (nofd < 0 || ch[i] == mpid_st.sleep_chan)
                nofd = i;
        }
        long t = timeout_us;
        /* a channel without a wait fd is looked at again after a bounded
         * time */
        if (nofd >= 0 && (t < 0 || t > mpid_st.net.nap_us))
            t = mpid_st.net.nap_us;
        if (nofd >= 0 && ch[nofd] == mpid_st.sleep_chan) {
            /* shm without its eventfd: its futex, after a look at the
             * others' fds */
            struct timespec ts = { 0, 0 };
            if (nfd == 0 || ppoll(p, (nfds_t)nfd, &ts, NULL) == 0)
                chan_sleep(ch[nofd], t);
        } else if (nfd == 0) {
            chan_sleep(ch[nofd], t);
        } else {
            /* all fds (shm's eventfd and the CQ's): one poll, woken by
             * either at once; a network without its fd bounds the time */
            struct timespec ts = { t / 1000000, (t % 1000000) * 1000 };
            int rc = mpid_st.net.kick_fd >= 0 ? block_fds(p, nfd, t)
                                  : ppoll(p, (nfds_t)nfd, t < 0 ? NULL : &ts, NULL);
            if (rc > 0 && nofd < 0 && netfd >= 0 && !p[netfd].revents)
                local_only = 1;
        }
    }
    for (int i = 0; i < armed; i++)
        ch[i]->disarm_sleep();
    /* what woke us may be on the network: look there on the next pass,
     * unless only a local peer's eventfd did (a shm ping-pong that sleeps
     * between messages would pay a ~0.4 us network poll per message) */
    if (!local_only)
        mpid_st.net_countdown = 0;
}
