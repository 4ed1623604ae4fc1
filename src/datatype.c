/*
 * datatype.c — the MPI datatype entry points: constructors, queries, names,
 * envelopes and contents, Pack/Unpack. The work is done by the engine
 * (src/util/dtype.c); this file checks arguments and maps handles.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "src/datatype.h"

int mpir_dtype_lookup(const char *fn, const char *arg, MPI_Datatype t, int need_commit,
                      cu_dtype **out)
{
    cu_dtype *dt = mpir_dtype_get(t);
    if (!dt) {
        if (t == MPI_DATATYPE_NULL)
            return mpir_err(MPI_ERR_TYPE, fn, "%s is MPI_DATATYPE_NULL", arg);
        return mpir_err(MPI_ERR_TYPE, fn, "invalid datatype %s (0x%x)", arg, (unsigned)t);
    }
    if (need_commit && !dt->committed)
        return mpir_err(MPI_ERR_TYPE, fn, "datatype %s (0x%x) is not committed", arg,
                        (unsigned)t);
    *out = dt;
    return MPI_SUCCESS;
}

int mpir_dtype_finish(const char *fn, cu_dtype *dt, int combiner, int ni, const int *ints,
                      int na, const MPI_Aint *aints, int nd, const cu_dtype *const *types,
                      MPI_Datatype *newtype)
{
    if (!dt)
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory building the datatype");
    if (cu_dtype_set_contents(dt, combiner, ni, ints, na, aints, nd, types) != 0) {
        cu_dtype_release(dt);
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory building the datatype");
    }
    int h = mpir_handle_new(&mpir_dtypes, dt);
    if (h == MPI_DATATYPE_NULL) {
        cu_dtype_release(dt);
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of datatype handles");
    }
    *newtype = h;
    return MPI_SUCCESS;
}

/* ---- constructors -------------------------------------------------------- */

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_contiguous";
    MPIR_ENTER(fn);
    cu_dtype *old;
    MPIR_DT_CHECK_COUNT(fn, count, "count");
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    const cu_dtype *t = old;
    return mpir_dtype_finish(fn, cu_dtype_contiguous((size_t)count, old), MPI_COMBINER_CONTIGUOUS,
                  1, &count, 0, NULL, 1, &t, newtype);
}
MPIR_WEAK(Type_contiguous)

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_vector";
    MPIR_ENTER(fn);
    cu_dtype *old;
    MPIR_DT_CHECK_COUNT(fn, count, "count");
    if (blocklength < 0)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "negative blocklength (%d)", blocklength);
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    int ints[3] = { count, blocklength, stride };
    const cu_dtype *t = old;
    return mpir_dtype_finish(fn, cu_dtype_hvector((size_t)count, (size_t)blocklength,
                                       (ptrdiff_t)stride * old->extent, old),
                  MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &t, newtype);
}
MPIR_WEAK(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_hvector";
    MPIR_ENTER(fn);
    cu_dtype *old;
    MPIR_DT_CHECK_COUNT(fn, count, "count");
    if (blocklength < 0)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "negative blocklength (%d)", blocklength);
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    int ints[2] = { count, blocklength };
    const cu_dtype *t = old;
    return mpir_dtype_finish(fn, cu_dtype_hvector((size_t)count, (size_t)blocklength, stride, old),
                  MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 1, &t, newtype);
}
MPIR_WEAK(Type_create_hvector)

/* Common checks of the indexed family: array arguments present when count
 * > 0, block lengths non-negative. */
static int check_blocks(const char *fn, int count, const int *bl, const void *disp)
{
    if (count > 0 && !bl)
        return mpir_err(MPI_ERR_ARG, fn, "array_of_blocklengths is NULL");
    if (count > 0 && !disp)
        return mpir_err(MPI_ERR_ARG, fn, "array_of_displacements is NULL");
    for (int i = 0; i < count; i++)
        if (bl[i] < 0)
            return mpir_err(MPI_ERR_ARG, fn, "negative array_of_blocklengths[%d] (%d)", i,
                            bl[i]);
    return MPI_SUCCESS;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_indexed";
    MPIR_ENTER(fn);
    cu_dtype *old;
    MPIR_DT_CHECK_COUNT(fn, count, "count");
    int rc = check_blocks(fn, count, array_of_blocklengths, array_of_displacements);
    if (rc)
        return mpir_err_world(rc);
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    size_t n = (size_t)count;
    ptrdiff_t *d = malloc((n ? n : 1) * sizeof(*d));
    int *ints = malloc((2 * n + 1) * sizeof(*ints));
    if (!d || !ints) {
        free(d);
        free(ints);
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    }
    ints[0] = count;
    for (size_t i = 0; i < n; i++) {
        d[i] = (ptrdiff_t)array_of_displacements[i] * old->extent;
        ints[1 + i] = array_of_blocklengths[i];
        ints[1 + n + i] = array_of_displacements[i];
    }
    const cu_dtype *t = old;
    rc = mpir_dtype_finish(fn, cu_dtype_hindexed(n, array_of_blocklengths, 0, d, old),
                MPI_COMBINER_INDEXED, 2 * count + 1, ints, 0, NULL, 1, &t, newtype);
    free(d);
    free(ints);
    return rc;
}
MPIR_WEAK(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_hindexed";
    MPIR_ENTER(fn);
    cu_dtype *old;
    MPIR_DT_CHECK_COUNT(fn, count, "count");
    int rc = check_blocks(fn, count, array_of_blocklengths, array_of_displacements);
    if (rc)
        return mpir_err_world(rc);
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    size_t n = (size_t)count;
    int *ints = malloc((n + 1) * sizeof(*ints));
    if (!ints)
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    ints[0] = count;
    if (n)
        memcpy(ints + 1, array_of_blocklengths, n * sizeof(int));
    const cu_dtype *t = old;
    rc = mpir_dtype_finish(fn, cu_dtype_hindexed(n, array_of_blocklengths, 0,
                                                 array_of_displacements, old),
                           MPI_COMBINER_HINDEXED, count + 1, ints, count, array_of_displacements,
                           1, &t, newtype);
    free(ints);
    return rc;
}
MPIR_WEAK(Type_create_hindexed)

/* Common checks of the two block-indexed constructors. */
static int check_block_ctor(const char *fn, int count, int blocklength, const void *disp,
                            MPI_Datatype oldtype, cu_dtype **old, MPI_Datatype *newtype)
{
    MPIR_DT_CHECK_COUNT(fn, count, "count");
    if (blocklength < 0)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "negative blocklength (%d)", blocklength);
    if (count > 0 && !disp)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "array_of_displacements is NULL");
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, *old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    return MPI_SUCCESS;
}

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_indexed_block";
    MPIR_ENTER(fn);
    cu_dtype *old = NULL;
    int rc = check_block_ctor(fn, count, blocklength, array_of_displacements, oldtype, &old,
                              newtype);
    if (rc)
        return rc;
    size_t n = (size_t)count;
    ptrdiff_t *d = malloc((n ? n : 1) * sizeof(*d));
    int *ints = malloc((n + 2) * sizeof(*ints));
    if (!d || !ints) {
        free(d);
        free(ints);
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    }
    ints[0] = count;
    ints[1] = blocklength;
    for (size_t i = 0; i < n; i++) {
        d[i] = (ptrdiff_t)array_of_displacements[i] * old->extent;
        ints[2 + i] = array_of_displacements[i];
    }
    const cu_dtype *t = old;
    rc = mpir_dtype_finish(fn, cu_dtype_hindexed(n, NULL, (size_t)blocklength, d, old),
                    MPI_COMBINER_INDEXED_BLOCK, count + 2, ints, 0, NULL, 1, &t, newtype);
    free(d);
    free(ints);
    return rc;
}
MPIR_WEAK(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_hindexed_block";
    MPIR_ENTER(fn);
    cu_dtype *old = NULL;
    int rc = check_block_ctor(fn, count, blocklength, array_of_displacements, oldtype, &old,
                              newtype);
    if (rc)
        return rc;
    int ints[2] = { count, blocklength };
    const cu_dtype *t = old;
    return mpir_dtype_finish(fn, cu_dtype_hindexed((size_t)count, NULL, (size_t)blocklength,
                                        array_of_displacements, old),
                  MPI_COMBINER_HINDEXED_BLOCK, 2, ints, count, array_of_displacements, 1,
                  &t, newtype);
}
MPIR_WEAK(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_struct";
    MPIR_ENTER(fn);
    MPIR_DT_CHECK_COUNT(fn, count, "count");
    int rc = check_blocks(fn, count, array_of_blocklengths, array_of_displacements);
    if (rc)
        return mpir_err_world(rc);
    if (count > 0 && !array_of_types)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "array_of_types is NULL");
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    size_t n = (size_t)count;
    const cu_dtype **types = malloc((n ? n : 1) * sizeof(*types));
    int *ints = malloc((n + 1) * sizeof(*ints));
    if (!types || !ints) {
        free(types);
        free(ints);
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        cu_dtype *t = mpir_dtype_get(array_of_types[i]);
        if (!t) {
            free(types);
            free(ints);
            return MPIR_DT_ERR(MPI_ERR_TYPE, fn, "invalid datatype array_of_types[%zu] (0x%x)", i,
                       (unsigned)array_of_types[i]);
        }
        types[i] = t;
    }
    ints[0] = count;
    if (n)
        memcpy(ints + 1, array_of_blocklengths, n * sizeof(int));
    rc = mpir_dtype_finish(fn, cu_dtype_struct(n, array_of_blocklengths,
                                               array_of_displacements, types),
                MPI_COMBINER_STRUCT, count + 1, ints, count, array_of_displacements, count,
                types, newtype);
    free(types);
    free(ints);
    return rc;
}
MPIR_WEAK(Type_create_struct)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_resized";
    MPIR_ENTER(fn);
    cu_dtype *old;
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    MPI_Aint a[2] = { lb, extent };
    const cu_dtype *t = old;
    return mpir_dtype_finish(fn, cu_dtype_resized(old, lb, extent), MPI_COMBINER_RESIZED, 0,
                             NULL, 2, a, 1, &t, newtype);
}
MPIR_WEAK(Type_create_resized)

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_subarray";
    MPIR_ENTER(fn);
    cu_dtype *old;
    if (ndims <= 0)
        return MPIR_DT_ERR(MPI_ERR_DIMS, fn, "ndims must be positive (%d)", ndims);
    if (!array_of_sizes || !array_of_subsizes || !array_of_starts)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "%s is NULL",
                   !array_of_sizes ? "array_of_sizes"
                   : !array_of_subsizes ? "array_of_subsizes" : "array_of_starts");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "invalid order (%d)", order);
    long long total = 1;
    for (int i = 0; i < ndims; i++) {
        int sz = array_of_sizes[i], sub = array_of_subsizes[i], st = array_of_starts[i];
        if (sz <= 0)
            return MPIR_DT_ERR(MPI_ERR_ARG, fn, "array_of_sizes[%d] must be positive (%d)", i, sz);
        if (sub < 0 || sub > sz)
            return MPIR_DT_ERR(MPI_ERR_ARG, fn, "array_of_subsizes[%d] (%d) not in [0, %d]", i, sub,
                       sz);
        if (st < 0 || st > sz - sub)
            return MPIR_DT_ERR(MPI_ERR_ARG, fn, "array_of_starts[%d] (%d) not in [0, %d]", i, st,
                       sz - sub);
        total *= sz;
        if (total > ((long long)1 << 48))
            return MPIR_DT_ERR(MPI_ERR_ARG, fn, "array too large");
    }
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    size_t n = (size_t)ndims;
    int *ints = malloc((3 * n + 2) * sizeof(*ints));
    if (!ints)
        return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    ints[0] = ndims;
    memcpy(ints + 1, array_of_sizes, n * sizeof(int));
    memcpy(ints + 1 + n, array_of_subsizes, n * sizeof(int));
    memcpy(ints + 1 + 2 * n, array_of_starts, n * sizeof(int));
    ints[1 + 3 * n] = order;
    const cu_dtype *t = old;
    int rc = mpir_dtype_finish(fn, cu_dtype_subarray(ndims, array_of_sizes, array_of_subsizes,
                                          array_of_starts, order == MPI_ORDER_C, old),
                    MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1, &t, newtype);
    free(ints);
    return rc;
}
MPIR_WEAK(Type_create_subarray)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_dup";
    MPIR_ENTER(fn);
    cu_dtype *old;
    MPIR_DT_GET(fn, "oldtype", oldtype, 0, old);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    cu_dtype *dt = cu_dtype_dup(old);
    if (dt)
        dt->committed = old->committed;   /* the standard: same committed state */
    const cu_dtype *t = old;
    MPI_Datatype h;
    int rc = mpir_dtype_finish(fn, dt, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &t, &h);
    if (rc)
        return rc;
    rc = mpir_type_attrs_copy(oldtype, h);
    if (rc) {
        mpir_type_attrs_free(h);
        mpir_handle_free(&mpir_dtypes, h);
        cu_dtype_release(dt);
        return mpir_err_world(rc);
    }
    *newtype = h;
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_dup)

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_commit";
    MPIR_ENTER(fn);
    cu_dtype *dt;
    MPIR_DT_CHECK_PTR(fn, datatype, "datatype");
    MPIR_DT_GET(fn, "datatype", *datatype, 0, dt);
    /* The engine builds its representation at construction; commit only
     * marks the type usable for communication. */
    if (!dt->builtin)
        dt->committed = 1;
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_free";
    MPIR_ENTER(fn);
    cu_dtype *dt;
    MPIR_DT_CHECK_PTR(fn, datatype, "datatype");
    MPIR_DT_GET(fn, "datatype", *datatype, 0, dt);
    if (dt->builtin)
        return MPIR_DT_ERR(MPI_ERR_TYPE, fn, "cannot free predefined datatype %s",
                           cu_dtype_name(dt));
    if (mpir_f90_handle(dt) != MPI_DATATYPE_NULL)
        return MPIR_DT_ERR(MPI_ERR_TYPE, fn, "cannot free a datatype of "
                           "MPI_Type_create_f90_* (0x%x): it is predefined", (unsigned)*datatype);
    int rc = mpir_type_attrs_free(*datatype);
    if (rc)
        return mpir_err_world(rc);
    mpir_handle_free(&mpir_dtypes, *datatype);
    /* Pending requests hold their own references: the type lives on until
     * they complete. */
    cu_dtype_release(dt);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_free)

/* ---- queries ------------------------------------------------------------- */

/* A query's common start: the type behind the handle, and its output
 * argument present. */
static int query(const char *fn, MPI_Datatype datatype, const void *out, const char *out_name,
                 cu_dtype **dt)
{
    MPIR_DT_GET(fn, "datatype", datatype, 0, *dt);
    MPIR_DT_CHECK_PTR(fn, out, out_name);
    return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    static const char fn[] = "MPI_Type_size";
    MPIR_ENTER(fn);
    cu_dtype *dt = NULL;
    int rc = query(fn, datatype, size, "size", &dt);
    if (rc == MPI_SUCCESS)
        *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return rc;
}
MPIR_WEAK(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    static const char fn[] = "MPI_Type_size_x";
    MPIR_ENTER(fn);
    cu_dtype *dt = NULL;
    int rc = query(fn, datatype, size, "size", &dt);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Count)dt->size;
    return rc;
}
MPIR_WEAK(Type_size_x)

/* The four extent queries differ only in the pair they read and the
 * integer type they write (MPI_Aint or MPI_Count). */
static int get_bounds(const char *fn, MPI_Datatype datatype, int true_bounds,
                      const char *lb_name, const void *lb, const char *ext_name,
                      const void *extent, ptrdiff_t out[2])
{
    cu_dtype *dt = NULL;
    int rc = query(fn, datatype, lb, lb_name, &dt);
    if (rc)
        return rc;
    MPIR_DT_CHECK_PTR(fn, extent, ext_name);
    out[0] = true_bounds ? dt->true_lb : dt->lb;
    out[1] = true_bounds ? dt->true_extent : dt->extent;
    return MPI_SUCCESS;
}

#define EXTENT_QUERY(name, type, true_bounds, lb_arg, ext_arg)                 \
    int PMPI_##name(MPI_Datatype datatype, type *lb_arg, type *ext_arg)       \
    {                                                                          \
        static const char fn[] = "MPI_" #name;                                 \
        MPIR_ENTER(fn);                                                        \
        ptrdiff_t b[2] = { 0, 0 };                                              \
        int rc = get_bounds(fn, datatype, true_bounds, #lb_arg, lb_arg, #ext_arg, \
                            ext_arg, b);                                       \
        if (rc)                                                                \
            return rc;                                                         \
        *lb_arg = (type)b[0];                                                  \
        *ext_arg = (type)b[1];                                                 \
        return MPI_SUCCESS;                                                    \
    }                                                                          \
    MPIR_WEAK(name)

EXTENT_QUERY(Type_get_extent, MPI_Aint, 0, lb, extent)
EXTENT_QUERY(Type_get_extent_x, MPI_Count, 0, lb, extent)
EXTENT_QUERY(Type_get_true_extent, MPI_Aint, 1, true_lb, true_extent)
EXTENT_QUERY(Type_get_true_extent_x, MPI_Count, 1, true_lb, true_extent)

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char fn[] = "MPI_Type_set_name";
    MPIR_ENTER(fn);
    cu_dtype *dt;
    MPIR_DT_GET(fn, "datatype", datatype, 0, dt);
    MPIR_DT_CHECK_PTR(fn, type_name, "type_name");
    cu_dtype_set_name(dt, type_name);
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    static const char fn[] = "MPI_Type_get_name";
    MPIR_ENTER(fn);
    cu_dtype *dt;
    MPIR_DT_GET(fn, "datatype", datatype, 0, dt);
    MPIR_DT_CHECK_PTR(fn, type_name, "type_name");
    MPIR_DT_CHECK_PTR(fn, resultlen, "resultlen");
    const char *name = cu_dtype_name(dt);
    size_t n = strlen(name);
    memcpy(type_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_get_name)

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    static const char fn[] = "MPI_Type_get_envelope";
    MPIR_ENTER(fn);
    cu_dtype *dt;
    MPIR_DT_GET(fn, "datatype", datatype, 0, dt);
    MPIR_DT_CHECK_PTR(fn, num_integers, "num_integers");
    MPIR_DT_CHECK_PTR(fn, num_addresses, "num_addresses");
    MPIR_DT_CHECK_PTR(fn, num_datatypes, "num_datatypes");
    MPIR_DT_CHECK_PTR(fn, combiner, "combiner");
    if (dt->builtin) {
        *num_integers = *num_addresses = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    cu_dtype_get_contents(dt, combiner, num_integers, NULL, num_addresses, NULL,
                          num_datatypes, NULL);
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_get_envelope)

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    static const char fn[] = "MPI_Type_get_contents";
    MPIR_ENTER(fn);
    cu_dtype *dt;
    MPIR_DT_GET(fn, "datatype", datatype, 0, dt);
    if (dt->builtin)
        return MPIR_DT_ERR(MPI_ERR_TYPE, fn, "datatype %s is predefined (MPI_COMBINER_NAMED)",
                   cu_dtype_name(dt));
    int comb, ni, na, nd;
    const int *ints;
    const ptrdiff_t *aints;
    cu_dtype *const *types;
    cu_dtype_get_contents(dt, &comb, &ni, &ints, &na, &aints, &nd, &types);
    if (max_integers < ni || max_addresses < na || max_datatypes < nd)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn,
                   "arrays too small: need %d integers, %d addresses, %d datatypes", ni, na,
                   nd);
    if ((ni && !array_of_integers) || (na && !array_of_addresses) ||
        (nd && !array_of_datatypes))
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "an output array is NULL");
    if (ni)
        memcpy(array_of_integers, ints, (size_t)ni * sizeof(int));
    for (int i = 0; i < na; i++)
        array_of_addresses[i] = aints[i];
    /* Derived children come back as new handles to the same objects, which
     * the caller frees (MPI-3.1 4.1.13). */
    for (int i = 0; i < nd; i++) {
        cu_dtype *t = types[i];
        if (t->builtin) {
            array_of_datatypes[i] = CLUMPI_DT(cu_dtype_builtin_index(t));
            continue;
        }
        MPI_Datatype f90 = mpir_f90_handle(t);
        if (f90 != MPI_DATATYPE_NULL) {
            array_of_datatypes[i] = f90;   /* predefined: the same handle, not freed */
            continue;
        }
        int h = mpir_handle_new(&mpir_dtypes, t);
        if (h == MPI_DATATYPE_NULL) {
            for (int j = 0; j < i; j++)
                if (!types[j]->builtin && mpir_f90_handle(types[j]) == MPI_DATATYPE_NULL) {
                    mpir_handle_free(&mpir_dtypes, array_of_datatypes[j]);
                    cu_dtype_release(types[j]);
                }
            return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of datatype handles");
        }
        cu_dtype_retain(t);
        array_of_datatypes[i] = h;
    }
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_get_contents)

/* ---- addresses ----------------------------------------------------------- */

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    static const char fn[] = "MPI_Get_address";
    MPIR_ENTER(fn);
    MPIR_DT_CHECK_PTR(fn, address, "address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
MPIR_WEAK(Get_address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
MPIR_WEAK(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
MPIR_WEAK(Aint_diff)

/* ---- pack / unpack ------------------------------------------------------- */
/* The packed format is the raw byte stream of the engine: the same on every
 * rank of a homogeneous job, so MPI_PACKED messages need no header. */

int mpir_pack_checks(const char *fn, int count, const char *countname, MPI_Datatype datatype,
                     int external, const void *packed, const char *packedname, MPI_Aint size,
                     const char *sizename, const void *position, MPI_Aint pos, cu_dtype **dt,
                     size_t *bytes)
{
    if (count < 0)
        return mpir_err(MPI_ERR_COUNT, fn, "negative %s (%d)", countname, count);
    int rc = mpir_dtype_lookup(fn, "datatype", datatype, 1, dt);
    if (rc)
        return rc;
    if (!position)
        return mpir_err(MPI_ERR_ARG, fn, "position is NULL");
    if (size < 0 || pos < 0)
        return mpir_err(MPI_ERR_ARG, fn, "negative %s (%lld) or position (%lld)", sizename,
                        (long long)size, (long long)pos);
    *bytes = external ? cu_dtype_external32_size(*dt) * (size_t)count
                      : cu_dtype_bytes(*dt, (size_t)count);
    if (pos > size || *bytes > (size_t)(size - pos))
        return mpir_err(MPI_ERR_TRUNCATE, fn,
                        "%zu bytes do not fit in %s at position %lld (%s %lld)", *bytes,
                        packedname, (long long)pos, sizename, (long long)size);
    if (*bytes && !packed)
        return mpir_err(MPI_ERR_BUFFER, fn, "%s is NULL", packedname);
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
              int outsize, int *position, MPI_Comm comm)
{
    static const char fn[] = "MPI_Pack";
    MPIR_ENTER(fn);
    mpir_comm *c;
    cu_dtype *dt;
    size_t bytes;
    MPIR_GET_COMM(fn, comm, c);
    (void)c;
    int rc = mpir_pack_checks(fn, incount, "incount", datatype, 0, outbuf, "outbuf", outsize,
                              "outsize", position, position ? *position : 0, &dt, &bytes);
    if (rc)
        return mpir_err_comm(comm, rc);
    if (bytes)
        cu_dtype_pack(inbuf, (size_t)incount, dt, 0, (char *)outbuf + *position, bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
MPIR_WEAK(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Unpack";
    MPIR_ENTER(fn);
    mpir_comm *c;
    cu_dtype *dt;
    size_t bytes;
    MPIR_GET_COMM(fn, comm, c);
    (void)c;
    int rc = mpir_pack_checks(fn, outcount, "outcount", datatype, 0, inbuf, "inbuf", insize,
                              "insize", position, position ? *position : 0, &dt, &bytes);
    if (rc)
        return mpir_err_comm(comm, rc);
    if (bytes)
        cu_dtype_unpack(outbuf, (size_t)outcount, dt, 0, (const char *)inbuf + *position,
                        bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
MPIR_WEAK(Unpack)

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char fn[] = "MPI_Pack_size";
    MPIR_ENTER(fn);
    mpir_comm *c;
    cu_dtype *dt;
    MPIR_GET_COMM(fn, comm, c);
    if (incount < 0)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_COUNT, fn, "negative incount (%d)",
                                            incount));
    int rc = mpir_dtype_lookup(fn, "datatype", datatype, 0, &dt);
    if (rc)
        return mpir_err_comm(comm, rc);
    if (!size)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "size is NULL"));
    size_t bytes = cu_dtype_bytes(dt, (size_t)incount);
    if (bytes > INT_MAX)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_COUNT, fn,
                                            "packed size %zu does not fit in an int", bytes));
    *size = (int)bytes;
    (void)c;
    return MPI_SUCCESS;
}
MPIR_WEAK(Pack_size)

/* ---- life cycle ---------------------------------------------------------- */

/* The handle of each predefined type carries the datatype engine's index
 * of it (CU_DT_* of src/util/dtype.h, which numbers them without mpi.h):
 * handles and engine agree by construction, so nothing is translated. */
#define SAME_DT(x) _Static_assert(MPI_##x == CLUMPI_DT(CU_DT_##x), "MPI_" #x " != CU_DT_" #x);
SAME_DT(CHAR) SAME_DT(SIGNED_CHAR) SAME_DT(UNSIGNED_CHAR) SAME_DT(BYTE) SAME_DT(SHORT)
SAME_DT(UNSIGNED_SHORT) SAME_DT(INT) SAME_DT(UNSIGNED) SAME_DT(LONG) SAME_DT(UNSIGNED_LONG)
SAME_DT(LONG_LONG_INT) SAME_DT(UNSIGNED_LONG_LONG) SAME_DT(FLOAT) SAME_DT(DOUBLE)
SAME_DT(LONG_DOUBLE) SAME_DT(WCHAR) SAME_DT(C_BOOL) SAME_DT(INT8_T) SAME_DT(INT16_T)
SAME_DT(INT32_T) SAME_DT(INT64_T) SAME_DT(UINT8_T) SAME_DT(UINT16_T) SAME_DT(UINT32_T)
SAME_DT(UINT64_T) SAME_DT(AINT) SAME_DT(COUNT) SAME_DT(OFFSET) SAME_DT(C_FLOAT_COMPLEX)
SAME_DT(C_DOUBLE_COMPLEX) SAME_DT(C_LONG_DOUBLE_COMPLEX) SAME_DT(PACKED) SAME_DT(FLOAT_INT)
SAME_DT(DOUBLE_INT) SAME_DT(LONG_INT) SAME_DT(2INT) SAME_DT(SHORT_INT) SAME_DT(LONG_DOUBLE_INT)
SAME_DT(CHARACTER) SAME_DT(LOGICAL) SAME_DT(INTEGER) SAME_DT(REAL) SAME_DT(DOUBLE_PRECISION) SAME_DT(COMPLEX)
SAME_DT(DOUBLE_COMPLEX) SAME_DT(2INTEGER) SAME_DT(2REAL) SAME_DT(2DOUBLE_PRECISION) SAME_DT(INTEGER1) SAME_DT(INTEGER2)
SAME_DT(INTEGER4) SAME_DT(INTEGER8) SAME_DT(REAL4) SAME_DT(REAL8) SAME_DT(COMPLEX8) SAME_DT(COMPLEX16)
#undef SAME_DT
_Static_assert(MPI_DATATYPE_NULL == CLUMPI_DT(CU_DT_NULL), "MPI_DATATYPE_NULL != CU_DT_NULL");
_Static_assert(CLUMPI_DT_BUILTIN_COUNT == CU_DT_BUILTIN_COUNT, "predefined type counts differ");
_Static_assert(_Generic((MPI_Aint)0, cu_aint: 1, default: 0) &&
               _Generic((MPI_Count)0, cu_count: 1, default: 0) &&
               _Generic((MPI_Offset)0, cu_offset: 1, default: 0),
               "MPI_Aint/Count/Offset are not the engine's C types");

int mpir_dtype_init(void)
{
    for (int i = 1; i < CLUMPI_DT_BUILTIN_COUNT; i++)
        mpir_handle_set(&mpir_dtypes, i, (void *)cu_dtype_builtin(i));
    return MPI_SUCCESS;
}

void mpir_dtype_finalize(void)
{
    mpir_f90_finalize();
    /* Derived types the program did not free go now (their handles die with
     * MPI); objects still held elsewhere live until released. */
    for (int i = CLUMPI_DT_BUILTIN_COUNT; i < mpir_dtypes.cap; i++) {
        cu_dtype *dt = mpir_dtypes.obj[i];
        if (!dt)
            continue;
        mpir_handle_free(&mpir_dtypes, CLUMPI_DT(i));
        cu_dtype_release(dt);
    }
    for (int i = 1; i < CLUMPI_DT_BUILTIN_COUNT; i++)
        mpir_handle_free(&mpir_dtypes, CLUMPI_DT(i));
}
