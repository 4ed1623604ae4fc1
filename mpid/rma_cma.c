/*
 * rma_cma.c — the single-copy path: a Win_create window of a rank on this
 * node is user memory we cannot map, so the origin moves the data itself
 * with the channel's single-copy calls (shm: process_vm_readv/writev) and
 * the target never has to progress. Passive-target locks and the
 * accumulate lock are the target's words in the window's per-node lock
 * segment (win.c maps one for Win_create), shared with every other path to
 * that target, so an accumulate read-modify-write here is atomic against
 * the target's own accumulates and against active messages it serves.
 *
 * When the kernel refuses cross-memory access (ptrace policy, seccomp), the
 * first call says so before anything moved: that target switches to active
 * messages for good.
 */
#include <stdlib.h>
#include "mpid/rma_impl.h"
#include "src/util/log.h"
#include "src/util/op.h"

static int cma_err(mpid_win *w, int target, ssize_t n, size_t want)
{
    if (n == (ssize_t)want)
        return 0;
    cu_warn("one-sided access to window rank %d (world %d) failed: %s", target,
            w->comm->world_ranks[target], n < 0 ? strerror((int)-n) : "short transfer");
    return MPI_ERR_OTHER;
}

/* One chunk: segs are addresses in the target's address space. */
static int cma_chunk(mpid_win *w, const mpid_rma_args *a, const struct iovec *segs, int n,
                     const void *in, void *out, size_t len)
{
    int world = w->comm->world_ranks[a->target];
    const mpid_channel *ch = mpid_st.dests[world].ch;
    struct iovec l = { (void *)in, len };
    ssize_t m;
    switch (a->kind) {
    case MPID_RMA_PUT:
        m = ch->copy->write(world, &l, 1, segs, n);
        break;
    case MPID_RMA_GET:
        l.iov_base = out;
        m = ch->copy->read(world, &l, 1, segs, n);
        break;
    default: {
        /* Read, combine here, write back, under the target's accumulate
         * lock. Reading a copy gives the packed layout. */
        _Alignas(max_align_t) char stack[256];
        char *t = len <= sizeof stack ? stack : malloc(len);
        if (!t)
            return MPI_ERR_NO_MEM;
        l.iov_base = t;
        mpid_rma_tstate *ts = w->peers[a->target].ts;
        mpid_rma_acc_lock(ts);
        m = ch->copy->read(world, &l, 1, segs, n);
        if (m == (ssize_t)len &&
            cu_rma_apply_packed(a->kind, a->op, a->basic, t, in, out, len))
            m = ch->copy->write(world, &l, 1, segs, n);
        mpid_rma_acc_unlock(ts);
        if (t != stack)
            free(t);
    }
    }
    if (m == -ENOTSUP || m == -EPERM)
        return -ENOTSUP;
    return cma_err(w, a->target, m, len);
}

static int cma_issue(mpid_win *w, const mpid_rma_args *a, mpid_rma_rec *rec)
{
    mpid_win_peer *p = &w->peers[a->target];
    int rc = mpid_rma_run_chunks(w, a, (uintptr_t)p->base, cma_chunk);
    if (rc == -ENOTSUP) {
        /* Refused before the first byte moved (the kernel refuses every
         * call alike): serve this target by active messages from now on. */
        cu_debug("RMA: single-copy access refused; active messages to window rank %d",
                 a->target);
        p->path = &mpid_rma_path_am;
        return p->path->issue(w, a, rec);
    }
    return rc;
}

const mpid_rma_path mpid_rma_path_cma = {
    .name = "cma",
    .issue = cma_issue,
    .lock = mpid_rma_word_lock,
    .unlock = mpid_rma_word_unlock,
};
