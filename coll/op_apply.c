/*
 * op_apply.c — coll_op_apply: one reduction step, inout = in op inout, on
 * count elements of any datatype. Predefined ops run the kernels of
 * src/util/op.c on the type's basic elements: directly for contiguous
 * types, segment by segment for other types of one basic type (both buffers
 * share one typemap, so their segments line up), and through small packed
 * bounce buffers for derived types of the pair types (whose packed layout
 * differs from memory). User functions get the buffers as they are.
 */
#include <limits.h>
#include <string.h>
#include "coll/algos.h"
#include "src/util/op.h"

static void apply_user(const coll_op *op, const void *in, void *inout, size_t count,
                       const cu_dtype *dt)
{
    MPI_Datatype h = op->dt_handle;
    /* The callback takes an int count: call it in slices. */
    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        op->user_fn((void *)in, inout, &len, &h);
        in = (const char *)in + (ptrdiff_t)len * dt->extent;
        inout = (char *)inout + (ptrdiff_t)len * dt->extent;
        count -= (size_t)len;
    }
}

/* Walk the segments of both buffers in lockstep; each segment holds whole
 * basic elements. */
static void apply_iov(cu_op_kernel *k, size_t esize, const void *in, void *inout,
                      size_t count, const cu_dtype *dt)
{
    enum { NIOV = 64 };
    struct iovec a[NIOV], b[NIOV];
    size_t total = cu_dtype_bytes(dt, count);
    for (size_t off = 0; off < total;) {
        size_t la = 0, lb = 0;
        int na = cu_dtype_to_iov(in, count, dt, off, total - off, a, NIOV, &la);
        int nb = cu_dtype_to_iov(inout, count, dt, off, la, b, NIOV, &lb);
        if (na <= 0 || nb <= 0 || lb == 0)
            return;
        int i = 0, j = 0;
        size_t oi = 0, oj = 0, done = 0;
        while (done < lb && i < na && j < nb) {
            size_t n = a[i].iov_len - oi;
            if (b[j].iov_len - oj < n)
                n = b[j].iov_len - oj;
            if (lb - done < n)
                n = lb - done;
            k((const char *)a[i].iov_base + oi, (char *)b[j].iov_base + oj, n / esize);
            done += n;
            oi += n;
            oj += n;
            if (oi == a[i].iov_len) { i++; oi = 0; }
            if (oj == b[j].iov_len) { j++; oj = 0; }
        }
        off += lb;
    }
}

/* Pack slices of both operands, reduce the packed elements, unpack. */
static void apply_packed(cu_op_kernel *k, size_t psize, const void *in, void *inout,
                         size_t count, const cu_dtype *dt)
{
    enum { SLICE = 4096 };
    _Alignas(max_align_t) char ta[SLICE], tb[SLICE];
    size_t total = cu_dtype_bytes(dt, count);
    size_t slice = SLICE / psize * psize;
    for (size_t off = 0; off < total; off += slice) {
        size_t n = total - off < slice ? total - off : slice;
        cu_dtype_pack(in, count, dt, off, ta, n);
        cu_dtype_pack(inout, count, dt, off, tb, n);
        k(ta, tb, n / psize);
        cu_dtype_unpack(inout, count, dt, off, tb, n);
    }
}

void coll_op_apply(const coll_op *op, const void *in, void *inout, size_t count,
                   const cu_dtype *dt)
{
    if (count == 0 || dt->size == 0)
        return;
    if (!op->builtin) {
        apply_user(op, in, inout, count, dt);
        return;
    }
    int basic = dt->basic;
    if (dt->contig) {
        /* Packed and memory layouts coincide, pairs included. */
        cu_op_kernel *k = cu_op_kernel_packed(op->builtin, basic);
        size_t ps = cu_op_packed_size(basic);
        if (k && ps)
            k((const char *)in + dt->true_lb, (char *)inout + dt->true_lb,
              cu_dtype_bytes(dt, count) / ps);
        return;
    }
    if (dt->builtin) {
        /* A pair type with padding, as an array of its C struct. */
        cu_op_kernel *k = cu_op_kernel_get(op->builtin, basic);
        if (k)
            k(in, inout, count);
        return;
    }
    cu_op_kernel *k = cu_op_kernel_packed(op->builtin, basic);
    if (!k)
        return;
    if (cu_op_packed_size(basic) == cu_op_elem_size(basic))
        apply_iov(k, cu_op_elem_size(basic), in, inout, count, dt);
    else
        apply_packed(k, cu_op_packed_size(basic), in, inout, count, dt);
}
