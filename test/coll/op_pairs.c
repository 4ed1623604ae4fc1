/* np: 1 2 3
 *
 * op_pairs.c — every predefined op on every predefined datatype through
 * MPI_Allreduce: the pairs MPI-3.1 §5.9.2 defines give the right result,
 * the others fail with MPI_ERR_OP (MPI_ERRORS_RETURN). Also MPI_Reduce_local,
 * MPI_Op_commutative, MPI_Op_free of a predefined op, and MPI_OP_NULL.
 *
 * Operands are chosen so one expected value serves every type of a class:
 * rank r contributes r+1 (arithmetic, logical; r%8+1 for MPI_PROD, so the
 * product stays exact in a float's 24 bits at any rank count: the
 * algorithms multiply in different orders), 1 << r (bitwise), and the pair
 * (r % 2, r) (MINLOC/MAXLOC). The Fortran types are here too, by their C
 * handles (LOGICAL: an int of 1 or 0, gfortran's). make check-long runs it through every
 * MPI_Allreduce algorithm (test/coll/allreduce.sh).
 */
#include <complex.h>
#include <stdbool.h>
#include <wchar.h>
#include "../mpi/mtest.h"

/* MULTI: also Fortran's integers (MPI-3.1 5.9.2: no logical ops) */
enum cls { NONE, INT, MULTI, FLT, CPLX, BOOL, BYTE, PAIR, LOGICAL };
typedef struct { MPI_Datatype t; const char *name; int cls; size_t size; } tinfo;
#define TI(t, c, T) { t, #t, c, sizeof(T) }
static const tinfo types[] = {
    TI(MPI_CHAR, INT, char), TI(MPI_SIGNED_CHAR, INT, signed char),
    TI(MPI_UNSIGNED_CHAR, INT, unsigned char), TI(MPI_BYTE, BYTE, unsigned char),
    TI(MPI_SHORT, INT, short), TI(MPI_UNSIGNED_SHORT, INT, unsigned short),
    TI(MPI_INT, INT, int), TI(MPI_UNSIGNED, INT, unsigned), TI(MPI_LONG, INT, long),
    TI(MPI_UNSIGNED_LONG, INT, unsigned long), TI(MPI_LONG_LONG, INT, long long),
    TI(MPI_UNSIGNED_LONG_LONG, INT, unsigned long long), TI(MPI_FLOAT, FLT, float),
    TI(MPI_DOUBLE, FLT, double), TI(MPI_LONG_DOUBLE, FLT, long double),
    TI(MPI_WCHAR, NONE, wchar_t), TI(MPI_C_BOOL, BOOL, bool), TI(MPI_INT8_T, INT, int8_t),
    TI(MPI_INT16_T, INT, int16_t), TI(MPI_INT32_T, INT, int32_t), TI(MPI_INT64_T, INT, int64_t),
    TI(MPI_UINT8_T, INT, uint8_t), TI(MPI_UINT16_T, INT, uint16_t),
    TI(MPI_UINT32_T, INT, uint32_t), TI(MPI_UINT64_T, INT, uint64_t),
    TI(MPI_AINT, MULTI, MPI_Aint), TI(MPI_COUNT, MULTI, MPI_Count),
    TI(MPI_OFFSET, MULTI, MPI_Offset), TI(MPI_C_FLOAT_COMPLEX, CPLX, float _Complex),
    TI(MPI_C_DOUBLE_COMPLEX, CPLX, double _Complex),
    TI(MPI_C_LONG_DOUBLE_COMPLEX, CPLX, long double _Complex),
    TI(MPI_FLOAT_INT, PAIR, struct { float v; int i; }),
    TI(MPI_DOUBLE_INT, PAIR, struct { double v; int i; }),
    TI(MPI_LONG_INT, PAIR, struct { long v; int i; }),
    TI(MPI_2INT, PAIR, struct { int v; int i; }),
    TI(MPI_SHORT_INT, PAIR, struct { short v; int i; }),
    TI(MPI_LONG_DOUBLE_INT, PAIR, struct { long double v; int i; }),
    TI(MPI_CHARACTER, NONE, char), TI(MPI_LOGICAL, LOGICAL, int), TI(MPI_INTEGER, MULTI, int),
    TI(MPI_REAL, FLT, float), TI(MPI_DOUBLE_PRECISION, FLT, double),
    TI(MPI_COMPLEX, CPLX, float _Complex), TI(MPI_DOUBLE_COMPLEX, CPLX, double _Complex),
    TI(MPI_2INTEGER, PAIR, struct { int v; int i; }),
    TI(MPI_2REAL, PAIR, struct { float v; float i; }),
    TI(MPI_2DOUBLE_PRECISION, PAIR, struct { double v; double i; }),
    TI(MPI_INTEGER1, MULTI, int8_t), TI(MPI_INTEGER2, MULTI, int16_t),
    TI(MPI_INTEGER4, MULTI, int32_t), TI(MPI_INTEGER8, MULTI, int64_t),
    TI(MPI_REAL4, FLT, float), TI(MPI_REAL8, FLT, double),
    TI(MPI_COMPLEX8, CPLX, float _Complex), TI(MPI_COMPLEX16, CPLX, double _Complex),
};
#define NT ((int)(sizeof types / sizeof types[0]))

static const struct { MPI_Op op; const char *name; } ops[] = {
    { MPI_MAX, "MPI_MAX" }, { MPI_MIN, "MPI_MIN" }, { MPI_SUM, "MPI_SUM" },
    { MPI_PROD, "MPI_PROD" }, { MPI_LAND, "MPI_LAND" }, { MPI_BAND, "MPI_BAND" },
    { MPI_LOR, "MPI_LOR" }, { MPI_BOR, "MPI_BOR" }, { MPI_LXOR, "MPI_LXOR" },
    { MPI_BXOR, "MPI_BXOR" }, { MPI_MINLOC, "MPI_MINLOC" }, { MPI_MAXLOC, "MPI_MAXLOC" },
};
#define NO ((int)(sizeof ops / sizeof ops[0]))

/* MPI-3.1 §5.9.2: which classes each op is defined on. */
static int valid(MPI_Op op, int cls)
{
    if (op == MPI_MAX || op == MPI_MIN)
        return cls == INT || cls == MULTI || cls == FLT;
    if (op == MPI_SUM || op == MPI_PROD)
        return cls == INT || cls == MULTI || cls == FLT || cls == CPLX;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return cls == INT || cls == BOOL || cls == LOGICAL;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return cls == INT || cls == MULTI || cls == BYTE;
    return cls == PAIR;
}

/* Store v (an integer-valued number) as element type ti at p. */
static void store(const tinfo *ti, void *p, long long v, int idx)
{
    switch (ti->cls) {
    case FLT:
        if (ti->size == sizeof(float)) *(float *)p = (float)v;
        else if (ti->size == sizeof(double)) *(double *)p = (double)v;
        else *(long double *)p = (long double)v;
        break;
    case CPLX:
        if (ti->size == sizeof(float _Complex)) *(float _Complex *)p = (float)v;
        else if (ti->size == sizeof(double _Complex)) *(double _Complex *)p = (double)v;
        else *(long double _Complex *)p = (long double)v;
        break;
    case BOOL:
        *(bool *)p = v != 0;
        break;
    case LOGICAL:
        *(int *)p = v != 0;
        break;
    case PAIR:
        /* value then index, at the C struct's offsets */
        if (ti->t == MPI_FLOAT_INT) { struct { float v; int i; } *q = p; q->v = (float)v; q->i = idx; }
        else if (ti->t == MPI_DOUBLE_INT) { struct { double v; int i; } *q = p; q->v = (double)v; q->i = idx; }
        else if (ti->t == MPI_LONG_INT) { struct { long v; int i; } *q = p; q->v = v; q->i = idx; }
        else if (ti->t == MPI_2INT || ti->t == MPI_2INTEGER) { struct { int v; int i; } *q = p; q->v = (int)v; q->i = idx; }
        else if (ti->t == MPI_2REAL) { struct { float v; float i; } *q = p; q->v = (float)v; q->i = (float)idx; }
        else if (ti->t == MPI_2DOUBLE_PRECISION) { struct { double v; double i; } *q = p; q->v = (double)v; q->i = idx; }
        else if (ti->t == MPI_SHORT_INT) { struct { short v; int i; } *q = p; q->v = (short)v; q->i = idx; }
        else { struct { long double v; int i; } *q = p; q->v = (long double)v; q->i = idx; }
        break;
    default:   /* integers, little or big endian alike */
        switch (ti->size) {
        case 1: *(int8_t *)p = (int8_t)v; break;
        case 2: *(int16_t *)p = (int16_t)v; break;
        case 4: *(int32_t *)p = (int32_t)v; break;
        default: *(int64_t *)p = (int64_t)v; break;
        }
    }
}

static int equal(const tinfo *ti, const void *a, const void *b)
{
    if (ti->cls != PAIR && ti->cls != FLT && ti->cls != CPLX)
        return memcmp(a, b, ti->size) == 0;
    unsigned char x[64], y[64];
    /* compare through a normalised copy: padding bytes are not data */
    memset(x, 0, sizeof x);
    memset(y, 0, sizeof y);
    long long v;
    int ia = 0, ib = 0;
    long double fa, fb;
#define GET2(T, IT, src, out, idx) do { const struct { T v; IT i; } *q = (const void *)(src); out = q->v; idx = (int)q->i; } while (0)
#define GET(T, src, out, idx) GET2(T, int, src, out, idx)
    if (ti->cls == PAIR) {
        if (ti->t == MPI_FLOAT_INT) { GET(float, a, fa, ia); GET(float, b, fb, ib); }
        else if (ti->t == MPI_DOUBLE_INT) { GET(double, a, fa, ia); GET(double, b, fb, ib); }
        else if (ti->t == MPI_LONG_INT) { GET(long, a, fa, ia); GET(long, b, fb, ib); }
        else if (ti->t == MPI_2INT || ti->t == MPI_2INTEGER) { GET(int, a, fa, ia); GET(int, b, fb, ib); }
        else if (ti->t == MPI_2REAL) { GET2(float, float, a, fa, ia); GET2(float, float, b, fb, ib); }
        else if (ti->t == MPI_2DOUBLE_PRECISION) { GET2(double, double, a, fa, ia); GET2(double, double, b, fb, ib); }
        else if (ti->t == MPI_SHORT_INT) { GET(short, a, fa, ia); GET(short, b, fb, ib); }
        else { GET(long double, a, fa, ia); GET(long double, b, fb, ib); }
        return fa == fb && ia == ib;
    }
    (void)v;
    if (ti->cls == FLT && ti->size == sizeof(float)) return *(const float *)a == *(const float *)b;
    if (ti->cls == FLT && ti->size == sizeof(double)) return *(const double *)a == *(const double *)b;
    if (ti->cls == FLT) return *(const long double *)a == *(const long double *)b;
    if (ti->size == sizeof(float _Complex)) return *(const float _Complex *)a == *(const float _Complex *)b;
    if (ti->size == sizeof(double _Complex)) return *(const double _Complex *)a == *(const double _Complex *)b;
    return *(const long double _Complex *)a == *(const long double _Complex *)b;
}

static long long expect(MPI_Op op, int p)
{
    long long s = 0, pr = 1, b_and = -1, b_or = 0, b_xor = 0;
    for (int r = 0; r < p; r++) {
        s += r + 1;
        pr *= r % 8 + 1;
        b_and &= 1 << r;
        b_or |= 1 << r;
        b_xor ^= 1 << r;
    }
    if (op == MPI_MAX) return p;
    if (op == MPI_MIN) return 1;
    if (op == MPI_SUM) return s;
    if (op == MPI_PROD) return pr;
    if (op == MPI_LAND || op == MPI_LOR) return 1;
    if (op == MPI_LXOR) return p % 2;
    if (op == MPI_BAND) return b_and;
    if (op == MPI_BOR) return b_or;
    return b_xor;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "op_pairs");
    int r = mt_rank, p = mt_size;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    enum { N = 3 };
    unsigned char in[N * 64], out[N * 64], want[64];
    for (int t = 0; t < NT; t++) {
        const tinfo *ti = &types[t];
        for (int o = 0; o < NO; o++) {
            MPI_Op op = ops[o].op;
            int bitwise = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
            int loc = op == MPI_MINLOC || op == MPI_MAXLOC;
            for (int i = 0; i < N; i++)
                store(ti, in + i * ti->size,
                      loc ? r % 2 : bitwise ? 1 << r : op == MPI_PROD ? r % 8 + 1 : r + 1, r);
            memset(out, 0, sizeof out);
            int rc = MPI_Allreduce(in, out, N, ti->t, op, MPI_COMM_WORLD);
            if (!valid(op, ti->cls)) {
#ifndef CLUMPI
                /* Open MPI accepts more pairs than the standard (MPI_MAX on
                 * MPI_CHAR, logical ops on floats...): only clumpi is held
                 * to the standard's list here. */
                if (rc == MPI_SUCCESS)
                    continue;
#endif
                CHECK(rc != MPI_SUCCESS && mt_class(rc) == MPI_ERR_OP,
                      "%s on %s: returned class %d, expected MPI_ERR_OP", ops[o].name, ti->name,
                      rc == MPI_SUCCESS ? 0 : mt_class(rc));
                continue;
            }
            CHECK(rc == MPI_SUCCESS, "%s on %s failed (class %d)", ops[o].name, ti->name,
                  mt_class(rc));
            /* MINLOC: value 0 first reached at rank 0; MAXLOC: value 1 at
             * rank 1 (or 0 at rank 0 alone). */
            if (loc)
                store(ti, want, op == MPI_MINLOC || p == 1 ? 0 : 1,
                      op == MPI_MINLOC || p == 1 ? 0 : 1);
            else
                store(ti, want, expect(op, p), 0);
            for (int i = 0; i < N; i++)
                CHECK(equal(ti, out + i * ti->size, want), "%s on %s with %d ranks: element %d "
                      "wrong", ops[o].name, ti->name, p, i);
            /* Reduce_local applies the same op locally: inout = in op inout. */
            memcpy(out, in, N * ti->size);
            MPI_OK(MPI_Reduce_local(in, out, N, ti->t, op));
            if (op == MPI_MAX || op == MPI_MIN || op == MPI_BAND || op == MPI_BOR)
                for (int i = 0; i < N; i++)   /* idempotent ops: x op x == x */
                    CHECK(equal(ti, out + i * ti->size, in + i * ti->size),
                          "MPI_Reduce_local %s on %s: x op x != x", ops[o].name, ti->name);
        }
    }
    /* The op handle itself. */
    int c = -1;
    MPI_OK(MPI_Op_commutative(MPI_SUM, &c));
    CHECK(c == 1, "MPI_SUM is not commutative");
    int x = 1, y = 0;
    MPI_FAILS(MPI_ERR_OP, MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    MPI_Op sum = MPI_SUM;
    MPI_FAILS(MPI_ERR_OP, MPI_Op_free(&sum));
#ifdef CLUMPI
    /* sendbuf == recvbuf is what MPI_IN_PLACE is for (Open MPI lets it by) */
    MPI_FAILS(MPI_ERR_BUFFER, MPI_Allreduce(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
#endif
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    return mt_finish();
}
