/*
 * test_op.c — the reduction kernels of src/util/op.c against a naive
 * element-by-element reference, for every predefined op on every predefined
 * type: which pairs exist (MPI-3.1 §5.9.2), and the results in memory layout
 * and in packed layout (pair types differ there), over odd lengths so the
 * vectorized loops' tails run too.
 */
#include <complex.h>
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "src/include/mpi.h"
#include "src/util/op.h"

#define IDX(h) ((int)((unsigned)(h) & 0xffffffu))

enum cls { NONE, SINT, UINT, MSINT, FLT, CPLX, BOOLC, BYTEC, PAIR };
typedef struct { int idx; int cls; size_t size; } tdesc;
#define SG(T) (((T)-1 < (T)0) ? SINT : UINT)
static const tdesc tds[] = {
    { IDX(MPI_CHAR), SG(char), sizeof(char) }, { IDX(MPI_SIGNED_CHAR), SINT, 1 },
    { IDX(MPI_UNSIGNED_CHAR), UINT, 1 }, { IDX(MPI_BYTE), BYTEC, 1 },
    { IDX(MPI_SHORT), SINT, sizeof(short) }, { IDX(MPI_UNSIGNED_SHORT), UINT, sizeof(short) },
    { IDX(MPI_INT), SINT, sizeof(int) }, { IDX(MPI_UNSIGNED), UINT, sizeof(int) },
    { IDX(MPI_LONG), SINT, sizeof(long) }, { IDX(MPI_UNSIGNED_LONG), UINT, sizeof(long) },
    { IDX(MPI_LONG_LONG), SINT, sizeof(long long) },
    { IDX(MPI_UNSIGNED_LONG_LONG), UINT, sizeof(long long) },
    { IDX(MPI_FLOAT), FLT, sizeof(float) }, { IDX(MPI_DOUBLE), FLT, sizeof(double) },
    { IDX(MPI_LONG_DOUBLE), FLT, sizeof(long double) }, { IDX(MPI_WCHAR), NONE, sizeof(wchar_t) },
    { IDX(MPI_C_BOOL), BOOLC, sizeof(bool) },
    { IDX(MPI_INT8_T), SINT, 1 }, { IDX(MPI_INT16_T), SINT, 2 }, { IDX(MPI_INT32_T), SINT, 4 },
    { IDX(MPI_INT64_T), SINT, 8 }, { IDX(MPI_UINT8_T), UINT, 1 }, { IDX(MPI_UINT16_T), UINT, 2 },
    { IDX(MPI_UINT32_T), UINT, 4 }, { IDX(MPI_UINT64_T), UINT, 8 },
    { IDX(MPI_AINT), MSINT, sizeof(MPI_Aint) }, { IDX(MPI_COUNT), MSINT, sizeof(MPI_Count) },
    { IDX(MPI_OFFSET), MSINT, sizeof(MPI_Offset) },
    { IDX(MPI_C_FLOAT_COMPLEX), CPLX, sizeof(float _Complex) },
    { IDX(MPI_C_DOUBLE_COMPLEX), CPLX, sizeof(double _Complex) },
    { IDX(MPI_C_LONG_DOUBLE_COMPLEX), CPLX, sizeof(long double _Complex) },
    { IDX(MPI_PACKED), NONE, 1 },
    { IDX(MPI_FLOAT_INT), PAIR, sizeof(float) }, { IDX(MPI_DOUBLE_INT), PAIR, sizeof(double) },
    { IDX(MPI_LONG_INT), PAIR, sizeof(long) }, { IDX(MPI_2INT), PAIR, sizeof(int) },
    { IDX(MPI_SHORT_INT), PAIR, sizeof(short) },
    { IDX(MPI_LONG_DOUBLE_INT), PAIR, sizeof(long double) },
};
#define NTD ((int)(sizeof tds / sizeof tds[0]))

static int std_valid(int op, int cls)
{
    int integer = cls == SINT || cls == UINT;
    switch (op) {
    case CU_OP_MAX: case CU_OP_MIN: return integer || cls == MSINT || cls == FLT;
    case CU_OP_SUM: case CU_OP_PROD: return integer || cls == MSINT || cls == FLT || cls == CPLX;
    case CU_OP_LAND: case CU_OP_LOR: case CU_OP_LXOR: return integer || cls == BOOLC;
    case CU_OP_BAND: case CU_OP_BOR: case CU_OP_BXOR: return integer || cls == MSINT || cls == BYTEC;
    case CU_OP_MINLOC: case CU_OP_MAXLOC: return cls == PAIR;
    default: return 0;
    }
}

Test(op, validity_follows_the_standard)
{
    for (int op = 1; op < CU_OP_COUNT; op++)
        for (int t = 0; t < NTD; t++) {
            int want = std_valid(op, tds[t].cls);
            cr_expect_eq(!!cu_op_valid(op, tds[t].idx), want, "op %s type %s: valid %d, want %d",
                         cu_op_name(op), cu_op_type_name(tds[t].idx), cu_op_valid(op, tds[t].idx),
                         want);
            int acc = want || op == CU_OP_REPLACE || op == CU_OP_NO_OP;
            cr_expect_eq(!!cu_op_valid_accumulate(op, tds[t].idx), acc, "accumulate %s %s",
                         cu_op_name(op), cu_op_type_name(tds[t].idx));
            cr_expect_eq(cu_op_kernel_get(op, tds[t].idx) != NULL, acc, "kernel %s %s",
                         cu_op_name(op), cu_op_type_name(tds[t].idx));
        }
    cr_expect(!cu_op_valid(0, IDX(MPI_INT)));
    cr_expect(!cu_op_valid(CU_OP_SUM, 0));
    cr_expect(!cu_op_valid(CU_OP_SUM, CLUMPI_DT_BUILTIN_COUNT));
    cr_expect(cu_op_kernel_get(CU_OP_COUNT, IDX(MPI_INT)) == NULL);
}

/* ---- naive reference on one element -------------------------------------- */
static uint64_t ld_u(const void *p, size_t n)
{
    uint8_t a; uint16_t b; uint32_t c; uint64_t d;
    switch (n) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}
static int64_t ld_s(const void *p, size_t n)
{
    int8_t a; int16_t b; int32_t c; int64_t d;
    switch (n) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}
static void st_u(void *p, size_t n, uint64_t v)
{
    uint8_t a = (uint8_t)v; uint16_t b = (uint16_t)v; uint32_t c = (uint32_t)v;
    switch (n) {
    case 1: memcpy(p, &a, 1); break;
    case 2: memcpy(p, &b, 2); break;
    case 4: memcpy(p, &c, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

static void ref_int(int op, int sgn, size_t n, const void *in, void *io)
{
    uint64_t a = ld_u(in, n), b = ld_u(io, n), r = b;
    int64_t sa = ld_s(in, n), sb = ld_s(io, n);
    int gt = sgn ? sa > sb : a > b, lt = sgn ? sa < sb : a < b;
    switch (op) {
    case CU_OP_MAX: r = gt ? a : b; break;
    case CU_OP_MIN: r = lt ? a : b; break;
    case CU_OP_SUM: r = a + b; break;
    case CU_OP_PROD: r = a * b; break;
    case CU_OP_LAND: r = a && b; break;
    case CU_OP_LOR: r = a || b; break;
    case CU_OP_LXOR: r = !a != !b; break;
    case CU_OP_BAND: r = a & b; break;
    case CU_OP_BOR: r = a | b; break;
    case CU_OP_BXOR: r = a ^ b; break;
    case CU_OP_REPLACE: r = a; break;
    default: break;
    }
    st_u(io, n, r);
}

#define REF_FLT(T)                                                           \
    static void ref_##T##_f(int op, const void *in, void *io)                \
    {                                                                        \
        T a, b;                                                              \
        memcpy(&a, in, sizeof a);                                            \
        memcpy(&b, io, sizeof b);                                            \
        if (op == CU_OP_MAX) b = a > b ? a : b;                              \
        else if (op == CU_OP_MIN) b = a < b ? a : b;                         \
        else if (op == CU_OP_SUM) b = a + b;                                 \
        else if (op == CU_OP_PROD) b = a * b;                                \
        else if (op == CU_OP_REPLACE) b = a;                                 \
        memcpy(io, &b, sizeof b);                                            \
    }
typedef long double ldbl;
typedef float _Complex cflt;
typedef double _Complex cdbl;
typedef long double _Complex cldbl;
REF_FLT(float) REF_FLT(double) REF_FLT(ldbl)
#define REF_CPLX(T)                                                          \
    static void ref_##T##_c(int op, const void *in, void *io)                \
    {                                                                        \
        T a, b;                                                              \
        memcpy(&a, in, sizeof a);                                            \
        memcpy(&b, io, sizeof b);                                            \
        if (op == CU_OP_SUM) b = a + b;                                      \
        else if (op == CU_OP_PROD) b = a * b;                                \
        else if (op == CU_OP_REPLACE) b = a;                                 \
        memcpy(io, &b, sizeof b);                                            \
    }
REF_CPLX(cflt) REF_CPLX(cdbl) REF_CPLX(cldbl)

/* A pair at (value at 0, int at ioff); value compared as long double. */
static void ref_pair(int op, size_t vs, int vidx, size_t ioff, const unsigned char *in,
                     unsigned char *io)
{
    long double u, v;
    if (vidx == IDX(MPI_FLOAT)) { float x, y; memcpy(&x, in, 4); memcpy(&y, io, 4); u = x; v = y; }
    else if (vidx == IDX(MPI_DOUBLE)) { double x, y; memcpy(&x, in, 8); memcpy(&y, io, 8); u = x; v = y; }
    else if (vidx == IDX(MPI_LONG_DOUBLE)) { memcpy(&u, in, sizeof u); memcpy(&v, io, sizeof v); }
    else { u = (long double)ld_s(in, vs); v = (long double)ld_s(io, vs); }
    int i, j;
    memcpy(&i, in + ioff, sizeof i);
    memcpy(&j, io + ioff, sizeof j);
    if (op == CU_OP_REPLACE || (op == CU_OP_MAXLOC ? u > v : u < v)) {
        memcpy(io, in, vs);
        memcpy(io + ioff, &i, sizeof i);
    } else if (u == v && i < j && op != CU_OP_NO_OP) {
        memcpy(io + ioff, &i, sizeof i);
    }
}

static int pair_value_idx(int idx)
{
    if (idx == IDX(MPI_FLOAT_INT)) return IDX(MPI_FLOAT);
    if (idx == IDX(MPI_DOUBLE_INT)) return IDX(MPI_DOUBLE);
    if (idx == IDX(MPI_LONG_DOUBLE_INT)) return IDX(MPI_LONG_DOUBLE);
    return IDX(MPI_INT);   /* integer values: compared through ld_s */
}

/* Fill n elements of stride es: integers random, floats small integers
 * (exact sums), pairs with small values (ties) and random indices. */
static void fill(const tdesc *t, unsigned char *p, size_t n, size_t es, size_t ioff,
                 unsigned seed)
{
    srand(seed);
    memset(p, 0, n * es);
    for (size_t k = 0; k < n; k++) {
        unsigned char *q = p + k * es;
        int small = rand() % 7 - 3;
        if (t->cls == FLT || t->cls == CPLX) {
            if (t->idx == IDX(MPI_FLOAT) || t->idx == IDX(MPI_C_FLOAT_COMPLEX)) { float v = (float)small; memcpy(q, &v, 4); }
            else if (t->idx == IDX(MPI_DOUBLE) || t->idx == IDX(MPI_C_DOUBLE_COMPLEX)) { double v = small; memcpy(q, &v, 8); }
            else { long double v = small; memcpy(q, &v, sizeof v); }
            if (t->cls == CPLX) {   /* imaginary part */
                size_t h = t->size / 2;
                memcpy(q + h, q, h);
            }
        } else if (t->cls == BOOLC) {
            bool b = rand() % 2;
            memcpy(q, &b, 1);
        } else if (t->cls == PAIR) {
            int vi = pair_value_idx(t->idx), ix = rand() % 5;
            if (vi == IDX(MPI_FLOAT)) { float v = (float)(small % 2); memcpy(q, &v, 4); }
            else if (vi == IDX(MPI_DOUBLE)) { double v = small % 2; memcpy(q, &v, 8); }
            else if (vi == IDX(MPI_LONG_DOUBLE)) { long double v = small % 2; memcpy(q, &v, sizeof v); }
            else st_u(q, t->size, (uint64_t)(int64_t)(small % 2));
            memcpy(q + ioff, &ix, sizeof ix);
        } else {
            for (size_t b = 0; b < t->size; b++)
                q[b] = (unsigned char)(rand() % 4 == 0 ? 0 : rand());
        }
    }
}

/* Pair layouts: C struct (memory) and value-then-int (packed). */
static void pair_layout(int idx, int packed, size_t *es, size_t *ioff)
{
#define L(T) do { struct s { T v; int i; }; *es = packed ? sizeof(T) + sizeof(int) : sizeof(struct s); \
                  *ioff = packed ? sizeof(T) : offsetof(struct s, i); } while (0)
    if (idx == IDX(MPI_FLOAT_INT)) L(float);
    else if (idx == IDX(MPI_DOUBLE_INT)) L(double);
    else if (idx == IDX(MPI_LONG_INT)) L(long);
    else if (idx == IDX(MPI_2INT)) L(int);
    else if (idx == IDX(MPI_SHORT_INT)) L(short);
    else L(long double);
#undef L
}

static void check_kernel(const tdesc *t, int op, int packed)
{
    cu_op_kernel *k = packed ? cu_op_kernel_packed(op, t->idx) : cu_op_kernel_get(op, t->idx);
    cr_assert(k != NULL, "%s on %s: no kernel", cu_op_name(op), cu_op_type_name(t->idx));
    size_t es = t->size, ioff = 0;
    if (t->cls == PAIR)
        pair_layout(t->idx, packed, &es, &ioff);
    cr_expect_eq(packed ? cu_op_packed_size(t->idx) : cu_op_elem_size(t->idx), es,
                 "%s: element size", cu_op_type_name(t->idx));
    enum { N = 37 };
    unsigned char *in = malloc(N * es), *io = malloc(N * es), *want = malloc(N * es);
    fill(t, in, N, es, ioff, (unsigned)(op * 100 + t->idx));
    fill(t, io, N, es, ioff, (unsigned)(op * 100 + t->idx + 7));
    memcpy(want, io, N * es);
    for (size_t e = 0; e < N; e++) {
        const unsigned char *a = in + e * es;
        unsigned char *b = want + e * es;
        if (op == CU_OP_NO_OP)
            continue;
        switch (t->cls) {
        case SINT: case MSINT: ref_int(op, 1, t->size, a, b); break;
        case UINT: case BYTEC: ref_int(op, 0, t->size, a, b); break;
        case NONE: if (op == CU_OP_REPLACE) memcpy(b, a, es); break;
        case BOOLC: ref_int(op, 0, 1, a, b); break;
        case FLT:
            if (t->idx == IDX(MPI_FLOAT)) ref_float_f(op, a, b);
            else if (t->idx == IDX(MPI_DOUBLE)) ref_double_f(op, a, b);
            else ref_ldbl_f(op, a, b);
            break;
        case CPLX:
            if (t->idx == IDX(MPI_C_FLOAT_COMPLEX)) ref_cflt_c(op, a, b);
            else if (t->idx == IDX(MPI_C_DOUBLE_COMPLEX)) ref_cdbl_c(op, a, b);
            else ref_cldbl_c(op, a, b);
            break;
        case PAIR:
            ref_pair(op, t->size, pair_value_idx(t->idx), ioff, a, b);
            break;
        }
    }
    k(in, io, N);
    /* Compare data bytes only: long double's 6 padding bytes and the pair
     * structs' padding are not part of the value. */
    for (size_t e = 0; e < N; e++) {
        const unsigned char *g = io + e * es, *w = want + e * es;
        size_t vs = t->size;
        if (t->idx == IDX(MPI_LONG_DOUBLE) || t->idx == IDX(MPI_LONG_DOUBLE_INT))
            vs = 10;
        int ok = memcmp(g, w, vs) == 0;
        if (t->idx == IDX(MPI_C_LONG_DOUBLE_COMPLEX))
            ok = memcmp(g, w, 10) == 0 && memcmp(g + 16, w + 16, 10) == 0;
        if (t->cls == PAIR)
            ok = ok && memcmp(g + ioff, w + ioff, sizeof(int)) == 0;
        cr_expect(ok, "%s on %s (%s layout): element %zu differs", cu_op_name(op),
                  cu_op_type_name(t->idx), packed ? "packed" : "memory", e);
        if (!ok)
            break;
    }
    free(in);
    free(io);
    free(want);
}

Test(op, kernels_match_the_reference)
{
    for (int op = 1; op < CU_OP_COUNT; op++)
        for (int t = 0; t < NTD; t++)
            if (cu_op_valid_accumulate(op, tds[t].idx))
                for (int packed = 0; packed < 2; packed++)
                    check_kernel(&tds[t], op, packed);
}

Test(op, reduce_wrapper_and_names)
{
    int a[3] = { 1, 2, 3 }, b[3] = { 10, 20, 30 };
    cr_expect_eq(cu_op_reduce(CU_OP_SUM, IDX(MPI_INT), a, b, 3), 0);
    cr_expect(b[0] == 11 && b[1] == 22 && b[2] == 33);
    cr_expect_eq(cu_op_reduce(CU_OP_SUM, IDX(MPI_C_BOOL), a, b, 3), -1);
    cr_expect(b[0] == 11, "an invalid pair must not write");
    cr_expect_str_eq(cu_op_name(CU_OP_MAXLOC), "MPI_MAXLOC");
    cr_expect_str_eq(cu_op_type_name(IDX(MPI_DOUBLE_INT)), "MPI_DOUBLE_INT");
    /* Signed overflow wraps, as in two's complement. */
    signed char x = 127, y = 1;
    cr_expect_eq(cu_op_reduce(CU_OP_SUM, IDX(MPI_SIGNED_CHAR), &x, &y, 1), 0);
    cr_expect_eq(y, -128);
}
