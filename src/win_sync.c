/*
 * win_sync.c — epochs of one-sided communication: Win_fence; the general
 * active target calls (Win_post/start/complete/wait/test), whose handshakes
 * are zero-byte messages on the window's private communicator; passive
 * target locks (Win_lock/unlock, lock_all/unlock_all) and the flushes; and
 * Win_sync. Completion is the device's: every chunk is answered, so a flush
 * returns once the target has applied everything we sent it.
 */
#include <stdlib.h>
#include "src/core.h"
#include "src/win.h"

#define WIN_ERR(w, cls, fn, ...) mpir_err_win(w, mpir_err(cls, fn, __VA_ARGS__))

int mpir_win_can_access(const mpir_win *w, int target)
{
    if (w->fence || w->lock_all || w->locks[target])
        return 1;
    for (int i = 0; i < w->nstart; i++)
        if (w->start[i] == target)
            return 1;
    return 0;
}

/* Errors a target reported for operations of this epoch. */
static int target_err(mpir_win *w, const char *fn, int err)
{
    return err ? WIN_ERR(w, err, fn, "a target rejected an operation of this epoch") : 0;
}

static int check_assert(mpir_win *w, const char *fn, int assert, int allowed)
{
    if (assert & ~allowed)
        return WIN_ERR(w, MPI_ERR_ASSERT, fn, "assert 0x%x has bits this call does not take "
                       "(allowed: 0x%x)", (unsigned)assert, (unsigned)allowed);
    return MPI_SUCCESS;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_fence";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc = check_assert(w, fn, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT |
                          MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED);
    if (rc)
        return rc;
    if (w->nlocks || w->lock_all || w->start || w->post)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "a lock or a post/start epoch is open");
    int err = mpid_win_flush(&w->dev, -1);
    /* Always a barrier: a target's own stores before the fence must not
     * race the next epoch's puts. */
    rc = mpir_Barrier(w->comm->handle);
    w->fence = !(assert & MPI_MODE_NOSUCCEED);
    if (rc)
        return mpir_err_win(w, rc);
    return target_err(w, fn, err);
}
MPIR_WEAK(Win_fence)

/* The window ranks of group's members; MPI_ERR_GROUP if one is not in it. */
static int group_ranks(mpir_win *w, const char *fn, MPI_Group group, int **out, int *n)
{
    mpir_group *g = mpir_group_get(group);
    if (!g)
        return WIN_ERR(w, MPI_ERR_GROUP, fn, "invalid group (0x%x)", (unsigned)group);
    int *r = malloc(((size_t)g->size + 1) * sizeof *r);
    if (!r)
        return WIN_ERR(w, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < g->size; i++) {
        r[i] = mpir_group_find(w->comm->group, g->world_ranks[i]);
        if (r[i] == MPI_UNDEFINED) {
            free(r);
            return WIN_ERR(w, MPI_ERR_GROUP, fn, "group member %d is not in the window", i);
        }
    }
    *out = r;
    *n = g->size;
    return MPI_SUCCESS;
}

static const cu_dtype *byte_type(void)
{
    return mpir_dtype_get(MPI_BYTE);
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_post";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc = check_assert(w, fn, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT);
    if (rc)
        return rc;
    if (w->post)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "an exposure epoch is already open");
    int *r, n;
    if ((rc = group_ranks(w, fn, group, &r, &n)))
        return rc;
    w->post_done = calloc((size_t)n + 1, sizeof *w->post_done);
    if (!w->post_done) {
        free(r);
        return WIN_ERR(w, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    /* Local stores to the window are visible before any origin starts. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < n && !rc; i++) {
        rc = mpid_irecv(NULL, 0, byte_type(), r[i], MPIR_WIN_TAG_DONE, &w->comm->dev,
                        MPID_CTX_PT2PT, &w->post_done[i]);
        if (!rc && !(assert & MPI_MODE_NOCHECK)) {
            mpid_request *s;
            rc = mpid_isend(NULL, 0, byte_type(), r[i], MPIR_WIN_TAG_POST, &w->comm->dev,
                            MPID_CTX_PT2PT, MPID_SEND_STANDARD, &s);
            if (!rc)
                mpid_request_free(s);   /* completes on its own */
        }
    }
    w->post = r;
    w->npost = n;
    return rc ? mpir_err_win(w, rc) : MPI_SUCCESS;
}
MPIR_WEAK(Win_post)

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_start";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc = check_assert(w, fn, assert, MPI_MODE_NOCHECK);
    if (rc)
        return rc;
    if (w->start)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "an access epoch is already open");
    if (w->fence && w->dev.pending_total)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "a fence epoch has operations in flight");
    int *r, n;
    if ((rc = group_ranks(w, fn, group, &r, &n)))
        return rc;
    /* Wait for every target's post (allowed by MPI-3.1 §11.5.2). */
    if (!(assert & MPI_MODE_NOCHECK)) {
        for (int i = 0; i < n && !rc; i++) {
            mpid_request *q;
            rc = mpid_irecv(NULL, 0, byte_type(), r[i], MPIR_WIN_TAG_POST, &w->comm->dev,
                            MPID_CTX_PT2PT, &q);
            if (!rc) {
                mpid_wait(q);
                mpid_request_free(q);
            }
        }
    }
    if (rc) {
        free(r);
        return mpir_err_win(w, rc);
    }
    w->fence = 0;
    w->start = r;
    w->nstart = n;
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    static const char fn[] = "MPI_Win_complete";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!w->start)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "no access epoch (Win_start) is open");
    int err = 0, rc = 0;
    for (int i = 0; i < w->nstart; i++) {
        int e = mpid_win_flush(&w->dev, w->start[i]);
        if (e && !err)
            err = e;
    }
    for (int i = 0; i < w->nstart && !rc; i++) {
        mpid_request *s;
        rc = mpid_isend(NULL, 0, byte_type(), w->start[i], MPIR_WIN_TAG_DONE, &w->comm->dev,
                        MPID_CTX_PT2PT, MPID_SEND_STANDARD, &s);
        if (!rc)
            mpid_request_free(s);
    }
    free(w->start);
    w->start = NULL;
    w->nstart = 0;
    if (rc)
        return mpir_err_win(w, rc);
    return target_err(w, fn, err);
}
MPIR_WEAK(Win_complete)

static void post_end(mpir_win *w)
{
    for (int i = 0; i < w->npost; i++)
        mpid_request_free(w->post_done[i]);
    free(w->post_done);
    free(w->post);
    w->post_done = NULL;
    w->post = NULL;
    w->npost = 0;
    /* The origins' stores are visible to our loads from here on. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static int all_done(void *arg)
{
    mpir_win *w = arg;
    for (int i = 0; i < w->npost; i++)
        if (!w->post_done[i]->done)
            return 0;
    return 1;
}

int PMPI_Win_wait(MPI_Win win)
{
    static const char fn[] = "MPI_Win_wait";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!w->post)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "no exposure epoch (Win_post) is open");
    if (!all_done(w))
        mpid_progress_until(all_done, w);
    post_end(w);
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
    static const char fn[] = "MPI_Win_test";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!flag)
        return WIN_ERR(w, MPI_ERR_ARG, fn, "flag is NULL");
    if (!w->post)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "no exposure epoch (Win_post) is open");
    mpid_progress();
    *flag = all_done(w);
    if (*flag)
        post_end(w);
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_test)

/* ---- passive target --------------------------------------------------------
 * w->locks[t]: MPID_LOCK_SHARED_T or MPID_LOCK_EXCL_T, plus LOCK_NOCHECK
 * when no lock was taken (MPI_MODE_NOCHECK). */
#define LOCK_NOCHECK 4

static int check_rank(mpir_win *w, const char *fn, int rank)
{
    if (rank < 0 || rank >= w->comm->dev.size)
        return WIN_ERR(w, MPI_ERR_RANK, fn, "rank %d is not in the window (size %d)", rank,
                       w->comm->dev.size);
    return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return WIN_ERR(w, MPI_ERR_LOCKTYPE, fn, "lock_type %d is neither MPI_LOCK_SHARED nor "
                       "MPI_LOCK_EXCLUSIVE", lock_type);
    if ((rc = check_assert(w, fn, assert, MPI_MODE_NOCHECK)))
        return rc;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = check_rank(w, fn, rank)))
        return rc;
    if (w->locks[rank] || w->lock_all)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "rank %d is already locked by this process",
                       rank);
    int t = lock_type == MPI_LOCK_EXCLUSIVE ? MPID_LOCK_EXCL_T : MPID_LOCK_SHARED_T;
    if (!(assert & MPI_MODE_NOCHECK)) {
        rc = mpid_win_lock(&w->dev, rank, t);
        if (rc)
            return WIN_ERR(w, rc, fn, "locking rank %d failed", rank);
    }
    w->locks[rank] = (unsigned char)(t | (assert & MPI_MODE_NOCHECK ? LOCK_NOCHECK : 0));
    w->nlocks++;
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_lock)

static int unlock_one(mpir_win *w, int rank, int how)
{
    if (how & LOCK_NOCHECK)
        return mpid_win_flush(&w->dev, rank);
    return mpid_win_unlock(&w->dev, rank, how & 3);
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = check_rank(w, fn, rank)))
        return rc;
    if (!w->locks[rank])
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "rank %d is not locked by this process%s", rank,
                       w->lock_all ? " (it is under Win_lock_all: use Win_unlock_all)" : "");
    int err = unlock_one(w, rank, w->locks[rank]);
    w->locks[rank] = 0;
    w->nlocks--;
    return target_err(w, fn, err);
}
MPIR_WEAK(Win_unlock)

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock_all";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc;
    if ((rc = check_assert(w, fn, assert, MPI_MODE_NOCHECK)))
        return rc;
    if (w->lock_all || w->nlocks)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "a lock on this window is already held");
    if (!(assert & MPI_MODE_NOCHECK)) {
        for (int t = 0; t < w->comm->dev.size; t++) {
            rc = mpid_win_lock(&w->dev, t, MPID_LOCK_SHARED_T);
            if (rc) {
                while (--t >= 0)
                    mpid_win_unlock(&w->dev, t, MPID_LOCK_SHARED_T);
                return WIN_ERR(w, rc, fn, "locking rank %d failed", t);
            }
        }
    }
    w->lock_all = MPID_LOCK_SHARED_T | (assert & MPI_MODE_NOCHECK ? LOCK_NOCHECK : 0);
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock_all";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!w->lock_all)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "Win_lock_all was not called");
    int err = 0;
    if (w->lock_all & LOCK_NOCHECK) {
        err = mpid_win_flush(&w->dev, -1);
    } else {
        /* Flush everything first, then release: one wait, not one per target. */
        err = mpid_win_flush(&w->dev, -1);
        for (int t = 0; t < w->comm->dev.size; t++) {
            int e = mpid_win_unlock(&w->dev, t, MPID_LOCK_SHARED_T);
            if (e && !err)
                err = e;
        }
    }
    w->lock_all = 0;
    return target_err(w, fn, err);
}
MPIR_WEAK(Win_unlock_all)

static int flush(const char *fn, int rank, MPI_Win win)
{
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc;
    if (rank != -1) {
        if (rank == MPI_PROC_NULL)
            return MPI_SUCCESS;
        if ((rc = check_rank(w, fn, rank)))
            return rc;
        if (!w->locks[rank] && !w->lock_all)
            return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "rank %d is not locked by this process",
                           rank);
    } else if (!w->nlocks && !w->lock_all) {
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "no passive-target epoch is open");
    }
    return target_err(w, fn, mpid_win_flush(&w->dev, rank));
}

/* Local completion is no cheaper than remote here: every chunk's origin
 * buffer is free once its answer is in, so flush_local waits for the same. */
int PMPI_Win_flush(int rank, MPI_Win win)
{
    return flush("MPI_Win_flush", rank < 0 && rank != MPI_PROC_NULL ? -2 : rank, win);
}
MPIR_WEAK(Win_flush)

int PMPI_Win_flush_all(MPI_Win win)
{
    return flush("MPI_Win_flush_all", -1, win);
}
MPIR_WEAK(Win_flush_all)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush("MPI_Win_flush_local", rank < 0 && rank != MPI_PROC_NULL ? -2 : rank, win);
}
MPIR_WEAK(Win_flush_local)

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush("MPI_Win_flush_local_all", -1, win);
}
MPIR_WEAK(Win_flush_local_all)

int PMPI_Win_sync(MPI_Win win)
{
    static const char fn[] = "MPI_Win_sync";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    (void)w;
    /* Unified model: public and private copies are one; order our loads
     * and stores with the other processes'. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_sync)
