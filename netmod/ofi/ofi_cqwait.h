/*
 * ofi_cqwait.h — a completion queue a process can block on, shared by the
 * direct-mode channel (ofi_init.c, ofi_wait.c) and the NI agent
 * (agent_net.c). Depends on no channel state.
 */
#ifndef NETMOD_OFI_CQWAIT_H
#define NETMOD_OFI_CQWAIT_H

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>

typedef struct ofi_cqwait {
    struct fid_wait *set;   /* our wait set, or NULL (bare FI_WAIT_FD) */
    int fd;                 /* what to poll for completions; -1: none */
} ofi_cqwait;

/* Open *cq on `dom` with attributes `a` (wait_obj is ours to set): through
 * a wait set when the provider makes one, else FI_WAIT_FD, else no wait
 * object (w->fd = -1: the caller naps). 0 or a negative fi_errno. */
int ofi_cqwait_open(struct fid_fabric *fab, struct fid_domain *dom, struct fi_cq_attr *a,
                    struct fid_cq **cq, ofi_cqwait *w);
void ofi_cqwait_close(ofi_cqwait *w);   /* after the CQ is closed */

/* Before blocking on w->fd: 0 if that is safe now, 1 if something is
 * pending already (poll the CQ first). */
int ofi_cqwait_try(struct fid_fabric *fab, struct fid_cq *cq, ofi_cqwait *w);

#endif
