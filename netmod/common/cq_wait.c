/*
 * cq_wait.c — blocking on a completion queue (see cq_wait.h).
 *
 * Why a wait set of our own: net (libfabric 1.17) signals a CQ's wait
 * object on every completion, and its fi_trywait never clears that
 * signal, so a bare FI_WAIT_FD stays readable for good after the first
 * completion. An idle rank alone on its node then woke ~4000-7500 times a
 * second (strace: nanosleep + epoll_wait), taking CPU from busy ranks on
 * the same cores; an agent polling it never slept. A zero-timeout
 * fi_wait on a set we opened clears the signal and says whether anything
 * is ready.
 */
#include "netmod/common/cq_wait.h"

int netc_cq_wait_open(struct fid_fabric *fab, struct fid_domain *dom, struct fi_cq_attr *a,
                      struct fid_cq **cq, netc_cq_wait *w)
{
    struct fi_wait_attr wa = { .wait_obj = FI_WAIT_FD };
    *w = (netc_cq_wait){ .set = NULL, .fd = -1 };
    *cq = NULL;
    if (fi_wait_open(fab, &wa, &w->set) == 0) {
        a->wait_obj = FI_WAIT_SET;
        a->wait_set = w->set;
        if (fi_cq_open(dom, a, cq, NULL) == 0 && fi_control(&w->set->fid, FI_GETWAIT, &w->fd) == 0)
            return 0;
        if (*cq)
            fi_close(&(*cq)->fid);
        fi_close(&w->set->fid);
        *w = (netc_cq_wait){ .set = NULL, .fd = -1 };
        *cq = NULL;
    }
    a->wait_set = NULL;
    a->wait_obj = FI_WAIT_FD;
    if (fi_cq_open(dom, a, cq, NULL) == 0) {
        if (fi_control(&(*cq)->fid, FI_GETWAIT, &w->fd))
            w->fd = -1;
        return 0;
    }
    a->wait_obj = FI_WAIT_NONE;
    return fi_cq_open(dom, a, cq, NULL);
}

void netc_cq_wait_close(netc_cq_wait *w)
{
    if (w->set)
        fi_close(&w->set->fid);
    *w = (netc_cq_wait){ .set = NULL, .fd = -1 };
}

int netc_cq_wait_try(struct fid_fabric *fab, struct fid_cq *cq, netc_cq_wait *w)
{
    if (w->fd < 0)
        return 0;
    struct fid *f = &cq->fid;
    if (fi_trywait(fab, &f, 1) != FI_SUCCESS)
        return 1;
    return w->set && fi_wait(w->set, 0) == 0;
}
