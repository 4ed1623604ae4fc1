/* np: 1 2 3 4 7
 *
 * MPI_Type_create_f90_integer/real/complex and MPI_Type_match_size: the
 * kind SELECTED_INT_KIND / SELECTED_REAL_KIND would pick (by size and by
 * the range of values that survive), one handle per argument tuple,
 * MPI_UNDEFINED for p or r, MPI_ERR_ARG when no kind fits, envelopes and
 * contents (MPI_COMBINER_F90_*), MPI_Type_free refused, a derived type
 * over an f90 type giving the same handle back, the types in a ring of
 * sends and in reductions (MPI_SUM, MPI_MAX) against references, and
 * match_size of each class.
 */
#include <complex.h>
#include <float.h>
#include "mtest.h"

static int tsize(MPI_Datatype t)
{
    int s;
    MPI_OK(MPI_Type_size(t, &s));
    return s;
}

static void kinds(void)
{
    static const struct { int r, size; } ik[] = {
        { -5, 1 }, { 0, 1 }, { 2, 1 }, { 3, 2 }, { 4, 2 }, { 5, 4 }, { 9, 4 }, { 10, 8 }, { 18, 8 },
    };
    for (size_t i = 0; i < sizeof ik / sizeof ik[0]; i++) {
        MPI_Datatype t, t2;
        MPI_OK(MPI_Type_create_f90_integer(ik[i].r, &t));
        CHECK(tsize(t) == ik[i].size, "f90 integer r=%d: size %d, want %d", ik[i].r, tsize(t),
              ik[i].size);
        MPI_OK(MPI_Type_create_f90_integer(ik[i].r, &t2));
        CHECK(t == t2, "f90 integer r=%d: two handles", ik[i].r);
        int ni, na, nd, comb, ints[2] = { -7, -7 };
        MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_F90_INTEGER && ni == 1 && na == 0 && nd == 0,
              "f90 integer envelope: %d %d %d %d", comb, ni, na, nd);
        MPI_OK(MPI_Type_get_contents(t, 1, 0, 0, ints, NULL, NULL));
        CHECK(ints[0] == ik[i].r && ints[1] == -7, "f90 integer contents: %d", ints[0]);
        MPI_Aint ext = 0;
        MPI_OK(MPI_Pack_external_size("external32", 1, t, &ext));
        CHECK(ext == ik[i].size, "external32 size of f90 integer r=%d: %ld", ik[i].r, (long)ext);
    }
    const int U = MPI_UNDEFINED;
    static const struct { int p, r, size; } rk[] = {
        { 6, MPI_UNDEFINED, 4 }, { 1, 1, 4 }, { 7, MPI_UNDEFINED, 8 }, { MPI_UNDEFINED, 37, 4 },
        { MPI_UNDEFINED, 38, 8 }, { 15, 307, 8 }, { 6, 300, 8 }, { -1, -1, 4 },
    };
    for (size_t i = 0; i < sizeof rk / sizeof rk[0]; i++) {
        MPI_Datatype t, c, t2;
        MPI_OK(MPI_Type_create_f90_real(rk[i].p, rk[i].r, &t));
        MPI_OK(MPI_Type_create_f90_complex(rk[i].p, rk[i].r, &c));
        CHECK(tsize(t) == rk[i].size && tsize(c) == 2 * rk[i].size,
              "f90 real/complex (%d, %d): sizes %d %d, want %d", rk[i].p, rk[i].r, tsize(t),
              tsize(c), rk[i].size);
        MPI_OK(MPI_Type_create_f90_real(rk[i].p, rk[i].r, &t2));
        CHECK(t == t2 && t != c, "f90 real (%d, %d): handles not one per tuple", rk[i].p, rk[i].r);
        int ni, na, nd, comb, ints[2];
        MPI_OK(MPI_Type_get_envelope(c, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_F90_COMPLEX && ni == 2 && na == 0 && nd == 0,
              "f90 complex envelope: %d %d %d %d", comb, ni, na, nd);
        MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2, "f90 real envelope: %d %d", comb, ni);
        MPI_OK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
        CHECK(ints[0] == rk[i].p && ints[1] == rk[i].r, "f90 real contents: %d %d", ints[0],
              ints[1]);
    }
    /* the widest C kind, when long double is wider than double */
    if (LDBL_DIG > DBL_DIG) {
        MPI_Datatype t;
        MPI_OK(MPI_Type_create_f90_real(DBL_DIG + 1, U, &t));
        CHECK(tsize(t) == (int)sizeof(long double), "f90 real p=%d: size %d", DBL_DIG + 1,
              tsize(t));
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_create_f90_integer(19, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_create_f90_integer(4, NULL));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_create_f90_real(U, U, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_create_f90_real(LDBL_DIG + 1, U, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_create_f90_real(U, 5000, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_create_f90_complex(U, U, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_create_f90_complex(40, 10, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_create_f90_complex(6, 37, NULL));
    CHECK(t == MPI_DATATYPE_NULL, "a failed call set newtype");

    /* predefined: not freed, not even through a copy of the handle */
    MPI_Datatype r8, keep;
    MPI_OK(MPI_Type_create_f90_real(15, U, &r8));
    keep = r8;
    MPI_FAILS(MPI_ERR_TYPE, MPI_Type_free(&r8));
    CHECK(r8 == keep && tsize(r8) == 8, "a refused free changed the handle");
    MPI_OK(MPI_Type_commit(&r8));
    CHECK(MPI_Type_f2c(MPI_Type_c2f(r8)) == r8, "f90 type handle conversion");
    /* a derived type over it gives the same handle back */
    MPI_Datatype v, back;
    MPI_OK(MPI_Type_vector(2, 1, 3, r8, &v));
    int ints[3];
    MPI_OK(MPI_Type_get_contents(v, 3, 0, 1, ints, NULL, &back));
    CHECK(back == r8, "contents of a vector of an f90 type: 0x%x, want 0x%x", (unsigned)back,
          (unsigned)r8);
    MPI_OK(MPI_Type_free(&v));
    MPI_Datatype d;
    MPI_OK(MPI_Type_dup(r8, &d));
    int ni, na, nd, comb;
    MPI_OK(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DUP && nd == 1, "dup of an f90 type: combiner %d", comb);
    MPI_OK(MPI_Type_free(&d));
}

static void traffic(void)
{
    MPI_Datatype i8, r8, c4, i2;
    MPI_OK(MPI_Type_create_f90_integer(15, &i8));
    MPI_OK(MPI_Type_create_f90_integer(3, &i2));
    MPI_OK(MPI_Type_create_f90_real(12, MPI_UNDEFINED, &r8));
    MPI_OK(MPI_Type_create_f90_complex(5, 30, &c4));
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    enum { N = 100 };
    int64_t out[N], in[N];
    for (int i = 0; i < N; i++)
        out[i] = ((int64_t)mt_rank << 40) + i;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(out, N, i8, next, 3, in, N, i8, prev, 3, MPI_COMM_WORLD, &st));
    int cnt;
    MPI_OK(MPI_Get_count(&st, i8, &cnt));
    CHECK(cnt == N, "received %d f90 integers", cnt);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == ((int64_t)prev << 40) + i, "f90 integer %d from %d: %lld", i, prev,
              (long long)in[i]);

    double x[N], sum[N];
    int64_t big[N], mx[N];
    float _Complex z[N], zs[N];
    short s[N], ssum[N];
    for (int i = 0; i < N; i++) {
        x[i] = mt_rank * 0.5 + i;
        big[i] = ((int64_t)(mt_rank * 7 % 5) << 36) - i;
        z[i] = (float)mt_rank + (float)i * I;
        s[i] = (short)(mt_rank - i);
    }
    MPI_OK(MPI_Allreduce(x, sum, N, r8, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(big, mx, N, i8, MPI_MAX, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(z, zs, N, c4, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Reduce(s, ssum, N, i2, MPI_SUM, 0, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        double ws = 0;
        int64_t wm = INT64_MIN;
        float wre = 0;
        int wsh = 0;
        for (int q = 0; q < mt_size; q++) {
            ws += q * 0.5 + i;
            int64_t b = ((int64_t)(q * 7 % 5) << 36) - i;
            wm = b > wm ? b : wm;
            wre += (float)q;
            wsh += q - i;
        }
        CHECK(sum[i] == ws, "f90 real sum %d: %g, want %g", i, sum[i], ws);
        CHECK(mx[i] == wm, "f90 integer max %d: %lld", i, (long long)mx[i]);
        CHECK(crealf(zs[i]) == wre && cimagf(zs[i]) == (float)i * mt_size,
              "f90 complex sum %d: %g%+gi", i, crealf(zs[i]), cimagf(zs[i]));
        CHECK(mt_rank != 0 || ssum[i] == (short)wsh, "f90 integer(2) sum %d: %d", i, ssum[i]);
    }
}

static void match_size(void)
{
    static const struct { int cls, size; MPI_Datatype want; } m[] = {
        { MPI_TYPECLASS_INTEGER, 1, MPI_INT8_T }, { MPI_TYPECLASS_INTEGER, 2, MPI_INT16_T },
        { MPI_TYPECLASS_INTEGER, 4, MPI_INT32_T }, { MPI_TYPECLASS_INTEGER, 8, MPI_INT64_T },
        { MPI_TYPECLASS_REAL, 4, MPI_FLOAT }, { MPI_TYPECLASS_REAL, 8, MPI_DOUBLE },
        { MPI_TYPECLASS_COMPLEX, 8, MPI_C_FLOAT_COMPLEX },
        { MPI_TYPECLASS_COMPLEX, 16, MPI_C_DOUBLE_COMPLEX },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        MPI_OK(MPI_Type_match_size(m[i].cls, m[i].size, &t));
        CHECK(t == m[i].want && tsize(t) == m[i].size, "match_size(%d, %d): 0x%x", m[i].cls,
              m[i].size, (unsigned)t);
    }
    if (sizeof(long double) > sizeof(double)) {
        MPI_Datatype t;
        MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, (int)sizeof(long double), &t));
        CHECK(t == MPI_LONG_DOUBLE, "match_size(REAL, %zu)", sizeof(long double));
        MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 2 * (int)sizeof(long double), &t));
        CHECK(t == MPI_C_LONG_DOUBLE_COMPLEX, "match_size(COMPLEX, %zu)",
              2 * sizeof(long double));
    }
    MPI_Datatype t;
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_REAL, 2, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 4, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_REAL, 0, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_match_size(99, 4, &t));
    MPI_FAILS(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, NULL));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "f90types");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    kinds();
    traffic();
    match_size();
    return mt_finish();
}
