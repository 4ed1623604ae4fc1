/*
 * test_dtype.c — the datatype engine against a naive reference.
 *
 * Every type is built twice: by the engine, and as a reference typemap (a
 * plain list of basic elements with displacements, expanded copy by copy as
 * the MPI standard defines it). Packing, unpacking, iovecs and element counts
 * are then compared at random fragment boundaries.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "src/include/mpi.h"
#include "src/util/dtype.h"
#include "src/util/dtype_impl.h"

/* ---- reference typemaps ------------------------------------------------- */

typedef struct ent { ptrdiff_t d; size_t len; } ent;
typedef struct ref {
    ent      *e;
    size_t    n, cap;
    int       any;       /* bounds set */
    ptrdiff_t lb, ub;
    size_t    align;
    int       sticky;
} ref;

typedef struct tp { cu_dtype *dt; ref r; } tp;

static void ref_push(ref *r, ptrdiff_t d, size_t len)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->e = realloc(r->e, r->cap * sizeof(ent));
    }
    r->e[r->n].d = d;
    r->e[r->n].len = len;
    r->n++;
}

static void ref_bound(ref *r, ptrdiff_t lo, ptrdiff_t hi)
{
    if (!r->any || lo < r->lb) r->lb = lo;
    if (!r->any || hi > r->ub) r->ub = hi;
    r->any = 1;
}

/* k copies of old at d, one by one. */
static void ref_copies(ref *r, const ref *old, ptrdiff_t d, size_t k)
{
    ptrdiff_t ext = old->ub - old->lb;
    for (size_t j = 0; j < k; j++) {
        ptrdiff_t base = d + (ptrdiff_t)j * ext;
        for (size_t i = 0; i < old->n; i++)
            ref_push(r, base + old->e[i].d, old->e[i].len);
        ref_bound(r, base + old->lb, base + old->ub);
    }
    if (k) {
        if (old->align > r->align) r->align = old->align;
        r->sticky |= old->sticky;
    }
}

static size_t ref_size(const ref *r)
{
    size_t s = 0;
    for (size_t i = 0; i < r->n; i++)
        s += r->e[i].len;
    return s;
}

/* The reference of a predefined type; cached so it stays reachable (the
 * tests never free it). */
static tp builtin(int idx)
{
    static ref cache[CLUMPI_DT_BUILTIN_COUNT];
    tp t = { (cu_dtype *)cu_dtype_builtin(idx), {0} };
    ref *r = &cache[idx];
    if (!r->n) {
        r->align = t.dt->priv->align;
        if (t.dt->priv->pair) {
            /* value then index at the C offsets: an int, or for
             * Fortran's (MPI_2REAL, ...) the value's own type */
            const cu_node *nd = t.dt->priv->root;
            const cu_dtype *v = t.dt->priv->sc_type[0];
            int fortran = idx == CU_DT_2INTEGER || idx == CU_DT_2REAL ||
                          idx == CU_DT_2DOUBLE_PRECISION;
            ref_push(r, 0, v->size);
            ptrdiff_t ioff = nd->n == 2 ? nd->disp[1] : (ptrdiff_t)v->size;
            ref_push(r, ioff, fortran ? v->size : sizeof(int));
        } else {
            ref_push(r, 0, t.dt->size);
        }
        ref_bound(r, 0, t.dt->extent);
    }
    t.r = *r;
    return t;
}

static void tp_free(tp *t)
{
    if (t->dt && t->dt->builtin)
        return;
    cu_dtype_release(t->dt);
    free(t->r.e);
    memset(t, 0, sizeof(*t));
}

static tp t_contig(size_t count, const tp *old)
{
    tp t = { cu_dtype_contiguous(count, old->dt), { .align = 1 } };
    ref_copies(&t.r, &old->r, 0, count);
    return t;
}

static tp t_hvector(size_t count, size_t bl, ptrdiff_t stride, const tp *old)
{
    tp t = { cu_dtype_hvector(count, bl, stride, old->dt), { .align = 1 } };
    for (size_t i = 0; i < count; i++)
        ref_copies(&t.r, &old->r, (ptrdiff_t)i * stride, bl);
    return t;
}

static tp t_hindexed(size_t count, const int *bl, size_t blk, const ptrdiff_t *d, const tp *old)
{
    tp t = { cu_dtype_hindexed(count, bl, blk, d, old->dt), { .align = 1 } };
    for (size_t i = 0; i < count; i++)
        ref_copies(&t.r, &old->r, d[i], bl ? (size_t)bl[i] : blk);
    return t;
}

static tp t_struct(size_t count, const int *bl, const ptrdiff_t *d, const tp *const *olds)
{
    const cu_dtype *types[16] = {0};
    for (size_t i = 0; i < count; i++)
        types[i] = olds[i]->dt;
    tp t = { cu_dtype_struct(count, bl, d, types), { .align = 1 } };
    for (size_t i = 0; i < count; i++)
        ref_copies(&t.r, &olds[i]->r, d[i], (size_t)bl[i]);
    if (!t.r.sticky && t.r.any) {
        ptrdiff_t ext = t.r.ub - t.r.lb, a = (ptrdiff_t)t.r.align;
        while (ext % a) { t.r.ub++; ext++; }
    }
    return t;
}

static tp t_resized(const tp *old, ptrdiff_t lb, ptrdiff_t ext)
{
    tp t = { cu_dtype_resized(old->dt, lb, ext), { .align = 1 } };
    ref_copies(&t.r, &old->r, 0, 1);
    t.r.lb = lb;
    t.r.ub = lb + ext;
    t.r.any = 1;
    t.r.sticky = 1;
    return t;
}

static tp t_subarray(int nd, const int *sizes, const int *subs, const int *starts, int order_c,
                     const tp *old)
{
    tp t = { cu_dtype_subarray(nd, sizes, subs, starts, order_c, old->dt), { .align = 1 } };
    /* Odometer over the subarray in memory order of the fastest dimension. */
    int idx[8] = {0};
    long long total = 1;
    for (int i = 0; i < nd; i++)
        total *= subs[i];
    ptrdiff_t ext = old->r.ub - old->r.lb;
    for (long long k = 0; k < total; k++) {
        long long lin = 0;
        if (order_c)
            for (int i = 0; i < nd; i++) lin = lin * sizes[i] + starts[i] + idx[i];
        else
            for (int i = nd - 1; i >= 0; i--) lin = lin * sizes[i] + starts[i] + idx[i];
        ref_copies(&t.r, &old->r, (ptrdiff_t)lin * ext, 1);
        for (int j = 0; j < nd; j++) {
            int i = order_c ? nd - 1 - j : j;
            if (++idx[i] < subs[i]) break;
            idx[i] = 0;
        }
    }
    long long all = 1;
    for (int i = 0; i < nd; i++)
        all *= sizes[i];
    t.r.lb = 0;
    t.r.ub = (ptrdiff_t)all * ext;
    t.r.any = 1;
    t.r.sticky = 1;
    return t;
}

/* ---- the comparison ------------------------------------------------------- */

static unsigned seed = 12345;
static unsigned rnd(unsigned n) { return n ? (unsigned)rand_r(&seed) % n : 0; }

static void ref_pack(const ref *r, ptrdiff_t ext, const char *buf, size_t count, char *out)
{
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < r->n; j++) {
            memcpy(out, buf + (ptrdiff_t)i * ext + r->e[j].d, r->e[j].len);
            out += r->e[j].len;
        }
}

static void ref_unpack(const ref *r, ptrdiff_t ext, char *buf, size_t count, const char *in)
{
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < r->n; j++) {
            memcpy(buf + (ptrdiff_t)i * ext + r->e[j].d, in, r->e[j].len);
            in += r->e[j].len;
        }
}

static long long ref_elements(const ref *r, size_t count, size_t bytes)
{
    long long n = 0;
    size_t at = 0;
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < r->n; j++) {
            if (at == bytes) return n;
            if (at + r->e[j].len > bytes) return -1;
            at += r->e[j].len;
            n++;
        }
    return at == bytes ? n : -1;
}

/* A random fragment length: small most of the time, anything up to rest. */
static size_t frag(size_t rest)
{
    switch (rnd(4)) {
    case 0: {
        size_t l = 1 + rnd(3);
        return l < rest ? l : rest;
    }
    case 1: return rest;
    default: return 1 + rnd((unsigned)rest);
    }
}

static void check(const tp *t, const char *what)
{
    const cu_dtype *dt = t->dt;
    const ref *r = &t->r;
    cr_assert(dt, "%s: constructor failed", what);
    size_t size = ref_size(r);
    ptrdiff_t ext = r->any ? r->ub - r->lb : 0;
    cr_assert_eq(dt->size, size, "%s: size %zu, want %zu", what, dt->size, size);
    cr_assert_eq(dt->lb, r->any ? r->lb : 0, "%s: lb %td want %td", what, dt->lb, r->lb);
    cr_assert_eq(dt->extent, ext, "%s: extent %td, want %td", what, dt->extent, ext);
    if (r->n) {
        ptrdiff_t lo = r->e[0].d, hi = r->e[0].d + (ptrdiff_t)r->e[0].len;
        for (size_t i = 1; i < r->n; i++) {
            if (r->e[i].d < lo) lo = r->e[i].d;
            if (r->e[i].d + (ptrdiff_t)r->e[i].len > hi) hi = r->e[i].d + (ptrdiff_t)r->e[i].len;
        }
        cr_assert_eq(dt->true_lb, lo, "%s: true_lb %td, want %td", what, dt->true_lb, lo);
        cr_assert_eq(dt->true_extent, hi - lo, "%s: true_extent %td, want %td", what,
                     dt->true_extent, hi - lo);
    }
    static const size_t counts[] = { 0, 1, 2, 3, 7 };
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        size_t count = counts[ci];
        /* Memory window touched by count elements. */
        ptrdiff_t lo = 0, hi = 1;
        for (size_t i = 0; i < count; i++)
            for (size_t j = 0; j < r->n; j++) {
                ptrdiff_t a = (ptrdiff_t)i * ext + r->e[j].d;
                if (a < lo) lo = a;
                if (a + (ptrdiff_t)r->e[j].len > hi) hi = a + (ptrdiff_t)r->e[j].len;
            }
        size_t span = (size_t)(hi - lo);
        char *m1 = malloc(span), *m2 = malloc(span), *m3 = malloc(span);
        char *buf1 = m1 - lo, *buf2 = m2 - lo, *buf3 = m3 - lo;
        size_t total = count * size;
        char *want = malloc(total + 1), *got = malloc(total + 1);
        for (size_t i = 0; i < span; i++)
            m1[i] = (char)rnd(256);
        ref_pack(r, ext, buf1, count, want);

        /* pack in random fragments */
        memset(got, 0x5a, total + 1);
        for (size_t off = 0; off < total;) {
            size_t len = frag(total - off);
            size_t n = cu_dtype_pack(buf1, count, dt, off, got + off, len);
            cr_assert_eq(n, len, "%s count %zu: pack at %zu len %zu gave %zu", what, count, off,
                         len, n);
            off += n;
        }
        cr_assert(memcmp(got, want, total) == 0, "%s count %zu: packed bytes differ", what,
                  count);
        cr_assert_eq(got[total], 0x5a, "%s: pack wrote past the end", what);
        cr_assert_eq(cu_dtype_pack(buf1, count, dt, total, got, 10), 0);
        if (total)
            cr_assert_eq(cu_dtype_pack(buf1, count, dt, total - 1, got, 10), 1);

        /* unpack in random fragments, against the reference's unpack */
        memset(m2, 0xa5, span);
        memset(m3, 0xa5, span);
        ref_unpack(r, ext, buf3, count, want);
        for (size_t off = 0; off < total;) {
            size_t len = frag(total - off);
            size_t n = cu_dtype_unpack(buf2, count, dt, off, want + off, len);
            cr_assert_eq(n, len, "%s: unpack at %zu gave %zu", what, off, n);
            off += n;
        }
        cr_assert(memcmp(m2, m3, span) == 0, "%s count %zu: unpacked memory differs", what,
                  count);

        /* iovecs in pieces: cover the stream exactly, merged */
        for (size_t off = 0; off < total;) {
            struct iovec iov[4];
            int maxiov = 1 + (int)rnd(4);
            size_t maxlen = frag(total - off), len;
            int n = cu_dtype_to_iov(buf1, count, dt, off, maxlen, iov, maxiov, &len);
            cr_assert(n >= 1 && n <= maxiov && len > 0 && len <= maxlen,
                      "%s: to_iov at %zu gave %d segments, %zu bytes", what, off, n, len);
            size_t at = off;
            for (int k = 0; k < n; k++) {
                cr_assert(memcmp(iov[k].iov_base, want + at, iov[k].iov_len) == 0,
                          "%s: iov bytes differ", what);
                at += iov[k].iov_len;
                if (k)
                    cr_assert((char *)iov[k - 1].iov_base + iov[k - 1].iov_len !=
                              (char *)iov[k].iov_base, "%s: adjacent iovecs not merged", what);
            }
            cr_assert_eq(at - off, len);
            off += len;
        }

        /* element counts at every byte count, and back to bytes */
        for (size_t b = 0; b <= total; b++) {
            long long e = cu_dtype_count_elements(dt, b), w = ref_elements(r, count, b);
            if (size == 0)
                break;
            cr_assert_eq(e, w, "%s: elements in %zu bytes: %lld, want %lld", what, b, e, w);
            if (e >= 0)
                cr_assert_eq(cu_dtype_elements_bytes(dt, e), b,
                             "%s: bytes of %lld elements: %zu, want %zu", what, e,
                             cu_dtype_elements_bytes(dt, e), b);
        }
        free(m1); free(m2); free(m3); free(want); free(got);
    }
}

/* ---- tests ---------------------------------------------------------------- */

Test(dtype, builtins)
{
    for (int i = 1; i < CLUMPI_DT_BUILTIN_COUNT; i++) {
        tp t = builtin(i);
        cr_assert(t.dt->builtin && t.dt->committed);
        cr_assert_eq(cu_dtype_builtin_index(t.dt), i);
        check(&t, cu_dtype_name(t.dt));
    }
    cr_assert_str_eq(cu_dtype_name(cu_dtype_builtin(7)), "MPI_INT");
    cr_assert_str_eq(cu_dtype_name(cu_dtype_builtin(33)), "MPI_FLOAT_INT");
    cr_assert_null(cu_dtype_builtin(0));
    cr_assert_null(cu_dtype_builtin(CLUMPI_DT_BUILTIN_COUNT));
    const cu_dtype *di = cu_dtype_builtin(34), *si = cu_dtype_builtin(37),
                   *fi = cu_dtype_builtin(33), *ldi = cu_dtype_builtin(38);
    cr_assert_eq(di->size, 12);
    cr_assert_eq(di->extent, 16);
    cr_assert(!di->contig);
    cr_assert_eq(si->size, 6);
    cr_assert_eq(si->extent, 8);
    cr_assert(fi->contig && fi->size == 8 && fi->extent == 8);
    cr_assert_eq(ldi->extent, (ptrdiff_t)sizeof(struct { long double a; int b; }));
    cr_assert(cu_dtype_builtin(7)->contig && cu_dtype_builtin(15)->size == sizeof(long double));
    /* pair types count two elements each */
    cr_assert_eq(cu_dtype_count_elements(di, 24), 4);
    cr_assert_eq(cu_dtype_count_elements(di, 8), 1);
    cr_assert_eq(cu_dtype_count_elements(di, 5), -1);
    /* retain/release of predefined types is harmless */
    cu_dtype_retain(di);
    cu_dtype_release(di);
    cu_dtype_release(di);
    cr_assert_eq(di->size, 12);
}

Test(dtype, contiguous_and_vectors)
{
    tp i = builtin(7), d = builtin(14), c = builtin(1);
    tp t = t_contig(5, &i);
    check(&t, "contig(5,int)");
    cr_assert(t.dt->contig);
    tp_free(&t);
    t = t_hvector(4, 3, 20, &i);
    check(&t, "vector(4,3,5 ints)");
    cr_assert(!t.dt->contig);
    cr_assert_eq(t.dt->extent, 3 * 20 + 12);
    tp_free(&t);
    t = t_hvector(5, 2, -24, &d);
    check(&t, "vector negative stride");
    cr_assert_eq(t.dt->lb, -96);
    tp_free(&t);
    t = t_hvector(3, 1, 3, &c);
    check(&t, "hvector of char");
    tp_free(&t);
    t = t_hvector(6, 2, 8, &i);          /* stride == block: one block */
    check(&t, "vector that is contiguous");
    cr_assert(t.dt->contig);
    tp_free(&t);
    t = t_hvector(50, 1, 16, &d);        /* many blocks: a loop, not a list */
    check(&t, "vector(50)");
    cr_assert_eq(t.dt->priv->root->kind, CU_NODE_REPEAT);
    tp_free(&t);
}

Test(dtype, big_vector_is_compact)
{
    /* 1 Mi doubles, every other one: one REPEAT node, fast seek. */
    cu_dtype *v = cu_dtype_hvector(1 << 20, 1, 16, cu_dtype_builtin(14));
    cr_assert_eq(v->priv->root->kind, CU_NODE_REPEAT);
    cr_assert_eq(v->priv->root->child->kind, CU_NODE_LEAF);
    size_t n = (size_t)1 << 20;
    double *src = malloc(n * 16), *out = malloc(64);
    for (size_t i = 0; i < 2 * n; i++)
        src[i] = (double)i;
    size_t got = cu_dtype_pack(src, 1, v, 8 * 777777 + 4, out, 20);
    cr_assert_eq(got, 20);
    double w[3] = { 2.0 * 777777, 2.0 * 777778, 2.0 * 777779 };
    cr_assert(memcmp(out, (char *)w + 4, 20) == 0);
    struct iovec iov[8];
    size_t len;
    cr_assert_eq(cu_dtype_to_iov(src, 1, v, 0, 1 << 20, iov, 8, &len), 8);
    cr_assert_eq(len, 64);
    cr_assert_eq(cu_dtype_count_elements(v, 8 * n), (long long)n);
    cu_dtype_release(v);
    free(src);
    free(out);
}

Test(dtype, blocks_count_segments)
{
    /* The rendezvous picks single-copy or packing from bytes / blocks: a
     * fine-grained type must report one block per piece, in O(1). */
    const cu_dtype *i32 = cu_dtype_builtin(7);   /* MPI_INT */
    cr_assert_eq(cu_dtype_blocks(i32, 1000), 1);
    cr_assert_eq(cu_dtype_blocks(i32, 0), 0);
    cu_dtype *v = cu_dtype_hvector(32768, 1, 8, i32);
    cr_assert_eq(cu_dtype_blocks(v, 1), 32768);
    cr_assert_eq(cu_dtype_blocks(v, 3), 3 * 32768);
    cu_dtype *r = cu_dtype_resized(i32, 0, 8);
    cr_assert_eq(cu_dtype_blocks(r, 32768), 32768);
    cu_dtype *d = cu_dtype_hvector(32, 1000, 6000, i32);
    cr_assert_eq(cu_dtype_blocks(d, 1), 32);
    cu_dtype_release(v);
    cu_dtype_release(r);
    cu_dtype_release(d);
}

Test(dtype, indexed_family)
{
    tp i = builtin(7), s = builtin(5);
    int bl[] = { 2, 0, 3, 1, 4 };
    ptrdiff_t d[] = { 40, 0, -12, 8, 100 };
    tp t = t_hindexed(5, bl, 0, d, &i);
    check(&t, "hindexed");
    tp_free(&t);
    ptrdiff_t d2[] = { 0, 8, 16 };       /* adjacent blocks merge: contiguous */
    int bl2[] = { 2, 2, 2 };
    t = t_hindexed(3, bl2, 0, d2, &i);
    check(&t, "hindexed adjacent");
    cr_assert(t.dt->contig);
    tp_free(&t);
    ptrdiff_t d3[] = { 6, 0, 30, 14 };
    t = t_hindexed(4, NULL, 3, d3, &s);
    check(&t, "hindexed_block");
    tp_free(&t);
    t = t_hindexed(0, NULL, 3, d3, &s);
    check(&t, "hindexed empty");
    cr_assert_eq(t.dt->size, 0);
    cr_assert_eq(t.dt->extent, 0);
    tp_free(&t);
    /* many blocks of a flat child stay one flat list */
    int n = 200;
    int *bls = malloc(n * sizeof(int));
    ptrdiff_t *ds = malloc(n * sizeof(ptrdiff_t));
    for (int k = 0; k < n; k++) {
        bls[k] = 1 + k % 3;
        ds[k] = (ptrdiff_t)((k * 37) % 211) * 16;
    }
    t = t_hindexed((size_t)n, bls, 0, ds, &i);
    check(&t, "hindexed 200");
    cr_assert_eq(t.dt->priv->root->kind, CU_NODE_LEAF);
    tp_free(&t);
    free(bls);
    free(ds);
}

Test(dtype, structs_and_padding)
{
    tp d = builtin(14), c = builtin(1), i = builtin(7), sh = builtin(5), di = builtin(34);
    {
        /* struct { double; char; } : extent padded to 16 */
        int bl[] = { 1, 1 };
        ptrdiff_t dp[] = { 0, 8 };
        const tp *ty[] = { &d, &c };
        tp t = t_struct(2, bl, dp, ty);
        check(&t, "struct{double,char}");
        cr_assert_eq(t.dt->extent, 16);
        cr_assert_eq(t.dt->true_extent, 9);
        cr_assert_eq(t.dt->size, 9);
        tp_free(&t);
    }
    {
        /* struct { char; int[2]; short; } in typemap order unlike memory order */
        int bl[] = { 1, 2, 1 };
        ptrdiff_t dp[] = { 12, 4, 0 };
        const tp *ty[] = { &c, &i, &sh };
        tp t = t_struct(3, bl, dp, ty);
        check(&t, "struct out of order");
        cr_assert_eq(t.dt->extent, 16);
        tp_free(&t);
    }
    {
        /* zero-length blocks do not count; a pair type inside */
        int bl[] = { 0, 2, 3 };
        ptrdiff_t dp[] = { -100, 0, 40 };
        const tp *ty[] = { &d, &di, &c };
        tp t = t_struct(3, bl, dp, ty);
        check(&t, "struct with pair and empty block");
        cr_assert_eq(t.dt->lb, 0);
        tp_free(&t);
    }
    {
        /* resized then struct: no padding past explicit bounds */
        tp r = t_resized(&c, 0, 3);
        int bl[] = { 1, 1 };
        ptrdiff_t dp[] = { 0, 8 };
        const tp *ty[] = { &d, &r };
        tp t = t_struct(2, bl, dp, ty);
        check(&t, "struct with resized");
        cr_assert_eq(t.dt->extent, 11);
        tp_free(&t);
        tp_free(&r);
    }
    tp t = t_struct(0, NULL, NULL, NULL);
    check(&t, "empty struct");
    tp_free(&t);
}

Test(dtype, resized)
{
    tp i = builtin(7), d = builtin(14);
    tp r = t_resized(&i, -4, 12);
    check(&r, "resized int");
    cr_assert_eq(r.dt->lb, -4);
    cr_assert_eq(r.dt->extent, 12);
    cr_assert_eq(r.dt->true_lb, 0);
    cr_assert_eq(r.dt->true_extent, 4);
    cr_assert(!r.dt->contig);
    cr_assert_eq(r.dt->basic, 7);
    tp c = t_contig(4, &r);
    check(&c, "contig of resized");
    cr_assert_eq(c.dt->extent, 48);
    tp_free(&c);
    tp_free(&r);
    /* resizing a vector to interleave it */
    tp v = t_hvector(3, 1, 32, &d);
    tp rv = t_resized(&v, 0, 8);
    tp cv = t_contig(4, &rv);
    check(&cv, "interleaved vectors");
    cr_assert_eq(cv.dt->size, 96);
    tp_free(&cv);
    tp_free(&rv);
    tp_free(&v);
    /* a resized long vector repeated so the copies tile: one longer loop */
    tp lv = t_hvector(40, 1, 12, &i);
    tp rlv = t_resized(&lv, 0, 480);
    tp clv = t_contig(3, &rlv);
    check(&clv, "tiled vectors");
    cr_assert_eq(clv.dt->priv->root->kind, CU_NODE_REPEAT);
    cr_assert_eq(clv.dt->priv->root->n, 120);
    tp_free(&clv);
    tp_free(&rlv);
    tp_free(&lv);
    /* resized to its own size: contiguous again */
    tp s = t_hvector(2, 1, 4, &i);
    tp rs = t_resized(&s, 0, 8);
    cr_assert(rs.dt->contig);
    check(&rs, "resized contig");
    tp_free(&rs);
    tp_free(&s);
}

Test(dtype, subarray)
{
    tp i = builtin(7);
    int sizes[] = { 4, 5 }, subs[] = { 2, 3 }, starts[] = { 1, 2 };
    tp t = t_subarray(2, sizes, subs, starts, 1, &i);
    check(&t, "subarray C");
    cr_assert_eq(t.dt->lb, 0);
    cr_assert_eq(t.dt->extent, 80);
    cr_assert_eq(t.dt->true_lb, (1 * 5 + 2) * 4);
    cr_assert_eq(t.dt->true_extent, (1 * 5 + 3) * 4);
    tp_free(&t);
    t = t_subarray(2, sizes, subs, starts, 0, &i);
    check(&t, "subarray Fortran");
    cr_assert_eq(t.dt->extent, 80);
    cr_assert_eq(t.dt->true_lb, (1 + 2 * 4) * 4);
    cr_assert_eq(t.dt->true_extent, (2 * 4 + 2) * 4);
    tp_free(&t);
    int s3[] = { 3, 4, 6 }, u3[] = { 2, 2, 3 }, o3[] = { 1, 0, 2 };
    tp d = builtin(14);
    t = t_subarray(3, s3, u3, o3, 1, &d);
    check(&t, "subarray 3d C");
    tp_free(&t);
    t = t_subarray(3, s3, u3, o3, 0, &d);
    check(&t, "subarray 3d F");
    tp_free(&t);
    int z[] = { 0, 3 };
    t = t_subarray(2, sizes, z, starts, 1, &i);
    check(&t, "subarray empty");
    cr_assert_eq(t.dt->size, 0);
    cr_assert_eq(t.dt->extent, 80);
    tp_free(&t);
    int full[] = { 0, 0 };
    t = t_subarray(2, sizes, sizes, full, 1, &i);
    check(&t, "subarray whole");
    cr_assert(t.dt->contig);
    tp_free(&t);
}

Test(dtype, nested)
{
    tp d = builtin(14), c = builtin(1), i = builtin(7), sh = builtin(5);
    int bl[] = { 1, 3, 2 };
    ptrdiff_t dp[] = { 0, 8, 12 };
    const tp *ty[] = { &d, &c, &sh };
    tp st = t_struct(3, bl, dp, ty);
    check(&st, "struct{double,char[3],short[2]}");
    tp vs = t_hvector(40, 2, 3 * st.dt->extent, &st);     /* vector of struct */
    check(&vs, "vector of struct");
    tp v = t_hvector(3, 2, 20, &i);
    int ibl[] = { 1, 2, 0, 1 };
    ptrdiff_t idp[] = { 0, 300, 50, -200 };
    tp iv = t_hindexed(4, ibl, 0, idp, &v);                /* indexed of vector */
    check(&iv, "indexed of vector");
    int ibl2[40];
    ptrdiff_t idp2[40];
    for (int k = 0; k < 40; k++) {
        ibl2[k] = 1 + k % 2;
        idp2[k] = 1000 * k - 7000;
    }
    tp v2 = t_hvector(40, 1, 12, &i);                       /* a loop, not flat */
    tp iv2 = t_hindexed(40, ibl2, 0, idp2, &v2);            /* so the index stays a list */
    check(&iv2, "indexed of vector, 40 blocks");
    cr_assert_eq(iv2.dt->priv->root->kind, CU_NODE_LIST);
    const tp *ty2[] = { &vs, &iv2, &st };
    int bl3[] = { 2, 1, 5 };
    ptrdiff_t dp3[] = { 0, 200000, -3000 };
    tp top = t_struct(3, bl3, dp3, ty2);                    /* struct of all of them */
    check(&top, "struct of nested");
    tp rtop = t_resized(&top, 16, 1234);
    tp ctop = t_contig(3, &rtop);
    check(&ctop, "contig of resized nested");
    tp_free(&ctop);
    tp_free(&rtop);
    tp_free(&top);
    tp_free(&iv2);
    tp_free(&v2);
    tp_free(&iv);
    tp_free(&v);
    tp_free(&vs);
    tp_free(&st);
}

Test(dtype, zero_counts)
{
    tp i = builtin(7);
    tp t = t_contig(0, &i);
    check(&t, "contig(0)");
    cr_assert(t.dt->contig);
    cr_assert_eq(t.dt->extent, 0);
    tp v = t_hvector(3, 2, 8, &t);
    check(&v, "vector of empty");
    tp_free(&v);
    tp_free(&t);
    t = t_hvector(0, 2, 8, &i);
    check(&t, "vector(0)");
    tp_free(&t);
    t = t_hvector(4, 0, 8, &i);
    check(&t, "vector blocklen 0");
    tp_free(&t);
    struct iovec iov[2];
    size_t len = 99;
    cr_assert_eq(cu_dtype_to_iov(NULL, 0, cu_dtype_builtin(7), 0, 100, iov, 2, &len), 0);
    cr_assert_eq(len, 0);
    cr_assert_eq(cu_dtype_pack(NULL, 0, cu_dtype_builtin(7), 0, NULL, 100), 0);
    cr_assert_eq(cu_dtype_count_elements(cu_dtype_builtin(7), 0), 0);
}

Test(dtype, get_elements)
{
    const cu_dtype *i = cu_dtype_builtin(7), *d = cu_dtype_builtin(14);
    int bl[] = { 1, 1 };
    ptrdiff_t dp[] = { 0, 8 };
    const cu_dtype *ty[] = { i, d };
    cu_dtype *s = cu_dtype_struct(2, bl, dp, ty);     /* size 12, extent 16 */
    cr_assert_eq(cu_dtype_count_elements(s, 0), 0);
    cr_assert_eq(cu_dtype_count_elements(s, 4), 1);
    cr_assert_eq(cu_dtype_count_elements(s, 12), 2);
    cr_assert_eq(cu_dtype_count_elements(s, 16), 3);
    cr_assert_eq(cu_dtype_count_elements(s, 24), 4);
    cr_assert_eq(cu_dtype_count_elements(s, 6), -1);
    cr_assert_eq(cu_dtype_count_elements(s, 20), -1);
    cr_assert_eq(cu_dtype_count_elements(i, 12), 3);
    cr_assert_eq(cu_dtype_count_elements(i, 13), -1);
    cu_dtype *v = cu_dtype_hvector(3, 2, 16, d);
    cr_assert_eq(v->basic, 14);
    cr_assert_eq(cu_dtype_count_elements(v, 40), 5);
    cu_dtype_release(v);
    cu_dtype_release(s);
}

Test(dtype, refcount_keeps_children)
{
    /* Children freed by the user stay alive inside their parents; a type
     * retained by a "request" outlives its own free. */
    cu_dtype *v = cu_dtype_hvector(4, 1, 8, cu_dtype_builtin(7));
    cu_dtype *c = cu_dtype_contiguous(3, v);
    cu_dtype_release(v);
    int src[96], out[12];
    for (int k = 0; k < 96; k++)
        src[k] = k;
    cu_dtype_retain(c);      /* a pending request */
    cu_dtype_release(c);     /* the user's MPI_Type_free */
    cr_assert_eq(cu_dtype_pack(src, 1, c, 0, out, sizeof(out)), sizeof(out));
    /* vector extent = 3*8+4 = 28 bytes = 7 ints */
    for (int k = 0; k < 12; k++)
        cr_assert_eq(out[k], (k / 4) * 7 + (k % 4) * 2);
    cu_dtype_release(c);
}

Test(dtype, dup_and_contents)
{
    cu_dtype *v = cu_dtype_hvector(2, 3, 40, cu_dtype_builtin(14));
    int ints[2] = { 2, 3 };
    ptrdiff_t a = 40;
    const cu_dtype *t = cu_dtype_builtin(14);
    cr_assert_eq(cu_dtype_set_contents(v, 5, 2, ints, 1, &a, 1, &t), 0);
    cu_dtype *d = cu_dtype_dup(v);
    cr_assert_eq(d->size, v->size);
    cr_assert_eq(d->extent, v->extent);
    cr_assert_eq(d->true_lb, v->true_lb);
    cu_dtype_set_name(d, "mine");
    cr_assert_str_eq(cu_dtype_name(d), "mine");
    cr_assert_str_eq(cu_dtype_name(v), "");
    int comb, ni, na, nd;
    const int *gi;
    const ptrdiff_t *ga;
    cu_dtype *const *gt;
    cu_dtype_get_contents(v, &comb, &ni, &gi, &na, &ga, &nd, &gt);
    cr_assert(comb == 5 && ni == 2 && na == 1 && nd == 1 && gi[1] == 3 && ga[0] == 40 &&
              gt[0] == t);
    cu_dtype_release(v);
    cu_dtype_release(d);
}

/* A random composition of two levels of every constructor over basics
 * picked from basics[0..nb); each level is checked in full when `checked`. */
static tp random_type(const int *basics, unsigned nb, int checked)
{
    tp a = builtin(basics[rnd(nb)]);
    tp b = builtin(basics[rnd(nb)]);
    for (int depth = 0; depth < 2; depth++) {
        tp n;
        switch (rnd(6)) {
        case 0: n = t_contig(1 + rnd(3), &a); break;
        case 1: n = t_hvector(1 + rnd(5), rnd(3), (ptrdiff_t)rnd(64) - 16, &a); break;
        case 2: {
            int bl[4];
            ptrdiff_t d[4];
            for (int k = 0; k < 4; k++) {
                bl[k] = (int)rnd(3);
                d[k] = (ptrdiff_t)rnd(100) - 30;
            }
            n = t_hindexed(4, bl, 0, d, &a);
            break;
        }
        case 3: {
            int bl[2] = { (int)rnd(3), 1 + (int)rnd(2) };
            ptrdiff_t d[2] = { (ptrdiff_t)rnd(64), -(ptrdiff_t)rnd(64) };
            const tp *ty[2] = { &a, &b };
            n = t_struct(2, bl, d, ty);
            break;
        }
        case 4: n = t_resized(&a, (ptrdiff_t)rnd(16) - 8, 1 + (ptrdiff_t)rnd(40)); break;
        default: {
            int sz[2] = { 2 + (int)rnd(3), 2 + (int)rnd(3) };
            int sub[2] = { 1 + (int)rnd((unsigned)sz[0] - 1), 1 + (int)rnd((unsigned)sz[1] - 1) };
            int st[2] = { (int)rnd((unsigned)(sz[0] - sub[0] + 1)),
                          (int)rnd((unsigned)(sz[1] - sub[1] + 1)) };
            n = t_subarray(2, sz, sub, st, (int)rnd(2), &a);
            break;
        }
        }
        if (checked)
            check(&n, "random");
        tp_free(&a);
        a = n;
    }
    tp_free(&b);
    return a;
}

Test(dtype, random_types)
{
    /* Random compositions of every constructor, each checked in full. */
    static const int basics[] = { 1, 5, 7, 14, 15, 33, 34, 37 };
    for (int round = 0; round < 60; round++) {
        tp a = random_type(basics, 8, 1);
        tp_free(&a);
    }
}

Test(dtype, external32_random_types)
{
    /* Basics whose external32 size is their native size, values that all
     * convert: the external32 stream has the native stream's length, each
     * basic element byte-reversed on a little-endian host, and converts
     * back to the same data. */
    static const int basics[] = { 1, 5, 7, 14, 33, 34, 37 };
    /* sizes of the parts of each basic element, in stream order */
    static const size_t parts[40][2] = { [1] = { 1 }, [5] = { 2 }, [7] = { 4 }, [14] = { 8 },
                                         [33] = { 4, 4 }, [34] = { 8, 4 }, [37] = { 2, 4 } };
    for (int round = 0; round < 80; round++) {
        tp t = random_type(basics, 7, 0);
        const cu_dtype *dt = t.dt;
        size_t count = 1 + rnd(3), n = count * dt->size;
        cr_assert_eq(cu_dtype_external32_size(dt), dt->size);
        ptrdiff_t rep = (ptrdiff_t)(count - 1) * dt->extent;
        ptrdiff_t lo = dt->true_lb + (rep < 0 ? rep : 0);
        ptrdiff_t hi = dt->true_lb + dt->true_extent + (rep > 0 ? rep : 0);
        size_t span = (size_t)(hi - lo) + 1;
        char *m1 = malloc(span), *m2 = calloc(span, 1);
        char *nat = malloc(n + 1), *ext = malloc(n + 1), *nat2 = malloc(n + 1);
        for (size_t i = 0; i < span; i++)
            m1[i] = (char)rnd(256);
        cu_dtype_pack(m1 - lo, count, dt, 0, nat, n);
        cr_assert_eq(cu_dtype_pack_external32(m1 - lo, count, dt, ext), 0);
        if (dt->basic && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
            size_t off = 0;
            while (off < n)
                for (int k = 0; k < 2 && parts[dt->basic][k]; k++) {
                    size_t l = parts[dt->basic][k];
                    for (size_t j = 0; j < l; j++)
                        cr_assert_eq(ext[off + j], nat[off + l - 1 - j],
                                     "round %d: byte %zu of a %zu-byte part", round, off + j, l);
                    off += l;
                }
        }
        cr_assert_eq(cu_dtype_unpack_external32(ext, m2 - lo, count, dt), 0);
        cu_dtype_pack(m2 - lo, count, dt, 0, nat2, n);
        cr_assert(memcmp(nat, nat2, n) == 0, "round %d: external32 round trip differs", round);
        free(m1);
        free(m2);
        free(nat);
        free(ext);
        free(nat2);
        tp_free(&t);
    }
}
