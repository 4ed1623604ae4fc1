/*
 * wait.c — idle support: the completion queue's wait fd (FI_WAIT_FD).
 * arm_sleep asks whether blocking is safe (no completion pending, provider
 * progress done: netmod/common/cq_wait.c); the device then polls the fd, alone
 * (sleep) or together with other channels' fds (wait_fd).
 *
 * The fd is level-triggered on the provider's sockets, so it can stay
 * readable while nothing can complete: a connection to a peer that is not
 * progressing (busy computing) keeps its socket ready until the peer
 * answers. Measured: 60,000 empty wakeups per second, a whole core. After a
 * few sleeps in a row that ended at once with nothing read, the fd is
 * given up for a while and the rank naps instead (growing to 1 ms), until a
 * completion shows up again.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>
#include "netmod/ofi/fab.h"
#include "src/util/clock.h"

#define SPURIOUS_MAX 3          /* empty instant wakeups before napping */
#define INSTANT_NS   50000      /* a sleep shorter than this "ended at once" */

static void nap(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

int fab_arm_sleep(void)
{
    if (!fab_st.up)
        return 0;
    fab_alive_check(-1);
    if (fab_st.got_cqe)
        fab_st.spurious = 0;
    fab_st.got_cqe = 0;
    fab_st.armed_ns = cu_now_ns();
    if (fab_st.cqw.fd < 0)
        return 0;   /* sleep() is a bounded nap then */
    return netc_cq_wait_try(fab_st.fabric, fab_st.cq, &fab_st.cqw);
}

static long nap_us(void)
{
    int k = fab_st.spurious - SPURIOUS_MAX;
    return k >= 4 ? 1000 : 100L << k;   /* 100, 200, 400, 800, 1000 us */
}

void fab_sleep(long timeout_us)
{
    if (fab_wait_fd() < 0) {
        long us = fab_st.cqw.fd < 0 || fab_alive_probing() ? 50 : nap_us();
        nap(timeout_us >= 0 && timeout_us < us ? timeout_us : us);
        return;
    }
    struct pollfd p = { .fd = fab_st.cqw.fd, .events = POLLIN };
    int ms = timeout_us < 0 ? -1 : (int)((timeout_us + 999) / 1000);
    (void)poll(&p, 1, ms);
}

void fab_disarm_sleep(void)
{
    if (!fab_st.up)
        return;
    if (cu_now_ns() - fab_st.armed_ns < INSTANT_NS) {
        /* Only a fd that is still ready counts against it: a short sleep
         * is usually a local peer's wakeup through shm's eventfd, and a shm
         * ping-pong must not give the CQ fd up after three messages. */
        struct pollfd p = { .fd = fab_st.cqw.fd, .events = POLLIN };
        if (fab_st.cqw.fd >= 0 && poll(&p, 1, 0) == 1 && fab_st.spurious < 1000)
            fab_st.spurious++;
    } else if (fab_st.spurious < SPURIOUS_MAX) {
        fab_st.spurious = 0;   /* a real sleep: the fd works */
    }
}

/* -1 while the fd is given up: the device then naps a bounded time. */
int fab_wait_fd(void)
{
    return fab_st.up && fab_st.spurious < SPURIOUS_MAX && !fab_alive_probing() ? fab_st.cqw.fd
                                                                               : -1;
}
