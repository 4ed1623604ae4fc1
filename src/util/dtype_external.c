/*
 * dtype_external.c — the "external32" data representation (MPI-3.1 13.5.2)
 * of the datatype engine: big-endian, two's complement integers and IEEE
 * floating point, with the sizes of the standard's table 13.2 (MPI_LONG 4
 * bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE 16 as binary128 ...).
 *
 * The native packed stream (cu_dtype_pack) holds the basic elements of a
 * type in typemap order; conversion walks the same order through the
 * element runs the engine keeps for MPI_Get_elements, so it costs one
 * recursion per run, not per byte.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "src/util/dtype_impl.h"

#if !defined(__BYTE_ORDER__) || (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ && \
                                 __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__)
#error "external32: unknown byte order"
#endif
#define NATIVE_BE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

_Static_assert(FLT_MANT_DIG == 24 && DBL_MANT_DIG == 53 && sizeof(float) == 4 &&
               sizeof(double) == 8, "external32 assumes IEEE float and double");
_Static_assert(LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 113,
               "external32 converts x87 extended or binary128 long double only");

/* How one basic element converts. INT/UINT: integers (also the IEEE
 * float and double, whose bits only change byte order); LDBL: long double
 * to binary128; TWO: element `sub` then element `sub2` (the complex types
 * and the pair types of MPI_MINLOC/MPI_MAXLOC). */
enum { K_INT = 1, K_UINT, K_LDBL, K_TWO };

typedef struct ext_desc {
    unsigned char kind, ext, sub, sub2;
} ext_desc;

static const ext_desc ext_table[CU_DT_BUILTIN_COUNT] = {
    [CU_DT_CHAR] = { K_UINT, 1, 0 },
    [CU_DT_SIGNED_CHAR] = { K_INT, 1, 0 },
    [CU_DT_UNSIGNED_CHAR] = { K_UINT, 1, 0 },
    [CU_DT_BYTE] = { K_UINT, 1, 0 },
    [CU_DT_SHORT] = { K_INT, 2, 0 },
    [CU_DT_UNSIGNED_SHORT] = { K_UINT, 2, 0 },
    [CU_DT_INT] = { K_INT, 4, 0 },
    [CU_DT_UNSIGNED] = { K_UINT, 4, 0 },
    [CU_DT_LONG] = { K_INT, 4, 0 },
    [CU_DT_UNSIGNED_LONG] = { K_UINT, 4, 0 },
    [CU_DT_LONG_LONG_INT] = { K_INT, 8, 0 },
    [CU_DT_UNSIGNED_LONG_LONG] = { K_UINT, 8, 0 },
    [CU_DT_FLOAT] = { K_UINT, 4, 0 },
    [CU_DT_DOUBLE] = { K_UINT, 8, 0 },
    [CU_DT_LONG_DOUBLE] = { K_LDBL, 16, 0 },
    [CU_DT_WCHAR] = { K_UINT, 2, 0 },
    [CU_DT_C_BOOL] = { K_UINT, 1, 0 },
    [CU_DT_INT8_T] = { K_INT, 1, 0 },
    [CU_DT_INT16_T] = { K_INT, 2, 0 },
    [CU_DT_INT32_T] = { K_INT, 4, 0 },
    [CU_DT_INT64_T] = { K_INT, 8, 0 },
    [CU_DT_UINT8_T] = { K_UINT, 1, 0 },
    [CU_DT_UINT16_T] = { K_UINT, 2, 0 },
    [CU_DT_UINT32_T] = { K_UINT, 4, 0 },
    [CU_DT_UINT64_T] = { K_UINT, 8, 0 },
    [CU_DT_AINT] = { K_INT, 8, 0 },
    [CU_DT_COUNT] = { K_INT, 8, 0 },
    [CU_DT_OFFSET] = { K_INT, 8, 0 },
    [CU_DT_C_FLOAT_COMPLEX] = { K_TWO, 8, CU_DT_FLOAT, CU_DT_FLOAT },
    [CU_DT_C_DOUBLE_COMPLEX] = { K_TWO, 16, CU_DT_DOUBLE, CU_DT_DOUBLE },
    [CU_DT_C_LONG_DOUBLE_COMPLEX] = { K_TWO, 32, CU_DT_LONG_DOUBLE, CU_DT_LONG_DOUBLE },
    [CU_DT_PACKED] = { K_UINT, 1, 0 },
    [CU_DT_FLOAT_INT] = { K_TWO, 8, CU_DT_FLOAT, CU_DT_INT },
    [CU_DT_DOUBLE_INT] = { K_TWO, 12, CU_DT_DOUBLE, CU_DT_INT },
    [CU_DT_LONG_INT] = { K_TWO, 8, CU_DT_LONG, CU_DT_INT },
    [CU_DT_2INT] = { K_TWO, 8, CU_DT_INT, CU_DT_INT },
    [CU_DT_SHORT_INT] = { K_TWO, 6, CU_DT_SHORT, CU_DT_INT },
    [CU_DT_LONG_DOUBLE_INT] = { K_TWO, 20, CU_DT_LONG_DOUBLE, CU_DT_INT },
    [CU_DT_CHARACTER] = { K_UINT, 1, 0 },
    [CU_DT_LOGICAL] = { K_INT, 4, 0 },
    [CU_DT_INTEGER] = { K_INT, 4, 0 },
    [CU_DT_REAL] = { K_UINT, 4, 0 },
    [CU_DT_DOUBLE_PRECISION] = { K_UINT, 8, 0 },
    [CU_DT_COMPLEX] = { K_TWO, 8, CU_DT_REAL, CU_DT_REAL },
    [CU_DT_DOUBLE_COMPLEX] = { K_TWO, 16, CU_DT_DOUBLE_PRECISION, CU_DT_DOUBLE_PRECISION },
    [CU_DT_2INTEGER] = { K_TWO, 8, CU_DT_INTEGER, CU_DT_INTEGER },
    [CU_DT_2REAL] = { K_TWO, 8, CU_DT_REAL, CU_DT_REAL },
    [CU_DT_2DOUBLE_PRECISION] = { K_TWO, 16, CU_DT_DOUBLE_PRECISION, CU_DT_DOUBLE_PRECISION },
    [CU_DT_INTEGER1] = { K_INT, 1, 0 },
    [CU_DT_INTEGER2] = { K_INT, 2, 0 },
    [CU_DT_INTEGER4] = { K_INT, 4, 0 },
    [CU_DT_INTEGER8] = { K_INT, 8, 0 },
    [CU_DT_REAL4] = { K_UINT, 4, 0 },
    [CU_DT_REAL8] = { K_UINT, 8, 0 },
    [CU_DT_COMPLEX8] = { K_TWO, 8, CU_DT_REAL4, CU_DT_REAL4 },
    [CU_DT_COMPLEX16] = { K_TWO, 16, CU_DT_REAL8, CU_DT_REAL8 },
};

/* A conversion in progress: `src` and `dst` advance through the two
 * streams; `bad` is set when a value does not fit its destination. */
typedef struct conv {
    int                  to_ext;
    const unsigned char *src;
    unsigned char       *dst;
    int                  bad;
} conv;

/* One integer of ssize bytes (big-endian when src_be) to dsize bytes
 * (big-endian when dst_be), sign- or zero-extended; a value outside the
 * destination's range sets *bad. Also reorders the bytes of floats. */
static void conv_int(unsigned char *dst, size_t dsize, int dst_be, const unsigned char *src,
                     size_t ssize, int src_be, int is_signed, int *bad)
{
    uint64_t v = 0;
    for (size_t i = 0; i < ssize; i++)
        v |= (uint64_t)src[src_be ? ssize - 1 - i : i] << (8 * i);
    int neg = is_signed && (src[src_be ? 0 : ssize - 1] & 0x80);
    if (neg && ssize < 8)
        v |= ~(uint64_t)0 << (8 * ssize);
    if (dsize < 8) {
        /* the bits dropped must all equal the sign of what is kept */
        uint64_t top = v >> (8 * dsize - (is_signed ? 1 : 0));
        uint64_t want = neg ? (~(uint64_t)0 >> (8 * dsize - (is_signed ? 1 : 0))) : 0;
        if (top != want)
            *bad = 1;
    }
    for (size_t i = 0; i < dsize; i++)
        dst[dst_be ? dsize - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* Reverses n bytes into dst unless the two orders agree. */
static void copy_order(unsigned char *dst, const unsigned char *src, size_t n, int swap)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[swap ? n - 1 - i : i];
}

#if LDBL_MANT_DIG == 64
/* x87 80-bit extended (native, little-endian: 64-bit significand with an
 * explicit integer bit, then sign and 15-bit exponent) to binary128 and
 * back. Both have the same exponent bias, so only the significand moves;
 * binary128's 49 extra bits round to nearest even on the way back. */
static void ldbl_to_quad(unsigned char *q, const unsigned char *x)
{
    uint64_t m;
    uint16_t se;
    memcpy(&m, x, 8);
    memcpy(&se, x + 8, 2);
    unsigned exp = se & 0x7fff;
    if (exp == 0 && (m >> 63))
        exp = 1;   /* pseudo-denormal: the smallest normal exponent */
    uint64_t frac = m & 0x7fffffffffffffffULL;
    uint64_t hi = ((uint64_t)(se >> 15) << 63) | ((uint64_t)exp << 48) | (frac >> 15);
    uint64_t lo = frac << 49;
    for (int i = 0; i < 8; i++) {
        q[i] = (unsigned char)(hi >> (56 - 8 * i));
        q[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
    }
}

static void quad_to_ldbl(unsigned char *x, const unsigned char *q)
{
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 8; i++) {
        hi = hi << 8 | q[i];
        lo = lo << 8 | q[8 + i];
    }
    unsigned sign = (unsigned)(hi >> 63), exp = (unsigned)(hi >> 48) & 0x7fff;
    uint64_t frac = ((hi & 0xffffffffffffULL) << 15) | (lo >> 49);   /* top 63 bits */
    uint64_t rest = lo & ((1ULL << 49) - 1);
    if (exp == 0x7fff) {
        if ((hi & 0xffffffffffffULL) | lo)
            frac |= frac ? 0 : 1ULL << 62;   /* a NaN stays a NaN */
    } else if (rest > (1ULL << 48) || (rest == (1ULL << 48) && (frac & 1))) {
        if (++frac >> 63) {   /* the fraction overflowed: next binade */
            frac = 0;
            exp++;
        }
    }
    uint64_t m = frac | (exp ? 1ULL << 63 : 0);
    uint16_t se = (uint16_t)(sign << 15 | exp);
    memset(x, 0, sizeof(long double));
    memcpy(x, &m, 8);
    memcpy(x + 8, &se, 2);
}
#else
/* long double is binary128: only the byte order changes. */
static void ldbl_to_quad(unsigned char *q, const unsigned char *x)
{
    copy_order(q, x, 16, !NATIVE_BE);
}

static void quad_to_ldbl(unsigned char *x, const unsigned char *q)
{
    copy_order(x, q, 16, !NATIVE_BE);
}
#endif

/* n basic elements of predefined type b. */
static void conv_basic(conv *c, int b, size_t n)
{
    const ext_desc *e = &ext_table[b];
    size_t ns = cu_dtype_builtin(b)->size;
    if (e->kind == K_TWO) {
        for (size_t k = 0; k < n; k++) {
            conv_basic(c, e->sub, 1);
            conv_basic(c, e->sub2, 1);
        }
        return;
    }
    size_t ss = c->to_ext ? ns : e->ext, ds = c->to_ext ? e->ext : ns;
    if (e->kind == K_LDBL) {
        for (size_t k = 0; k < n; k++, c->src += ss, c->dst += ds) {
            if (c->to_ext)
                ldbl_to_quad(c->dst, c->src);
            else
                quad_to_ldbl(c->dst, c->src);
        }
        return;
    }
    if (ss == ds) {
        /* same size: the bytes are reordered and every value fits */
        if (NATIVE_BE || ss == 1) {
            memcpy(c->dst, c->src, n * ss);
        } else {
            for (size_t k = 0; k < n; k++)
                copy_order(c->dst + k * ss, c->src + k * ss, ss, 1);
        }
        c->src += n * ss;
        c->dst += n * ds;
        return;
    }
    for (size_t k = 0; k < n; k++, c->src += ss, c->dst += ds)
        conv_int(c->dst, ds, c->to_ext ? 1 : NATIVE_BE, c->src, ss, c->to_ext ? NATIVE_BE : 1,
                 e->kind == K_INT, &c->bad);
}

/* n elements of dt, in typemap order. */
static void conv_type(conv *c, const cu_dtype *dt, size_t n)
{
    if (!dt->size || !n)
        return;
    if (dt->basic) {
        conv_basic(c, dt->basic, n * (dt->size / cu_dtype_builtin(dt->basic)->size));
        return;
    }
    const struct cu_dtype_priv *p = dt->priv;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < p->nsc; i++)
            conv_type(c, p->sc_type[i], p->sc_copies[i]);
}

/* external32 bytes of n elements of dt. */
static size_t ext_size(const cu_dtype *dt, size_t n)
{
    if (!dt->size || !n)
        return 0;
    if (dt->basic)
        return n * (dt->size / cu_dtype_builtin(dt->basic)->size) * ext_table[dt->basic].ext;
    const struct cu_dtype_priv *p = dt->priv;
    size_t one = 0;
    for (size_t i = 0; i < p->nsc; i++)
        one += ext_size(p->sc_type[i], p->sc_copies[i]);
    return n * one;
}

size_t cu_dtype_external32_size(const cu_dtype *dt)
{
    return ext_size(dt, 1);
}

/* Both directions go through a native packed copy of the count elements
 * of dt at buf: packed from buf before converting to ext_out, or converted
 * from ext_in and then unpacked into buf. */
static int convert(int to_ext, void *buf, size_t count, const cu_dtype *dt, const void *ext_in,
                   void *ext_out)
{
    size_t bytes = count * dt->size;
    if (!bytes)
        return 0;
    unsigned char *native = malloc(bytes);
    if (!native)
        return -1;
    if (to_ext)
        cu_dtype_pack(buf, count, dt, 0, native, bytes);
    conv c = { .to_ext = to_ext, .src = to_ext ? native : ext_in,
               .dst = to_ext ? ext_out : native };
    conv_type(&c, dt, count);
    if (!to_ext && !c.bad)
        cu_dtype_unpack(buf, count, dt, 0, native, bytes);
    free(native);
    return c.bad ? -2 : 0;
}

int cu_dtype_pack_external32(const void *buf, size_t count, const cu_dtype *dt, void *out)
{
    return convert(1, (void *)buf, count, dt, NULL, out);
}

int cu_dtype_unpack_external32(const void *in, void *buf, size_t count, const cu_dtype *dt)
{
    return convert(0, buf, count, dt, in, NULL);
}
