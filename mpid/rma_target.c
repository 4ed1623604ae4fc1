/*
 * rma_target.c — the target side of one-sided operations: applying a chunk
 * (put, get, accumulate, get-accumulate, fetch-and-op, compare-and-swap) to
 * window memory described by segments, the lock words, and the handler of
 * request packets progressed by the target (the active-message path).
 *
 * This is the part an NI agent would run on the target's behalf (seed 004:
 * remote deposit, remote fetch, NI locks): it needs only the window memory,
 * the lock words and src/util/op.h's kernels, never the MPI layer.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include "mpid/rma_impl.h"
#include "src/util/log.h"
#include "src/util/op.h"

size_t mpid_rma_elem(int basic)
{
    size_t n = cu_op_packed_size(basic);
    return n ? n : 1;
}

int mpid_rma_chunk_segs(const void *tb, const mpid_rma_args *a, size_t off, size_t cap,
                        size_t esz, struct iovec *segs, int maxseg, size_t *len)
{
    size_t total = a->tdt->size * a->tcount;
    size_t want = total - off < cap ? total - off : cap;
    int n = cu_dtype_to_iov(tb, a->tcount, a->tdt, off, want, segs, maxseg, len);
    if (n > 0 && *len % esz) {
        /* Out of segments mid-element: stop at the last whole element. */
        want = *len - *len % esz;
        n = want ? cu_dtype_to_iov(tb, a->tcount, a->tdt, off, want, segs, maxseg, len) : 0;
    }
    return n > 0 && *len ? n : -1;
}

/* ---- data movement between segments and a packed buffer ----------------
 * Segment offsets are relative to base, which is NULL when they are
 * addresses already (dynamic windows, the direct path): integer arithmetic. */
#define AT(base, off) ((char *)((uintptr_t)(base) + (uintptr_t)(off)))

static void gather(const char *base, const struct iovec *s, int n, char *out, size_t len)
{
    for (int i = 0; i < n && len; i++) {
        size_t l = s[i].iov_len < len ? s[i].iov_len : len;
        memcpy(out, AT(base, s[i].iov_base), l);
        out += l;
        len -= l;
    }
}

static void scatter(char *base, const struct iovec *s, int n, const char *in, size_t len)
{
    for (int i = 0; i < n && len; i++) {
        size_t l = s[i].iov_len < len ? s[i].iov_len : len;
        memcpy(AT(base, s[i].iov_base), in, l);
        in += l;
        len -= l;
    }
}

/* target = in op target. In place when the target is one segment and the
 * packed and memory layouts agree (every type but the pair types); else
 * through a packed copy of the target, so that elements split across
 * segments (pair types) are combined whole. */
static void acc(int op, int basic, char *base, const struct iovec *s, int n,
                const void *in, size_t len)
{
    if (op == CU_OP_NO_OP || len == 0)
        return;
    if (op == CU_OP_REPLACE) {
        scatter(base, s, n, in, len);
        return;
    }
    size_t ps = cu_op_packed_size(basic);
    if (n == 1 && ps == cu_op_elem_size(basic)) {
        cu_op_kernel *k = cu_op_kernel_get(op, basic);
        if (k)
            k(in, AT(base, s[0].iov_base), len / ps);
        return;
    }
    cu_op_kernel *k = cu_op_kernel_packed(op, basic);
    if (!k)
        return;
    _Alignas(max_align_t) char stack[4096];
    char *tmp = len <= sizeof stack ? stack : malloc(len);
    if (!tmp) {
        cu_warn("accumulate: out of memory for %zu bytes", len);
        return;
    }
    gather(base, s, n, tmp, len);
    k(in, tmp, len / ps);
    scatter(base, s, n, tmp, len);
    if (tmp != stack)
        free(tmp);
}

void mpid_rma_apply(int kind, int op, int basic, char *base, const struct iovec *segs,
                    int nseg, const void *in, void *out, size_t len)
{
    switch (kind) {
    case MPID_RMA_PUT:
        scatter(base, segs, nseg, in, len);
        break;
    case MPID_RMA_GET:
        gather(base, segs, nseg, out, len);
        break;
    case MPID_RMA_ACC:
        acc(op, basic, base, segs, nseg, in, len);
        break;
    case MPID_RMA_GACC:
    case MPID_RMA_FOP:
        gather(base, segs, nseg, out, len);
        acc(op, basic, base, segs, nseg, in, len);
        break;
    case MPID_RMA_CAS:
        gather(base, segs, nseg, out, len);
        if (memcmp(out, (const char *)in + len, len) == 0)
            scatter(base, segs, nseg, in, len);
        break;
    }
}

/* ---- lock words ----------------------------------------------------------- */
int mpid_rma_try_lock(mpid_rma_tstate *ts, int type)
{
    int v = __atomic_load_n(&ts->lock, __ATOMIC_RELAXED);
    if (type == MPID_LOCK_EXCL_T)
        return v == 0 && __atomic_compare_exchange_n(&ts->lock, &v, -1, 0, __ATOMIC_ACQUIRE,
                                                      __ATOMIC_RELAXED);
    while (v >= 0) {
        if (__atomic_compare_exchange_n(&ts->lock, &v, v + 1, 1, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

void mpid_rma_release_lock(mpid_rma_tstate *ts, int type)
{
    if (type == MPID_LOCK_EXCL_T)
        __atomic_store_n(&ts->lock, 0, __ATOMIC_RELEASE);
    else
        __atomic_fetch_sub(&ts->lock, 1, __ATOMIC_RELEASE);
}

/* Held for one chunk only, never across progress: spin, and yield when the
 * holder may be descheduled (more ranks than cores). */
void mpid_rma_acc_lock(mpid_rma_tstate *ts)
{
    for (int spins = 0;; spins++) {
        int z = 0;
        if (__atomic_load_n(&ts->acc, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&ts->acc, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        if (spins > 64)
            sched_yield();
        else
            __builtin_ia32_pause();
    }
}

void mpid_rma_acc_unlock(mpid_rma_tstate *ts)
{
    __atomic_store_n(&ts->acc, 0, __ATOMIC_RELEASE);
}

/* ---- active-message requests ------------------------------------------ */
/* Every segment inside the window (dynamic: inside an attached region).
 * The origin checked too when it knew the size; this is the guarantee that
 * nothing outside the window is ever written. */
int mpid_rma_in_window(const mpid_win *w, const struct iovec *s, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t o = (uintptr_t)s[i].iov_base, l = s[i].iov_len;
        if (!w->dynamic) {
            if (o > w->size || l > w->size - o)
                return 0;
            continue;
        }
        const mpid_win_region *r;
        for (r = w->regions; r; r = r->next)
            if (o >= r->base && o - r->base <= r->len && l <= r->len - (o - r->base))
                break;
        if (!r)
            return 0;
    }
    return 1;
}

static void answer(int world, const mpid_win *w, const mpid_pkt_rma *h, int kind, int err,
                   const void *data, size_t len)
{
    mpid_pkt_rma a;
    memset(&a, 0, sizeof a);
    a.type = MPID_PKT_RMA;
    a.kind = (uint8_t)kind;
    a.win = (uint32_t)w->peers[h->src].win_index;
    a.oreq = h->oreq;
    a.ooff = h->ooff;
    a.len = len;
    a.nseg = (uint32_t)err;
    a.src = w->comm->rank;
    struct iovec iov = { (void *)data, len };
    mpid_rma_send(world, &a, &iov, len ? 1 : 0, 1);
}

void mpid_rma_on_request(int src_world, const mpid_pkt_rma *h, const void *payload,
                         size_t plen)
{
    mpid_win *w = mpid_win_lookup(h->win);
    if (!w || h->src < 0 || h->src >= w->comm->size) {
        cu_warn("RMA packet for unknown window %u from rank %d dropped", h->win, src_world);
        return;
    }
    switch (h->kind) {
    case MPID_RMA_LOCK:
        if (mpid_rma_try_lock(w->my_ts, h->op))
            answer(src_world, w, h, MPID_RMA_GRANT, 0, NULL, 0);
        else
            mpid_rma_lock_wait_add(w, h->src, h->op);
        return;
    case MPID_RMA_UNLOCK:
        mpid_rma_release_lock(w->my_ts, h->op);
        answer(src_world, w, h, MPID_RMA_ACK, 0, NULL, 0);
        if (w->waiters)
            mpid_rma_lock_wait_retry(w);
        return;
    }
    struct iovec one, *segs = &one;
    int nseg = 1;
    const char *data = payload;
    if (h->nseg == 0) {
        one.iov_base = (void *)(uintptr_t)h->addr;
        one.iov_len = h->len;
    } else {
        /* (offset, len) pairs of 8 bytes each: the layout of struct iovec on
         * LP64, copied out because the payload may be unaligned. */
        nseg = (int)h->nseg;
        segs = malloc((size_t)nseg * sizeof *segs);
        if (!segs) {
            answer(src_world, w, h, mpid_rma_fetches(h->kind) ? MPID_RMA_RESP : MPID_RMA_ACK,
                   MPI_ERR_NO_MEM, NULL, 0);
            return;
        }
        memcpy(segs, payload, (size_t)nseg * sizeof *segs);
        data += (size_t)nseg * sizeof *segs;
    }
    int err = 0;
    size_t len = h->len;
    int nodata = h->kind == MPID_RMA_GET ||
                 (h->op == CU_OP_NO_OP && (h->kind == MPID_RMA_GACC || h->kind == MPID_RMA_FOP));
    size_t need = (size_t)h->nseg * sizeof *segs + (h->kind == MPID_RMA_CAS ? 2 * len :
                  nodata ? 0 : len);
    if (need > plen) {
        cu_warn("RMA packet from rank %d: kind %d op %d carries %zu bytes, %zu expected",
                src_world, h->kind, h->op, plen, need);
        err = MPI_ERR_INTERN;
    }
    else if (!mpid_rma_in_window(w, segs, nseg))
        err = MPI_ERR_RMA_RANGE;
    int fetch = mpid_rma_fetches(h->kind);
    _Alignas(max_align_t) char stack[512];
    char *out = NULL;
    if (!err && fetch) {
        out = len <= sizeof stack ? stack : malloc(len);
        if (!out)
            err = MPI_ERR_NO_MEM;
    }
    int a = mpid_rma_is_acc(h->kind);
    char *aligned = NULL;
    size_t dlen = h->kind == MPID_RMA_CAS ? 2 * len : len;
    if (!err && a && !nodata && (uintptr_t)data % _Alignof(max_align_t)) {
        /* The op kernels load whole elements: the channel's payload may
         * sit at any offset after its own header. */
        if (!(aligned = malloc(dlen)))
            err = MPI_ERR_NO_MEM;
        else
            data = memcpy(aligned, data, dlen);
    }
    if (!err) {
        char *base = w->dynamic ? NULL : w->base;
        if (a)
            mpid_rma_acc_lock(w->my_ts);
        mpid_rma_apply(h->kind, h->op, h->basic, base, segs, nseg, data, out, len);
        if (a)
            mpid_rma_acc_unlock(w->my_ts);
    }
    free(aligned);
    if (fetch)
        answer(src_world, w, h, MPID_RMA_RESP, err, err ? NULL : out, err ? 0 : len);
    else
        answer(src_world, w, h, MPID_RMA_ACK, err, NULL, 0);
    if (out && out != stack)
        free(out);
    if (segs != &one)
        free(segs);
}
