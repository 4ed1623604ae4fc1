/*
 * reduce_util.c — work buffers of the reduction algorithms.
 */
#include <stdlib.h>
#include "coll/reduce_impl.h"

int coll_tmp_alloc(coll_tmp *t, size_t count, const cu_dtype *dt)
{
    t->heap = NULL;
    t->buf = t->small;
    if (count == 0)
        return MPI_SUCCESS;
    ptrdiff_t ext = dt->extent;
    size_t aext = (size_t)(ext < 0 ? -ext : ext);
    size_t span = (size_t)dt->true_extent + (count - 1) * aext;
    /* Offset of the lowest byte touched from the buffer address. */
    ptrdiff_t low = dt->true_lb + (ext < 0 ? (ptrdiff_t)(count - 1) * ext : 0);
    char *base = t->small;
    if (span > sizeof t->small) {
        if (!(t->heap = coll_scratch_get(span)))
            return MPI_ERR_NO_MEM;
        base = t->heap;
    }
    t->buf = base - low;
    return MPI_SUCCESS;
}
