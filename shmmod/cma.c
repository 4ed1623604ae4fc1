/*
 * cma.c — single-copy rendezvous: the receiver reads the sender's buffer with
 * process_vm_readv (Linux cross-memory attach). The kernel may refuse (ptrace
 * policy, seccomp in containers): the caller then falls back to pipelined
 * fragments. For large messages the sender also writes part of the data with
 * process_vm_writev, so both cores copy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/uio.h>
#include "shmmod/shm_internal.h"

#define SHM_CMA_IOV 64   /* iovec entries per call (well under IOV_MAX) */

/* A cursor over an iovec list, so partial transfers resume mid-element. */
typedef struct { const struct iovec *v; int n, i; size_t off; } shm_iovcur;

/* Fill out[] with up to max entries from cur, bytes capped at limit. */
static int iovcur_take(const shm_iovcur *c, struct iovec *out, int max, size_t limit,
                       size_t *bytes)
{
    int k = 0;
    size_t off = c->off, tot = 0;
    for (int i = c->i; i < c->n && k < max && tot < limit; i++, off = 0) {
        size_t len = c->v[i].iov_len - off;
        if (len == 0)
            continue;
        if (len > limit - tot)
            len = limit - tot;
        out[k].iov_base = (char *)c->v[i].iov_base + off;
        out[k].iov_len = len;
        tot += len;
        k++;
    }
    *bytes = tot;
    return k;
}

static void iovcur_advance(shm_iovcur *c, size_t n)
{
    while (n && c->i < c->n) {
        size_t left = c->v[c->i].iov_len - c->off;
        if (n < left) {
            c->off += n;
            return;
        }
        n -= left;
        c->i++;
        c->off = 0;
    }
    while (c->i < c->n && c->v[c->i].iov_len == c->off) {
        c->i++;
        c->off = 0;
    }
}

/* Move min(local, remote) bytes (write: local -> remote). Returns the bytes
 * moved or -errno: -EPERM/-ENOTSUP when the kernel does not allow CMA. */
static ssize_t cma_rw(pid_t pid, const struct iovec *local, int nlocal,
                      const struct iovec *remote, int nremote, int write)
{
    shm_iovcur lc = { local, nlocal, 0, 0 }, rc = { remote, nremote, 0, 0 };
    struct iovec lv[SHM_CMA_IOV], rv[SHM_CMA_IOV];
    size_t done = 0;
    iovcur_advance(&lc, 0);
    iovcur_advance(&rc, 0);
    for (;;) {
        size_t lb, rb;
        int ln = iovcur_take(&lc, lv, SHM_CMA_IOV, SIZE_MAX, &lb);
        int rn = iovcur_take(&rc, rv, SHM_CMA_IOV, lb, &rb);
        if (rn == 0 || ln == 0)
            break;
        ssize_t n = write ? process_vm_writev(pid, lv, (unsigned long)ln, rv, (unsigned long)rn, 0)
                          : process_vm_readv(pid, lv, (unsigned long)ln, rv, (unsigned long)rn, 0);
        if (n < 0) {
            int e = errno;
            if (e == EINTR)
                continue;
            if (e == ENOSYS || e == EOPNOTSUPP)
                return -ENOTSUP;
            return -e;   /* EPERM: not allowed; EFAULT/ESRCH: a real error */
        }
        if (n == 0)
            return -EFAULT;   /* no progress: remote range not mapped */
        done += (size_t)n;
        iovcur_advance(&lc, (size_t)n);
        iovcur_advance(&rc, (size_t)n);
    }
    return (ssize_t)done;
}

ssize_t shm_cma_read(pid_t pid, const struct iovec *local, int nlocal,
                     const struct iovec *remote, int nremote)
{
    return cma_rw(pid, local, nlocal, remote, nremote, 0);
}

/* The sender's half of a cooperative rendezvous copy (mpid/rndv.c). */
ssize_t shm_cma_write(pid_t pid, const struct iovec *local, int nlocal,
                      const struct iovec *remote, int nremote)
{
    return cma_rw(pid, local, nlocal, remote, nremote, 1);
}
