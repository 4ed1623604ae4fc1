/*
 * reduce_algos.c — the reductions against a local reference, as a user
 * program would call them. test/coll/reduce.sh and its siblings run it
 * once per algorithm of one operation (through test/coll/run-coll, which
 * forces CLUMPI_COLL_<OP>=<name>) and rank count; argv[1] names the
 * operation (reduce, allreduce, reduce_scatter, reduce_scatter_block,
 * scan, exscan; default all; with "all", COLL_OPS may list some of them,
 * separated by ":", as test/coll/zip-variants does). The algorithm does
 * not show here, so the same program validates any MPI. COLL_LONG=1 (make
 * check-long) adds every root up to 20011 elements and megabyte counts for
 * three representative kinds (up to 9 ranks; the other kinds every root up
 * to 1001 elements); COLL_BIG=0 leaves the megabytes out (the variants
 * that force a segment size of 1 KiB +- 1 byte: 20011 elements already
 * make dozens of segments, and the default segment size takes the
 * megabytes).
 *
 * Covered per operation: counts 0, 1, odd and long, every root, MPI_IN_PLACE, predefined ops on int/double, a
 * vector datatype (gaps must stay untouched), MINLOC/MAXLOC with ties on a
 * padded and an unpadded pair type (and a derived type of pairs), a
 * commutative user op and a non-commutative one (2x2 matrix product mod
 * 2^32, which exposes any change of operand order).
 */
#include "../mpi/mtest.h"

static int rank, size, longrun;
static MPI_Op op_usum, op_matmul;
static MPI_Datatype t_mat, t_vec, t_pairs;

/* Values that keep sums and products exact in int and double. */
static int val(int r, size_t i)
{
    return (int)((r * 7 + (int)(i % 1013) * 3) % 11) - 5;
}

static void usum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

typedef struct { uint32_t m[4]; } mat;

static mat mat_mul(mat a, mat b)
{
    mat c;
    c.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2];
    c.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];
    c.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2];
    c.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];
    return c;
}

/* inout = in * inout: MPI's order (in is the lower ranks' operand). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    if (*dt != t_mat)
        MT_FAIL("matmul called with the wrong datatype");
    mat *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = mat_mul(a[i], b[i]);
}

static mat mat_of(int r, size_t i)
{
    mat x = { { (uint32_t)(r + 1), (uint32_t)(i + 2), (uint32_t)(r * 3 + (int)i), 1u } };
    return x;
}

/* ---- reference: the reduction over ranks [lo, hi) of element i ---------- */
enum kind { K_SUM_INT, K_MAX_DBL, K_USUM, K_MATMUL, K_VEC_SUM, K_MAXLOC_2INT, K_MINLOC_DINT,
            K_MAXLOC_PAIRS, K_NKIND };
static const char *kname[] = { "sum/int", "max/double", "usersum/int", "matmul",
                               "sum/vector", "maxloc/2int", "minloc/double_int",
                               "maxloc/contig(2,double_int)" };

typedef struct { int v, i; } p2int;
typedef struct { double v; int i; } pdint;

/* Element geometry of each kind: extent in bytes, MPI type, op. */
static size_t ext_of(int k)
{
    switch (k) {
    case K_SUM_INT: case K_USUM: return sizeof(int);
    case K_MAX_DBL: return sizeof(double);
    case K_MATMUL: return sizeof(mat);
    case K_VEC_SUM: return 6 * sizeof(int);   /* vector(2,1,3) resized to 6 ints */
    case K_MAXLOC_2INT: return sizeof(p2int);
    case K_MINLOC_DINT: return sizeof(pdint);
    default: return 2 * sizeof(pdint);
    }
}
static MPI_Datatype type_of(int k)
{
    switch (k) {
    case K_SUM_INT: case K_USUM: return MPI_INT;
    case K_MAX_DBL: return MPI_DOUBLE;
    case K_MATMUL: return t_mat;
    case K_VEC_SUM: return t_vec;
    case K_MAXLOC_2INT: return MPI_2INT;
    case K_MINLOC_DINT: return MPI_DOUBLE_INT;
    default: return t_pairs;
    }
}
static MPI_Op op_of(int k)
{
    switch (k) {
    case K_SUM_INT: case K_VEC_SUM: return MPI_SUM;
    case K_MAX_DBL: return MPI_MAX;
    case K_USUM: return op_usum;
    case K_MATMUL: return op_matmul;
    case K_MAXLOC_2INT: case K_MAXLOC_PAIRS: return MPI_MAXLOC;
    default: return MPI_MINLOC;
    }
}

/* A (double, int) pair written field by field: copying a whole pdint
 * would copy its padding, which is indeterminate in a local and must keep
 * the fill byte (exscan compares rank 0's untouched buffer bytewise). */
static void put_dint(unsigned char *p, double v, int i)
{
    memcpy(p + offsetof(pdint, v), &v, sizeof v);
    memcpy(p + offsetof(pdint, i), &i, sizeof i);
}

/* Rank r's operand: element i written at p (ext_of bytes; gaps get 0x5a). */
static void put(int k, int r, size_t i, unsigned char *p)
{
    memset(p, 0x5a, ext_of(k));
    switch (k) {
    case K_SUM_INT: case K_USUM: { int v = val(r, i); memcpy(p, &v, sizeof v); break; }
    case K_MAX_DBL: { double v = val(r, i) * 0.5; memcpy(p, &v, sizeof v); break; }
    case K_MATMUL: { mat m = mat_of(r, i); memcpy(p, &m, sizeof m); break; }
    case K_VEC_SUM: {
        int a = val(r, i), b = val(r, i + 7);
        memcpy(p, &a, sizeof a);
        memcpy(p + 3 * sizeof(int), &b, sizeof b);
        break;
    }
    case K_MAXLOC_2INT: { p2int x = { (r + (int)i) % 3, r }; memcpy(p, &x, sizeof x); break; }
    case K_MINLOC_DINT: put_dint(p, (double)((r * 5 + (int)i) % 4), r); break;
    default:
        put_dint(p, (double)((r + (int)i) % 3), r);
        put_dint(p + sizeof(pdint), (double)(r % 2), size - r);
        break;
    }
}

/* Reference of ranks [lo, hi) at element i, into p (hi > lo). */
static void ref(int k, int lo, int hi, size_t i, unsigned char *p)
{
    unsigned char tmp[64];
    put(k, lo, i, p);
    for (int r = lo + 1; r < hi; r++) {
        put(k, r, i, tmp);
        switch (k) {
        case K_SUM_INT: case K_USUM: {
            int a, b; memcpy(&a, p, sizeof a); memcpy(&b, tmp, sizeof b); a += b;
            memcpy(p, &a, sizeof a); break;
        }
        case K_MAX_DBL: {
            double a, b; memcpy(&a, p, sizeof a); memcpy(&b, tmp, sizeof b);
            if (b > a) memcpy(p, &b, sizeof b);
            break;
        }
        case K_MATMUL: {
            mat a, b; memcpy(&a, p, sizeof a); memcpy(&b, tmp, sizeof b);
            a = mat_mul(a, b); memcpy(p, &a, sizeof a); break;
        }
        case K_VEC_SUM:
            for (int j = 0; j < 2; j++) {
                int a, b;
                memcpy(&a, p + 3 * sizeof(int) * (size_t)j, sizeof a);
                memcpy(&b, tmp + 3 * sizeof(int) * (size_t)j, sizeof b);
                a += b;
                memcpy(p + 3 * sizeof(int) * (size_t)j, &a, sizeof a);
            }
            break;
        case K_MAXLOC_2INT: {
            p2int a, b; memcpy(&a, p, sizeof a); memcpy(&b, tmp, sizeof b);
            if (b.v > a.v || (b.v == a.v && b.i < a.i)) a = b;
            memcpy(p, &a, sizeof a); break;
        }
        case K_MINLOC_DINT: {
            pdint a, b; memcpy(&a, p, sizeof a); memcpy(&b, tmp, sizeof b);
            if (b.v < a.v || (b.v == a.v && b.i < a.i)) { a.v = b.v; a.i = b.i; }
            memcpy(p, &a.v, sizeof a.v); memcpy(p + offsetof(pdint, i), &a.i, sizeof a.i);
            break;
        }
        default:
            for (int j = 0; j < 2; j++) {
                pdint a, b;
                unsigned char *q = p + j * sizeof(pdint), *t = tmp + j * sizeof(pdint);
                memcpy(&a.v, q, sizeof a.v); memcpy(&a.i, q + offsetof(pdint, i), sizeof a.i);
                memcpy(&b.v, t, sizeof b.v); memcpy(&b.i, t + offsetof(pdint, i), sizeof b.i);
                if (b.v > a.v || (b.v == a.v && b.i < a.i)) a = b;
                memcpy(q, &a.v, sizeof a.v); memcpy(q + offsetof(pdint, i), &a.i, sizeof a.i);
            }
            break;
        }
    }
}

/* Compare the data bytes of element i (gaps of the vector and the pair
 * structs' padding are not data; the vector's gaps are checked apart). */
static int same(int k, const unsigned char *a, const unsigned char *b)
{
    switch (k) {
    case K_VEC_SUM:
        return memcmp(a, b, sizeof(int)) == 0 &&
               memcmp(a + 3 * sizeof(int), b + 3 * sizeof(int), sizeof(int)) == 0;
    case K_MINLOC_DINT:
        return memcmp(a, b, sizeof(double)) == 0 &&
               memcmp(a + offsetof(pdint, i), b + offsetof(pdint, i), sizeof(int)) == 0;
    case K_MAXLOC_PAIRS:
        return same(K_MINLOC_DINT, a, b) && same(K_MINLOC_DINT, a + sizeof(pdint), b + sizeof(pdint));
    default:
        return memcmp(a, b, ext_of(k)) == 0;
    }
}

static unsigned char *buf_new(int k, size_t n)
{
    return mt_malloc(ext_of(k) * (n ? n : 1));
}
static void fill(int k, int r, unsigned char *b, size_t n, size_t first)
{
    for (size_t i = 0; i < n; i++)
        put(k, r, first + i, b + i * ext_of(k));
}
/* The reference of ranks [lo, hi) for elements 0..upto-1, computed once
 * and kept: ref() costs one operand per rank and element, which with 16
 * ranks and megabyte counts would dwarf the collectives under test. A
 * rank needs at most three ranges at once (the whole communicator, its
 * scan and its exscan prefix), one slot each. */
static const unsigned char *ref_range(int k, int lo, int hi, size_t upto)
{
    static struct { int k, lo, hi; size_t n; unsigned char *b; } slot[3];
    static int next;
    int s;
    for (s = 0; s < 3; s++)
        if (slot[s].b && slot[s].k == k && slot[s].lo == lo && slot[s].hi == hi)
            break;
    if (s == 3) {
        s = next;
        next = (next + 1) % 3;
        slot[s].k = k;
        slot[s].lo = lo;
        slot[s].hi = hi;
        slot[s].n = 0;
    }
    if (slot[s].n < upto || !slot[s].b) {
        free(slot[s].b);
        slot[s].b = buf_new(k, upto);
        for (size_t i = 0; i < upto; i++)
            ref(k, lo, hi, i, slot[s].b + i * ext_of(k));
        slot[s].n = upto;
    }
    return slot[s].b;
}

/* Check n elements of b against the reduction over [lo, hi), elements
 * first.., and that the vector's gaps still hold the fill byte. */
static void verify(int k, const unsigned char *b, size_t n, size_t first, int lo, int hi,
                   const char *what, int root)
{
    const unsigned char *want = ref_range(k, lo, hi, first + n);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *g = b + i * ext_of(k);
        const unsigned char *e = want + (first + i) * ext_of(k);
        CHECK(same(k, g, e), "%s %s: count %zu root %d: element %zu wrong (ranks %d..%d)",
              what, kname[k], n, root, first + i, lo, hi - 1);
        if (k == K_VEC_SUM)
            for (size_t j = 1; j < 6; j++)
                if (j != 3)
                    CHECK(mt_all(g + j * sizeof(int), sizeof(int), 0x5a) < 0,
                          "%s sum/vector: gap %zu of element %zu overwritten", what, j, i);
    }
}

static void test_allreduce(int k, size_t n, int inplace)
{
    unsigned char *s = buf_new(k, n), *r = buf_new(k, n);
    fill(k, rank, inplace ? r : s, n, 0);
    if (!inplace)
        memset(r, 0x5a, ext_of(k) * n);
    MPI_OK(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, (int)n, type_of(k), op_of(k),
                         MPI_COMM_WORLD));
    verify(k, r, n, 0, 0, size, inplace ? "allreduce(in place)" : "allreduce", -1);
    free(s);
    free(r);
}

static void test_reduce(int k, size_t n, int root, int inplace)
{
    unsigned char *s = buf_new(k, n), *r = buf_new(k, n);
    int me = rank == root;
    fill(k, rank, inplace && me ? r : s, n, 0);
    if (!(inplace && me))
        memset(r, 0x5a, ext_of(k) * n);
    MPI_OK(MPI_Reduce(inplace && me ? MPI_IN_PLACE : s, r, (int)n, type_of(k), op_of(k), root,
                      MPI_COMM_WORLD));
    if (me)
        verify(k, r, n, 0, 0, size, inplace ? "reduce(in place)" : "reduce", root);
    free(s);
    free(r);
}

static void test_reduce_scatter(int k, size_t base, int inplace, int block)
{
    int *rc = mt_malloc(sizeof(int) * (size_t)size);
    size_t total = 0, first = 0;
    for (int i = 0; i < size; i++) {
        /* irregular blocks, some empty; the block form uses base for all */
        rc[i] = block ? (int)base : (int)((base + (size_t)i * 5) % 4 == 1 ? 0 : base + (size_t)i % 3);
        if (i < rank)
            first += (size_t)rc[i];
        total += (size_t)rc[i];
    }
    unsigned char *s = buf_new(k, total), *r = buf_new(k, inplace ? total : (size_t)rc[rank]);
    fill(k, rank, inplace ? r : s, total, 0);
    if (!inplace)
        memset(r, 0x5a, ext_of(k) * (size_t)rc[rank]);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (block)
        MPI_OK(MPI_Reduce_scatter_block(sb, r, (int)base, type_of(k), op_of(k), MPI_COMM_WORLD));
    else
        MPI_OK(MPI_Reduce_scatter(sb, r, rc, type_of(k), op_of(k), MPI_COMM_WORLD));
    verify(k, r, (size_t)rc[rank], first, 0, size,
           block ? (inplace ? "reduce_scatter_block(in place)" : "reduce_scatter_block")
                 : (inplace ? "reduce_scatter(in place)" : "reduce_scatter"), -1);
    free(s);
    free(r);
    free(rc);
}

static void test_scan(int k, size_t n, int inplace, int exclusive)
{
    unsigned char *s = buf_new(k, n), *r = buf_new(k, n);
    fill(k, rank, inplace ? r : s, n, 0);
    if (!inplace)
        memset(r, 0x5a, ext_of(k) * n);
    unsigned char *keep = buf_new(k, n);
    memcpy(keep, r, ext_of(k) * n);
    const void *sb = inplace ? MPI_IN_PLACE : s;
    if (exclusive)
        MPI_OK(MPI_Exscan(sb, r, (int)n, type_of(k), op_of(k), MPI_COMM_WORLD));
    else
        MPI_OK(MPI_Scan(sb, r, (int)n, type_of(k), op_of(k), MPI_COMM_WORLD));
    const char *what = exclusive ? (inplace ? "exscan(in place)" : "exscan")
                                 : (inplace ? "scan(in place)" : "scan");
    if (exclusive && rank == 0)
        CHECK(memcmp(keep, r, ext_of(k) * n) == 0, "%s: rank 0's recvbuf was modified", what);
    else
        verify(k, r, n, 0, 0, exclusive ? rank : rank + 1, what, -1);
    free(keep);
    free(s);
    free(r);
}

/* Is name one of the ":"-separated entries of list? */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list;; p++) {
        if (strncmp(p, name, n) == 0 && (p[n] == ':' || p[n] == '\0'))
            return 1;
        if (!(p = strchr(p, ':')))
            return 0;
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "reduce_algos");
    rank = mt_rank;
    size = mt_size;
    const char *which = argc > 1 ? argv[1] : "all";
    if (strcmp(which, "all") == 0 && getenv("COLL_OPS"))
        which = getenv("COLL_OPS");
    longrun = getenv("COLL_LONG") && strcmp(getenv("COLL_LONG"), "0") != 0;
#define DO(name) (strcmp(which, "all") == 0 || in_list(which, name))
    MPI_OK(MPI_Op_create(usum, 1, &op_usum));
    MPI_OK(MPI_Op_create(matmul, 0, &op_matmul));
    MPI_OK(MPI_Type_contiguous(4, MPI_UINT32_T, &t_mat));
    MPI_OK(MPI_Type_commit(&t_mat));
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &v));
    MPI_OK(MPI_Type_create_resized(v, 0, 6 * sizeof(int), &t_vec));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_commit(&t_vec));
    MPI_OK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &t_pairs));
    MPI_OK(MPI_Type_commit(&t_pairs));

    /* Counts: 0, 1, odd, several segments, and long (~1 MiB of every
     * kind: 4 MiB for the wider ones made the megabyte counts most of
     * check-long's reductions without cutting or moving data otherwise). */
    size_t counts[] = { 0, 1, 7, 1001, 20011, 262147 };
    const char *big = getenv("COLL_BIG");
    int ncounts = longrun && !(big && strcmp(big, "0") == 0) ? 6 : 5;
    size_t cap = (size_t)1 << 20;
    for (int k = 0; k < K_NKIND; k++) {
#ifndef CLUMPI
        /* Predefined ops on derived types (all elements of one basic type)
         * are an extension MPICH and clumpi offer; Open MPI refuses them. */
        if (k == K_VEC_SUM || k == K_MAXLOC_PAIRS)
            continue;
#endif
        for (int c = 0; c < ncounts; c++) {
            size_t n = counts[c];
            /* Long counts only for the kinds that stress layout and order
             * (COLL_LONG: megabytes for int sums, the non-commutative user
             * op and the vector type, up to 9 ranks; 16 ranks on 2 cores
             * stop at 20011 elements): the other kinds differ from these
             * in the op applied, which the short counts check, not in how
             * the algorithms cut and move data. */
            int rep = k == K_SUM_INT || k == K_MATMUL || k == K_VEC_SUM;
            if (n > 5000 && (longrun ? c == 5 && (!rep || size > 9)
                                     : !rep && k != K_MAXLOC_2INT && k != K_MAXLOC_PAIRS))
                continue;
            if (n * ext_of(k) > cap)
                n = (cap / ext_of(k)) | 1;
            for (int ip = 0; ip < 2; ip++) {
                if (DO("allreduce"))
                    test_allreduce(k, n, ip);
                if (DO("scan"))
                    test_scan(k, n, ip, 0);
                if (DO("exscan"))
                    test_scan(k, n, ip, 1);
                if (DO("reduce_scatter_block"))
                    test_reduce_scatter(k, n / (size_t)size + (size_t)c % 2, ip, 1);
                if (DO("reduce_scatter"))
                    test_reduce_scatter(k, n / (size_t)size, ip, 0);
                /* every root up to tens of thousands of elements (many
                 * segments; beyond 1001 only for the representative
                 * kinds: the tree turns with the root, not with the op),
                 * the first, middle and last for megabytes */
                for (int root = 0; DO("reduce") && root < size; root++)
                    if (n < 5000 || (longrun && n < 100000 && rep) || root == 0 ||
                        root == size - 1 || (longrun && root == size / 2))
                        test_reduce(k, n, root, ip);
            }
        }
    }
    MPI_OK(MPI_Op_free(&op_usum));
    MPI_OK(MPI_Op_free(&op_matmul));
    MPI_OK(MPI_Type_free(&t_mat));
    MPI_OK(MPI_Type_free(&t_vec));
    MPI_OK(MPI_Type_free(&t_pairs));
    return mt_finish();
}
