/*
 * rma.c — one-sided access to peers' registered windows: fi_write,
 * fi_read and the fi_atomic family (the channel's net_rma: mem_expose, post and
 * atomic_ok). The device's window path (mpid/rma_ofi.c) posts one
 * access per target segment; each completion comes back through
 * mpid_on_rma_done from our progress.
 *
 * Completion at the target: writes and non-fetching atomics are posted with
 * FI_DELIVERY_COMPLETE, so their completion means the data is in the
 * target's memory (MPI_Win_flush's promise), not only on its way (net and
 * tcp;ofi_rxm take it; a provider that refused it would fail the access,
 * reported by the operation's flush). Fetching operations complete when
 * the result is back, which is later.
 *
 * Accesses above the provider's limits (max_msg_size, an atomic's element
 * count from fi_query_atomic) are split; the cookie completes with the
 * last part. Contexts come from a fixed pool so a completion is told apart
 * from the channel's other operations by its address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include "netmod/ofi/fab.h"
#include "src/util/log.h"
#include "src/util/param.h"

struct fab_wop fab_wops[OFI_WOP_MAX];

static const enum fi_datatype fi_type[] = {
    [MPID_CH_I8] = FI_INT8, [MPID_CH_U8] = FI_UINT8, [MPID_CH_I16] = FI_INT16,
    [MPID_CH_U16] = FI_UINT16, [MPID_CH_I32] = FI_INT32, [MPID_CH_U32] = FI_UINT32,
    [MPID_CH_I64] = FI_INT64, [MPID_CH_U64] = FI_UINT64, [MPID_CH_F32] = FI_FLOAT,
    [MPID_CH_F64] = FI_DOUBLE,
};
static const enum fi_op fi_op_of[] = {
    [MPID_CH_MIN] = FI_MIN, [MPID_CH_MAX] = FI_MAX, [MPID_CH_SUM] = FI_SUM,
    [MPID_CH_PROD] = FI_PROD, [MPID_CH_LOR] = FI_LOR, [MPID_CH_LAND] = FI_LAND,
    [MPID_CH_BOR] = FI_BOR, [MPID_CH_BAND] = FI_BAND, [MPID_CH_LXOR] = FI_LXOR,
    [MPID_CH_BXOR] = FI_BXOR, [MPID_CH_WRITE] = FI_ATOMIC_WRITE,
    [MPID_CH_READ] = FI_ATOMIC_READ, [MPID_CH_OP_CSWAP] = FI_CSWAP,
};
static const size_t type_size[] = {
    [MPID_CH_I8] = 1, [MPID_CH_U8] = 1, [MPID_CH_I16] = 2, [MPID_CH_U16] = 2,
    [MPID_CH_I32] = 4, [MPID_CH_U32] = 4, [MPID_CH_I64] = 8, [MPID_CH_U64] = 8,
    [MPID_CH_F32] = 4, [MPID_CH_F64] = 8,
};
#define NTYPES (sizeof fi_type / sizeof fi_type[0])
#define NOPS (sizeof fi_op_of / sizeof fi_op_of[0])

int fab_rma_win_open(void)
{
    const struct fi_info *i = fab_st.info;
    uint64_t need = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    fab_st.wop_nfree = OFI_WOP_MAX;
    for (int k = 0; k < OFI_WOP_MAX; k++)
        fab_st.wop_free[k] = k;
    if (!cu_param_int("OFI_RMA") || (i->caps & need) != need || !fab_mr_remote_ok())
        return -ENOTSUP;
    fab_st.win_on = 1;
    /* Atomics by default only where the provider progresses them without
     * the target's help (FI_PROGRESS_AUTO: hardware): a software provider
     * (net, tcp;ofi_rxm here, in manual progress) applies them when the
     * target rank polls, like an active message, and the device would
     * route even same-node accumulates through them (atomicity, see
     * mpid/rma_ofi.c), making those wait for a busy target too.
     * CLUMPI_OFI_ATOMICS=1 uses them wherever offered, 0 never. */
    long want = cu_param_int("OFI_ATOMICS");
    fab_st.atomic_on = (i->caps & FI_ATOMIC) &&
                       (want > 0 || (want < 0 && i->domain_attr->data_progress == FI_PROGRESS_AUTO));
    return 0;
}

int fab_mem_expose(void *base, size_t len, uint64_t *key, void **handle)
{
    *key = 0;
    *handle = NULL;
    if (!fab_st.win_on)
        return -ENOTSUP;
    if (len == 0)
        return 0;
    return fab_mr_expose(base, len, FI_REMOTE_READ | FI_REMOTE_WRITE, "a window", key, handle);
}

/* Largest element count of one atomic of (kind, op, type), 0: not offered. */
static size_t atomic_max(int kind, int op, int type)
{
    if (!fab_st.win_on || !fab_st.atomic_on || (unsigned)type >= NTYPES ||
        (unsigned)op >= NOPS)
        return 0;
    uint64_t flags = kind == MPID_CH_FETCH ? FI_FETCH_ATOMIC
                     : kind == MPID_CH_CSWAP ? FI_COMPARE_ATOMIC : 0;
    struct fi_atomic_attr a = { 0 };
    if (fi_query_atomic(fab_st.domain, fi_type[type], fi_op_of[op], &a, flags) != 0)
        return 0;
    return a.count;
}

int fab_rma_atomic_ok(int kind, int op, int type)
{
    return atomic_max(kind, op, type) > 0;
}

void fab_wop_done(void *ctx, int ok)
{
    struct fab_wop *w = ctx;
    if (!ok)
        w->failed = 1;
    if (--w->parts > 0)
        return;
    fab_mr_local_end(w->lmr, 3);
    void *cookie = w->cookie;
    int st = w->failed ? -EIO : 0;
    fab_st.wop_free[fab_st.wop_nfree++] = (int)(w - fab_wops);
    mpid_on_rma_done(cookie, st);
}

int fab_wop_peer(const void *ctx)
{
    return ((const struct fab_wop *)ctx)->peer;
}

static struct fab_wop *wop_get(void)
{
    while (fab_st.wop_nfree == 0) {
        if (fab_st.in_progress)
            return NULL;
        fab_poll(32);   /* every context in flight: completions free them */
    }
    struct fab_wop *w = &fab_wops[fab_st.wop_free[--fab_st.wop_nfree]];
    memset(w, 0, sizeof *w);
    return w;
}

/* Post one part (EAGAIN: progress, then again). Returns 0 or -errno. */
static int post_part(struct fab_wop *w, const mpid_chan_rma *op, fi_addr_t a, size_t off,
                     size_t len, enum fi_datatype dt, size_t esz)
{
    uint64_t raddr = fab_raddr(op->addr + off, op->base);
    const char *in = (const char *)op->in + off;
    char *out = (char *)op->out + off;
    for (;;) {
        ssize_t rc;
        struct fi_rma_iov riov = { raddr, len, op->key };
        struct iovec liov = { (void *)in, len };
        switch (op->kind) {
        case MPID_CH_PUT: {
            struct fi_msg_rma m = { .msg_iov = &liov, .desc = &w->desc[0], .iov_count = 1,
                                    .addr = a, .rma_iov = &riov, .rma_iov_count = 1,
                                    .context = &w->ctx };
            rc = fi_writemsg(fab_st.ep, &m, FI_DELIVERY_COMPLETE);
            break;
        }
        case MPID_CH_GET:
            rc = fi_read(fab_st.ep, out, len, w->desc[2], a, raddr, op->key, &w->ctx);
            break;
        case MPID_CH_ATOMIC: {
            struct fi_ioc ioc = { (void *)in, len / esz };
            struct fi_rma_ioc rioc = { raddr, len / esz, op->key };
            struct fi_msg_atomic m = { .msg_iov = &ioc, .desc = &w->desc[0], .iov_count = 1,
                                       .addr = a, .rma_iov = &rioc, .rma_iov_count = 1,
                                       .datatype = dt, .op = fi_op_of[op->op],
                                       .context = &w->ctx };
            rc = fi_atomicmsg(fab_st.ep, &m, FI_DELIVERY_COMPLETE);
            break;
        }
        case MPID_CH_FETCH:
            rc = fi_fetch_atomic(fab_st.ep, in, len / esz, w->desc[0], out, w->desc[2], a, raddr,
                                 op->key, dt, fi_op_of[op->op], &w->ctx);
            break;
        default:
            rc = fi_compare_atomic(fab_st.ep, in, len / esz, w->desc[0],
                                   (const char *)op->cmp + off, w->desc[1], out, w->desc[2], a,
                                   raddr, op->key, dt, FI_CSWAP, &w->ctx);
        }
        if (rc == 0)
            return 0;
        if (rc != -FI_EAGAIN)
            return (int)rc;
        if (fab_st.in_progress)
            return -EAGAIN;
        fab_poll(32);
    }
}

int fab_rma_post(int peer, const mpid_chan_rma *op, void *cookie)
{
    if (!fab_st.win_on)
        return -ENOTSUP;
    if ((unsigned)peer >= (unsigned)fab_st.cap)
        return -EINVAL;
    int rc;
    if (fab_st.addr[peer] == FI_ADDR_NOTAVAIL && (rc = fab_resolve(peer)))
        return rc;
    size_t esz = 1, maxlen = fab_st.rd_max ? fab_st.rd_max : SIZE_MAX;
    enum fi_datatype dt = FI_UINT8;
    if (op->kind >= MPID_CH_ATOMIC) {
        size_t cnt = atomic_max(op->kind, op->op, op->type);
        if (!cnt)
            return -ENOTSUP;
        esz = type_size[op->type];
        dt = fi_type[op->type];
        if (cnt < maxlen / esz)
            maxlen = cnt * esz;
        if (op->len % esz)
            return -EINVAL;
    }
    struct fab_wop *w = wop_get();
    if (!w)
        return -EAGAIN;
    w->cookie = cookie;
    w->peer = peer;
    if (fab_st.mr_local) {
        struct iovec v[3] = { { (void *)op->in, op->len }, { (void *)op->cmp, op->len },
                              { op->out, op->len } };
        for (int k = 0; k < 3; k++)
            if (v[k].iov_base && (rc = fab_mr_local(&v[k], 1, FI_READ | FI_WRITE, &w->lmr[k],
                                                    &w->desc[k]))) {
                fab_mr_local_end(w->lmr, 3);
                fab_st.wop_free[fab_st.wop_nfree++] = (int)(w - fab_wops);
                return -ENOTSUP;
            }
    }
    /* One part per maxlen bytes; the context completes with the last. */
    size_t nparts = op->len / maxlen + (op->len % maxlen != 0);   /* no overflow at SIZE_MAX */
    w->parts = (int)nparts + 1;   /* held while posting */
    for (size_t off = 0, k = 0; k < nparts; k++, off += maxlen) {
        size_t len = op->len - off < maxlen ? op->len - off : maxlen;
        if ((rc = post_part(w, op, fab_st.addr[peer], off, len, dt, esz))) {
            cu_warn("ofi: one-sided access to rank %d failed: %s", peer, fi_strerror(-rc));
            w->failed = 1;
            w->parts -= (int)(nparts - k);
            break;
        }
    }
    fab_wop_done(w, 1);   /* the posting hold */
    return 0;
}
