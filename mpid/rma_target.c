/*
 * rma_target.c — the target side of one-sided operations: applying a chunk
 * (put, get, accumulate, get-accumulate, fetch-and-op, compare-and-swap,
 * src/util/rma_apply.c) on request packets progressed by the target (the
 * active-message path), and the segment helpers the origins share. The NI
 * agent serves the agent path with the same src/util code
 * (netmod/agent/agent_rma.c).
 */
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
