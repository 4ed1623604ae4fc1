/*
 * rma_apply.c — one-sided operations applied to memory described by
 * segments, and the lock words (rma_apply.h). Moved here from the
 * device's target side so that the NI agent applies operations with the
 * same code and the same word rules as ranks do.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "src/util/log.h"
#include "src/util/op.h"
#include "src/util/rma_apply.h"

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

void cu_rma_apply(int kind, int op, int basic, char *base, const struct iovec *segs,
                    int nseg, const void *in, void *out, size_t len)
{
    switch (kind) {
    case CU_RMA_PUT:
        scatter(base, segs, nseg, in, len);
        break;
    case CU_RMA_GET:
        gather(base, segs, nseg, out, len);
        break;
    case CU_RMA_ACC:
        acc(op, basic, base, segs, nseg, in, len);
        break;
    case CU_RMA_GACC:
    case CU_RMA_FOP:
        gather(base, segs, nseg, out, len);
        acc(op, basic, base, segs, nseg, in, len);
        break;
    case CU_RMA_CAS:
        gather(base, segs, nseg, out, len);
        if (memcmp(out, (const char *)in + len, len) == 0)
            scatter(base, segs, nseg, in, len);
        break;
    }
}

int cu_rma_apply_packed(int kind, int op, int basic, char *t, const void *in, void *out,
                        size_t len)
{
    struct iovec one = { NULL, len };   /* offset 0 from t */
    cu_rma_apply(kind, op, basic, t, &one, 1, in, out, len);
    if (kind == CU_RMA_CAS)
        return memcmp(out, (const char *)in + len, len) == 0;   /* it matched: t holds in */
    return op != CU_OP_NO_OP;
}

/* ---- lock words ----------------------------------------------------------- */
int cu_rma_try_lock(int *word, int type)
{
    int v = __atomic_load_n(word, __ATOMIC_RELAXED);
    if (type == CU_LOCK_EXCL)
        return v == 0 && __atomic_compare_exchange_n(word, &v, -1, 0, __ATOMIC_ACQUIRE,
                                                      __ATOMIC_RELAXED);
    while (v >= 0) {
        if (__atomic_compare_exchange_n(word, &v, v + 1, 1, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

void cu_rma_release_lock(int *word, int type)
{
    if (type == CU_LOCK_EXCL)
        __atomic_store_n(word, 0, __ATOMIC_RELEASE);
    else
        __atomic_fetch_sub(word, 1, __ATOMIC_RELEASE);
}

/* Held for one chunk only, never across progress: spin, and yield when the
 * holder may be descheduled (more ranks than cores). */
void cu_rma_acc_lock(int *word)
{
    for (int spins = 0;; spins++) {
        int z = 0;
        if (__atomic_load_n(word, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(word, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        if (spins > 64)
            sched_yield();
        else
            __builtin_ia32_pause();
    }
}

void cu_rma_acc_unlock(int *word)
{
    __atomic_store_n(word, 0, __ATOMIC_RELEASE);
}

