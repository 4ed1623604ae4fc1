/*
 * dtype_darray.c — the distributed-array constructor of the datatype engine
 * (MPI_Type_create_darray), built as MPI-3.1 4.1.4 defines it: one cyclic()
 * type per dimension, each over the previous one, from the fastest-varying
 * dimension out.
 */
#include "src/util/dtype_impl.h"

/* cyclic(darg, gsize, r, psize, old) of MPI-3.1 4.1.4: the blocks of darg
 * elements of old that process coordinate r owns in a dimension of gsize
 * elements dealt round-robin over psize processes (the last block may be
 * short), with lb 0 and extent gsize * extent(old) whatever it owns. */
static cu_dtype *cyclic(size_t darg, size_t gsize, size_t r, size_t psize, const cu_dtype *old)
{
    ptrdiff_t ex = old->extent;
    size_t nblocks = (gsize + darg - 1) / darg;
    size_t count = nblocks / psize;
    if (r < nblocks - count * psize)
        count++;
    /* The standard's darg_last: elements of my block in the incomplete last
     * round, when that block is mine; darg otherwise. */
    size_t last = darg;
    size_t rem = gsize % (psize * darg);
    if (rem && rem > darg * r && rem - darg * r < darg)
        last = rem - darg * r;
    cu_dtype *blocks;
    if (count == 0) {
        blocks = cu_dtype_contiguous(0, old);
    } else {
        ptrdiff_t start = (ptrdiff_t)(r * darg) * ex;
        ptrdiff_t stride = count > 1 ? (ptrdiff_t)(psize * darg) * ex : 0;
        size_t full = last == darg ? count : count - 1;
        cu_dtype *vec = full ? cu_dtype_hvector(full, darg, stride, old) : NULL;
        cu_dtype *tail = last != darg ? cu_dtype_contiguous(last, old) : NULL;
        if ((full && !vec) || (last != darg && !tail)) {
            cu_dtype_release(vec);
            cu_dtype_release(tail);
            return NULL;
        }
        const cu_dtype *parts[2];
        ptrdiff_t disps[2];
        int ones[2] = { 1, 1 };
        size_t n = 0;
        if (vec) {
            parts[n] = vec;
            disps[n++] = start;
        }
        if (tail) {
            parts[n] = tail;
            disps[n++] = start + (ptrdiff_t)(count - 1) * stride;
        }
        blocks = cu_dtype_struct(n, ones, disps, parts);
        cu_dtype_release(vec);
        cu_dtype_release(tail);
    }
    if (!blocks)
        return NULL;
    cu_dtype *t = cu_dtype_resized(blocks, 0, (ptrdiff_t)gsize * ex);
    cu_dtype_release(blocks);
    return t;
}

cu_dtype *cu_dtype_darray(int ndims, const int *gsizes, const int *dargs, const int *psizes,
                          const int *coords, int order_c, const cu_dtype *old)
{
    const cu_dtype *t = old;
    for (int i = 0; i < ndims; i++) {
        int d = order_c ? ndims - 1 - i : i;
        cu_dtype *n = cyclic((size_t)dargs[d], (size_t)gsizes[d], (size_t)coords[d],
                             (size_t)psizes[d], t);
        if (t != old)
            cu_dtype_release(t);
        if (!n)
            return NULL;
        t = n;
    }
    return (cu_dtype *)t;
}
