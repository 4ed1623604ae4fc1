/*
 * darray.c — MPI_Type_create_darray (MPI-3.1 4.1.4): the part of an
 * HPF-style distributed global array that one process of a row-major
 * process grid owns. This file checks the arguments and resolves each
 * dimension's distribution to the block size of the standard's cyclic()
 * construction; the engine builds the type (src/util/dtype_darray.c).
 */
#include <stdlib.h>
#include <string.h>
#include "src/datatype.h"

/* Checks dimension i and sets *darg to the block size cyclic() uses: BLOCK
 * with the default argument is ceil(gsize/psize), CYCLIC with it is 1, NONE
 * is the whole dimension on its single process. Returns an error code. */
static int resolve_dim(const char *fn, int i, int gsize, int distrib, int darg, int psize,
                       int *out)
{
    if (gsize <= 0)
        return mpir_err(MPI_ERR_ARG, fn, "array_of_gsizes[%d] must be positive (%d)", i, gsize);
    if (psize <= 0)
        return mpir_err(MPI_ERR_ARG, fn, "array_of_psizes[%d] must be positive (%d)", i, psize);
    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        if (psize != 1)
            return mpir_err(MPI_ERR_ARG, fn, "array_of_psizes[%d] is %d, must be 1 for "
                            "MPI_DISTRIBUTE_NONE", i, psize);
        *out = gsize;
        return MPI_SUCCESS;
    case MPI_DISTRIBUTE_BLOCK:
    case MPI_DISTRIBUTE_CYCLIC:
        break;
    default:
        return mpir_err(MPI_ERR_ARG, fn, "invalid array_of_distribs[%d] (%d)", i, distrib);
    }
    if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
        *out = distrib == MPI_DISTRIBUTE_CYCLIC ? 1
                                                : (int)(((long long)gsize + psize - 1) / psize);
        return MPI_SUCCESS;
    }
    if (darg <= 0)
        return mpir_err(MPI_ERR_ARG, fn, "array_of_dargs[%d] must be positive or "
                        "MPI_DISTRIBUTE_DFLT_DARG (%d)", i, darg);
    if (distrib == MPI_DISTRIBUTE_BLOCK && (long long)darg * psize < gsize)
        return mpir_err(MPI_ERR_ARG, fn, "array_of_dargs[%d] (%d) times array_of_psizes[%d] "
                        "(%d) does not cover array_of_gsizes[%d] (%d)", i, darg, i, psize,
                        i, gsize);
    *out = darg;
    return MPI_SUCCESS;
}

/* Checks everything but oldtype and newtype; fills dargs (block sizes) and
 * coords (the grid position of rank, row-major). */
static int check_args(const char *fn, int size, int rank, int ndims, const int gsizes[],
                      const int distribs[], const int dargs_in[], const int psizes[], int order,
                      ptrdiff_t old_extent, int *dargs, int *coords)
{
    if (size <= 0)
        return mpir_err(MPI_ERR_ARG, fn, "size must be positive (%d)", size);
    if (rank < 0 || rank >= size)
        return mpir_err(MPI_ERR_ARG, fn, "rank (%d) not in [0, %d)", rank, size);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpir_err(MPI_ERR_ARG, fn, "invalid order (%d)", order);
    long long grid = 1, bytes = old_extent < 0 ? -(long long)old_extent : old_extent;
    for (int i = 0; i < ndims; i++) {
        int rc = resolve_dim(fn, i, gsizes[i], distribs[i], dargs_in[i], psizes[i], &dargs[i]);
        if (rc)
            return rc;
        grid *= psizes[i];
        if (grid > size)
            break;
        /* The type's extent is the whole array's: it must fit an MPI_Aint. */
        if (bytes > ((long long)1 << 62) / gsizes[i])
            return mpir_err(MPI_ERR_ARG, fn, "global array too large");
        bytes *= gsizes[i];
    }
    if (grid != size)
        return mpir_err(MPI_ERR_ARG, fn, "the product of array_of_psizes%s is not size (%d)",
                        grid > size ? " exceeds" : "", size);
    for (int i = ndims - 1, r = rank; i >= 0; i--) {
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_darray";
    MPIR_ENTER(fn);
    cu_dtype *old;
    if (ndims <= 0)
        return MPIR_DT_ERR(MPI_ERR_DIMS, fn, "ndims must be positive (%d)", ndims);
    if (!array_of_gsizes || !array_of_distribs || !array_of_dargs || !array_of_psizes)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "%s is NULL",
                           !array_of_gsizes ? "array_of_gsizes"
                           : !array_of_distribs ? "array_of_distribs"
                           : !array_of_dargs ? "array_of_dargs" : "array_of_psizes");
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    size_t n = (size_t)ndims;
    int *dargs = malloc(2 * n * sizeof(int));
    int *ints = malloc((4 * n + 4) * sizeof(int));
    if (!dargs || !ints) {
        free(dargs);
        free(ints);
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    }
    int *coords = dargs + n;
    int rc = check_args(fn, size, rank, ndims, array_of_gsizes, array_of_distribs,
                        array_of_dargs, array_of_psizes, order, old->extent, dargs, coords);
    if (rc) {
        free(dargs);
        free(ints);
        return mpir_err_world(rc);
    }
    /* The envelope keeps the arguments as given (MPI-3.1 4.1.13). */
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    memcpy(ints + 3, array_of_gsizes, n * sizeof(int));
    memcpy(ints + 3 + n, array_of_distribs, n * sizeof(int));
    memcpy(ints + 3 + 2 * n, array_of_dargs, n * sizeof(int));
    memcpy(ints + 3 + 3 * n, array_of_psizes, n * sizeof(int));
    ints[3 + 4 * n] = order;
    const cu_dtype *t = old;
    rc = mpir_dtype_finish(fn, cu_dtype_darray(ndims, array_of_gsizes, dargs, array_of_psizes,
                                               coords, order == MPI_ORDER_C, old),
                           MPI_COMBINER_DARRAY, 4 * ndims + 4, ints, 0, NULL, 1, &t, newtype);
    free(dargs);
    free(ints);
    return rc;
}
MPIR_WEAK(Type_create_darray)
