/*
 * cq_wait.h — a completion queue a process can block on, shared by the
 * direct-mode channel (netmod/ofi) and the NI agent (netmod/agent).
 * Depends on no channel state.
 */
#ifndef NETMOD_COMMON_CQ_WAIT_H
#define NETMOD_COMMON_CQ_WAIT_H

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>

typedef struct netc_cq_wait {
    struct fid_wait *set;   /* our wait set, or NULL (bare FI_WAIT_FD) */
    int fd;                 /* what to poll for completions; -1: none */
} netc_cq_wait;

/* Open *cq on `dom` with attributes `a` (wait_obj is ours to set): through
 * a wait set when the provider makes one, else FI_WAIT_FD, else no wait
 * object (w->fd = -1: the caller naps). 0 or a negative fi_errno. */
int netc_cq_wait_open(struct fid_fabric *fab, struct fid_domain *dom, struct fi_cq_attr *a,
                      struct fid_cq **cq, netc_cq_wait *w);
void netc_cq_wait_close(netc_cq_wait *w);   /* after the CQ is closed */

/* Before blocking on w->fd: 0 if that is safe now, 1 if something is
 * pending already (poll the CQ first). */
int netc_cq_wait_try(struct fid_fabric *fab, struct fid_cq *cq, netc_cq_wait *w);

#endif
