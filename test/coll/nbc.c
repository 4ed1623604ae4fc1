/*
 * nbc.c — the nonblocking collectives against their blocking siblings and
 * a local reference (standard MPI only; validated with Open MPI).
 *
 * 1. Every I-collective, each count (0, 1, odd, large), root and in-place
 *    form, completed by Wait, a Test loop or Waitall, on MPI_COMM_WORLD and
 *    on a communicator with the ranks reversed; reductions also with a
 *    non-commutative user op (composition of affine maps), checked against
 *    the locally computed rank-ordered result.
 * 2. Many operations outstanding at once on two communicators, with
 *    point-to-point traffic on the same communicators in flight, completed
 *    in mixed order through Waitsome, Testany and Waitall.
 * 3. A datatype freed right after the call that uses it.
 */
#include "ctest.h"

static int rank, size;

static int val(int r, long i, int seed)
{
    return (int)((r * 131 + i * 7 + seed * 1009) % 1000) - 300;
}

static void cmp(const int *got, const int *want, long n, const char *what, int root)
{
    for (long i = 0; i < n; i++)
        CT_CHECK(got[i] == want[i], "%s (root %d, %ld elements) [%ld]: got %d, expected %d",
                 what, root, n, i, got[i], want[i]);
}

static int *ibuf(long n)
{
    int *b = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (!b)
        CT_FAIL("out of memory");
    for (long i = 0; i < n; i++)
        b[i] = -77;
    return b;
}

/* Completes r the way `mode` says (so every completion call is used). */
static void complete(MPI_Request *r, int mode)
{
    int flag = 0, idx;
    MPI_Status st;
    switch (mode % 4) {
    case 0: CT_OK(MPI_Wait(r, &st)); break;
    case 1: while (!flag) CT_OK(MPI_Test(r, &flag, &st)); break;
    case 2: CT_OK(MPI_Waitall(1, r, MPI_STATUSES_IGNORE)); break;
    case 3: CT_OK(MPI_Waitany(1, r, &idx, &st)); break;
    }
    CT_CHECK(*r == MPI_REQUEST_NULL, "request not freed by completion");
}

/* ---- a non-commutative op: affine maps x -> a x + b, composed ---------- */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a0 = a[2 * i], a1 = a[2 * i + 1], b0 = b[2 * i], b1 = b[2 * i + 1];
        b[2 * i] = b0 * a0;          /* (a op b)(x) = b(a(x)) */
        b[2 * i + 1] = b0 * a1 + b1;
    }
}
static MPI_Op op_compose;

static void affine(int r, long i, unsigned *m)
{
    m[0] = (unsigned)(r * 2 + 3 + i);
    m[1] = (unsigned)(r * 5 + 1 + i * 3);
}

/* reference: ranks lo..hi-1 composed in order */
static void affine_ref(int lo, int hi, long i, unsigned *m)
{
    m[0] = 1;
    m[1] = 0;
    for (int r = lo; r < hi; r++) {
        unsigned x[2];
        affine(r, i, x);
        unsigned n0 = x[0] * m[0], n1 = x[0] * m[1] + x[1];
        m[0] = n0;
        m[1] = n1;
    }
}

/* ---- 1. one operation at a time ------------------------------------------- */
static void test_one(MPI_Comm comm, long n, int mode)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    MPI_Request r;
    long pn = n * p;
    /* the v-layouts give a rank up to 2 elements more than n, p ranks 2p more */
    long room = pn + 2L * p + 8;
    int *a = ibuf(room), *b = ibuf(room), *s = ibuf(room), *w = ibuf(room);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int *counts2 = malloc(sizeof(int) * (size_t)p), *displs2 = malloc(sizeof(int) * (size_t)p);
    /* v-layouts: rank i has (n + i) % 3 + n/2 elements, blocks in reverse */
    long tot = 0;
    for (int i = 0; i < p; i++)
        tot += counts[i] = (int)((n + i) % 3 + n / 2);
    for (int i = p - 1, d = 0; i >= 0; d += counts[i--])
        displs[i] = d;
    int *va = ibuf(tot), *vb = ibuf(tot);

    MPI_Ibarrier(comm, &r);
    complete(&r, mode);

    /* every root with COLL_LONG up to 1000 elements (the schedules' trees
     * turn with the root, whatever the count); two roots otherwise */
    for (int root = 0; root < p; root += (ct_long() && n <= 1000 ? 1 : (p > 2 ? p - 2 : 1))) {
        /* bcast */
        for (long i = 0; i < n; i++)
            a[i] = b[i] = me == root ? val(root, i, 1) : -1;
        CT_OK(MPI_Ibcast(a, (int)n, MPI_INT, root, comm, &r));
        complete(&r, mode);
        CT_OK(MPI_Bcast(b, (int)n, MPI_INT, root, comm));
        cmp(a, b, n, "Ibcast", root);

        /* gather, in place at the root too */
        for (long i = 0; i < n; i++)
            s[i] = val(me, i, 2);
        for (int inpl = 0; inpl < 2; inpl++) {
            for (long i = 0; i < pn; i++)
                a[i] = -1;
            if (inpl && me == root)
                memcpy(a + (long)root * n, s, sizeof(int) * (size_t)n);
            CT_OK(MPI_Igather(inpl && me == root ? MPI_IN_PLACE : s, (int)n, MPI_INT, a, (int)n,
                              MPI_INT, root, comm, &r));
            complete(&r, mode + inpl);
            if (me == root)
                for (int k = 0; k < p; k++)
                    for (long i = 0; i < n; i++)
                        CT_CHECK(a[k * n + i] == val(k, i, 2), "Igather root %d from %d [%ld]",
                                 root, k, i);
        }
        /* gatherv / scatterv with the v-layout */
        for (long i = 0; i < counts[me]; i++)
            s[i] = val(me, i, 3);
        CT_OK(MPI_Igatherv(s, counts[me], MPI_INT, va, counts, displs, MPI_INT, root, comm, &r));
        complete(&r, mode);
        CT_OK(MPI_Gatherv(s, counts[me], MPI_INT, vb, counts, displs, MPI_INT, root, comm));
        if (me == root)
            cmp(va, vb, tot, "Igatherv", root);
        for (int inpl = 0; inpl < 2; inpl++) {
            for (long i = 0; i < n; i++)
                a[i] = -1;
            int in_place = inpl && me == root;
            if (me == root)
                for (int k = 0; k < p; k++)
                    for (long i = 0; i < n; i++)
                        w[k * n + i] = val(k, i, 4);
            CT_OK(MPI_Iscatter(w, (int)n, MPI_INT, in_place ? MPI_IN_PLACE : a, (int)n, MPI_INT,
                               root, comm, &r));
            complete(&r, mode + 1);
            if (!in_place)
                for (long i = 0; i < n; i++)
                    CT_CHECK(a[i] == val(me, i, 4), "Iscatter root %d [%ld]", root, i);
        }
        if (me == root)
            for (long i = 0; i < tot; i++)
                va[i] = (int)i * 3 + 1;
        CT_OK(MPI_Iscatterv(va, counts, displs, MPI_INT, a, counts[me], MPI_INT, root, comm,
                            &r));
        complete(&r, mode + 2);
        for (long i = 0; i < counts[me]; i++)
            CT_CHECK(a[i] == (int)(displs[me] + i) * 3 + 1, "Iscatterv root %d [%ld]", root, i);

        /* reduce: sum, and the ordered op (in place at the root) */
        for (long i = 0; i < n; i++)
            s[i] = val(me, i, 5);
        CT_OK(MPI_Ireduce(s, a, (int)n, MPI_INT, MPI_SUM, root, comm, &r));
        complete(&r, mode);
        CT_OK(MPI_Reduce(s, b, (int)n, MPI_INT, MPI_SUM, root, comm));
        if (me == root)
            cmp(a, b, n, "Ireduce", root);
        unsigned *m = (unsigned *)w;
        for (long i = 0; i < n && 2 * i + 1 < pn; i++)
            affine(me, i, &m[2 * i]);
        long mn = n < pn / 2 ? n : pn / 2;
        CT_OK(MPI_Ireduce(me == root ? MPI_IN_PLACE : m, m, (int)mn, MPI_2INT, op_compose, root,
                          comm, &r));
        complete(&r, mode + 3);
        if (me == root)
            for (long i = 0; i < mn; i++) {
                unsigned ref[2];
                affine_ref(0, p, i, ref);
                CT_CHECK(m[2 * i] == ref[0] && m[2 * i + 1] == ref[1],
                         "Ireduce non-commutative root %d [%ld]", root, i);
            }
    }

    /* allgather(v), in place too */
    for (long i = 0; i < n; i++)
        s[i] = val(me, i, 6);
    CT_OK(MPI_Iallgather(s, (int)n, MPI_INT, a, (int)n, MPI_INT, comm, &r));
    complete(&r, mode);
    CT_OK(MPI_Allgather(s, (int)n, MPI_INT, b, (int)n, MPI_INT, comm));
    cmp(a, b, pn, "Iallgather", -1);
    for (long i = 0; i < n; i++)
        a[me * n + i] = s[i];
    CT_OK(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, (int)n, MPI_INT, comm, &r));
    complete(&r, mode + 1);
    cmp(a, b, pn, "Iallgather in place", -1);
    for (long i = 0; i < counts[me]; i++)
        s[i] = val(me, i, 7);
    CT_OK(MPI_Iallgatherv(s, counts[me], MPI_INT, va, counts, displs, MPI_INT, comm, &r));
    complete(&r, mode + 2);
    CT_OK(MPI_Allgatherv(s, counts[me], MPI_INT, vb, counts, displs, MPI_INT, comm));
    cmp(va, vb, tot, "Iallgatherv", -1);

    /* alltoall(v,w), in place too */
    for (long i = 0; i < pn; i++)
        s[i] = val(me, i, 8);
    CT_OK(MPI_Ialltoall(s, (int)n, MPI_INT, a, (int)n, MPI_INT, comm, &r));
    complete(&r, mode);
    CT_OK(MPI_Alltoall(s, (int)n, MPI_INT, b, (int)n, MPI_INT, comm));
    cmp(a, b, pn, "Ialltoall", -1);
    memcpy(a, s, sizeof(int) * (size_t)pn);
    CT_OK(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, (int)n, MPI_INT, comm, &r));
    complete(&r, mode + 1);
    cmp(a, b, pn, "Ialltoall in place", -1);
    /* v: send to i: (me + i) % 3 + n/2 elements; receive from i: (i + me) % 3 + n/2 */
    long st = 0, rt = 0;
    for (int i = 0; i < p; i++) {
        counts[i] = (me + i) % 3 + (int)(n / 2);
        displs[i] = (int)st;
        st += counts[i] + 1;
        counts2[i] = (i + me) % 3 + (int)(n / 2);
        displs2[i] = (int)rt;
        rt += counts2[i] + 2;
    }
    int *vs = ibuf(st), *vr1 = ibuf(rt), *vr2 = ibuf(rt);
    for (long i = 0; i < st; i++)
        vs[i] = val(me, i, 9);
    CT_OK(MPI_Ialltoallv(vs, counts, displs, MPI_INT, vr1, counts2, displs2, MPI_INT, comm, &r));
    complete(&r, mode + 2);
    CT_OK(MPI_Alltoallv(vs, counts, displs, MPI_INT, vr2, counts2, displs2, MPI_INT, comm));
    cmp(vr1, vr2, rt, "Ialltoallv", -1);
    MPI_Datatype *ts = malloc(sizeof(MPI_Datatype) * (size_t)p);
    for (int i = 0; i < p; i++) {
        ts[i] = MPI_INT;
        displs[i] *= (int)sizeof(int);
        displs2[i] *= (int)sizeof(int);
    }
    for (long i = 0; i < rt; i++)
        vr1[i] = vr2[i] = -5;
    CT_OK(MPI_Ialltoallw(vs, counts, displs, ts, vr1, counts2, displs2, ts, comm, &r));
    complete(&r, mode + 3);
    CT_OK(MPI_Alltoallw(vs, counts, displs, ts, vr2, counts2, displs2, ts, comm));
    cmp(vr1, vr2, rt, "Ialltoallw", -1);
    free(ts);
    free(vs);
    free(vr1);
    free(vr2);

    /* allreduce, reduce_scatter(_block), scan, exscan: sum and ordered op */
    for (long i = 0; i < pn; i++)
        s[i] = val(me, i, 10);
    CT_OK(MPI_Iallreduce(s, a, (int)n, MPI_INT, MPI_SUM, comm, &r));
    complete(&r, mode);
    CT_OK(MPI_Allreduce(s, b, (int)n, MPI_INT, MPI_SUM, comm));
    cmp(a, b, n, "Iallreduce", -1);
    memcpy(a, s, sizeof(int) * (size_t)n);
    CT_OK(MPI_Iallreduce(MPI_IN_PLACE, a, (int)n, MPI_INT, MPI_SUM, comm, &r));
    complete(&r, mode + 1);
    cmp(a, b, n, "Iallreduce in place", -1);
    for (int i = 0; i < p; i++)
        counts[i] = (int)((n + i) % 3 + n / 2);
    CT_OK(MPI_Ireduce_scatter(s, a, counts, MPI_INT, MPI_SUM, comm, &r));
    complete(&r, mode + 2);
    CT_OK(MPI_Reduce_scatter(s, b, counts, MPI_INT, MPI_SUM, comm));
    cmp(a, b, counts[me], "Ireduce_scatter", -1);
    memcpy(a, s, sizeof(int) * (size_t)pn);
    CT_OK(MPI_Ireduce_scatter_block(MPI_IN_PLACE, a, (int)n, MPI_INT, MPI_SUM, comm, &r));
    complete(&r, mode + 3);
    CT_OK(MPI_Reduce_scatter_block(s, b, (int)n, MPI_INT, MPI_SUM, comm));
    cmp(a, b, n, "Ireduce_scatter_block in place", -1);
    CT_OK(MPI_Iscan(s, a, (int)n, MPI_INT, MPI_SUM, comm, &r));
    complete(&r, mode);
    CT_OK(MPI_Scan(s, b, (int)n, MPI_INT, MPI_SUM, comm));
    cmp(a, b, n, "Iscan", -1);
    CT_OK(MPI_Iexscan(s, a, (int)n, MPI_INT, MPI_SUM, comm, &r));
    complete(&r, mode + 1);
    CT_OK(MPI_Exscan(s, b, (int)n, MPI_INT, MPI_SUM, comm));
    if (me > 0)
        cmp(a, b, n, "Iexscan", -1);

    long mn = n < pn / 2 ? n : pn / 2;
    unsigned *m = (unsigned *)s, *o = (unsigned *)a;
    for (int k = 0; k < 5; k++) {
        for (long i = 0; i < mn; i++)
            affine(me, i, &m[2 * i]);
        int c1 = (int)(mn / p), *rc = counts;
        for (int i = 0; i < p; i++)
            rc[i] = c1;
        switch (k) {
        case 0: CT_OK(MPI_Iallreduce(m, o, (int)mn, MPI_2INT, op_compose, comm, &r)); break;
        case 1: CT_OK(MPI_Iscan(m, o, (int)mn, MPI_2INT, op_compose, comm, &r)); break;
        case 2: CT_OK(MPI_Iexscan(m, o, (int)mn, MPI_2INT, op_compose, comm, &r)); break;
        case 3: CT_OK(MPI_Ireduce_scatter(m, o, rc, MPI_2INT, op_compose, comm, &r)); break;
        case 4: CT_OK(MPI_Iallreduce(MPI_IN_PLACE, m, (int)mn, MPI_2INT, op_compose, comm, &r));
            break;
        }
        complete(&r, mode + k);
        long cnt = k == 3 ? c1 : mn;
        unsigned *got = k == 4 ? m : o;
        if (k == 2 && me == 0)
            continue;
        for (long i = 0; i < cnt; i++) {
            unsigned ref[2];
            long e = k == 3 ? (long)me * c1 + i : i;
            affine_ref(0, k == 1 ? me + 1 : k == 2 ? me : p, e, ref);
            CT_CHECK(got[2 * i] == ref[0] && got[2 * i + 1] == ref[1],
                     "non-commutative case %d, %ld elements [%ld]", k, mn, i);
        }
    }
    free(a); free(b); free(s); free(w); free(va); free(vb);
    free(counts); free(displs); free(counts2); free(displs2);
}

/* ---- 2. many at once, two communicators, point-to-point in between -------- */
enum { NOPS = 7 };
static void test_many(MPI_Comm c1, MPI_Comm c2, long n, int how)
{
    int me, p, me2;
    MPI_Comm_rank(c1, &me);
    MPI_Comm_size(c1, &p);
    MPI_Comm_rank(c2, &me2);
    MPI_Request r[2 * NOPS + 2];
    int *bc = ibuf(n), *ar = ibuf(n), *ag = ibuf(n * p), *at = ibuf(n * p), *sc = ibuf(n);
    int *s = ibuf(n * p), *ar2 = ibuf(n), *bc2 = ibuf(n), *sc2 = ibuf(n), *pt = ibuf(n);
    int *ps = ibuf(n);
    for (long i = 0; i < n * p; i++)
        s[i] = val(me, i, 11);
    for (long i = 0; i < n; i++) {
        bc[i] = me == 0 ? val(0, i, 12) : -1;
        bc2[i] = me2 == p - 1 ? val(p - 1, i, 13) : -1;
        ps[i] = val(me, i, 14);
    }
    int k = 0;
    /* point-to-point on c1 posted before, during and after the collectives */
    CT_OK(MPI_Irecv(pt, (int)n, MPI_INT, (me - 1 + p) % p, 5, c1, &r[k++]));
    CT_OK(MPI_Ibcast(bc, (int)n, MPI_INT, 0, c1, &r[k++]));
    CT_OK(MPI_Iallreduce(s, ar, (int)n, MPI_INT, MPI_SUM, c1, &r[k++]));
    CT_OK(MPI_Iallreduce(s, ar2, (int)n, MPI_INT, MPI_MAX, c2, &r[k++]));
    CT_OK(MPI_Iallgather(s, (int)n, MPI_INT, ag, (int)n, MPI_INT, c1, &r[k++]));
    CT_OK(MPI_Ibcast(bc2, (int)n, MPI_INT, p - 1, c2, &r[k++]));
    CT_OK(MPI_Isend(ps, (int)n, MPI_INT, (me + 1) % p, 5, c1, &r[k++]));
    CT_OK(MPI_Ialltoall(s, (int)n, MPI_INT, at, (int)n, MPI_INT, c1, &r[k++]));
    CT_OK(MPI_Iscan(s, sc, (int)n, MPI_INT, MPI_SUM, c1, &r[k++]));
    CT_OK(MPI_Iscan(s, sc2, (int)n, MPI_INT, MPI_SUM, c2, &r[k++]));
    CT_OK(MPI_Ibarrier(c2, &r[k++]));
    int left = k;
    if (how == 0) {
        while (left > 0) {
            int out, idx[2 * NOPS + 2];
            CT_OK(MPI_Waitsome(k, r, &out, idx, MPI_STATUSES_IGNORE));
            CT_CHECK(out != MPI_UNDEFINED && out > 0, "Waitsome returned %d", out);
            left -= out;
        }
    } else if (how == 1) {
        while (left > 0) {
            int idx, flag;
            CT_OK(MPI_Testany(k, r, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag && idx != MPI_UNDEFINED)
                left--;
        }
    } else {
        /* the last ones first, one at a time, then the rest */
        for (int i = k - 1; i >= k / 2; i--)
            CT_OK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
        CT_OK(MPI_Waitall(k, r, MPI_STATUSES_IGNORE));
    }
    for (long i = 0; i < n; i++) {
        CT_CHECK(bc[i] == val(0, i, 12), "outstanding Ibcast [%ld]", i);
        CT_CHECK(bc2[i] == val(p - 1, i, 13), "outstanding Ibcast on c2 [%ld]", i);
        CT_CHECK(pt[i] == val((me - 1 + p) % p, i, 14), "point-to-point [%ld]", i);
        int sum = 0, mx = -1000000, ps_ = 0, ps2 = 0;
        for (int q = 0; q < p; q++) {
            sum += val(q, i, 11);
            if (val(q, i, 11) > mx)
                mx = val(q, i, 11);
        }
        for (int q = 0; q <= me; q++)
            ps_ += val(q, i, 11);
        /* c2 has the ranks reversed: my prefix there is world ranks me..p-1 */
        for (int q = me; q < p; q++)
            ps2 += val(q, i, 11);
        CT_CHECK(ar[i] == sum, "outstanding Iallreduce [%ld]", i);
        CT_CHECK(ar2[i] == mx, "outstanding Iallreduce MAX on c2 [%ld]", i);
        CT_CHECK(sc[i] == ps_, "outstanding Iscan [%ld]: %d vs %d", i, sc[i], ps_);
        CT_CHECK(sc2[i] == ps2, "outstanding Iscan on c2 [%ld]", i);
        for (int q = 0; q < p; q++) {
            CT_CHECK(ag[q * n + i] == val(q, i, 11), "outstanding Iallgather");
            CT_CHECK(at[q * n + i] == val(q, me * n + i, 11), "outstanding Ialltoall");
        }
    }
    free(bc); free(ar); free(ag); free(at); free(sc); free(s); free(ar2); free(bc2);
    free(sc2); free(pt); free(ps);
}

/* ---- 3. a type freed before completion ----------------------------------- */
static void test_type_freed(MPI_Comm comm, long n)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    MPI_Datatype vec;
    MPI_Type_vector((int)n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *b = ibuf(2 * n), *s = ibuf(2 * n * p), *g = ibuf(2 * n * p);
    for (long i = 0; i < 2 * n; i++)
        b[i] = me == 0 ? (int)i : -1;
    for (long i = 0; i < 2 * n * p; i++)
        s[i] = val(me, i, 15);
    MPI_Request r[2];
    CT_OK(MPI_Ibcast(b, 1, vec, 0, comm, &r[0]));
    CT_OK(MPI_Ialltoall(s, 1, vec, g, (int)n, MPI_INT, comm, &r[1]));
    MPI_Type_free(&vec);
    CT_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (long i = 0; i < 2 * n; i++)
        CT_CHECK(b[i] == (i % 2 == 0 || me == 0 ? (int)i : -1), "Ibcast of a freed type [%ld]", i);
    /* block j of a sender: every other int from j * extent (2n - 1 ints) */
    for (int q = 0; q < p; q++)
        for (long i = 0; i < n; i++)
            CT_CHECK(g[q * n + i] == val(q, (long)me * (2 * n - 1) + 2 * i, 15),
                     "Ialltoall of a freed type from %d [%ld]", q, i);
    free(b);
    free(s);
    free(g);
}

/* ---- 4. bad input: the checks of the blocking siblings --------------------- */
/* cls2: a class another MPI gives for the same error, or cls */
static void expect2(int rc, int cls, int cls2, const char *what)
{
    int got;
    MPI_Error_class(rc, &got);
    CT_CHECK(got == cls || got == cls2, "%s: error class %d, expected %d", what, got, cls);
}
#define expect(rc, cls, what) expect2(rc, cls, cls, what)

static void test_errors(void)
{
    int a[4] = { 0 }, b[64], cnt[64] = { 0 }, dis[64] = { 0 };
    MPI_Request r;
    MPI_Comm self = MPI_COMM_SELF;
    MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    expect(MPI_Ibcast(a, 1, MPI_INT, 1, self, &r), MPI_ERR_ROOT, "Ibcast root out of range");
    expect(MPI_Ibcast(a, -1, MPI_INT, 0, self, &r), MPI_ERR_COUNT, "Ibcast negative count");
    expect(MPI_Ibarrier(MPI_COMM_NULL, &r), MPI_ERR_COMM, "Ibarrier on MPI_COMM_NULL");
    expect2(MPI_Igatherv(a, 1, MPI_INT, b, NULL, dis, MPI_INT, 0, self, &r), MPI_ERR_ARG,
            MPI_ERR_COUNT, "Igatherv recvcounts NULL at the root");
    expect(MPI_Iscatter(a, 2, MPI_INT, b, 1, MPI_INT, 0, self, &r), MPI_ERR_TRUNCATE,
           "Iscatter root sends more than it receives");
    expect(MPI_Iallreduce(a, b, 1, MPI_FLOAT, MPI_BAND, self, &r), MPI_ERR_OP,
           "Iallreduce MPI_BAND on floats");
    cnt[0] = -1;
    expect(MPI_Ireduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, self, &r), MPI_ERR_COUNT,
           "Ireduce_scatter negative count");
    expect2(MPI_Iscan(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, self, &r), MPI_ERR_TYPE, MPI_ERR_OP,
            "Iscan MPI_DATATYPE_NULL");   /* Open MPI checks the op's pairing first */
    /* buffer misuse: clumpi reports it (other MPIs need not detect it) */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    if (strstr(lib, "clumpi")) {
        expect(MPI_Ialltoall(a, 1, MPI_INT, a, 1, MPI_INT, self, &r), MPI_ERR_BUFFER,
               "Ialltoall sendbuf == recvbuf");
        expect(MPI_Iallgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, self, &r),
               MPI_ERR_BUFFER, "Iallgather recvbuf in place");
        expect(MPI_Ireduce(a, a, 1, MPI_INT, MPI_SUM, 0, self, &r), MPI_ERR_BUFFER,
               "Ireduce sendbuf == recvbuf");
        expect(MPI_Ibcast(a, 1, MPI_INT, 0, self, NULL), MPI_ERR_ARG, "Ibcast request NULL");
        /* MPI-3.1 section 5.12: freeing or cancelling a nonblocking
         * collective's request is erroneous; clumpi says so and keeps the
         * request, which still completes (on every rank, so it matches). */
        MPI_Comm d;
        CT_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
        b[0] = rank;
        CT_OK(MPI_Iallreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, d, &r));
        MPI_Request keep = r;
        expect(MPI_Request_free(&r), MPI_ERR_REQUEST, "Request_free of an Iallreduce");
        CT_CHECK(r == keep, "Request_free of an Iallreduce changed the handle");
        expect(MPI_Cancel(&r), MPI_ERR_REQUEST, "Cancel of an Iallreduce");
        CT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CT_CHECK(b[0] == size * (size - 1) / 2, "Iallreduce after a refused free: %d, "
                 "expected %d", b[0], size * (size - 1) / 2);
        CT_OK(MPI_Comm_free(&d));
    }
    /* the failed calls drew no operation number: one that works still matches */
    CT_OK(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    CT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "nbc");
    rank = ct_wrank;
    size = ct_wsize;
    MPI_Op_create(compose, 0, &op_compose);
    MPI_Comm rev = ct_comm(1), dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    long counts[] = { 0, 1, 7, ct_long_big(size) ? 100003 : 4099 };
    int mode = 0;
    for (int c = 0; c < 4; c++) {
        test_one(MPI_COMM_WORLD, counts[c], mode++);
        if (c % 2 || ct_long())   /* the reversed ranks: counts 1 and large */
            test_one(rev, counts[c], mode++);
    }
    for (int how = 0; how < 3; how++)
        for (int c = ct_long() ? 1 : 2; c < 4; c++)
            test_many(dup, rev, counts[c], how);
    test_type_freed(MPI_COMM_WORLD, 1000);
    test_errors();
    MPI_Comm_free(&dup);
    MPI_Op_free(&op_compose);
    if (rank == 0)
        printf("nbc: %d ranks ok\n", size);
    return ct_finish();
}
