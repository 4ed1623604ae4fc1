/* np: 1 2 3 5
 *
 * MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size with
 * "external32": the size of every predefined type (MPI-3.1 table 13.2),
 * the bytes of known values against hand-written big-endian strings, round
 * trips of every predefined type, a derived type with holes packed on one
 * rank, sent as bytes and unpacked on the next (holes untouched), positions
 * across successive calls, and the error classes of bad input.
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <wchar.h>
#include "mtest.h"

#define EXT "external32"

static const struct { MPI_Datatype t; MPI_Aint ext; const char *name; } sizes[] = {
    { MPI_CHAR, 1, "CHAR" }, { MPI_SIGNED_CHAR, 1, "SIGNED_CHAR" },
    { MPI_UNSIGNED_CHAR, 1, "UNSIGNED_CHAR" }, { MPI_BYTE, 1, "BYTE" },
    { MPI_SHORT, 2, "SHORT" }, { MPI_UNSIGNED_SHORT, 2, "UNSIGNED_SHORT" },
    { MPI_INT, 4, "INT" }, { MPI_UNSIGNED, 4, "UNSIGNED" }, { MPI_LONG, 4, "LONG" },
    { MPI_UNSIGNED_LONG, 4, "UNSIGNED_LONG" }, { MPI_LONG_LONG_INT, 8, "LONG_LONG_INT" },
    { MPI_UNSIGNED_LONG_LONG, 8, "UNSIGNED_LONG_LONG" }, { MPI_FLOAT, 4, "FLOAT" },
    { MPI_DOUBLE, 8, "DOUBLE" }, { MPI_LONG_DOUBLE, 16, "LONG_DOUBLE" },
    { MPI_WCHAR, 2, "WCHAR" }, { MPI_C_BOOL, 1, "C_BOOL" }, { MPI_INT8_T, 1, "INT8_T" },
    { MPI_INT16_T, 2, "INT16_T" }, { MPI_INT32_T, 4, "INT32_T" },
    { MPI_INT64_T, 8, "INT64_T" }, { MPI_UINT8_T, 1, "UINT8_T" },
    { MPI_UINT16_T, 2, "UINT16_T" }, { MPI_UINT32_T, 4, "UINT32_T" },
    { MPI_UINT64_T, 8, "UINT64_T" }, { MPI_AINT, 8, "AINT" }, { MPI_COUNT, 8, "COUNT" },
    { MPI_OFFSET, 8, "OFFSET" }, { MPI_C_FLOAT_COMPLEX, 8, "C_FLOAT_COMPLEX" },
    { MPI_C_DOUBLE_COMPLEX, 16, "C_DOUBLE_COMPLEX" },
    { MPI_C_LONG_DOUBLE_COMPLEX, 32, "C_LONG_DOUBLE_COMPLEX" }, { MPI_PACKED, 1, "PACKED" },
    { MPI_FLOAT_INT, 8, "FLOAT_INT" }, { MPI_DOUBLE_INT, 12, "DOUBLE_INT" },
    { MPI_LONG_INT, 8, "LONG_INT" }, { MPI_2INT, 8, "2INT" }, { MPI_SHORT_INT, 6, "SHORT_INT" },
    { MPI_LONG_DOUBLE_INT, 20, "LONG_DOUBLE_INT" },
};

static void check_sizes(void)
{
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        MPI_Aint s = -1;
        MPI_OK(MPI_Pack_external_size(EXT, 3, sizes[i].t, &s));
        CHECK(s == 3 * sizes[i].ext, "external32 size of 3 MPI_%s: %ld, want %ld",
              sizes[i].name, (long)s, (long)(3 * sizes[i].ext));
    }
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(3, 2, 5, MPI_LONG, &v));   /* size query needs no commit */
    MPI_Aint s;
    MPI_OK(MPI_Pack_external_size(EXT, 2, v, &s));
    CHECK(s == 2 * 6 * 4, "external32 size of a vector of MPI_LONG: %ld", (long)s);
    MPI_OK(MPI_Pack_external_size(EXT, 0, v, &s));
    CHECK(s == 0, "external32 size of nothing: %ld", (long)s);
    MPI_OK(MPI_Type_free(&v));
}

/* Packs one value and compares the bytes with want (n hex digits pairs). */
static void expect_bytes(const void *val, MPI_Datatype t, const char *hex, const char *what)
{
    unsigned char want[64], got[64];
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        want[i] = (unsigned char)b;
    }
    MPI_Aint pos = 0;
    memset(got, 0xee, sizeof got);
    MPI_OK(MPI_Pack_external(EXT, val, 1, t, got, sizeof got, &pos));
    CHECK(pos == (MPI_Aint)n, "%s: packed %ld bytes, want %zu", what, (long)pos, n);
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: byte %zu is %02x, want %02x", what, i, got[i], want[i]);
    CHECK(got[n] == 0xee, "%s: wrote past its %zu bytes", what, n);
}

/* Unpacks hand-written external32 bytes into one value of t (size n). */
static void unpack_hex(const char *hex, MPI_Datatype t, void *out)
{
    unsigned char in[64];
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        in[i] = (unsigned char)b;
    }
    MPI_Aint pos = 0;
    MPI_OK(MPI_Unpack_external(EXT, in, (MPI_Aint)n, &pos, out, 1, t));
    CHECK(pos == (MPI_Aint)n, "unpacked %ld of %zu bytes", (long)pos, n);
}

static void known_unpacks(void)
{
    long l;
    unsigned long ul;
    wchar_t wc;
    long double ld;
    unpack_hex("ffffffff", MPI_LONG, &l);
    CHECK(l == -1, "external32 MPI_LONG ffffffff is %ld", l);
    unpack_hex("80000000", MPI_LONG, &l);
    CHECK(l == -2147483647L - 1, "external32 MPI_LONG 80000000 is %ld", l);
    unpack_hex("ffffffff", MPI_UNSIGNED_LONG, &ul);
    CHECK(ul == 4294967295UL, "external32 MPI_UNSIGNED_LONG ffffffff is %lu", ul);
    unpack_hex("fffe", MPI_WCHAR, &wc);
    CHECK(wc == 0xfffe, "external32 MPI_WCHAR fffe is %x", (unsigned)wc);
    unpack_hex("40000000000000000000000000000000", MPI_LONG_DOUBLE, &ld);
    CHECK(ld == 2.0L, "external32 MPI_LONG_DOUBLE 2 is %Lg", ld);
    unpack_hex("7fff0000000000000000000000000000", MPI_LONG_DOUBLE, &ld);
    CHECK(ld == HUGE_VALL, "external32 MPI_LONG_DOUBLE inf is %Lg", ld);
    unpack_hex("7fff8000000000000000000000000000", MPI_LONG_DOUBLE, &ld);
    CHECK(ld != ld, "external32 MPI_LONG_DOUBLE NaN is %Lg", ld);
    if (LDBL_MANT_DIG == 64) {
        /* binary128 bits below x87's precision round to nearest even */
        unpack_hex("3fff0000000000000001000000000000", MPI_LONG_DOUBLE, &ld);
        CHECK(ld == 1.0L, "1 + 2^-64 (a tie) unpacks to %La", ld);
        unpack_hex("3fff0000000000000001000000000001", MPI_LONG_DOUBLE, &ld);
        CHECK(ld == 1.0L + 0x1p-63L, "1 + 2^-64 + 2^-112 unpacks to %La", ld);
        unpack_hex("3fff0000000000000003000000000000", MPI_LONG_DOUBLE, &ld);
        CHECK(ld == 1.0L + 0x1p-62L, "1 + 3 * 2^-64 (a tie) unpacks to %La", ld);
        unpack_hex("3fffffffffffffffffffffffffffffff", MPI_LONG_DOUBLE, &ld);
        CHECK(ld == 2.0L, "the largest binary128 below 2 unpacks to %La", ld);
        unpack_hex("7ffeffffffffffffffffffffffffffff", MPI_LONG_DOUBLE, &ld);
        CHECK(ld == HUGE_VALL, "the largest binary128 unpacks to %La", ld);
    }
}

static void known_bytes(void)
{
    int i1 = 0x01020304, i2 = -2;
    short sh = -3;
    long l = -5;
    unsigned long ul = 0xdeadbeefUL;
    long long ll = 0x0102030405060708LL;
    float f1 = 1.0f, f2 = -2.5f;
    double d = 1.0;
    long double ld1 = 1.0L, ld2 = -2.0L, ld3 = 1.5L, ld4 = 0x1.fffffffffffffffep+16383L;
    long double ld5 = 0x1p-16445L; /* the smallest x87 denormal */
    wchar_t wc = L'A';
    _Bool b = 1;
    MPI_Aint a = -1;
    uint16_t u16 = 0xabcd;
    int64_t i64 = -2;
    char c = 'x';
    double _Complex z = 1.0 + 2.0 * I;
    long double _Complex lz = 1.0L - 2.0L * I;
    struct { float f; int i; } fi = { 1.0f, 7 };
    struct { long double f; int i; } ldi = { 1.0L, -1 };
    struct { short f; int i; } si = { -1, 2 };
    struct { long f; int i; } li = { -0x12345678L, 0x7fffffff };
    expect_bytes(&i1, MPI_INT, "01020304", "MPI_INT 0x01020304");
    expect_bytes(&i2, MPI_INT, "fffffffe", "MPI_INT -2");
    expect_bytes(&sh, MPI_SHORT, "fffd", "MPI_SHORT -3");
    expect_bytes(&l, MPI_LONG, "fffffffb", "MPI_LONG -5");
    expect_bytes(&ul, MPI_UNSIGNED_LONG, "deadbeef", "MPI_UNSIGNED_LONG 0xdeadbeef");
    expect_bytes(&ll, MPI_LONG_LONG, "0102030405060708", "MPI_LONG_LONG");
    expect_bytes(&f1, MPI_FLOAT, "3f800000", "MPI_FLOAT 1");
    expect_bytes(&f2, MPI_FLOAT, "c0200000", "MPI_FLOAT -2.5");
    expect_bytes(&d, MPI_DOUBLE, "3ff0000000000000", "MPI_DOUBLE 1");
    expect_bytes(&ld1, MPI_LONG_DOUBLE, "3fff0000000000000000000000000000", "MPI_LONG_DOUBLE 1");
    expect_bytes(&ld2, MPI_LONG_DOUBLE, "c0000000000000000000000000000000", "MPI_LONG_DOUBLE -2");
    expect_bytes(&ld3, MPI_LONG_DOUBLE, "3fff8000000000000000000000000000",
                 "MPI_LONG_DOUBLE 1.5");
    if (sizeof(long double) == 16 && LDBL_MANT_DIG == 64) {
        expect_bytes(&ld4, MPI_LONG_DOUBLE, "7ffefffffffffffffffe000000000000",
                     "MPI_LONG_DOUBLE max");
        expect_bytes(&ld5, MPI_LONG_DOUBLE, "00000000000000000002000000000000",
                     "MPI_LONG_DOUBLE min denormal");
    }
    expect_bytes(&wc, MPI_WCHAR, "0041", "MPI_WCHAR 'A'");
    expect_bytes(&b, MPI_C_BOOL, "01", "MPI_C_BOOL true");
    expect_bytes(&a, MPI_AINT, "ffffffffffffffff", "MPI_AINT -1");
    expect_bytes(&u16, MPI_UINT16_T, "abcd", "MPI_UINT16_T");
    expect_bytes(&i64, MPI_INT64_T, "fffffffffffffffe", "MPI_INT64_T -2");
    expect_bytes(&c, MPI_CHAR, "78", "MPI_CHAR 'x'");
    expect_bytes(&z, MPI_C_DOUBLE_COMPLEX, "3ff00000000000004000000000000000",
                 "MPI_C_DOUBLE_COMPLEX 1+2i");
    expect_bytes(&lz, MPI_C_LONG_DOUBLE_COMPLEX,
                 "3fff0000000000000000000000000000c0000000000000000000000000000000",
                 "MPI_C_LONG_DOUBLE_COMPLEX 1-2i");
    expect_bytes(&fi, MPI_FLOAT_INT, "3f80000000000007", "MPI_FLOAT_INT");
    expect_bytes(&ldi, MPI_LONG_DOUBLE_INT, "3fff0000000000000000000000000000ffffffff",
                 "MPI_LONG_DOUBLE_INT");
    expect_bytes(&si, MPI_SHORT_INT, "ffff00000002", "MPI_SHORT_INT");
    expect_bytes(&li, MPI_LONG_INT, "edcba9887fffffff", "MPI_LONG_INT");
}

/* Packs n values of t and unpacks them into a fresh buffer; equal is
 * checked by the caller's compare (bytes, or values for long double). */
static void *round_trip(const void *vals, int n, MPI_Datatype t)
{
    MPI_Aint size, pos = 0, ext, lb;
    MPI_OK(MPI_Pack_external_size(EXT, n, t, &size));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    unsigned char *packed = mt_malloc((size_t)size);
    void *back = mt_malloc((size_t)(n * ext));
    memset(back, 0, (size_t)(n * ext));
    MPI_OK(MPI_Pack_external(EXT, vals, n, t, packed, size, &pos));
    CHECK(pos == size, "packed %ld of %ld bytes", (long)pos, (long)size);
    pos = 0;
    MPI_OK(MPI_Unpack_external(EXT, packed, size, &pos, back, n, t));
    CHECK(pos == size, "unpacked %ld of %ld bytes", (long)pos, (long)size);
    free(packed);
    return back;
}

#define RT_BYTES(T, mpit, ...)                                                      \
    do {                                                                            \
        T v_[] = { __VA_ARGS__ };                                                   \
        int n_ = (int)(sizeof v_ / sizeof v_[0]);                                   \
        T *b_ = round_trip(v_, n_, mpit);                                           \
        CHECK(memcmp(v_, b_, sizeof v_) == 0, "round trip of " #mpit " changed it"); \
        free(b_);                                                                   \
    } while (0)

#define RT_VALUES(T, mpit, ...)                                                     \
    do {                                                                            \
        T v_[] = { __VA_ARGS__ };                                                   \
        int n_ = (int)(sizeof v_ / sizeof v_[0]);                                   \
        T *b_ = round_trip(v_, n_, mpit);                                           \
        for (int i_ = 0; i_ < n_; i_++)                                             \
            CHECK(b_[i_] == v_[i_], "round trip of " #mpit " element %d changed", i_); \
        free(b_);                                                                   \
    } while (0)

static void round_trips(void)
{
    RT_BYTES(char, MPI_CHAR, 'a', 0, -1, 127);
    RT_BYTES(signed char, MPI_SIGNED_CHAR, -128, 127, 0, -1);
    RT_BYTES(unsigned char, MPI_UNSIGNED_CHAR, 0, 255, 17);
    RT_BYTES(unsigned char, MPI_BYTE, 0, 255, 17);
    RT_BYTES(unsigned char, MPI_PACKED, 0, 255, 17);
    RT_BYTES(short, MPI_SHORT, -32768, 32767, -1, 0, 300);
    RT_BYTES(unsigned short, MPI_UNSIGNED_SHORT, 65535, 0, 258);
    RT_BYTES(int, MPI_INT, -2147483647 - 1, 2147483647, -1, 0, 65537);
    RT_BYTES(unsigned, MPI_UNSIGNED, 4294967295u, 0, 65537);
    RT_BYTES(long, MPI_LONG, -2147483647L - 1, 2147483647L, -1, 0, 65537);
    RT_BYTES(unsigned long, MPI_UNSIGNED_LONG, 4294967295UL, 0, 65537);
    RT_BYTES(long long, MPI_LONG_LONG_INT, -9223372036854775807LL - 1, 9223372036854775807LL, -1);
    RT_BYTES(unsigned long long, MPI_UNSIGNED_LONG_LONG, 18446744073709551615ULL, 0, 3);
    RT_BYTES(float, MPI_FLOAT, 1.0f, -0.0f, 3.4e38f, 1e-45f, 0.1f);
    RT_BYTES(double, MPI_DOUBLE, 1.0, -0.0, 1.7e308, 5e-324, 0.1);
    RT_VALUES(long double, MPI_LONG_DOUBLE, 1.0L, -0.0L, 0.1L, 1e4000L, 1e-4940L, -3.25L,
              LDBL_MAX, LDBL_MIN, LDBL_TRUE_MIN);
    RT_BYTES(wchar_t, MPI_WCHAR, L'A', 0xffff, 0);
    RT_BYTES(_Bool, MPI_C_BOOL, 1, 0, 1);
    RT_BYTES(int8_t, MPI_INT8_T, -128, 127);
    RT_BYTES(int16_t, MPI_INT16_T, -32768, 32767);
    RT_BYTES(int32_t, MPI_INT32_T, INT32_MIN, INT32_MAX);
    RT_BYTES(int64_t, MPI_INT64_T, INT64_MIN, INT64_MAX);
    RT_BYTES(uint8_t, MPI_UINT8_T, 0, 255);
    RT_BYTES(uint16_t, MPI_UINT16_T, 0, 65535);
    RT_BYTES(uint32_t, MPI_UINT32_T, 0, UINT32_MAX);
    RT_BYTES(uint64_t, MPI_UINT64_T, 0, UINT64_MAX);
    RT_BYTES(MPI_Aint, MPI_AINT, -1, 0, (MPI_Aint)&round_trip);
    RT_BYTES(MPI_Count, MPI_COUNT, -1, 0, 1LL << 40);
    RT_BYTES(MPI_Offset, MPI_OFFSET, -1, 0, 1LL << 40);
    RT_BYTES(float _Complex, MPI_C_FLOAT_COMPLEX, 1.0f + 2.0f * I, -0.5f * I);
    RT_BYTES(double _Complex, MPI_C_DOUBLE_COMPLEX, 1.0 + 2.0 * I, -0.5 * I);
    RT_VALUES(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX, 1.0L + 2.0L * I, 0.1L - 1e300L * I);
    struct fi { float f; int i; };
    struct di { double f; int i; };
    struct li { long f; int i; };
    struct ii { int f; int i; };
    struct si { short f; int i; };
    struct ldi { long double f; int i; };
#define PAIR_RT(S, mpit, a, b)                                                      \
    do {                                                                            \
        struct S v_[2];                                                             \
        memset(v_, 0, sizeof v_);                                                   \
        v_[0].f = (a);                                                              \
        v_[0].i = (b);                                                              \
        v_[1].f = -(a);                                                             \
        v_[1].i = -(b);                                                             \
        struct S *b_ = round_trip(v_, 2, mpit);                                     \
        for (int i_ = 0; i_ < 2; i_++)                                              \
            CHECK(b_[i_].f == v_[i_].f && b_[i_].i == v_[i_].i,                     \
                  "round trip of " #mpit " element %d changed", i_);                \
        free(b_);                                                                   \
    } while (0)
    PAIR_RT(fi, MPI_FLOAT_INT, 1.5f, 3);
    PAIR_RT(di, MPI_DOUBLE_INT, 0.1, 70000);
    PAIR_RT(li, MPI_LONG_INT, 2000000000L, -1);
    PAIR_RT(ii, MPI_2INT, 5, 6);
    PAIR_RT(si, MPI_SHORT_INT, 300, 8);
    PAIR_RT(ldi, MPI_LONG_DOUBLE_INT, 0.1L, 9);
}

/* A record with holes: 1 + 8 + 4 + 6 + 16 external32 bytes. */
typedef struct rec {
    char c;
    double d;
    long l;
    short s[3];
    long double ld;
} rec;

static MPI_Datatype rec_type(void)
{
    int bl[5] = { 1, 1, 1, 3, 1 };
    MPI_Aint disp[5] = { offsetof(rec, c), offsetof(rec, d), offsetof(rec, l),
                         offsetof(rec, s), offsetof(rec, ld) };
    MPI_Datatype types[5] = { MPI_CHAR, MPI_DOUBLE, MPI_LONG, MPI_SHORT, MPI_LONG_DOUBLE };
    MPI_Datatype t, r;
    MPI_OK(MPI_Type_create_struct(5, bl, disp, types, &t));
    MPI_OK(MPI_Type_create_resized(t, 0, sizeof(rec), &r));
    MPI_OK(MPI_Type_free(&t));
    return r;
}

static void fill_rec(rec *r, int seed, int i)
{
    memset(r, 0, sizeof *r);
    r->c = (char)('a' + i);
    r->d = seed + i * 0.5;
    r->l = -1000L * seed - i;
    for (int k = 0; k < 3; k++)
        r->s[k] = (short)(seed * 10 + k - i);
    r->ld = (long double)seed / 3 + i;
}

/* Writes v big-endian in n bytes. */
static unsigned char *be(unsigned char *p, unsigned long long v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
    return p + n;
}

static void derived(void)
{
    MPI_Datatype r = rec_type(), v;
    /* every other record, 3 of them: holes inside and between records */
    MPI_OK(MPI_Type_vector(3, 1, 2, r, &v));
    MPI_OK(MPI_Type_commit(&v));
    MPI_Aint size;
    MPI_OK(MPI_Pack_external_size(EXT, 2, v, &size));
    CHECK(size == 2 * 3 * 35, "external32 size of 2 vectors of records: %ld", (long)size);
    rec src[12];
    for (int i = 0; i < 12; i++)
        fill_rec(&src[i], mt_rank + 1, i);
    /* two calls into one buffer: positions carry over */
    unsigned char *packed = mt_malloc((size_t)size + 8);
    MPI_Aint pos = 0;
    MPI_OK(MPI_Pack_external(EXT, src, 1, v, packed, size + 8, &pos));
    MPI_OK(MPI_Pack_external(EXT, src + 6, 1, v, packed, size + 8, &pos));
    CHECK(pos == size, "two packs end at %ld, want %ld", (long)pos, (long)size);
    /* hand-made bytes of the first record */
    unsigned char want[35], *w = want;
    double d = src[0].d;
    uint64_t dbits;
    memcpy(&dbits, &d, 8);
    *w++ = (unsigned char)src[0].c;
    w = be(w, dbits, 8);
    w = be(w, (unsigned long long)(uint32_t)src[0].l, 4);
    for (int k = 0; k < 3; k++)
        w = be(w, (unsigned long long)(uint16_t)src[0].s[k], 2);
    CHECK(memcmp(packed, want, 19) == 0, "external32 bytes of the first record differ");

    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    unsigned char *in = mt_malloc((size_t)size);
    MPI_OK(MPI_Sendrecv(packed, (int)size, MPI_BYTE, next, 5, in, (int)size, MPI_BYTE, prev, 5,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    rec dst[12], ref[12];
    memset(dst, 0x55, sizeof dst);
    pos = 0;
    MPI_OK(MPI_Unpack_external(EXT, in, size, &pos, dst, 1, v));
    MPI_OK(MPI_Unpack_external(EXT, in, size, &pos, dst + 6, 1, v));
    CHECK(pos == size, "two unpacks end at %ld, want %ld", (long)pos, (long)size);
    for (int i = 0; i < 12; i++) {
        fill_rec(&ref[i], prev + 1, i);
        if (i % 2) {
            long bad = mt_all(&dst[i], sizeof(rec), 0x55);
            CHECK(bad < 0, "record %d (a hole) was written at byte %ld", i, bad);
            continue;
        }
        CHECK(dst[i].c == ref[i].c && dst[i].d == ref[i].d && dst[i].l == ref[i].l &&
              dst[i].s[0] == ref[i].s[0] && dst[i].s[2] == ref[i].s[2] && dst[i].ld == ref[i].ld,
              "record %d from rank %d differs", i, prev);
        /* the padding after c is a hole too */
        const unsigned char *p = (const unsigned char *)&dst[i];
        CHECK(p[offsetof(rec, c) + 1] == 0x55 && p[offsetof(rec, d) - 1] == 0x55,
              "record %d: padding after c was written", i);
    }
    free(packed);
    free(in);
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&r));
}

static void errors(void)
{
    int x[4] = { 1, 2, 3, 4 };
    unsigned char buf[64];
    MPI_Aint pos = 0, size;
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    MPI_FAILS(MPI_ERR_UNSUPPORTED_DATAREP, MPI_Pack_external("native", x, 1, MPI_INT, buf, 64, &pos));
    MPI_FAILS(MPI_ERR_UNSUPPORTED_DATAREP, MPI_Pack_external("external", x, 1, MPI_INT, buf, 64, &pos));
    MPI_FAILS(MPI_ERR_UNSUPPORTED_DATAREP, MPI_Unpack_external("internal", buf, 64, &pos, x, 1, MPI_INT));
    MPI_FAILS(MPI_ERR_UNSUPPORTED_DATAREP, MPI_Pack_external_size("EXTERNAL32", 1, MPI_INT, &size));
    MPI_FAILS(MPI_ERR_ARG, MPI_Pack_external(NULL, x, 1, MPI_INT, buf, 64, &pos));
    MPI_FAILS(MPI_ERR_ARG, MPI_Pack_external_size(EXT, 1, MPI_INT, NULL));
    MPI_FAILS(MPI_ERR_COUNT, MPI_Pack_external_size(EXT, -1, MPI_INT, &size));
    MPI_FAILS(MPI_ERR_TYPE, MPI_Pack_external_size(EXT, 1, MPI_DATATYPE_NULL, &size));
    MPI_FAILS(MPI_ERR_COUNT, MPI_Pack_external(EXT, x, -1, MPI_INT, buf, 64, &pos));
    MPI_FAILS(MPI_ERR_TYPE, MPI_Pack_external(EXT, x, 1, v, buf, 64, &pos)); /* not committed */
    MPI_FAILS(MPI_ERR_TYPE, MPI_Unpack_external(EXT, buf, 64, &pos, x, 1, 12345));
    MPI_FAILS(MPI_ERR_ARG, MPI_Pack_external(EXT, x, 1, MPI_INT, buf, 64, NULL));
    MPI_FAILS(MPI_ERR_ARG, MPI_Pack_external(EXT, x, 1, MPI_INT, buf, -1, &pos));
    MPI_FAILS(MPI_ERR_TRUNCATE, MPI_Pack_external(EXT, x, 4, MPI_INT, buf, 15, &pos));
    pos = 60;
    MPI_FAILS(MPI_ERR_TRUNCATE, MPI_Pack_external(EXT, x, 2, MPI_INT, buf, 64, &pos));
    CHECK(pos == 60, "a failed pack moved position to %ld", (long)pos);
    pos = -1;
    MPI_FAILS(MPI_ERR_ARG, MPI_Unpack_external(EXT, buf, 64, &pos, x, 1, MPI_INT));
    pos = 0;
    MPI_FAILS(MPI_ERR_TRUNCATE, MPI_Unpack_external(EXT, buf, 7, &pos, x, 2, MPI_INT));
    MPI_FAILS(MPI_ERR_BUFFER, MPI_Pack_external(EXT, x, 1, MPI_INT, NULL, 64, &pos));
    MPI_FAILS(MPI_ERR_BUFFER, MPI_Pack_external(EXT, NULL, 1, MPI_INT, buf, 64, &pos));
    /* values external32 cannot hold */
    long big[2] = { 1, 1L << 40 };
    if (sizeof(long) > 4) {
        pos = 0;
        MPI_FAILS(MPI_ERR_CONVERSION, MPI_Pack_external(EXT, big, 2, MPI_LONG, buf, 64, &pos));
        CHECK(pos == 0, "a failed conversion moved position to %ld", (long)pos);
        unsigned long ubig = 1UL << 32;
        MPI_FAILS(MPI_ERR_CONVERSION, MPI_Pack_external(EXT, &ubig, 1, MPI_UNSIGNED_LONG, buf,
                                                        64, &pos));
    }
    wchar_t wbig = (wchar_t)0x10000;
    MPI_FAILS(MPI_ERR_CONVERSION, MPI_Pack_external(EXT, &wbig, 1, MPI_WCHAR, buf, 64, &pos));
    MPI_OK(MPI_Type_free(&v));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "pack_external");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    check_sizes();
    known_bytes();
    known_unpacks();
    round_trips();
    derived();
    errors();
    return mt_finish();
}
