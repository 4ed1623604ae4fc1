/*
 * rma_direct.c — the direct path: the target's window memory is mapped here
 * (a window's per-node shared segment, or our own memory), so operations are
 * loads and stores, accumulates run under the target's accumulate lock word,
 * and passive-target locks are atomics on its lock word; nothing waits for
 * the target. Also the per-node shared segment (mapped by the shm channel).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpid/rma_impl.h"
#include "src/util/log.h"

/* ---- the shared segment --------------------------------------------------- */
/* Mapped by the shm channel (its node areas), warning here: a window that
 * cannot be had is the user's error to see. */
void *mpid_win_seg_make(size_t len, uint64_t key[2], void **share)
{
    const mpid_chan_area *ar = mpid_node_chan->area;
    void *p = ar ? ar->make(len, key, share) : NULL;
    if (!p)
        cu_warn("window segment (%zu bytes): cannot make it", len);
    return p;
}

int mpid_win_seg_serve(void *share, int n)
{
    int rc = mpid_node_chan->area->serve(share, n);
    if (rc)
        cu_warn("window segment: the node's other ranks did not fetch it (%s)", strerror(-rc));
    return rc;
}

void mpid_win_seg_drop(void *share)
{
    if (share)
        mpid_node_chan->area->drop(share);
}

void *mpid_win_seg_fetch(const uint64_t key[2], size_t len)
{
    const mpid_chan_area *ar = mpid_node_chan->area;
    void *p = ar ? ar->fetch(key, len) : NULL;
    if (!p)
        cu_warn("window segment (%zu bytes): cannot map it", len);
    return p;
}

void mpid_win_seg_unmap(void *seg, size_t len)
{
    if (seg)
        mpid_node_chan->area->unmap(seg, len);
}

/* ---- the path ------------------------------------------------------------ */
#define DIRECT_CHUNK (64u * 1024)   /* bounds the accumulate lock's hold time */
#define DIRECT_SEGS 64

/* One chunk on mapped memory: segments are addresses. */
static int direct_chunk(mpid_win *w, const mpid_rma_args *a, const struct iovec *segs, int n,
                        const void *in, void *out, size_t len)
{
    mpid_rma_tstate *ts = w->peers[a->target].ts;
    int acc = mpid_rma_is_acc(a->kind);
    if (acc)
        mpid_rma_acc_lock(ts);
    mpid_rma_apply(a->kind, a->op, a->basic, NULL, segs, n, in, out, len);
    if (acc)
        mpid_rma_acc_unlock(ts);
    return 0;
}

int mpid_rma_run_chunks(mpid_win *w, const mpid_rma_args *a, uintptr_t tbase,
                        mpid_rma_chunk_fn *chunk)
{
    /* Segments are target addresses: the base plus the displacement
     * (dynamic windows, only ever our own: the displacement is an address). */
    char *tb = (char *)(tbase + (uintptr_t)a->tdisp);
    size_t total = a->tdt->size * a->tcount;
    int acc = mpid_rma_is_acc(a->kind), fetch = mpid_rma_fetches(a->kind);
    int odata = a->kind != MPID_RMA_GET && a->odt;   /* MPI_NO_OP fetches send none */
    size_t esz = acc ? mpid_rma_elem(a->basic) : 1;
    int ocontig = !odata || a->odt->contig;
    int rcontig = !fetch || a->rdt->contig;
    size_t cap = (!acc && ocontig && rcontig) ? total : DIRECT_CHUNK - DIRECT_CHUNK % esz;
    if (a->kind == MPID_RMA_CAS)
        cap = esz;
    char *tin = NULL, *tout = NULL;
    if ((!ocontig && !(tin = malloc(a->kind == MPID_RMA_CAS ? 2 * cap : cap))) ||
        (!rcontig && !(tout = malloc(cap)))) {
        free(tin);
        return MPI_ERR_NO_MEM;
    }
    int rc = 0;
    struct iovec segs[DIRECT_SEGS];
    for (size_t off = 0; off < total;) {
        size_t len = 0;
        int n = mpid_rma_chunk_segs(tb, a, off, cap, esz, segs, DIRECT_SEGS, &len);
        if (n <= 0) {
            rc = MPI_ERR_INTERN;
            break;
        }
        if (w->dynamic && !mpid_rma_in_window(w, segs, n)) {
            rc = MPI_ERR_RMA_RANGE;
            break;
        }
        const char *in = NULL;
        char _Alignas(16) cas_in[64];
        if (odata) {
            if (ocontig) {
                in = (const char *)a->obuf + a->odt->true_lb + off;
            } else {
                cu_dtype_pack(a->obuf, a->ocount, a->odt, off, tin, len);
                in = tin;
            }
            if (a->kind == MPID_RMA_CAS && len <= sizeof cas_in / 2) {
                /* value then compare value, as the packet carries them */
                memcpy(cas_in, in, len);
                if (a->odt->contig)
                    memcpy(cas_in + len, (const char *)a->cbuf + a->odt->true_lb, len);
                else
                    cu_dtype_pack(a->cbuf, 1, a->odt, 0, cas_in + len, len);
                in = cas_in;
            }
        }
        char *out = NULL;
        if (fetch)
            out = rcontig ? (char *)a->rbuf + a->rdt->true_lb + off : tout;
        if ((rc = chunk(w, a, segs, n, in, out, len)) != 0)
            break;
        if (fetch && !rcontig)
            cu_dtype_unpack(a->rbuf, a->rcount, a->rdt, off, tout, len);
        off += len;
    }
    free(tin);
    free(tout);
    return rc;
}

static int direct_issue(mpid_win *w, const mpid_rma_args *a, mpid_rma_rec *rec)
{
    (void)rec;   /* complete on return: the caller drops its hold */
    const cu_dtype *l = a->kind == MPID_RMA_PUT ? a->odt : a->rdt;
    if ((a->kind == MPID_RMA_PUT || a->kind == MPID_RMA_GET) && !w->dynamic &&
        a->tdt->contig && l->contig) {
        /* The common case, one copy (a put + flush on a node is ~0.1 us). */
        char *t = w->peers[a->target].direct + a->tdisp + a->tdt->true_lb;
        size_t n = a->tdt->size * a->tcount;
        if (a->kind == MPID_RMA_PUT)
            memcpy(t, (const char *)a->obuf + l->true_lb, n);
        else
            memcpy((char *)a->rbuf + l->true_lb, t, n);
        return 0;
    }
    return mpid_rma_run_chunks(w, a, w->dynamic ? 0 : (uintptr_t)w->peers[a->target].direct,
                               direct_chunk);
}

int mpid_rma_word_lock(mpid_win *w, int target, int type)
{
    mpid_rma_tstate *ts = w->peers[target].ts;
    /* The holder releases with a store, which wakes nobody: poll (serving
     * others meanwhile) and yield the core. */
    while (!mpid_rma_try_lock(ts, type))
        if (mpid_progress() == 0)
            mpid_core_yield();
        else
            mpid_pass_done();
    return MPI_SUCCESS;
}

int mpid_rma_word_unlock(mpid_win *w, int target, int type)
{
    mpid_rma_release_lock(w->peers[target].ts, type);
    return MPI_SUCCESS;
}

const mpid_rma_path mpid_rma_path_direct = {
    .name = "direct",
    .issue = direct_issue,
    .lock = mpid_rma_word_lock,
    .unlock = mpid_rma_word_unlock,
};
