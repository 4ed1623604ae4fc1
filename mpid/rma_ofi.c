/*
 * rma_ofi.c — the network RMA path (direct mode): a window that
 * spans nodes registers each rank's memory with the network channel at
 * creation (mem_expose, keys and start addresses exchanged with the
 * window's peers, collectively), and origins move data with the channel's
 * remote writes, reads and atomics (net_rma->post: fi_write, fi_read,
 * fi_atomic, fi_fetch_atomic, fi_compare_atomic), which the target's
 * provider serves: the target rank's MPI code is not involved (on the
 * software providers here its provider still needs its progress, as for
 * any message).
 *
 * What goes where, per window:
 *   - put and get to a rank on another node: remote writes and reads;
 *     to a rank on this node (or ourselves): the path the window had
 *     before (direct, cma), kept in under[].
 *   - accumulates (accumulate, get_accumulate, fetch_and_op, compare_and_
 *     swap) of an element type T: MPI makes concurrent accumulates of one
 *     type to one location atomic whatever their ops and origins. The NIC's
 *     atomics are atomic only against each other, not against a CPU's
 *     read-modify-write under the target's accumulate lock. So T goes by
 *     NIC atomics only if the channel offers every op MPI allows on T (and
 *     compare-and-swap where MPI allows it), plain and fetching, on every
 *     rank of the window (the masks are ANDed in the exchange); then *every*
 *     origin uses them for T, same-node ones and the target itself
 *     included. Otherwise T never does, anywhere: under[] (active messages
 *     between nodes, whose target applies them under the same accumulate
 *     lock the same-node paths take). Decided at creation, the same on all
 *     ranks. (net in libfabric 1.17 lists FI_ATOMIC but fi_query_atomic
 *     refuses every (op, type): its windows take the messages; tcp;ofi_rxm
 *     offers them all for the integer and floating types.)
 *   - locks: under[] as well (active messages or the lock words); the
 *     first access after a lock by active messages waits for the grant,
 *     as that path's own accesses do.
 * Completion: each posted access counts in the window's pending counts
 * until the channel reports it done at the target (writes use delivery
 * completion), so flush, unlock and fence wait for the fabric.
 *
 * CLUMPI_RMA_OFI=0 keeps such windows on active messages (comparisons);
 * CLUMPI_RMA_AM=1 (every target by messages) implies it.
 */
#include <stddef.h>
#include <stdlib.h>
#include "mpid/rma_impl.h"
#include "src/util/log.h"
#include "src/util/op.h"
#include "src/util/param.h"

#define OFI_KEYS_TAG 0x4f464b   /* window creation's key exchange ("OFK"), pt2pt
                                   context of the window's private communicator */

struct mpid_rma_ofi_win {
    const mpid_channel *ch;
    void *handle;                  /* my memory's registration */
    uint64_t *key, *base;          /* [n]: each rank's key and window start */
    uint64_t nic_types;            /* bit b: accumulates of basic type b by NIC atomics */
    const mpid_rma_path **under;   /* [n]: the path each target had before */
};

mpid_rma_ofi_stats_t mpid_rma_ofi_stats;

typedef struct keys_msg {
    uint64_t key, base, nic_types;
    int32_t ok, pad;
} keys_msg;

/* ---- MPI's types and ops in the channel's codes --------------------------- */
#define INT_OF(sz, sgn) ((sz) == 1 ? MPID_CH_I8 + !(sgn) : (sz) == 2 ? MPID_CH_I16 + !(sgn) \
                         : (sz) == 4 ? MPID_CH_I32 + !(sgn) : MPID_CH_I64 + !(sgn))

/* The channel's code of element type `basic` (a CU_DT_* index), -1: none. */
static int ch_type(int basic)
{
    switch (basic) {
    case CU_DT_CHAR: return INT_OF(1, (char)-1 < 0);
    case CU_DT_SIGNED_CHAR: case CU_DT_INT8_T: return MPID_CH_I8;
    case CU_DT_UNSIGNED_CHAR: case CU_DT_BYTE: case CU_DT_UINT8_T:
        return MPID_CH_U8;
    case CU_DT_C_BOOL: return INT_OF(sizeof(_Bool), 0);
    case CU_DT_SHORT: case CU_DT_INT16_T: return MPID_CH_I16;
    case CU_DT_UNSIGNED_SHORT: case CU_DT_UINT16_T: return MPID_CH_U16;
    case CU_DT_INT: case CU_DT_INT32_T: return MPID_CH_I32;
    case CU_DT_UNSIGNED: case CU_DT_UINT32_T: return MPID_CH_U32;
    case CU_DT_WCHAR: return INT_OF(sizeof(wchar_t), (wchar_t)-1 < 0);
    case CU_DT_LONG: return INT_OF(sizeof(long), 1);
    case CU_DT_UNSIGNED_LONG: return INT_OF(sizeof(long), 0);
    case CU_DT_LONG_LONG_INT: case CU_DT_INT64_T: return MPID_CH_I64;
    case CU_DT_UNSIGNED_LONG_LONG: case CU_DT_UINT64_T: return MPID_CH_U64;
    case CU_DT_AINT: return INT_OF(sizeof(cu_aint), 1);
    case CU_DT_COUNT: case CU_DT_OFFSET: return INT_OF(sizeof(cu_count), 1);
    case CU_DT_INTEGER1: return MPID_CH_I8;
    case CU_DT_INTEGER2: return MPID_CH_I16;
    case CU_DT_INTEGER: case CU_DT_INTEGER4: return MPID_CH_I32;
    case CU_DT_INTEGER8: return MPID_CH_I64;
    case CU_DT_FLOAT: case CU_DT_REAL: case CU_DT_REAL4: return MPID_CH_F32;
    case CU_DT_DOUBLE: case CU_DT_DOUBLE_PRECISION: case CU_DT_REAL8: return MPID_CH_F64;
    default: return -1;   /* long double, complex, pair types: never by NIC */
    }
}

static int ch_op(int op)
{
    static const int map[CU_OP_COUNT] = {
        [CU_OP_MAX] = MPID_CH_MAX + 1, [CU_OP_MIN] = MPID_CH_MIN + 1,
        [CU_OP_SUM] = MPID_CH_SUM + 1, [CU_OP_PROD] = MPID_CH_PROD + 1,
        [CU_OP_LAND] = MPID_CH_LAND + 1, [CU_OP_BAND] = MPID_CH_BAND + 1,
        [CU_OP_LOR] = MPID_CH_LOR + 1, [CU_OP_BOR] = MPID_CH_BOR + 1,
        [CU_OP_LXOR] = MPID_CH_LXOR + 1, [CU_OP_BXOR] = MPID_CH_BXOR + 1,
        [CU_OP_REPLACE] = MPID_CH_WRITE + 1, [CU_OP_NO_OP] = MPID_CH_READ + 1,
    };
    return op > 0 && op < CU_OP_COUNT ? map[op] - 1 : -1;
}

/* Every accumulate MPI allows on basic, by this channel's atomics? */
static int nic_type_ok(const mpid_channel *ch, int basic)
{
    int t = ch_type(basic);
    int (*atomic_ok)(int, int, int) = ch->net_rma->atomic_ok;
    if (t < 0 || !atomic_ok)
        return 0;
    for (int op = 1; op < CU_OP_COUNT; op++) {
        if (!cu_op_valid_accumulate(op, basic))
            continue;
        int c = ch_op(op);
        if (c < 0 || !atomic_ok(MPID_CH_FETCH, c, t) ||
            (op != CU_OP_NO_OP && !atomic_ok(MPID_CH_ATOMIC, c, t)))
            return 0;
    }
    return !cu_op_valid(CU_OP_BAND, basic) ||
           atomic_ok(MPID_CH_CSWAP, MPID_CH_OP_CSWAP, t);
}

static uint64_t nic_types(const mpid_channel *ch)
{
    uint64_t m = 0;
    for (int b = 1; b < CU_DT_BUILTIN_COUNT && b < 64; b++)
        if (nic_type_ok(ch, b))
            m |= 1ull << b;
    return m;
}

/* ---- window creation --------------------------------------------------- */

/* Everyone's keys_msg, by point-to-point on the window's communicator. */
static int exchange(mpid_win *w, const keys_msg *mine, keys_msg *all)
{
    const mpid_comm *c = w->comm;
    const cu_dtype *byte = cu_dtype_builtin(CU_DT_BYTE);
    mpid_request **rq = calloc(2 * (size_t)c->size, sizeof *rq);
    if (!rq)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    all[c->rank] = *mine;
    for (int t = 0; t < c->size && rc == MPI_SUCCESS; t++) {
        if (t == c->rank)
            continue;
        rc = mpid_irecv(&all[t], sizeof *all, byte, t, OFI_KEYS_TAG, c, MPID_CTX_PT2PT, &rq[2 * t]);
        if (rc == MPI_SUCCESS)
            rc = mpid_isend(mine, sizeof *mine, byte, t, OFI_KEYS_TAG, c, MPID_CTX_PT2PT,
                            MPID_SEND_STANDARD, &rq[2 * t + 1]);
    }
    for (int k = 0; k < 2 * c->size; k++)
        if (rq[k]) {
            mpid_wait(rq[k]);
            if (rq[k]->status.MPI_ERROR && rc == MPI_SUCCESS)
                rc = rq[k]->status.MPI_ERROR;
            mpid_request_free(rq[k]);
        }
    free(rq);
    return rc;
}

void mpid_rma_ofi_setup(mpid_win *w)
{
    const mpid_comm *c = w->comm;
    int n = c->size, me = c->rank;
    w->ofi = NULL;
    /* The same answer on every rank: a static window spanning nodes whose
     * network channel offers remote access. */
    const mpid_channel *ch = NULL;
    for (int t = 0; t < n; t++) {
        int world = c->world_ranks[t];
        if (mpid_node_of(world) != mpid_node_of(c->world_ranks[me]) && mpid_st.dests[world].ch &&
            mpid_st.dests[world].ch->net_rma && mpid_st.dests[world].ch->net_rma->post)
            ch = mpid_st.dests[world].ch;
    }
    if (!ch || w->dynamic || cu_param_int("RMA_AM") || !cu_param_int("RMA_OFI"))
        return;
    struct mpid_rma_ofi_win *o = calloc(1, sizeof *o);
    keys_msg mine = { 0 }, *all = calloc((size_t)n, sizeof *all);
    if (o) {
        o->key = calloc((size_t)n, sizeof *o->key);
        o->base = calloc((size_t)n, sizeof *o->base);
        o->under = calloc((size_t)n, sizeof *o->under);
    }
    /* Everyone takes part in the exchange, failed or not. */
    mine.ok = o && all && o->key && o->base && o->under &&
              ch->net_rma->mem_expose(w->base, w->size, &mine.key, &o->handle) == 0;
    mine.base = (uint64_t)(uintptr_t)w->base;
    mine.nic_types = nic_types(ch);
    int rc = all ? exchange(w, &mine, all) : MPI_ERR_NO_MEM;
    int ok = rc == MPI_SUCCESS;
    uint64_t nic = ~0ull;
    for (int t = 0; ok && t < n; t++) {
        ok = all[t].ok;
        nic &= all[t].nic_types;
    }
    if (!ok) {
        /* All ranks saw the same flags: all stay on their paths. */
        cu_debug("RMA: window %d stays on active messages between nodes", w->index);
        if (o && o->handle)
            ch->net_rma->mem_unexpose(o->handle);
        if (o) {
            free(o->key);
            free(o->base);
            free(o->under);
        }
        free(o);
        free(all);
        return;
    }
    o->ch = ch;
    o->nic_types = nic;
    for (int t = 0; t < n; t++) {
        o->key[t] = all[t].key;
        o->base[t] = all[t].base;
        o->under[t] = w->peers[t].path;
        w->peers[t].path = &mpid_rma_path_ofi;
    }
    free(all);
    w->ofi = o;
    mpid_rma_ofi_stats.windows++;
    mpid_rma_ofi_stats.live++;
    cu_debug("RMA: window %d by network RMA; accumulate types by NIC atomics: %#llx", w->index,
             (unsigned long long)nic);
}

void mpid_rma_ofi_free(mpid_win *w)
{
    struct mpid_rma_ofi_win *o = w->ofi;
    if (!o)
        return;
    if (o->handle)
        o->ch->net_rma->mem_unexpose(o->handle);
    free(o->key);
    free(o->base);
    free(o->under);
    free(o);
    w->ofi = NULL;
    mpid_rma_ofi_stats.live--;
}

/* ---- operations ---------------------------------------------------------- */

/* One chunk's accesses in flight: completes when its last access does. */
typedef struct net_op {
    mpid_win *w;
    int target;
    mpid_rma_rec *rec;
    int left;                  /* accesses not completed (+1 while posting) */
    int err;
    int waited;                /* the issuer waits for it (and frees it) */
    char *own;                 /* our copy of the origin data, or NULL */
} net_op;

static void op_end(net_op *op)
{
    mpid_win *w = op->w;
    w->pending[op->target]--;
    w->pending_total--;
    if (op->err && !w->err)
        w->err = op->err;
    if (op->rec) {
        if (op->err && !op->rec->err)
            op->rec->err = op->err;
        mpid_rma_rec_done(op->rec, 1);
    }
    free(op->own);
    if (!op->waited)
        free(op);
}

void mpid_on_rma_done(void *cookie, int status)
{
    net_op *op = cookie;
    if (status < 0 && !op->err)
        op->err = MPI_ERR_OTHER;
    if (--op->left == 0)
        op_end(op);
}

static int op_done(void *arg)
{
    return ((net_op *)arg)->left == 0;
}


static int net_chunk(mpid_win *w, const mpid_rma_args *a, const struct iovec *segs, int n,
                     const void *in, void *out, size_t len)
{
    struct mpid_rma_ofi_win *o = w->ofi;
    int t = a->target, fetch = mpid_rma_fetches(a->kind);
    net_op *op = calloc(1, sizeof *op);
    if (!op)
        return MPI_ERR_NO_MEM;
    /* Origin data not in the user's buffer (packed, or CAS's pair on the
     * caller's stack) is gone when we return: keep a copy until done. */
    if (in && (a->kind == MPID_RMA_CAS || !a->odt->contig)) {
        size_t l = a->kind == MPID_RMA_CAS ? 2 * len : len;
        if (!(op->own = malloc(l))) {
            free(op);
            return MPI_ERR_NO_MEM;
        }
        memcpy(op->own, in, l);
        in = op->own;
    }
    /* A result outside the user's buffer is unpacked when we return. */
    op->waited = fetch && !a->rdt->contig;
    op->w = w;
    op->target = t;
    op->rec = mpid_st.rma.issuing;
    op->left = 1;
    w->pending[t]++;
    w->pending_total++;
    if (op->rec)
        op->rec->pending++;
    mpid_chan_rma r = { .key = o->key[t], .base = o->base[t] };
    if (mpid_rma_is_acc(a->kind)) {
        r.kind = a->kind == MPID_RMA_ACC ? MPID_CH_ATOMIC
                 : a->kind == MPID_RMA_CAS ? MPID_CH_CSWAP : MPID_CH_FETCH;
        r.op = a->kind == MPID_RMA_CAS ? MPID_CH_OP_CSWAP : ch_op(a->op);
        r.type = ch_type(a->basic);
    } else {
        r.kind = a->kind == MPID_RMA_PUT ? MPID_CH_PUT : MPID_CH_GET;
    }
    int world = w->comm->world_ranks[t], rc = 0;
    size_t off = 0;
    for (int i = 0; i < n && !rc; i++) {
        r.addr = (uint64_t)(uintptr_t)segs[i].iov_base;
        r.len = segs[i].iov_len;
        r.in = in ? (const char *)in + off : NULL;
        r.cmp = a->kind == MPID_RMA_CAS ? (const char *)in + len + off : NULL;
        r.out = out ? (char *)out + off : NULL;
        if (!r.in && r.kind == MPID_CH_FETCH)
            r.in = r.out;   /* MPI_NO_OP sends no data; the provider ignores it */
        op->left++;
        mpid_rma_ofi_stats.posted++;
        mpid_rma_ofi_stats.nic_acc += r.kind >= MPID_CH_ATOMIC;
        if ((rc = o->ch->net_rma->post(world, &r, op)) != 0) {
            op->left--;
            cu_warn("one-sided access to window rank %d (world %d) failed: %s", t, world,
                    strerror(-rc));
        }
        off += segs[i].iov_len;
    }
    if (rc && !op->err)
        op->err = MPI_ERR_OTHER;
    int waited = op->waited;
    mpid_on_rma_done(op, 0);   /* the posting hold */
    if (waited) {
        if (!op_done(op))
            mpid_progress_until(op_done, op);
        rc = op->err;
        free(op);
        return rc;
    }
    return rc ? MPI_ERR_OTHER : 0;
}

struct grant_arg { mpid_win *w; int target, want; };

static int grant_in(void *arg)
{
    struct grant_arg *g = arg;
    return g->w->granted[g->target] >= g->want;
}

static int net_issue(mpid_win *w, const mpid_rma_args *a, mpid_rma_rec *rec)
{
    struct mpid_rma_ofi_win *o = w->ofi;
    int t = a->target;
    int same_node = mpid_node_of(w->comm->world_ranks[t]) ==
                    mpid_node_of(w->comm->world_ranks[w->comm->rank]);
    int nic = mpid_rma_is_acc(a->kind) ? (a->basic > 0 && a->basic < 64 &&
                                          (o->nic_types >> a->basic & 1))
                                       : !same_node;
    if (!nic)
        return o->under[t]->issue(w, a, rec);
    if (a->kind == MPID_RMA_ACC && a->op == CU_OP_NO_OP)
        return MPI_SUCCESS;   /* touches nothing */
    /* A lock by active messages is granted later: wait before touching. */
    struct grant_arg g = { w, t, w->grant_want[t] };
    if (o->under[t] == &mpid_rma_path_am && !grant_in(&g))
        mpid_progress_until(grant_in, &g);
    mpid_st.rma.issuing = rec;
    int rc = mpid_rma_run_chunks(w, a, (uintptr_t)o->base[t], net_chunk);
    mpid_st.rma.issuing = NULL;
    return rc;
}

static int net_lock(mpid_win *w, int target, int type)
{
    return w->ofi->under[target]->lock(w, target, type);
}

static int net_unlock(mpid_win *w, int target, int type)
{
    return w->ofi->under[target]->unlock(w, target, type);
}

const mpid_rma_path mpid_rma_path_ofi = {
    .name = "ofi",
    .issue = net_issue,
    .lock = net_lock,
    .unlock = net_unlock,
};
