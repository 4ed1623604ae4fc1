/*
 * dtype.c — the datatype engine: building the node trees of derived types
 * (see dtype_impl.h), packing and unpacking at arbitrary stream offsets,
 * iovec descriptions, element counting and reference counting.
 */
#include <stdlib.h>
#include <string.h>
#include "src/util/dtype_impl.h"

/* Types with at most this many blocks per element are flattened into one
 * LEAF: one loop over (offset, length) beats walking a small tree. */
#define FLAT_MAX 32

#define SAT_MAX (SIZE_MAX / 4)
static size_t sat_mul(size_t a, size_t b)
{
    if (a && b > SAT_MAX / a)
        return SAT_MAX;
    return a * b;
}
static size_t sat_add(size_t a, size_t b)
{
    return (a > SAT_MAX - b) ? SAT_MAX : a + b;
}

/* Addresses are computed as integers: MPI_BOTTOM (NULL) plus absolute
 * displacements is legal MPI, and pointer arithmetic on NULL is not legal C. */
#define ADDR(base, off) ((char *)((uintptr_t)(base) + (uintptr_t)(off)))

/* ======================================================================
 * nodes
 * ====================================================================== */

static cu_node *node_alloc(int kind, size_t n)
{
    size_t sz = sizeof(cu_node);
    if (kind == CU_NODE_LEAF)
        sz += n * (sizeof(ptrdiff_t) + sizeof(size_t)) + (n + 1) * sizeof(size_t);
    else if (kind == CU_NODE_LIST)
        sz += n * (sizeof(ptrdiff_t) + sizeof(cu_node *)) + (n + 1) * sizeof(size_t);
    cu_node *nd = calloc(1, sz);
    if (!nd)
        return NULL;
    nd->kind = kind;
    nd->refcount = 1;
    nd->n = n;
    char *p = (char *)(nd + 1);
    if (kind == CU_NODE_LEAF) {
        nd->disp = (ptrdiff_t *)p;            p += n * sizeof(ptrdiff_t);
        nd->len = (size_t *)p;                p += n * sizeof(size_t);
        nd->pre = (size_t *)p;
    } else if (kind == CU_NODE_LIST) {
        nd->disp = (ptrdiff_t *)p;            p += n * sizeof(ptrdiff_t);
        nd->kids = (cu_node **)p;             p += n * sizeof(cu_node *);
        nd->pre = (size_t *)p;
    }
    return nd;
}

static cu_node *node_retain(cu_node *nd)
{
    if (nd->refcount >= 0)
        __atomic_add_fetch(&nd->refcount, 1, __ATOMIC_RELAXED);
    return nd;
}

void cu_node_release(cu_node *nd)
{
    if (!nd || nd->refcount < 0)
        return;
    if (__atomic_sub_fetch(&nd->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (nd->kind == CU_NODE_REPEAT)
        cu_node_release(nd->child);
    else if (nd->kind == CU_NODE_LIST)
        for (size_t i = 0; i < nd->n; i++)
            cu_node_release(nd->kids[i]);
    free(nd);
}

/* A LEAF from blocks in stream order: empty blocks dropped, a block that
 * starts where the previous one ended is merged into it. */
cu_node *cu_node_leaf(size_t n, const ptrdiff_t *disp, const size_t *len)
{
    size_t m = 0;
    ptrdiff_t end = 0;
    for (size_t i = 0; i < n; i++) {
        if (!len[i])
            continue;
        if (!(m && disp[i] == end))
            m++;
        end = disp[i] + (ptrdiff_t)len[i];
    }
    cu_node *nd = node_alloc(CU_NODE_LEAF, m);
    if (!nd)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!len[i])
            continue;
        if (k && nd->disp[k - 1] + (ptrdiff_t)nd->len[k - 1] == disp[i]) {
            nd->len[k - 1] += len[i];
        } else {
            nd->disp[k] = disp[i];
            nd->len[k] = len[i];
            k++;
        }
    }
    nd->pre[0] = 0;
    for (size_t i = 0; i < m; i++)
        nd->pre[i + 1] = nd->pre[i] + nd->len[i];
    nd->size = nd->pre[m];
    nd->nblk = m;
    return nd;
}

static cu_node *node_empty(void)
{
    return cu_node_leaf(0, NULL, NULL);
}

/* Collects the blocks of nd placed at base, unmerged, in stream order. */
static void node_emit(const cu_node *nd, ptrdiff_t base, ptrdiff_t *d, size_t *l, size_t *k)
{
    switch (nd->kind) {
    case CU_NODE_LEAF:
        for (size_t i = 0; i < nd->n; i++) {
            d[*k] = base + nd->disp[i];
            l[*k] = nd->len[i];
            (*k)++;
        }
        break;
    case CU_NODE_REPEAT:
        for (size_t i = 0; i < nd->n; i++)
            node_emit(nd->child, base + nd->off + (ptrdiff_t)i * nd->stride, d, l, k);
        break;
    default:
        for (size_t i = 0; i < nd->n; i++)
            node_emit(nd->kids[i], base + nd->disp[i], d, l, k);
        break;
    }
}

/* Flattens a node whose nblk is known to be modest into a LEAF. */
static cu_node *node_flatten(const cu_node *nd, ptrdiff_t base)
{
    size_t n = nd->nblk;
    ptrdiff_t *d = malloc((n ? n : 1) * sizeof(*d));
    size_t *l = malloc((n ? n : 1) * sizeof(*l));
    cu_node *r = NULL;
    if (d && l) {
        size_t k = 0;
        node_emit(nd, base, d, l, &k);
        r = cu_node_leaf(k, d, l);
    }
    free(d);
    free(l);
    return r;
}

/* nd moved by off; a new reference. */
static cu_node *node_shift(cu_node *nd, ptrdiff_t off)
{
    if (off == 0)
        return node_retain(nd);
    cu_node *r;
    switch (nd->kind) {
    case CU_NODE_LEAF:
        r = node_alloc(CU_NODE_LEAF, nd->n);
        if (!r)
            return NULL;
        for (size_t i = 0; i < nd->n; i++) {
            r->disp[i] = nd->disp[i] + off;
            r->len[i] = nd->len[i];
        }
        memcpy(r->pre, nd->pre, (nd->n + 1) * sizeof(size_t));
        break;
    case CU_NODE_REPEAT:
        r = node_alloc(CU_NODE_REPEAT, nd->n);
        if (!r)
            return NULL;
        r->off = nd->off + off;
        r->stride = nd->stride;
        r->child = node_retain(nd->child);
        break;
    default:
        r = node_alloc(CU_NODE_LIST, nd->n);
        if (!r)
            return NULL;
        for (size_t i = 0; i < nd->n; i++) {
            r->disp[i] = nd->disp[i] + off;
            r->kids[i] = node_retain(nd->kids[i]);
        }
        memcpy(r->pre, nd->pre, (nd->n + 1) * sizeof(size_t));
        break;
    }
    r->size = nd->size;
    r->nblk = nd->nblk;
    return r;
}

/* count copies of child at off + i*stride (child borrowed; new reference). */
static cu_node *node_repeat(size_t count, ptrdiff_t stride, cu_node *child, ptrdiff_t off)
{
    if (count == 0 || child->size == 0)
        return node_empty();
    if (count == 1)
        return node_shift(child, off);
    if (child->kind == CU_NODE_LEAF && child->n == 1 && (ptrdiff_t)child->len[0] == stride) {
        ptrdiff_t d = off + child->disp[0];
        size_t l = count * child->len[0];
        return cu_node_leaf(1, &d, &l);
    }
    /* A repeat of a repeat that tiles memory exactly is one longer repeat
     * (vector of contiguous-by-stride): fewer levels to walk. */
    if (child->kind == CU_NODE_REPEAT && child->stride * (ptrdiff_t)child->n == stride
        && child->child->kind == CU_NODE_LEAF && child->child->n == 1)
        return node_repeat(count * child->n, child->stride, child->child, off + child->off);
    cu_node tmp = { .kind = CU_NODE_REPEAT, .refcount = -1, .n = count, .off = off,
                    .stride = stride, .child = child };
    tmp.nblk = sat_mul(count, child->nblk);
    tmp.size = count * child->size;
    if (tmp.nblk <= FLAT_MAX)
        return node_flatten(&tmp, 0);
    cu_node *r = node_alloc(CU_NODE_REPEAT, count);
    if (!r)
        return NULL;
    r->off = off;
    r->stride = stride;
    r->child = node_retain(child);
    r->size = tmp.size;
    r->nblk = tmp.nblk;
    return r;
}

/* Children kids[i] at disp[i], in stream order (kids borrowed). */
static cu_node *node_list(size_t n, const ptrdiff_t *disp, cu_node *const *kids)
{
    size_t m = 0, nblk = 0, size = 0, first = 0;
    int all_leaf = 1;
    for (size_t i = 0; i < n; i++) {
        if (!kids[i]->size)
            continue;
        if (!m)
            first = i;
        m++;
        nblk = sat_add(nblk, kids[i]->nblk);
        size += kids[i]->size;
        all_leaf &= kids[i]->kind == CU_NODE_LEAF;
    }
    if (m == 0)
        return node_empty();
    if (m == 1)
        return node_shift(kids[first], disp[first]);
    cu_node *r = node_alloc(CU_NODE_LIST, m);
    if (!r)
        return NULL;
    size_t k = 0;
    r->pre[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (!kids[i]->size)
            continue;
        r->disp[k] = disp[i];
        r->kids[k] = node_retain(kids[i]);
        r->pre[k + 1] = r->pre[k] + kids[i]->size;
        k++;
    }
    r->size = size;
    r->nblk = nblk;
    /* Flat children stay flat however many there are: the blocks are no
     * more than the caller's own argument arrays. */
    if (all_leaf || nblk <= FLAT_MAX) {
        cu_node *f = node_flatten(r, 0);
        cu_node_release(r);
        return f;
    }
    return r;
}

/* ======================================================================
 * types
 * ====================================================================== */

typedef struct cu_dtype_blob {
    cu_dtype d;
    struct cu_dtype_priv p;
} cu_dtype_blob;

typedef struct bounds {
    int any, tany;
    ptrdiff_t lb, ub, tlb, tub;
} bounds;

/* Adds k consecutive copies of old at displacement d to the bounds. */
static void bounds_add(bounds *b, ptrdiff_t d, size_t k, const cu_dtype *old)
{
    if (!k)
        return;
    ptrdiff_t last = (ptrdiff_t)(k - 1) * old->extent;
    ptrdiff_t lo = d + old->lb + (last < 0 ? last : 0);
    ptrdiff_t hi = d + old->lb + old->extent + (last > 0 ? last : 0);
    if (!b->any || lo < b->lb) b->lb = lo;
    if (!b->any || hi > b->ub) b->ub = hi;
    b->any = 1;
    if (!old->size)
        return;   /* no data: no true bounds */
    lo = d + old->true_lb + (last < 0 ? last : 0);
    hi = d + old->true_lb + old->true_extent + (last > 0 ? last : 0);
    if (!b->tany || lo < b->tlb) b->tlb = lo;
    if (!b->tany || hi > b->tub) b->tub = hi;
    b->tany = 1;
}

static void dt_set_contig(cu_dtype *dt)
{
    const cu_node *r = dt->priv->root;
    dt->contig = dt->size == 0 ||
        ((size_t)dt->extent == dt->size && dt->extent > 0 && r->kind == CU_NODE_LEAF && r->n == 1);
}

/* A derived type from its root (owned), bounds and element stream (runs of
 * sc_copies[i] elements of sc_type[i]). */
static cu_dtype *dt_make(cu_node *root, const bounds *b, size_t nsc,
                         const cu_dtype *const *sc_type, const size_t *sc_copies)
{
    if (!root)
        return NULL;
    cu_dtype_blob *bl = calloc(1, sizeof(*bl));
    cu_dtype **st = NULL;
    size_t *sn = NULL;
    if (nsc) {
        st = malloc(nsc * sizeof(*st));
        sn = malloc(nsc * sizeof(*sn));
    }
    if (!bl || (nsc && (!st || !sn))) {
        free(bl);
        free(st);
        free(sn);
        cu_node_release(root);
        return NULL;
    }
    cu_dtype *dt = &bl->d;
    struct cu_dtype_priv *p = &bl->p;
    dt->priv = p;
    dt->refcount = 1;
    p->root = root;
    dt->size = root->size;
    dt->lb = b->any ? b->lb : 0;
    dt->extent = b->any ? b->ub - b->lb : 0;
    dt->true_lb = b->tany ? b->tlb : 0;
    dt->true_extent = b->tany ? b->tub - b->tlb : 0;
    p->align = 1;
    int basic = -1;
    long long nelem = 0;
    /* Consecutive runs of the same child are merged: a struct of many
     * MPI_INT fields counts like one run. */
    size_t k = 0;
    for (size_t i = 0; i < nsc; i++) {
        const cu_dtype *t = sc_type[i];
        if (k && st[k - 1] == t) {
            sn[k - 1] += sc_copies[i];
        } else {
            st[k] = (cu_dtype *)t;
            cu_dtype_retain(t);
            sn[k] = sc_copies[i];
            k++;
        }
        nelem += (long long)sc_copies[i] * t->priv->nelem;
        if (t->priv->align > p->align)
            p->align = t->priv->align;
        p->sticky |= t->priv->sticky;
        if (basic == -1)
            basic = t->basic;
        else if (basic != t->basic)
            basic = 0;
    }
    p->nsc = k;
    p->sc_type = st;
    p->sc_copies = sn;
    p->nelem = nelem;
    dt->basic = basic > 0 ? basic : 0;
    dt_set_contig(dt);
    return dt;
}

cu_dtype *cu_dtype_contiguous(size_t count, const cu_dtype *old)
{
    bounds b = {0};
    bounds_add(&b, 0, count, old);
    cu_node *root = node_repeat(count, old->extent, old->priv->root, 0);
    return dt_make(root, &b, count ? 1 : 0, &old, &count);
}

cu_dtype *cu_dtype_hvector(size_t count, size_t blocklen, ptrdiff_t stride, const cu_dtype *old)
{
    bounds b = {0};
    if (count && blocklen) {
        bounds_add(&b, 0, blocklen, old);
        bounds_add(&b, (ptrdiff_t)(count - 1) * stride, blocklen, old);
    }
    cu_node *blk = node_repeat(blocklen, old->extent, old->priv->root, 0);
    if (!blk)
        return NULL;
    cu_node *root = node_repeat(count, stride, blk, 0);
    cu_node_release(blk);
    size_t total = count * blocklen;
    return dt_make(root, &b, total ? 1 : 0, &old, &total);
}

cu_dtype *cu_dtype_hindexed(size_t count, const int *blocklens, size_t blocklen,
                            const ptrdiff_t *disps, const cu_dtype *old)
{
    bounds b = {0};
    size_t total = 0;
    cu_node **kids = malloc((count ? count : 1) * sizeof(*kids));
    if (!kids)
        return NULL;
    /* Blocks of equal length share one node (always so for indexed_block). */
    cu_node *last = NULL;
    size_t last_bl = 0, made = 0;
    int ok = 1;
    for (size_t i = 0; i < count; i++) {
        size_t bl = blocklens ? (size_t)blocklens[i] : blocklen;
        bounds_add(&b, disps[i], bl, old);
        total += bl;
        if (!last || bl != last_bl) {
            cu_node *nd = node_repeat(bl, old->extent, old->priv->root, 0);
            if (!nd) {
                ok = 0;
                break;
            }
            if (last)
                cu_node_release(last);
            last = nd;
            last_bl = bl;
        }
        kids[i] = node_retain(last);
        made++;
    }
    if (last)
        cu_node_release(last);
    cu_node *root = ok ? node_list(count, disps, kids) : NULL;
    for (size_t i = 0; i < made; i++)
        cu_node_release(kids[i]);
    free(kids);
    return dt_make(root, &b, total ? 1 : 0, &old, &total);
}

cu_dtype *cu_dtype_struct(size_t count, const int *blocklens, const ptrdiff_t *disps,
                          const cu_dtype *const *types)
{
    bounds b = {0};
    size_t n = count ? count : 1;
    cu_node **kids = calloc(n, sizeof(*kids));
    size_t *copies = malloc(n * sizeof(*copies));
    const cu_dtype **sct = malloc(n * sizeof(*sct));
    size_t made = 0, nsc = 0, align = 1;
    int sticky = 0;
    cu_node *root = NULL;
    if (!kids || !copies || !sct)
        goto out;
    for (size_t i = 0; i < count; i++) {
        const cu_dtype *t = types[i];
        size_t bl = (size_t)blocklens[i];
        kids[i] = node_repeat(bl, t->extent, t->priv->root, 0);
        if (!kids[i])
            goto out;
        made++;
        /* Zero-length blocks do not shape the type (as MPI-1's struct). */
        if (!bl)
            continue;
        bounds_add(&b, disps[i], bl, t);
        sct[nsc] = t;
        copies[nsc++] = bl;
        if (t->priv->align > align)
            align = t->priv->align;
        sticky |= t->priv->sticky;
    }
    /* Pad the extent to the strictest alignment of the parts, as a C
     * compiler pads a struct (MPICH does the same), unless a part has
     * explicit bounds. */
    if (!sticky && b.any) {
        ptrdiff_t ext = b.ub - b.lb;
        if (ext > 0 && ext % (ptrdiff_t)align)
            b.ub += (ptrdiff_t)align - ext % (ptrdiff_t)align;
    }
    root = node_list(count, disps, kids);
out:
    for (size_t i = 0; i < made; i++)
        cu_node_release(kids[i]);
    free(kids);
    cu_dtype *dt = root ? dt_make(root, &b, nsc, sct, copies) : NULL;
    free(copies);
    free(sct);
    return dt;
}

cu_dtype *cu_dtype_resized(const cu_dtype *old, ptrdiff_t lb, ptrdiff_t extent)
{
    bounds b = {0};
    bounds_add(&b, 0, 1, old);
    b.lb = lb;
    b.ub = lb + extent;
    b.any = 1;
    size_t one = 1;
    cu_dtype *dt = dt_make(node_retain(old->priv->root), &b, 1, &old, &one);
    if (dt)
        dt->priv->sticky = 1;
    return dt;
}

cu_dtype *cu_dtype_dup(const cu_dtype *old)
{
    bounds b = { 1, old->size != 0, old->lb, old->lb + old->extent,
                 old->true_lb, old->true_lb + old->true_extent };
    size_t one = 1;
    cu_dtype *dt = dt_make(node_retain(old->priv->root), &b, 1, &old, &one);
    if (dt)
        dt->priv->sticky = old->priv->sticky;
    return dt;
}

cu_dtype *cu_dtype_subarray(int ndims, const int *sizes, const int *subsizes,
                            const int *starts, int order_c, const cu_dtype *old)
{
    /* Built inside out as nested vectors of the fastest-varying dimension,
     * moved to the start corner and resized to the whole array. */
    cu_dtype *t = NULL;
    ptrdiff_t stride = old->extent, disp = 0;
    for (int i = 0; i < ndims; i++) {
        int d = order_c ? ndims - 1 - i : i;
        cu_dtype *n = t ? cu_dtype_hvector((size_t)subsizes[d], 1, stride, t)
                        : cu_dtype_contiguous((size_t)subsizes[d], old);
        if (t)
            cu_dtype_release(t);
        if (!n)
            return NULL;
        t = n;
        disp += (ptrdiff_t)starts[d] * stride;
        stride *= sizes[d];
    }
    if (!t)
        return NULL;
    int one = 1;
    cu_dtype *moved = cu_dtype_hindexed(1, &one, 1, &disp, t);
    cu_dtype_release(t);
    if (!moved)
        return NULL;
    cu_dtype *r = cu_dtype_resized(moved, 0, stride);
    cu_dtype_release(moved);
    return r;
}

void cu_dtype_retain(const cu_dtype *cdt)
{
    cu_dtype *dt = (cu_dtype *)cdt;
    if (dt && !dt->builtin)
        __atomic_add_fetch(&dt->refcount, 1, __ATOMIC_RELAXED);
}

void cu_dtype_release(const cu_dtype *cdt)
{
    cu_dtype *dt = (cu_dtype *)cdt;
    if (!dt || dt->builtin)
        return;
    if (__atomic_sub_fetch(&dt->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    struct cu_dtype_priv *p = dt->priv;
    cu_node_release(p->root);
    for (size_t i = 0; i < p->nsc; i++)
        cu_dtype_release(p->sc_type[i]);
    for (int i = 0; i < p->nd; i++)
        cu_dtype_release(p->types[i]);
    free(p->sc_type);
    free(p->sc_copies);
    free(p->ints);
    free(p->aints);
    free(p->types);
    free(dt);   /* the blob: priv lives in the same allocation */
}

int cu_dtype_set_contents(cu_dtype *dt, int combiner, int ni, const int *ints,
                          int na, const ptrdiff_t *aints, int nd,
                          const cu_dtype *const *types)
{
    struct cu_dtype_priv *p = dt->priv;
    int *i2 = ni ? malloc((size_t)ni * sizeof(int)) : NULL;
    ptrdiff_t *a2 = na ? malloc((size_t)na * sizeof(ptrdiff_t)) : NULL;
    cu_dtype **t2 = nd ? malloc((size_t)nd * sizeof(cu_dtype *)) : NULL;
    if ((ni && !i2) || (na && !a2) || (nd && !t2)) {
        free(i2);
        free(a2);
        free(t2);
        return -1;
    }
    if (ni)
        memcpy(i2, ints, (size_t)ni * sizeof(int));
    if (na)
        memcpy(a2, aints, (size_t)na * sizeof(ptrdiff_t));
    for (int i = 0; i < nd; i++) {
        t2[i] = (cu_dtype *)types[i];
        cu_dtype_retain(types[i]);
    }
    for (int i = 0; i < p->nd; i++)
        cu_dtype_release(p->types[i]);
    free(p->ints);
    free(p->aints);
    free(p->types);
    p->combiner = combiner;
    p->ni = ni;
    p->na = na;
    p->nd = nd;
    p->ints = i2;
    p->aints = a2;
    p->types = t2;
    return 0;
}

void cu_dtype_get_contents(const cu_dtype *dt, int *combiner, int *ni,
                           const int **ints, int *na, const ptrdiff_t **aints,
                           int *nd, cu_dtype *const **types)
{
    const struct cu_dtype_priv *p = dt->priv;
    *combiner = p->combiner;
    *ni = p->ni;
    *na = p->na;
    *nd = p->nd;
    if (ints) *ints = p->ints;
    if (aints) *aints = p->aints;
    if (types) *types = p->types;
}

const char *cu_dtype_name(const cu_dtype *dt)
{
    return dt->priv->name;
}

void cu_dtype_set_name(cu_dtype *dt, const char *name)
{
    size_t n = strlen(name);
    if (n >= CU_DTYPE_NAME_MAX)
        n = CU_DTYPE_NAME_MAX - 1;
    memcpy(dt->priv->name, name, n);
    dt->priv->name[n] = '\0';
}

int cu_dtype_builtin_index(const cu_dtype *dt)
{
    return dt->builtin ? dt->priv->index : 0;
}

/* ======================================================================
 * element counting (MPI_Get_elements)
 * ====================================================================== */

/* Basic elements in the first r bytes (r < size) of one element, -1 when
 * r ends inside a basic element. */
static long long partial_elems(const cu_dtype *dt, size_t r)
{
    if (!r)
        return 0;
    const struct cu_dtype_priv *p = dt->priv;
    long long acc = 0;
    for (size_t i = 0; i < p->nsc; i++) {
        const cu_dtype *t = p->sc_type[i];
        if (!t->size)
            continue;
        size_t seg = p->sc_copies[i] * t->size;
        if (r >= seg) {
            acc += (long long)p->sc_copies[i] * t->priv->nelem;
            r -= seg;
            if (!r)
                return acc;
            continue;
        }
        size_t k = r / t->size;
        acc += (long long)k * t->priv->nelem;
        long long q = partial_elems(t, r - k * t->size);
        return q < 0 ? -1 : acc + q;
    }
    return -1;   /* inside a basic type */
}

long long cu_dtype_count_elements(const cu_dtype *dt, size_t bytes)
{
    if (dt->size == 0)
        return bytes ? -1 : 0;
    if (dt->basic) {
        const cu_dtype *b = cu_dtype_builtin(dt->basic);
        if (!b->priv->pair)
            return bytes % b->size ? -1 : (long long)(bytes / b->size);
    }
    size_t full = bytes / dt->size;
    long long q = partial_elems(dt, bytes - full * dt->size);
    return q < 0 ? -1 : (long long)full * dt->priv->nelem + q;
}

/* Bytes of the first k basic elements of one element (k < nelem). */
static size_t prefix_bytes(const cu_dtype *dt, long long k)
{
    const struct cu_dtype_priv *p = dt->priv;
    size_t bytes = 0;
    for (size_t i = 0; i < p->nsc && k > 0; i++) {
        const cu_dtype *t = p->sc_type[i];
        long long per = t->priv->nelem;
        if (!per)
            continue;
        long long seg = (long long)p->sc_copies[i] * per;
        if (k >= seg) {
            bytes += p->sc_copies[i] * t->size;
            k -= seg;
            continue;
        }
        long long c = k / per;
        return bytes + (size_t)c * t->size + prefix_bytes(t, k - c * per);
    }
    return bytes;
}

size_t cu_dtype_elements_bytes(const cu_dtype *dt, long long elements)
{
    if (dt->size == 0 || elements <= 0)
        return 0;
    if (dt->basic) {
        const cu_dtype *b = cu_dtype_builtin(dt->basic);
        if (!b->priv->pair)
            return (size_t)elements * b->size;
    }
    long long per = dt->priv->nelem;
    if (per <= 0)
        return 0;
    return (size_t)(elements / per) * dt->size + prefix_bytes(dt, elements % per);
}

/* ======================================================================
 * walking: pack, unpack, iovec
 * ====================================================================== */

enum { OP_PACK, OP_UNPACK, OP_IOV };

typedef struct walk {
    int           op;
    int           full;     /* OP_IOV: out of iovec entries */
    char         *s;        /* stream cursor */
    size_t        left;     /* stream bytes still to do */
    struct iovec *iov;
    int           niov, maxiov;
} walk;

#define STOP(w) ((w)->left == 0 || (w)->full)

static inline int act(walk *w, char *mem, size_t l)
{
    switch (w->op) {
    case OP_PACK:
        memcpy(w->s, mem, l);
        w->s += l;
        break;
    case OP_UNPACK:
        memcpy(mem, w->s, l);
        w->s += l;
        break;
    default:
        if (w->niov && (char *)w->iov[w->niov - 1].iov_base + w->iov[w->niov - 1].iov_len == mem) {
            w->iov[w->niov - 1].iov_len += l;
        } else if (w->niov == w->maxiov) {
            w->full = 1;
            return 0;
        } else {
            w->iov[w->niov].iov_base = mem;
            w->iov[w->niov].iov_len = l;
            w->niov++;
        }
        break;
    }
    w->left -= l;
    return 1;
}

/* Largest j < n with pre[j] <= x (pre strictly increasing, pre[0] = 0). */
static inline size_t find(const size_t *pre, size_t n, size_t x)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (pre[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void walk_node(walk *w, const cu_node *nd, uintptr_t base, size_t skip);

static void walk_leaf(walk *w, const cu_node *nd, uintptr_t base, size_t skip)
{
    size_t j = 0;
    if (skip) {
        j = find(nd->pre, nd->n, skip);
        size_t in = skip - nd->pre[j];
        size_t l = nd->len[j] - in;
        if (l > w->left)
            l = w->left;
        if (!act(w, ADDR(base, nd->disp[j] + (ptrdiff_t)in), l))
            return;
        j++;
    }
    for (; j < nd->n && !STOP(w); j++) {
        size_t l = nd->len[j];
        if (l > w->left)
            l = w->left;
        if (!act(w, ADDR(base, nd->disp[j]), l))
            return;
    }
}

/* Copies n blocks of SZ bytes between memory (stride apart) and the stream;
 * the constant size lets the compiler emit plain loads and stores. */
#define COPY_LOOP(SZ)                                                       \
    do {                                                                    \
        if (pack)                                                           \
            for (size_t k_ = 0; k_ < n; k_++, p += stride, s += (SZ))       \
                memcpy(s, ADDR(p, 0), (SZ));                                \
        else                                                                \
            for (size_t k_ = 0; k_ < n; k_++, p += stride, s += (SZ))       \
                memcpy(ADDR(p, 0), s, (SZ));                                \
    } while (0)

static void copy_strided(int pack, uintptr_t p, ptrdiff_t stride, char *s, size_t n, size_t bl)
{
    switch (bl) {
    case 1:  COPY_LOOP(1); break;
    case 2:  COPY_LOOP(2); break;
    case 4:  COPY_LOOP(4); break;
    case 8:  COPY_LOOP(8); break;
    case 12: COPY_LOOP(12); break;
    case 16: COPY_LOOP(16); break;
    case 24: COPY_LOOP(24); break;
    case 32: COPY_LOOP(32); break;
    default: COPY_LOOP(bl); break;
    }
}

/* A block of up to 16 bytes as two overlapping loads and stores: no call
 * and no jump table, and the branches repeat with every copy of the type,
 * so they predict well. Longer blocks go to memcpy. */
static inline void small_copy(char *d, const char *s, size_t l)
{
    if (l > 16) {
        memcpy(d, s, l);
    } else if (l >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + l - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + l - 8, &b, 8);
    } else if (l >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + l - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + l - 4, &b, 4);
    } else {
        char a = s[0], b = s[l / 2], c = s[l - 1];
        d[0] = a;
        d[l / 2] = b;
        d[l - 1] = c;
    }
}

/* n whole copies of a LEAF at p + k*stride, to or from the stream s. */
static void leaf_copies(int pack, const cu_node *leaf, uintptr_t p, ptrdiff_t stride, char *s,
                        size_t n)
{
    const ptrdiff_t *disp = leaf->disp;
    const size_t *len = leaf->len;
    size_t nb = leaf->n;
    if (pack) {
        for (size_t k = 0; k < n; k++, p += (uintptr_t)stride)
            for (size_t j = 0; j < nb; j++) {
                small_copy(s, ADDR(p, disp[j]), len[j]);
                s += len[j];
            }
    } else {
        for (size_t k = 0; k < n; k++, p += (uintptr_t)stride)
            for (size_t j = 0; j < nb; j++) {
                small_copy(ADDR(p, disp[j]), s, len[j]);
                s += len[j];
            }
    }
}

/* count copies of child at base + i*stride, starting skip bytes into their stream. */
static void walk_rep(walk *w, size_t count, ptrdiff_t stride, const cu_node *child,
                     uintptr_t base, size_t skip)
{
    size_t cs = child->size;
    if (!cs)
        return;
    size_t i = skip / cs;   /* whole copies skipped by division */
    skip -= i * cs;
    if (child->kind == CU_NODE_LEAF && child->n == 1) {
        /* One block per copy: the vector fast path. */
        uintptr_t p = base + (uintptr_t)child->disp[0] + (uintptr_t)((ptrdiff_t)i * stride);
        if (skip && i < count) {
            size_t l = cs - skip;
            if (l > w->left)
                l = w->left;
            if (!act(w, ADDR(p, skip), l))
                return;
            i++;
            p += (uintptr_t)stride;
        }
        size_t n = count - i;
        if (n > w->left / cs)
            n = w->left / cs;
        if (w->op == OP_IOV) {
            for (size_t k = 0; k < n; k++, p += (uintptr_t)stride)
                if (!act(w, ADDR(p, 0), cs))
                    return;
        } else if (n) {
            copy_strided(w->op == OP_PACK, p, stride, w->s, n, cs);
            w->s += n * cs;
            w->left -= n * cs;
            p += (uintptr_t)((ptrdiff_t)n * stride);
        }
        i += n;
        if (i < count && w->left && !w->full)
            act(w, ADDR(p, 0), w->left);
        return;
    }
    if (child->kind == CU_NODE_LEAF && w->op != OP_IOV) {
        /* Few blocks per copy (structs): whole copies in a tight loop, the
         * partial first and last copies through walk_leaf. */
        if (skip && i < count) {
            walk_leaf(w, child, base + (uintptr_t)((ptrdiff_t)i * stride), skip);
            i++;
            skip = 0;
        }
        size_t n = count - i;
        if (n > w->left / cs)
            n = w->left / cs;
        leaf_copies(w->op == OP_PACK, child, base + (uintptr_t)((ptrdiff_t)i * stride), stride,
                    w->s, n);
        w->s += n * cs;
        w->left -= n * cs;
        i += n;
        if (i < count && w->left)
            walk_leaf(w, child, base + (uintptr_t)((ptrdiff_t)i * stride), 0);
        return;
    }
    for (; i < count && !STOP(w); i++) {
        walk_node(w, child, base + (uintptr_t)((ptrdiff_t)i * stride), skip);
        skip = 0;
    }
}

static void walk_node(walk *w, const cu_node *nd, uintptr_t base, size_t skip)
{
    switch (nd->kind) {
    case CU_NODE_LEAF:
        walk_leaf(w, nd, base, skip);
        break;
    case CU_NODE_REPEAT:
        walk_rep(w, nd->n, nd->stride, nd->child, base + (uintptr_t)nd->off, skip);
        break;
    default: {
        size_t j = skip ? find(nd->pre, nd->n, skip) : 0;
        skip -= nd->pre[j];
        for (; j < nd->n && !STOP(w); j++) {
            walk_node(w, nd->kids[j], base + (uintptr_t)nd->disp[j], skip);
            skip = 0;
        }
    }
    }
}

/* Clamps [offset, offset+len) to the stream; 0 when nothing is left. */
static inline size_t clamp(const cu_dtype *dt, size_t count, size_t offset, size_t len)
{
    size_t total = count * dt->size;
    if (offset >= total)
        return 0;
    return len < total - offset ? len : total - offset;
}

size_t cu_dtype_pack(const void *buf, size_t count, const cu_dtype *dt,
                     size_t offset, void *out, size_t len)
{
    len = clamp(dt, count, offset, len);
    if (!len)
        return 0;
    if (dt->contig) {
        memcpy(out, ADDR(buf, dt->true_lb + (ptrdiff_t)offset), len);
        return len;
    }
    walk w = { .op = OP_PACK, .s = out, .left = len };
    walk_rep(&w, count, dt->extent, dt->priv->root, (uintptr_t)buf, offset);
    return len - w.left;
}

size_t cu_dtype_unpack(void *buf, size_t count, const cu_dtype *dt,
                       size_t offset, const void *in, size_t len)
{
    len = clamp(dt, count, offset, len);
    if (!len)
        return 0;
    if (dt->contig) {
        memcpy(ADDR(buf, dt->true_lb + (ptrdiff_t)offset), in, len);
        return len;
    }
    walk w = { .op = OP_UNPACK, .s = (char *)in, .left = len };
    walk_rep(&w, count, dt->extent, dt->priv->root, (uintptr_t)buf, offset);
    return len - w.left;
}

size_t cu_dtype_blocks(const cu_dtype *dt, size_t count)
{
    if (!count || !dt->size)
        return 0;
    if (dt->contig)
        return 1;
    return sat_mul(count, dt->priv->root->nblk);
}

int cu_dtype_to_iov(const void *buf, size_t count, const cu_dtype *dt,
                    size_t offset, size_t maxlen,
                    struct iovec *iov, int maxiov, size_t *len)
{
    maxlen = clamp(dt, count, offset, maxlen);
    *len = 0;
    if (!maxlen || maxiov <= 0)
        return 0;
    if (dt->contig) {
        iov[0].iov_base = ADDR(buf, dt->true_lb + (ptrdiff_t)offset);
        iov[0].iov_len = maxlen;
        *len = maxlen;
        return 1;
    }
    walk w = { .op = OP_IOV, .left = maxlen, .iov = iov, .maxiov = maxiov };
    walk_rep(&w, count, dt->extent, dt->priv->root, (uintptr_t)buf, offset);
    *len = maxlen - w.left;
    return w.niov;
}
