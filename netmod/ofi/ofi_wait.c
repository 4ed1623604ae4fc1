/*
 * ofi_wait.c — idle support: the completion queue's wait fd (FI_WAIT_FD).
 * arm_sleep asks fi_trywait whether blocking is safe (no completion
 * pending, provider progress done); the device then polls the fd, alone
 * (sleep) or together with other channels' fds (wait_fd).
 */
#include <errno.h>
#include <poll.h>
#include <time.h>
#include "netmod/ofi/ofi.h"

int ofi_arm_sleep(void)
{
    if (!ofi_st.up)
        return 0;
    if (ofi_st.wait_fd < 0)
        return 0;   /* sleep() is a bounded nap then */
    struct fid *f = &ofi_st.cq->fid;
    return fi_trywait(ofi_st.fabric, &f, 1) == FI_SUCCESS ? 0 : 1;
}

void ofi_sleep(long timeout_us)
{
    if (ofi_st.wait_fd < 0) {
        /* no wait object: nap briefly, the caller polls again */
        struct timespec ts = { 0, 50000 };
        nanosleep(&ts, NULL);
        return;
    }
    struct pollfd p = { .fd = ofi_st.wait_fd, .events = POLLIN };
    int ms = timeout_us < 0 ? -1 : (int)((timeout_us + 999) / 1000);
    (void)poll(&p, 1, ms);
}

void ofi_disarm_sleep(void) { }

int ofi_wait_fd(void)
{
    return ofi_st.up ? ofi_st.wait_fd : -1;
}
