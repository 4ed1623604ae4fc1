/*
 * dtype_builtin.c — the predefined datatypes, in mpi.h's index order
 * (CLUMPI_DT(1) .. CLUMPI_DT(38)). Sizes, alignments and the pair types'
 * layouts come from the C compiler, so they match what user code declares.
 */
#include <complex.h>
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>
#include "src/include/mpi.h"
#include "src/util/dtype_impl.h"

/* The pair types of MPI_MINLOC / MPI_MAXLOC, laid out as C lays them out. */
struct cu_float_int  { float f; int i; };
struct cu_double_int { double f; int i; };
struct cu_long_int   { long f; int i; };
struct cu_2int       { int f; int i; };
struct cu_short_int  { short f; int i; };
struct cu_ldouble_int { long double f; int i; };

typedef struct bdesc {
    const char *name;
    size_t      size;
    size_t      align;
    /* pair types: value type index, value offset, int offset, extent */
    int         first;
    size_t      off2;
} bdesc;

#define B(NAME, T)  { NAME, sizeof(T), alignof(T), 0, 0 }
#define P(NAME, S, FIRST) { NAME, sizeof(S), alignof(S), FIRST, offsetof(S, i) }

static const bdesc desc[CLUMPI_DT_BUILTIN_COUNT] = {
    [0]  = { "MPI_DATATYPE_NULL", 0, 1, 0, 0 },
    [1]  = B("MPI_CHAR", char),
    [2]  = B("MPI_SIGNED_CHAR", signed char),
    [3]  = B("MPI_UNSIGNED_CHAR", unsigned char),
    [4]  = B("MPI_BYTE", unsigned char),
    [5]  = B("MPI_SHORT", short),
    [6]  = B("MPI_UNSIGNED_SHORT", unsigned short),
    [7]  = B("MPI_INT", int),
    [8]  = B("MPI_UNSIGNED", unsigned),
    [9]  = B("MPI_LONG", long),
    [10] = B("MPI_UNSIGNED_LONG", unsigned long),
    [11] = B("MPI_LONG_LONG_INT", long long),
    [12] = B("MPI_UNSIGNED_LONG_LONG", unsigned long long),
    [13] = B("MPI_FLOAT", float),
    [14] = B("MPI_DOUBLE", double),
    [15] = B("MPI_LONG_DOUBLE", long double),
    [16] = B("MPI_WCHAR", wchar_t),
    [17] = B("MPI_C_BOOL", _Bool),
    [18] = B("MPI_INT8_T", int8_t),
    [19] = B("MPI_INT16_T", int16_t),
    [20] = B("MPI_INT32_T", int32_t),
    [21] = B("MPI_INT64_T", int64_t),
    [22] = B("MPI_UINT8_T", uint8_t),
    [23] = B("MPI_UINT16_T", uint16_t),
    [24] = B("MPI_UINT32_T", uint32_t),
    [25] = B("MPI_UINT64_T", uint64_t),
    [26] = B("MPI_AINT", MPI_Aint),
    [27] = B("MPI_COUNT", MPI_Count),
    [28] = B("MPI_OFFSET", MPI_Offset),
    [29] = B("MPI_C_FLOAT_COMPLEX", float _Complex),
    [30] = B("MPI_C_DOUBLE_COMPLEX", double _Complex),
    [31] = B("MPI_C_LONG_DOUBLE_COMPLEX", long double _Complex),
    [32] = B("MPI_PACKED", unsigned char),
    [33] = P("MPI_FLOAT_INT", struct cu_float_int, 13),
    [34] = P("MPI_DOUBLE_INT", struct cu_double_int, 14),
    [35] = P("MPI_LONG_INT", struct cu_long_int, 9),
    [36] = P("MPI_2INT", struct cu_2int, 7),
    [37] = P("MPI_SHORT_INT", struct cu_short_int, 5),
    [38] = P("MPI_LONG_DOUBLE_INT", struct cu_ldouble_int, 15),
};

static cu_dtype             types[CLUMPI_DT_BUILTIN_COUNT];
static struct cu_dtype_priv privs[CLUMPI_DT_BUILTIN_COUNT];
static cu_dtype            *pair_sc[CLUMPI_DT_BUILTIN_COUNT][2];
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
        const cu_dtype *f = &types[b->first], *n = &types[7];
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
    for (int i = 1; i < CLUMPI_DT_BUILTIN_COUNT; i++)
        init_one(i);
}

const cu_dtype *cu_dtype_builtin(int index)
{
    if (index <= 0 || index >= CLUMPI_DT_BUILTIN_COUNT)
        return NULL;
    pthread_once(&once, init_all);
    return &types[index];
}
