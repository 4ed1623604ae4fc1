/*
 * dtype_builtin.c — the predefined datatypes, by their CU_DT_* index
 * (dtype.h). Sizes, alignments and the pair types'
 * layouts come from the C compiler, so they match what user code declares.
 */
#include <complex.h>
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>
#include "src/util/dtype_impl.h"

/* The pair types of MPI_MINLOC / MPI_MAXLOC, laid out as C lays them out. */
struct cu_float_int  { float f; int i; };
struct cu_double_int { double f; int i; };
struct cu_long_int   { long f; int i; };
struct cu_2int       { int f; int i; };
struct cu_short_int  { short f; int i; };
struct cu_ldouble_int { long double f; int i; };
/* Fortran's pairs: value and index of the same type. */
struct cu_2float  { float f; float i; };
struct cu_2double { double f; double i; };

typedef struct bdesc {
    const char *name;
    size_t      size;
    size_t      align;
    /* pair types: value and index type indices, the index's offset */
    int         first, second;
    size_t      off2;
} bdesc;

#define B(NAME, T)  { NAME, sizeof(T), alignof(T), 0, 0, 0 }
#define P2(NAME, S, FIRST, SECOND) { NAME, sizeof(S), alignof(S), FIRST, SECOND, offsetof(S, i) }
#define P(NAME, S, FIRST) P2(NAME, S, FIRST, CU_DT_INT)

static const bdesc desc[CU_DT_BUILTIN_COUNT] = {
    [CU_DT_NULL] = { "MPI_DATATYPE_NULL", 0, 1, 0, 0, 0 },
    [CU_DT_CHAR] = B("MPI_CHAR", char),
    [CU_DT_SIGNED_CHAR] = B("MPI_SIGNED_CHAR", signed char),
    [CU_DT_UNSIGNED_CHAR] = B("MPI_UNSIGNED_CHAR", unsigned char),
    [CU_DT_BYTE] = B("MPI_BYTE", unsigned char),
    [CU_DT_SHORT] = B("MPI_SHORT", short),
    [CU_DT_UNSIGNED_SHORT] = B("MPI_UNSIGNED_SHORT", unsigned short),
    [CU_DT_INT] = B("MPI_INT", int),
    [CU_DT_UNSIGNED] = B("MPI_UNSIGNED", unsigned),
    [CU_DT_LONG] = B("MPI_LONG", long),
    [CU_DT_UNSIGNED_LONG] = B("MPI_UNSIGNED_LONG", unsigned long),
    [CU_DT_LONG_LONG_INT] = B("MPI_LONG_LONG_INT", long long),
    [CU_DT_UNSIGNED_LONG_LONG] = B("MPI_UNSIGNED_LONG_LONG", unsigned long long),
    [CU_DT_FLOAT] = B("MPI_FLOAT", float),
    [CU_DT_DOUBLE] = B("MPI_DOUBLE", double),
    [CU_DT_LONG_DOUBLE] = B("MPI_LONG_DOUBLE", long double),
    [CU_DT_WCHAR] = B("MPI_WCHAR", wchar_t),
    [CU_DT_C_BOOL] = B("MPI_C_BOOL", _Bool),
    [CU_DT_INT8_T] = B("MPI_INT8_T", int8_t),
    [CU_DT_INT16_T] = B("MPI_INT16_T", int16_t),
    [CU_DT_INT32_T] = B("MPI_INT32_T", int32_t),
    [CU_DT_INT64_T] = B("MPI_INT64_T", int64_t),
    [CU_DT_UINT8_T] = B("MPI_UINT8_T", uint8_t),
    [CU_DT_UINT16_T] = B("MPI_UINT16_T", uint16_t),
    [CU_DT_UINT32_T] = B("MPI_UINT32_T", uint32_t),
    [CU_DT_UINT64_T] = B("MPI_UINT64_T", uint64_t),
    [CU_DT_AINT] = B("MPI_AINT", cu_aint),
    [CU_DT_COUNT] = B("MPI_COUNT", cu_count),
    [CU_DT_OFFSET] = B("MPI_OFFSET", cu_offset),
    [CU_DT_C_FLOAT_COMPLEX] = B("MPI_C_FLOAT_COMPLEX", float _Complex),
    [CU_DT_C_DOUBLE_COMPLEX] = B("MPI_C_DOUBLE_COMPLEX", double _Complex),
    [CU_DT_C_LONG_DOUBLE_COMPLEX] = B("MPI_C_LONG_DOUBLE_COMPLEX", long double _Complex),
    [CU_DT_PACKED] = B("MPI_PACKED", unsigned char),
    [CU_DT_FLOAT_INT] = P("MPI_FLOAT_INT", struct cu_float_int, CU_DT_FLOAT),
    [CU_DT_DOUBLE_INT] = P("MPI_DOUBLE_INT", struct cu_double_int, CU_DT_DOUBLE),
    [CU_DT_LONG_INT] = P("MPI_LONG_INT", struct cu_long_int, CU_DT_LONG),
    [CU_DT_2INT] = P("MPI_2INT", struct cu_2int, CU_DT_INT),
    [CU_DT_SHORT_INT] = P("MPI_SHORT_INT", struct cu_short_int, CU_DT_SHORT),
    [CU_DT_LONG_DOUBLE_INT] = P("MPI_LONG_DOUBLE_INT", struct cu_ldouble_int, CU_DT_LONG_DOUBLE),
    [CU_DT_CHARACTER] = B("MPI_CHARACTER", char),
    [CU_DT_LOGICAL] = B("MPI_LOGICAL", int),
    [CU_DT_INTEGER] = B("MPI_INTEGER", int),
    [CU_DT_REAL] = B("MPI_REAL", float),
    [CU_DT_DOUBLE_PRECISION] = B("MPI_DOUBLE_PRECISION", double),
    [CU_DT_COMPLEX] = B("MPI_COMPLEX", float _Complex),
    [CU_DT_DOUBLE_COMPLEX] = B("MPI_DOUBLE_COMPLEX", double _Complex),
    [CU_DT_2INTEGER] = P2("MPI_2INTEGER", struct cu_2int, CU_DT_INTEGER, CU_DT_INTEGER),
    [CU_DT_2REAL] = P2("MPI_2REAL", struct cu_2float, CU_DT_REAL, CU_DT_REAL),
    [CU_DT_2DOUBLE_PRECISION] = P2("MPI_2DOUBLE_PRECISION", struct cu_2double,
                                   CU_DT_DOUBLE_PRECISION, CU_DT_DOUBLE_PRECISION),
    [CU_DT_INTEGER1] = B("MPI_INTEGER1", int8_t),
    [CU_DT_INTEGER2] = B("MPI_INTEGER2", int16_t),
    [CU_DT_INTEGER4] = B("MPI_INTEGER4", int32_t),
    [CU_DT_INTEGER8] = B("MPI_INTEGER8", int64_t),
    [CU_DT_REAL4] = B("MPI_REAL4", float),
    [CU_DT_REAL8] = B("MPI_REAL8", double),
    [CU_DT_COMPLEX8] = B("MPI_COMPLEX8", float _Complex),
    [CU_DT_COMPLEX16] = B("MPI_COMPLEX16", double _Complex),
};

static cu_dtype             types[CU_DT_BUILTIN_COUNT];
static struct cu_dtype_priv privs[CU_DT_BUILTIN_COUNT];
static cu_dtype            *pair_sc[CU_DT_BUILTIN_COUNT][2];
static size_t               pair_sc_copies[2] = { 1, 1 };
static pthread_once_t       once = PTHREAD_ONCE_INIT;

static void init_one(int i)
{
    const bdesc *b = &desc[i];
    cu_dtype *dt = &types[i];
    struct cu_dtype_priv *p = &privs[i];
    dt->priv = p;
    dt->builtin = 1;
    dt->committed = 1;
    dt->refcount = 1;
    dt->basic = i;
    dt->lb = 0;
    dt->true_lb = 0;
    dt->extent = (ptrdiff_t)b->size;
    p->index = i;
    p->align = b->align;
    strcpy(p->name, b->name);
    if (!b->first) {
        dt->size = b->size;
        dt->true_extent = (ptrdiff_t)b->size;
        ptrdiff_t off = 0;
        p->root = cu_node_leaf(1, &off, &dt->size);
        p->nelem = 1;
    } else {
        const cu_dtype *f = &types[b->first], *n = &types[b->second];
        ptrdiff_t off[2] = { 0, (ptrdiff_t)b->off2 };
        size_t len[2] = { f->size, n->size };
        dt->size = f->size + n->size;
        dt->true_extent = (ptrdiff_t)(b->off2 + n->size);
        p->root = cu_node_leaf(2, off, len);
        p->pair = 1;
        p->nelem = 2;
        pair_sc[i][0] = (cu_dtype *)f;
        pair_sc[i][1] = (cu_dtype *)n;
        p->nsc = 2;
        p->sc_type = pair_sc[i];
        p->sc_copies = pair_sc_copies;
    }
    /* Static: never freed, whatever a caller's retain/release does. */
    if (p->root)
        p->root->refcount = -1;
    dt->contig = (size_t)dt->extent == dt->size && p->root && p->root->n == 1;
}

static void init_all(void)
{
    for (int i = 1; i < CU_DT_BUILTIN_COUNT; i++)
        init_one(i);
}

const cu_dtype *cu_dtype_builtin(int index)
{
    if (index <= 0 || index >= CU_DT_BUILTIN_COUNT)
        return NULL;
    pthread_once(&once, init_all);
    return &types[index];
}
