/*
 * f90types.c — datatypes for Fortran KIND-parameterized variables
 * (MPI-3.1 17.1.9): MPI_Type_create_f90_integer/real/complex, which pick
 * the kind Fortran's SELECTED_INT_KIND / SELECTED_REAL_KIND would, and
 * MPI_Type_match_size.
 *
 * The returned types are predefined in all but name: the program may not
 * free them, their envelope says MPI_COMBINER_F90_* with the (p, r) the
 * program passed. Each is a copy of the C type of the same kind (so
 * reductions and external32 see its basic type), made once per distinct
 * argument tuple and kept until MPI_Finalize, as the standard advises.
 */
#include <float.h>
#include <stdlib.h>
#include "src/datatype.h"

/* The kinds this library supports, smallest first, as Fortran describes
 * them: decimal range (RANGE) and for reals decimal precision (PRECISION),
 * from the C types' limits. */
static const struct { int range; MPI_Datatype type; } int_kinds[] = {
    { 2, MPI_INT8_T }, { 4, MPI_INT16_T }, { 9, MPI_INT32_T }, { 18, MPI_INT64_T },
};

#define RANGE10(max, min) ((max) < -(min) ? (max) : -(min))
static const struct { int precision, range; MPI_Datatype real, complex; } real_kinds[] = {
    { FLT_DIG, RANGE10(FLT_MAX_10_EXP, FLT_MIN_10_EXP), MPI_FLOAT, MPI_C_FLOAT_COMPLEX },
    { DBL_DIG, RANGE10(DBL_MAX_10_EXP, DBL_MIN_10_EXP), MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX },
    { LDBL_DIG, RANGE10(LDBL_MAX_10_EXP, LDBL_MIN_10_EXP), MPI_LONG_DOUBLE,
      MPI_C_LONG_DOUBLE_COMPLEX },
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The types made so far, by (combiner, p, r); r alone for integers. */
typedef struct f90_entry {
    int          combiner, p, r;
    MPI_Datatype handle;
} f90_entry;
static f90_entry *made;
static size_t     nmade, capmade;

/* The handle of type (combiner, p, r) copied from base: the one made
 * before, or a new one. Errors are reported. */
static int get_or_make(const char *fn, int combiner, int p, int r, MPI_Datatype base,
                       MPI_Datatype *newtype)
{
    for (size_t i = 0; i < nmade; i++)
        if (made[i].combiner == combiner && made[i].p == p && made[i].r == r) {
            *newtype = made[i].handle;
            return MPI_SUCCESS;
        }
    if (nmade == capmade) {
        size_t cap = capmade ? 2 * capmade : 8;
        f90_entry *m = realloc(made, cap * sizeof(*m));
        if (!m)
            return MPIR_DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
        made = m;
        capmade = cap;
    }
    cu_dtype *dt = cu_dtype_dup(mpir_dtype_get(base));
    if (dt)
        dt->committed = 1;
    int ints[2] = { p, r };
    int integer = combiner == MPI_COMBINER_F90_INTEGER;
    MPI_Datatype h;
    int rc = mpir_dtype_finish(fn, dt, combiner, integer ? 1 : 2, integer ? ints + 1 : ints, 0,
                               NULL, 0, NULL, &h);
    if (rc)
        return rc;
    made[nmade++] = (f90_entry){ combiner, p, r, h };
    *newtype = h;
    return MPI_SUCCESS;
}

MPI_Datatype mpir_f90_handle(const cu_dtype *dt)
{
    for (size_t i = 0; i < nmade; i++)
        if (mpir_dtype_get(made[i].handle) == dt)
            return made[i].handle;
    return MPI_DATATYPE_NULL;
}

void mpir_f90_finalize(void)
{
    free(made);
    made = NULL;
    nmade = capmade = 0;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_f90_integer";
    MPIR_ENTER(fn);
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    for (size_t i = 0; i < NELEM(int_kinds); i++)
        if (int_kinds[i].range >= r)
            return get_or_make(fn, MPI_COMBINER_F90_INTEGER, 0, r, int_kinds[i].type, newtype);
    return MPIR_DT_ERR(MPI_ERR_ARG, fn, "no integer kind has a decimal range of r = %d "
                       "(at most %d)", r, int_kinds[NELEM(int_kinds) - 1].range);
}
MPIR_WEAK(Type_create_f90_integer)

/* The real and complex constructors: the smallest kind with precision >= p
 * and range >= r, MPI_UNDEFINED meaning either is free (not both). */
static int real_kind(const char *fn, int combiner, int p, int r, MPI_Datatype *newtype)
{
    MPIR_DT_CHECK_PTR(fn, newtype, "newtype");
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "p and r are both MPI_UNDEFINED");
    for (size_t i = 0; i < NELEM(real_kinds); i++)
        if ((p == MPI_UNDEFINED || real_kinds[i].precision >= p) &&
            (r == MPI_UNDEFINED || real_kinds[i].range >= r))
            return get_or_make(fn, combiner, p, r,
                               combiner == MPI_COMBINER_F90_REAL ? real_kinds[i].real
                                                                 : real_kinds[i].complex,
                               newtype);
    return MPIR_DT_ERR(MPI_ERR_ARG, fn, "no real kind has precision p = %d and range r = %d "
                       "(at most %d and %d)", p, r, real_kinds[NELEM(real_kinds) - 1].precision,
                       real_kinds[NELEM(real_kinds) - 1].range);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_f90_real";
    MPIR_ENTER(fn);
    return real_kind(fn, MPI_COMBINER_F90_REAL, p, r, newtype);
}
MPIR_WEAK(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_f90_complex";
    MPIR_ENTER(fn);
    return real_kind(fn, MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}
MPIR_WEAK(Type_create_f90_complex)

/* A predefined named type of the class and size: the exact-width
 * integers, the C floating and complex types. */
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_match_size";
    MPIR_ENTER(fn);
    MPIR_DT_CHECK_PTR(fn, datatype, "datatype");
    size_t n;
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER: n = NELEM(int_kinds); break;
    case MPI_TYPECLASS_REAL:
    case MPI_TYPECLASS_COMPLEX: n = NELEM(real_kinds); break;
    default:
        return MPIR_DT_ERR(MPI_ERR_ARG, fn, "invalid typeclass (%d)", typeclass);
    }
    for (size_t i = 0; i < n; i++) {
        MPI_Datatype t = typeclass == MPI_TYPECLASS_INTEGER ? int_kinds[i].type
                         : typeclass == MPI_TYPECLASS_REAL  ? real_kinds[i].real
                                                            : real_kinds[i].complex;
        if (size > 0 && mpir_dtype_get(t)->size == (size_t)size) {
            *datatype = t;
            return MPI_SUCCESS;
        }
    }
    return MPIR_DT_ERR(MPI_ERR_ARG, fn, "no type of typeclass %d has size %d", typeclass, size);
}
MPIR_WEAK(Type_match_size)
