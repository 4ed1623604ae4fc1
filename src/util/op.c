/*
 * op.c — the predefined reduction kernels. One plain loop per (op, C type)
 * over restrict pointers, so the compiler vectorizes them; integer types
 * share kernels by width and signedness. Signed SUM/PROD wrap (computed in
 * unsigned arithmetic) rather than being undefined on overflow, as every MPI
 * does in practice.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
/* -O2 in GCC 12 vectorizes only loops without an epilogue; these loops
 * have unknown trip counts and are the whole point of the file. */
#pragma GCC optimize("tree-vectorize")
#endif

#include <complex.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>
#include "src/util/dtype.h"
#include "src/util/op.h"

#define NTYPES CU_DT_BUILTIN_COUNT

/* ---- kernel generators ---------------------------------------------------- */
/* Each kernel is also built for AVX2 and AVX-512 and one form is picked at
 * load time (an ifunc): the baseline x86-64 has only 128-bit vectors, and a
 * reduction of a vector in cache is bound by them. Element-wise, so every
 * form gives the same result. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__OPTIMIZE__) && \
    defined(__linux__)
#define KERNEL_ISA __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KERNEL_ISA
#endif

#define KERNEL(name, T, BODY)                                                   \
    static KERNEL_ISA void name(const void *restrict in_, void *restrict io_,   \
                                size_t n)                                       \
    {                                                                           \
        const T *restrict a = in_;                                              \
        T *restrict b = io_;                                                    \
        for (size_t i = 0; i < n; i++)                                          \
            BODY;                                                               \
    }

/* Integers. WT: the unsigned type the arithmetic runs in — at least
 * unsigned int, so that narrow types do not promote to (overflowing) int. */
#define INT_KERNELS(S, T, WT)                                                   \
    KERNEL(max_##S, T, b[i] = a[i] > b[i] ? a[i] : b[i])                        \
    KERNEL(min_##S, T, b[i] = a[i] < b[i] ? a[i] : b[i])                        \
    KERNEL(sum_##S, T, b[i] = (T)((WT)a[i] + (WT)b[i]))                         \
    KERNEL(prod_##S, T, b[i] = (T)((WT)a[i] * (WT)b[i]))                        \
    KERNEL(land_##S, T, b[i] = (T)(a[i] && b[i]))                               \
    KERNEL(lor_##S, T, b[i] = (T)(a[i] || b[i]))                                \
    KERNEL(lxor_##S, T, b[i] = (T)(!a[i] != !b[i]))                             \
    KERNEL(band_##S, T, b[i] = (T)(a[i] & b[i]))                                \
    KERNEL(bor_##S, T, b[i] = (T)(a[i] | b[i]))                                 \
    KERNEL(bxor_##S, T, b[i] = (T)(a[i] ^ b[i]))                                \
    KERNEL(repl_##S, T, b[i] = a[i])

INT_KERNELS(i8, int8_t, unsigned)
INT_KERNELS(u8, uint8_t, unsigned)
INT_KERNELS(i16, int16_t, unsigned)
INT_KERNELS(u16, uint16_t, unsigned)
INT_KERNELS(i32, int32_t, uint32_t)
INT_KERNELS(u32, uint32_t, uint32_t)
INT_KERNELS(i64, int64_t, uint64_t)
INT_KERNELS(u64, uint64_t, uint64_t)

#define FLT_KERNELS(S, T)                                                       \
    KERNEL(max_##S, T, b[i] = a[i] > b[i] ? a[i] : b[i])                        \
    KERNEL(min_##S, T, b[i] = a[i] < b[i] ? a[i] : b[i])                        \
    KERNEL(sum_##S, T, b[i] = a[i] + b[i])                                      \
    KERNEL(prod_##S, T, b[i] = a[i] * b[i])                                     \
    KERNEL(repl_##S, T, b[i] = a[i])

FLT_KERNELS(f, float)
FLT_KERNELS(d, double)
FLT_KERNELS(ld, long double)

#define CPLX_KERNELS(S, T)                                                      \
    KERNEL(sum_##S, T, b[i] = a[i] + b[i])                                      \
    KERNEL(prod_##S, T, b[i] = a[i] * b[i])                                     \
    KERNEL(repl_##S, T, b[i] = a[i])

CPLX_KERNELS(cf, float _Complex)
CPLX_KERNELS(cd, double _Complex)
CPLX_KERNELS(cld, long double _Complex)

KERNEL(land_b, bool, b[i] = a[i] && b[i])
KERNEL(lor_b, bool, b[i] = a[i] || b[i])
KERNEL(lxor_b, bool, b[i] = a[i] != b[i])

static void noop(const void *restrict in, void *restrict io, size_t n)
{
    (void)in; (void)io; (void)n;
}

/* MINLOC/MAXLOC on (value, index) pairs: C's index is an int, Fortran's
 * (MPI_2REAL, ...) of the value's type. Elements are `stride` bytes apart
 * with the index at `ioff` (C struct layout, or packed: value then index), read
 * through memcpy since packed elements are unaligned. Ties keep the lower
 * index (MPI-3.1 §5.9.4). */
#define PAIR_KERNELS(S, T, IT, STRUCT)                                              \
    static inline void pairloc_##S(const char *restrict a, char *restrict b,    \
                                   size_t n, size_t stride, size_t ioff, int max) \
    {                                                                           \
        for (size_t k = 0; k < n; k++, a += stride, b += stride) {              \
            T u, v;                                                             \
            IT i, j;                                                            \
            memcpy(&u, a, sizeof u);                                            \
            memcpy(&v, b, sizeof v);                                            \
            memcpy(&i, a + ioff, sizeof i);                                     \
            memcpy(&j, b + ioff, sizeof j);                                     \
            if (max ? u > v : u < v) {                                          \
                memcpy(b, &u, sizeof u);                                        \
                memcpy(b + ioff, &i, sizeof i);                                 \
            } else if (u == v && i < j) {                                       \
                memcpy(b + ioff, &i, sizeof i);                                 \
            }                                                                   \
        }                                                                       \
    }                                                                           \
    static void minloc_##S(const void *restrict a, void *restrict b, size_t n)  \
    { pairloc_##S(a, b, n, sizeof(STRUCT), offsetof(STRUCT, i), 0); }           \
    static void maxloc_##S(const void *restrict a, void *restrict b, size_t n)  \
    { pairloc_##S(a, b, n, sizeof(STRUCT), offsetof(STRUCT, i), 1); }           \
    static void pminloc_##S(const void *restrict a, void *restrict b, size_t n) \
    { pairloc_##S(a, b, n, sizeof(T) + sizeof(IT), sizeof(T), 0); }            \
    static void pmaxloc_##S(const void *restrict a, void *restrict b, size_t n) \
    { pairloc_##S(a, b, n, sizeof(T) + sizeof(IT), sizeof(T), 1); }            \
    static void repl_p##S(const void *restrict a, void *restrict b, size_t n)   \
    { memcpy(b, a, n * sizeof(STRUCT)); }                                       \
    static void prepl_p##S(const void *restrict a, void *restrict b, size_t n)  \
    { memcpy(b, a, n * (sizeof(T) + sizeof(IT))); }

struct pair_f  { float f; int i; };
struct pair_d  { double f; int i; };
struct pair_l  { long f; int i; };
struct pair_i  { int f; int i; };
struct pair_s  { short f; int i; };
struct pair_ld { long double f; int i; };
struct pair_ff { float f; float i; };
struct pair_dd { double f; double i; };
PAIR_KERNELS(f, float, int, struct pair_f)
PAIR_KERNELS(d, double, int, struct pair_d)
PAIR_KERNELS(l, long, int, struct pair_l)
PAIR_KERNELS(i, int, int, struct pair_i)
PAIR_KERNELS(s, short, int, struct pair_s)
PAIR_KERNELS(ld, long double, int, struct pair_ld)
PAIR_KERNELS(ff, float, float, struct pair_ff)
PAIR_KERNELS(dd, double, double, struct pair_dd)

/* ---- type classes ---------------------------------------------------------- */
enum cls { C_NONE, C_INT, C_MULTI, C_FLT, C_CPLX, C_BOOL, C_BYTE, C_PAIR, C_LOGICAL };

typedef struct tinfo {
    const char *name;
    int         cls;
    size_t      size, psize;   /* memory and packed element sizes */
} tinfo;

#define T(I, NAME, CLS, TYPE) [I] = { NAME, CLS, sizeof(TYPE), sizeof(TYPE) }
#define TP(I, NAME, VT, ST)   [I] = { NAME, C_PAIR, sizeof(ST), sizeof(VT) + sizeof(int) }
#define TP2(I, NAME, VT, ST)  [I] = { NAME, C_PAIR, sizeof(ST), 2 * sizeof(VT) }
static const tinfo types[NTYPES] = {
    [CU_DT_NULL] = { "MPI_DATATYPE_NULL", C_NONE, 0, 0 },
    /* MPI_CHAR is not in MPI-3.1's integer class, but MPICH and Open MPI
     * reduce it as one (the OSU benchmarks do by default): so do we. */
    T(CU_DT_CHAR, "MPI_CHAR", C_INT, char),
    T(CU_DT_SIGNED_CHAR, "MPI_SIGNED_CHAR", C_INT, signed char),
    T(CU_DT_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", C_INT, unsigned char),
    T(CU_DT_BYTE, "MPI_BYTE", C_BYTE, unsigned char),
    T(CU_DT_SHORT, "MPI_SHORT", C_INT, short),
    T(CU_DT_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", C_INT, unsigned short),
    T(CU_DT_INT, "MPI_INT", C_INT, int),
    T(CU_DT_UNSIGNED, "MPI_UNSIGNED", C_INT, unsigned),
    T(CU_DT_LONG, "MPI_LONG", C_INT, long),
    T(CU_DT_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", C_INT, unsigned long),
    T(CU_DT_LONG_LONG_INT, "MPI_LONG_LONG_INT", C_INT, long long),
    T(CU_DT_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", C_INT, unsigned long long),
    T(CU_DT_FLOAT, "MPI_FLOAT", C_FLT, float),
    T(CU_DT_DOUBLE, "MPI_DOUBLE", C_FLT, double),
    T(CU_DT_LONG_DOUBLE, "MPI_LONG_DOUBLE", C_FLT, long double),
    T(CU_DT_WCHAR, "MPI_WCHAR", C_NONE, wchar_t),
    T(CU_DT_C_BOOL, "MPI_C_BOOL", C_BOOL, bool),
    T(CU_DT_INT8_T, "MPI_INT8_T", C_INT, int8_t),
    T(CU_DT_INT16_T, "MPI_INT16_T", C_INT, int16_t),
    T(CU_DT_INT32_T, "MPI_INT32_T", C_INT, int32_t),
    T(CU_DT_INT64_T, "MPI_INT64_T", C_INT, int64_t),
    T(CU_DT_UINT8_T, "MPI_UINT8_T", C_INT, uint8_t),
    T(CU_DT_UINT16_T, "MPI_UINT16_T", C_INT, uint16_t),
    T(CU_DT_UINT32_T, "MPI_UINT32_T", C_INT, uint32_t),
    T(CU_DT_UINT64_T, "MPI_UINT64_T", C_INT, uint64_t),
    T(CU_DT_AINT, "MPI_AINT", C_MULTI, cu_aint),
    T(CU_DT_COUNT, "MPI_COUNT", C_MULTI, cu_count),
    T(CU_DT_OFFSET, "MPI_OFFSET", C_MULTI, cu_offset),
    T(CU_DT_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", C_CPLX, float _Complex),
    T(CU_DT_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", C_CPLX, double _Complex),
    T(CU_DT_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", C_CPLX, long double _Complex),
    T(CU_DT_PACKED, "MPI_PACKED", C_NONE, unsigned char),
    TP(CU_DT_FLOAT_INT, "MPI_FLOAT_INT", float, struct pair_f),
    TP(CU_DT_DOUBLE_INT, "MPI_DOUBLE_INT", double, struct pair_d),
    TP(CU_DT_LONG_INT, "MPI_LONG_INT", long, struct pair_l),
    TP(CU_DT_2INT, "MPI_2INT", int, struct pair_i),
    TP(CU_DT_SHORT_INT, "MPI_SHORT_INT", short, struct pair_s),
    TP(CU_DT_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", long double, struct pair_ld),
    /* Fortran's: INTEGER is a Fortran integer (no logical ops: C_MULTI's
     * set), LOGICAL takes the logical ops only. */
    T(CU_DT_CHARACTER, "MPI_CHARACTER", C_NONE, char),
    T(CU_DT_LOGICAL, "MPI_LOGICAL", C_LOGICAL, int),
    T(CU_DT_INTEGER, "MPI_INTEGER", C_MULTI, int),
    T(CU_DT_REAL, "MPI_REAL", C_FLT, float),
    T(CU_DT_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", C_FLT, double),
    T(CU_DT_COMPLEX, "MPI_COMPLEX", C_CPLX, float _Complex),
    T(CU_DT_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", C_CPLX, double _Complex),
    TP2(CU_DT_2INTEGER, "MPI_2INTEGER", int, struct pair_i),
    TP2(CU_DT_2REAL, "MPI_2REAL", float, struct pair_ff),
    TP2(CU_DT_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", double, struct pair_dd),
    T(CU_DT_INTEGER1, "MPI_INTEGER1", C_MULTI, int8_t),
    T(CU_DT_INTEGER2, "MPI_INTEGER2", C_MULTI, int16_t),
    T(CU_DT_INTEGER4, "MPI_INTEGER4", C_MULTI, int32_t),
    T(CU_DT_INTEGER8, "MPI_INTEGER8", C_MULTI, int64_t),
    T(CU_DT_REAL4, "MPI_REAL4", C_FLT, float),
    T(CU_DT_REAL8, "MPI_REAL8", C_FLT, double),
    T(CU_DT_COMPLEX8, "MPI_COMPLEX8", C_CPLX, float _Complex),
    T(CU_DT_COMPLEX16, "MPI_COMPLEX16", C_CPLX, double _Complex),
};

/* Which ops each class allows in a reduction (bit op). */
#define B(op) (1u << (op))
static const unsigned allowed[] = {
    [C_NONE]  = 0,
    [C_INT]   = B(CU_OP_MAX) | B(CU_OP_MIN) | B(CU_OP_SUM) | B(CU_OP_PROD) | B(CU_OP_LAND) |
                B(CU_OP_LOR) | B(CU_OP_LXOR) | B(CU_OP_BAND) | B(CU_OP_BOR) | B(CU_OP_BXOR),
    /* Multi-language types (Aint, Offset, Count) and Fortran integers:
     * no logical ops. */
    [C_MULTI] = B(CU_OP_MAX) | B(CU_OP_MIN) | B(CU_OP_SUM) | B(CU_OP_PROD) | B(CU_OP_BAND) |
                B(CU_OP_BOR) | B(CU_OP_BXOR),
    [C_FLT]   = B(CU_OP_MAX) | B(CU_OP_MIN) | B(CU_OP_SUM) | B(CU_OP_PROD),
    [C_CPLX]  = B(CU_OP_SUM) | B(CU_OP_PROD),
    [C_BOOL]  = B(CU_OP_LAND) | B(CU_OP_LOR) | B(CU_OP_LXOR),
    [C_BYTE]  = B(CU_OP_BAND) | B(CU_OP_BOR) | B(CU_OP_BXOR),
    [C_PAIR]  = B(CU_OP_MINLOC) | B(CU_OP_MAXLOC),
    [C_LOGICAL] = B(CU_OP_LAND) | B(CU_OP_LOR) | B(CU_OP_LXOR),
};

/* kern[packed][op][type], filled once: integer types are mapped to the
 * kernels of their width and signedness, which only the compiler knows. */
static cu_op_kernel *kern[2][CU_OP_COUNT][NTYPES];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define INT_ROW(row, S)                                                         \
    do {                                                                        \
        row[CU_OP_MAX] = max_##S; row[CU_OP_MIN] = min_##S;                     \
        row[CU_OP_SUM] = sum_##S; row[CU_OP_PROD] = prod_##S;                   \
        row[CU_OP_LAND] = land_##S; row[CU_OP_LOR] = lor_##S;                   \
        row[CU_OP_LXOR] = lxor_##S; row[CU_OP_BAND] = band_##S;                 \
        row[CU_OP_BOR] = bor_##S; row[CU_OP_BXOR] = bxor_##S;                   \
        row[CU_OP_REPLACE] = repl_##S;                                          \
    } while (0)

static void int_row(cu_op_kernel **row, size_t size, int is_signed)
{
    switch (size * 2 + !!is_signed) {
    case 2:  INT_ROW(row, u8); break;
    case 3:  INT_ROW(row, i8); break;
    case 4:  INT_ROW(row, u16); break;
    case 5:  INT_ROW(row, i16); break;
    case 8:  INT_ROW(row, u32); break;
    case 9:  INT_ROW(row, i32); break;
    case 16: INT_ROW(row, u64); break;
    case 17: INT_ROW(row, i64); break;
    default: break;
    }
}

#define SIGNED(T) ((T)-1 < (T)0)

static void init_tables(void)
{
    cu_op_kernel *row[CU_OP_COUNT];
    static const struct { int idx; size_t size; int sgn; } ints[] = {
        { CU_DT_SIGNED_CHAR, sizeof(signed char), 1 },
        { CU_DT_UNSIGNED_CHAR, sizeof(unsigned char), 0 },
        { CU_DT_BYTE, 1, 0 },                        /* MPI_BYTE: the bitwise ops of uint8 */
        { CU_DT_SHORT, sizeof(short), 1 }, { CU_DT_UNSIGNED_SHORT, sizeof(unsigned short), 0 },
        { CU_DT_INT, sizeof(int), 1 }, { CU_DT_UNSIGNED, sizeof(unsigned), 0 },
        { CU_DT_LONG, sizeof(long), 1 }, { CU_DT_UNSIGNED_LONG, sizeof(unsigned long), 0 },
        { CU_DT_LONG_LONG_INT, sizeof(long long), 1 },
        { CU_DT_UNSIGNED_LONG_LONG, sizeof(unsigned long long), 0 },
        { CU_DT_WCHAR, sizeof(wchar_t), SIGNED(wchar_t) },  /* for REPLACE only */
        { CU_DT_CHAR, sizeof(char), SIGNED(char) },
        { CU_DT_INT8_T, 1, 1 }, { CU_DT_INT16_T, 2, 1 },
        { CU_DT_INT32_T, 4, 1 }, { CU_DT_INT64_T, 8, 1 },
        { CU_DT_UINT8_T, 1, 0 }, { CU_DT_UINT16_T, 2, 0 },
        { CU_DT_UINT32_T, 4, 0 }, { CU_DT_UINT64_T, 8, 0 },
        { CU_DT_AINT, sizeof(cu_aint), SIGNED(cu_aint) },
        { CU_DT_COUNT, sizeof(cu_count), SIGNED(cu_count) },
        { CU_DT_OFFSET, sizeof(cu_offset), SIGNED(cu_offset) },
        { CU_DT_PACKED, 1, 0 },                      /* MPI_PACKED: REPLACE only */
        { CU_DT_C_BOOL, sizeof(bool), 0 },           /* C_BOOL: REPLACE (below) */
        { CU_DT_CHARACTER, 1, 0 },                   /* REPLACE only */
        /* LOGICAL: the int kernels' logical ops give 1 and 0, gfortran's
         * .TRUE. and .FALSE. (any nonzero operand counts as true) */
        { CU_DT_LOGICAL, sizeof(int), 1 },
        { CU_DT_INTEGER, sizeof(int), 1 },
        { CU_DT_INTEGER1, 1, 1 }, { CU_DT_INTEGER2, 2, 1 },
        { CU_DT_INTEGER4, 4, 1 }, { CU_DT_INTEGER8, 8, 1 },
    };
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        memset(row, 0, sizeof row);
        int_row(row, ints[k].size, ints[k].sgn);
        for (int op = 0; op < CU_OP_COUNT; op++)
            kern[0][op][ints[k].idx] = row[op];
    }
    /* bool has its own logical kernels (a bool holds only 0 or 1). */
    kern[0][CU_OP_LAND][CU_DT_C_BOOL] = land_b;
    kern[0][CU_OP_LOR][CU_DT_C_BOOL] = lor_b;
    kern[0][CU_OP_LXOR][CU_DT_C_BOOL] = lxor_b;

#define SET(op, idx, fn) kern[0][op][idx] = fn
#define FLT_ROW(idx, S) SET(CU_OP_MAX, idx, max_##S); SET(CU_OP_MIN, idx, min_##S); \
    SET(CU_OP_SUM, idx, sum_##S); SET(CU_OP_PROD, idx, prod_##S); SET(CU_OP_REPLACE, idx, repl_##S)
    FLT_ROW(CU_DT_FLOAT, f);
    FLT_ROW(CU_DT_DOUBLE, d);
    FLT_ROW(CU_DT_LONG_DOUBLE, ld);
    FLT_ROW(CU_DT_REAL, f);
    FLT_ROW(CU_DT_REAL4, f);
    FLT_ROW(CU_DT_DOUBLE_PRECISION, d);
    FLT_ROW(CU_DT_REAL8, d);
#define CPLX_ROW(idx, S) SET(CU_OP_SUM, idx, sum_##S); SET(CU_OP_PROD, idx, prod_##S); \
    SET(CU_OP_REPLACE, idx, repl_##S)
    CPLX_ROW(CU_DT_C_FLOAT_COMPLEX, cf);
    CPLX_ROW(CU_DT_C_DOUBLE_COMPLEX, cd);
    CPLX_ROW(CU_DT_C_LONG_DOUBLE_COMPLEX, cld);
    CPLX_ROW(CU_DT_COMPLEX, cf);
    CPLX_ROW(CU_DT_COMPLEX8, cf);
    CPLX_ROW(CU_DT_DOUBLE_COMPLEX, cd);
    CPLX_ROW(CU_DT_COMPLEX16, cd);
    /* Packed and memory layouts agree for everything but the pairs. */
    memcpy(kern[1], kern[0], sizeof kern[0]);
#define PAIR_ROW(idx, S) SET(CU_OP_MINLOC, idx, minloc_##S); SET(CU_OP_MAXLOC, idx, maxloc_##S); \
    SET(CU_OP_REPLACE, idx, repl_p##S); kern[1][CU_OP_MINLOC][idx] = pminloc_##S;             \
    kern[1][CU_OP_MAXLOC][idx] = pmaxloc_##S; kern[1][CU_OP_REPLACE][idx] = prepl_p##S
    PAIR_ROW(CU_DT_FLOAT_INT, f);
    PAIR_ROW(CU_DT_DOUBLE_INT, d);
    PAIR_ROW(CU_DT_LONG_INT, l);
    PAIR_ROW(CU_DT_2INT, i);
    PAIR_ROW(CU_DT_SHORT_INT, s);
    PAIR_ROW(CU_DT_LONG_DOUBLE_INT, ld);
    PAIR_ROW(CU_DT_2INTEGER, i);
    PAIR_ROW(CU_DT_2REAL, ff);
    PAIR_ROW(CU_DT_2DOUBLE_PRECISION, dd);
    for (int t = 1; t < NTYPES; t++) {
        kern[0][CU_OP_NO_OP][t] = noop;
        kern[1][CU_OP_NO_OP][t] = noop;
    }
    /* Keep only what the standard defines (REPLACE/NO_OP: everywhere). */
    for (int p = 0; p < 2; p++)
        for (int op = CU_OP_MAX; op <= CU_OP_MAXLOC; op++)
            for (int t = 0; t < NTYPES; t++)
                if (!(allowed[types[t].cls] & B(op)))
                    kern[p][op][t] = NULL;
}

static inline int in_range(int op, int basic)
{
    return op > CU_OP_NULL && op < CU_OP_COUNT && basic > 0 && basic < NTYPES;
}

int cu_op_valid(int op, int basic)
{
    return in_range(op, basic) && (allowed[types[basic].cls] & B(op)) != 0;
}

int cu_op_valid_accumulate(int op, int basic)
{
    return cu_op_valid(op, basic) ||
           (in_range(op, basic) && (op == CU_OP_REPLACE || op == CU_OP_NO_OP));
}

cu_op_kernel *cu_op_kernel_get(int op, int basic)
{
    if (!in_range(op, basic))
        return NULL;
    pthread_once(&once, init_tables);
    return kern[0][op][basic];
}

cu_op_kernel *cu_op_kernel_packed(int op, int basic)
{
    if (!in_range(op, basic))
        return NULL;
    pthread_once(&once, init_tables);
    return kern[1][op][basic];
}

size_t cu_op_elem_size(int basic)
{
    return basic > 0 && basic < NTYPES ? types[basic].size : 0;
}

size_t cu_op_packed_size(int basic)
{
    return basic > 0 && basic < NTYPES ? types[basic].psize : 0;
}

int cu_op_reduce(int op, int basic, const void *in, void *inout, size_t n)
{
    cu_op_kernel *k = cu_op_kernel_get(op, basic);
    if (!k)
        return -1;
    if (n)
        k(in, inout, n);
    return 0;
}

const char *cu_op_name(int op)
{
    static const char *const names[CU_OP_COUNT] = {
        "MPI_OP_NULL", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND",
        "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC",
        "MPI_REPLACE", "MPI_NO_OP",
    };
    return op >= 0 && op < CU_OP_COUNT ? names[op] : "user-defined op";
}

const char *cu_op_type_name(int basic)
{
    return basic > 0 && basic < NTYPES ? types[basic].name : "a derived type of mixed elements";
}
