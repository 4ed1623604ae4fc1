/* np: 5 2 3 4 7 8
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_COLL_NODE_PPN=2 CLUMPI_COLL_BCAST=hier CLUMPI_COLL_REDUCE=hier
 * env: CLUMPI_COLL_BCAST=binary CLUMPI_COLL_SEGSIZE=1023 CLUMPI_COLL_REDUCE=binary
 * (5 first: the env: runs, at the first count, have groups of 2 and 3; the
 * last two force the local phases' algorithms of the blocking forms)
 *
 * Every collective on intercommunicators (MPI-3.1 5.2.2), blocking and
 * nonblocking: MPI_COMM_WORLD split three ways (rank % 3 == 0 against the
 * rest, rank 0 against the rest, the lower half against the upper), joined
 * by MPI_Intercomm_create. Rooted operations run with each group as the
 * root's side and the root at its group's first and last rank (MPI_ROOT,
 * MPI_PROC_NULL, the remote rank); counts 0, 1, 7, 1000 and 20000 (for
 * reduce-scatter at most 100 per rank), dense ints and
 * ints with holes (a resized type) on either side; reductions with SUM,
 * MAX, BXOR and a non-commutative user op on pairs. Every result is
 * compared with a reference computed here from what each rank contributes
 * (ctest.h's ct_val), and buffers that must stay untouched are checked.
 * Barriers are checked for their one promise (no rank of either group
 * leaves before all have come), and the argument checks for their classes.
 * A selection runs again on intercommunicators made by Comm_dup, Comm_idup,
 * Comm_create and Comm_split of each.
 */
#include "ctest.h"

/* The two groups of an intercommunicator by colour: world ranks in order. */
typedef struct {
    MPI_Comm inter, local;
    int c;          /* my group's colour */
    int me;         /* my rank in it */
    int n[2];       /* group sizes */
    int w[2][64];   /* world ranks of group members */
} ic_t;

static int color_of(int kind, int g, int p)
{
    switch (kind) {
    case 0: return g % 3 == 0;
    case 1: return g == 0;
    default: return g < p / 2;
    }
}

/* 0 when the split leaves a group empty (one rank). */
static int ic_make(ic_t *ic, int kind)
{
    memset(ic, 0, sizeof *ic);
    for (int g = 0; g < ct_wsize; g++) {
        int col = color_of(kind, g, ct_wsize);
        ic->w[col][ic->n[col]++] = g;
        if (g == ct_wrank) {
            ic->c = col;
            ic->me = ic->n[col] - 1;
        }
    }
    if (!ic->n[0] || !ic->n[1])
        return 0;
    CT_OK(MPI_Comm_split(MPI_COMM_WORLD, ic->c, ct_wrank, &ic->local));
    CT_OK(MPI_Intercomm_create(ic->local, 0, MPI_COMM_WORLD, ic->w[1 - ic->c][0], 42,
                               &ic->inter));
    MPI_Comm_set_errhandler(ic->inter, MPI_ERRORS_RETURN);
    int flag = 0, lsize = 0, rsize = 0, rank = -1;
    CT_OK(MPI_Comm_test_inter(ic->inter, &flag));
    CT_OK(MPI_Comm_size(ic->inter, &lsize));
    CT_OK(MPI_Comm_remote_size(ic->inter, &rsize));
    CT_OK(MPI_Comm_rank(ic->inter, &rank));
    CT_CHECK(flag && lsize == ic->n[ic->c] && rsize == ic->n[1 - ic->c] && rank == ic->me,
             "intercommunicator: inter %d, size %d, remote size %d, rank %d", flag, lsize,
             rsize, rank);
    return 1;
}

static void ic_free(ic_t *ic)
{
    CT_OK(MPI_Comm_free(&ic->inter));
    CT_OK(MPI_Comm_free(&ic->local));
}

#define ME(ic) ((ic)->w[(ic)->c][(ic)->me])
#define RN(ic) ((ic)->n[1 - (ic)->c])
#define RW(ic, j) ((ic)->w[1 - (ic)->c][j])

/* One call, blocking or (nb) nonblocking and waited for: icall names the
 * request req_. */
#define DO(nb, bcall, icall)                                                  \
    do {                                                                      \
        if (nb) {                                                             \
            MPI_Request req_ = MPI_REQUEST_NULL;                              \
            CT_OK(icall);                                                     \
            CT_OK(MPI_Wait(&req_, MPI_STATUS_IGNORE));                        \
        } else {                                                              \
            CT_OK(bcall);                                                     \
        }                                                                     \
    } while (0)

typedef struct { int nb; long n; const ct_layout *sl, *rl; } tcase;
static tcase cases[10];
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* A call that must fail with error class cls (the communicator's handler
 * returns errors). */
#define FAILS(cls, call)                                                      \
    do {                                                                      \
        int rc_ = (call), cls_ = -1;                                          \
        MPI_Error_class(rc_, &cls_);                                          \
        CT_CHECK(rc_ != MPI_SUCCESS && cls_ == (cls), "%s: %s class %d, want %s", \
                 #call, rc_ == MPI_SUCCESS ? "success," : "error", cls_, #cls); \
    } while (0)

static void set_cases(void)
{
    const tcase c[NCASES] = {
        { 0, 0, &ct_dense, &ct_dense }, { 0, 1, &ct_dense, &ct_holes },
        { 0, 7, &ct_holes, &ct_dense }, { 0, 1000, &ct_dense, &ct_dense },
        { 1, 0, &ct_dense, &ct_dense }, { 1, 1, &ct_holes, &ct_holes },
        { 1, 7, &ct_dense, &ct_holes }, { 1, 1000, &ct_holes, &ct_dense },
        { 0, 20000, &ct_dense, &ct_holes }, { 1, 20000, &ct_holes, &ct_dense },
    };
    memcpy(cases, c, sizeof c);
}

static void fill(int *b, const ct_layout *l, long n, int from, int to, int seed)
{
    for (long i = 0; i < n; i++)
        CT_AT(b, l, i) = ct_val(from, to, i, seed);
}

/* every slot of b (count elements of l) still CT_HOLE */
static void untouched(const int *b, const ct_layout *l, long count, const char *what)
{
    for (long i = 0; i < count * l->stride; i++)
        CT_CHECK(b[i] == CT_HOLE, "%s: slot %ld written", what, i);
}

/* ---- rooted data movement ------------------------------------------------ */

/* Root's v-form blocks: count n + j for remote rank j (plain: n), one
 * element of gap between blocks (plain: none). Returns the total span. */
static long vblocks(int m, long n, int v, int *counts, int *displs)
{
    long d = 0;
    for (int j = 0; j < m; j++) {
        counts[j] = (int)(v ? n + j : n);
        displs[j] = (int)d;
        d += counts[j] + (v ? 1 : 0);
    }
    return d;
}

static void t_bcast(ic_t *ic, const tcase *t, int G, int r, int seed)
{
    long n = t->n;
    int *b = ct_alloc(n, t->rl);
    int root_here = ic->c == G;
    int root = root_here ? (ic->me == r ? MPI_ROOT : MPI_PROC_NULL) : r;
    int rw = ic->w[G][r];
    if (root == MPI_ROOT)
        fill(b, t->rl, n, rw, 0, seed);
    DO(t->nb, MPI_Bcast(b, (int)n, t->rl->t, root, ic->inter),
       MPI_Ibcast(b, (int)n, t->rl->t, root, ic->inter, &req_));
    if (root == MPI_PROC_NULL)
        untouched(b, t->rl, n, "bcast at MPI_PROC_NULL");
    for (long i = 0; root != MPI_PROC_NULL && i < n; i++)
        CT_EXPECT(b, t->rl, i, ct_val(rw, 0, i, seed), "bcast n=%ld root %d of group %d", n, r,
                  G);
    free(b);
}

/* One Gather, Gatherv, Scatter or Scatterv call: the counts/displs arrays
 * belong to the root's side (recvcounts of gatherv, sendcounts of
 * scatterv). */
static void rooted_call(int nb, int v, int scatter, const void *sb, int sc, MPI_Datatype st,
                        void *rb, int rc, MPI_Datatype rt, const int *counts,
                        const int *displs, int root, MPI_Comm comm)
{
    if (scatter && v)
        DO(nb, MPI_Scatterv(sb, counts, displs, st, rb, rc, rt, root, comm),
           MPI_Iscatterv(sb, counts, displs, st, rb, rc, rt, root, comm, &req_));
    else if (scatter)
        DO(nb, MPI_Scatter(sb, sc, st, rb, rc, rt, root, comm),
           MPI_Iscatter(sb, sc, st, rb, rc, rt, root, comm, &req_));
    else if (v)
        DO(nb, MPI_Gatherv(sb, sc, st, rb, counts, displs, rt, root, comm),
           MPI_Igatherv(sb, sc, st, rb, counts, displs, rt, root, comm, &req_));
    else
        DO(nb, MPI_Gather(sb, sc, st, rb, rc, rt, root, comm),
           MPI_Igather(sb, sc, st, rb, rc, rt, root, comm, &req_));
}

/* Gather(v) (scatter 0) or Scatter(v) (scatter 1) to/from rank r of group G. */
static void t_rooted(ic_t *ic, const tcase *t, int G, int r, int v, int scatter, int seed)
{
    long n = t->n;
    int m = RN(ic), counts[64], displs[64];
    if (ic->c == G && ic->me != r) {   /* MPI_PROC_NULL: no argument significant */
        rooted_call(t->nb, v, scatter, NULL, -1, MPI_DATATYPE_NULL, NULL, -1,
                    MPI_DATATYPE_NULL, NULL, NULL, MPI_PROC_NULL, ic->inter);
        return;
    }
    if (ic->c == G) {   /* the root: one block per remote rank */
        long span = vblocks(m, n, v, counts, displs);
        const ct_layout *l = scatter ? t->sl : t->rl;
        int *b = ct_alloc(span, l);
        for (int j = 0; j < m && scatter; j++)
            for (long i = 0; i < counts[j]; i++)
                CT_AT(b, l, displs[j] + i) = ct_val(ME(ic), RW(ic, j), i, seed);
        if (scatter)
            rooted_call(t->nb, v, 1, b, (int)n, l->t, NULL, -1, MPI_DATATYPE_NULL, counts,
                        displs, MPI_ROOT, ic->inter);
        else
            rooted_call(t->nb, v, 0, NULL, -1, MPI_DATATYPE_NULL, b, (int)n, l->t, counts,
                        displs, MPI_ROOT, ic->inter);
        for (int j = 0; j < m && !scatter; j++) {
            for (long i = 0; i < counts[j]; i++)
                CT_EXPECT(b, l, displs[j] + i, ct_val(RW(ic, j), 0, i, seed),
                          "gather%s n=%ld from remote %d", v ? "v" : "", n, j);
            if (v)
                CT_CHECK(CT_AT(b, l, displs[j] + counts[j]) == CT_HOLE, "gap written");
        }
        free(b);
        return;
    }
    /* the other group: my block to or from the root */
    long mine = v ? n + ic->me : n;
    const ct_layout *l = scatter ? t->rl : t->sl;
    int *b = ct_alloc(mine, l);
    if (scatter) {
        rooted_call(t->nb, v, 1, NULL, -1, MPI_DATATYPE_NULL, b, (int)mine, l->t, NULL, NULL,
                    r, ic->inter);
    } else {
        fill(b, l, mine, ME(ic), 0, seed);
        rooted_call(t->nb, v, 0, b, (int)mine, l->t, NULL, -1, MPI_DATATYPE_NULL, NULL, NULL,
                    r, ic->inter);
    }
    for (long i = 0; scatter && i < mine; i++)
        CT_EXPECT(b, l, i, ct_val(ic->w[G][r], ME(ic), i, seed), "scatter%s n=%ld",
                  v ? "v" : "", n);
    free(b);
}

/* ---- all-to-all data movement --------------------------------------------- */

static void t_allgather(ic_t *ic, const tcase *t, int v, int seed)
{
    long n = t->n, mine = v ? n + ic->me : n;
    int m = RN(ic), counts[64], displs[64];
    long span = vblocks(m, n, v, counts, displs);
    int *s = ct_alloc(mine, t->sl), *b = ct_alloc(span, t->rl);
    fill(s, t->sl, mine, ME(ic), 0, seed);
    if (v)
        DO(t->nb, MPI_Allgatherv(s, (int)mine, t->sl->t, b, counts, displs, t->rl->t,
                                 ic->inter),
           MPI_Iallgatherv(s, (int)mine, t->sl->t, b, counts, displs, t->rl->t, ic->inter,
                           &req_));
    else
        DO(t->nb, MPI_Allgather(s, (int)n, t->sl->t, b, (int)n, t->rl->t, ic->inter),
           MPI_Iallgather(s, (int)n, t->sl->t, b, (int)n, t->rl->t, ic->inter, &req_));
    for (int j = 0; j < m; j++)
        for (long i = 0; i < counts[j]; i++)
            CT_EXPECT(b, t->rl, displs[j] + i, ct_val(RW(ic, j), 0, i, seed),
                      "allgather%s n=%ld from remote %d", v ? "v" : "", n, j);
    free(s);
    free(b);
}

/* Elements rank s of one group sends rank r of the other: form 0 the plain
 * alltoall, else varied per pair (v and w forms). */
static long pair_count(int form, long n, int s, int r)
{
    return form ? n + (s + 2 * r) % 3 : n;
}

static void t_alltoall(ic_t *ic, const tcase *t, int form, int seed)
{
    long n = t->n;
    int m = RN(ic), sc[64], sd[64], rc[64], rd[64], sdb[64], rdb[64];
    MPI_Datatype st[64], rt[64];
    long ss = 0, rs = 0;
    for (int j = 0; j < m; j++) {
        sc[j] = (int)pair_count(form, n, ic->me, j);
        rc[j] = (int)pair_count(form, n, j, ic->me);
        sd[j] = (int)ss;
        rd[j] = (int)rs;
        ss += sc[j] + (form ? 1 : 0);
        rs += rc[j] + (form ? 1 : 0);
        sdb[j] = sd[j] * t->sl->stride * (int)sizeof(int);
        rdb[j] = rd[j] * t->rl->stride * (int)sizeof(int);
        st[j] = t->sl->t;
        rt[j] = t->rl->t;
    }
    int *s = ct_alloc(ss, t->sl), *b = ct_alloc(rs, t->rl);
    for (int j = 0; j < m; j++)
        for (long i = 0; i < sc[j]; i++)
            CT_AT(s, t->sl, sd[j] + i) = ct_val(ME(ic), RW(ic, j), i, seed);
    if (form == 0)
        DO(t->nb, MPI_Alltoall(s, (int)n, t->sl->t, b, (int)n, t->rl->t, ic->inter),
           MPI_Ialltoall(s, (int)n, t->sl->t, b, (int)n, t->rl->t, ic->inter, &req_));
    else if (form == 1)
        DO(t->nb, MPI_Alltoallv(s, sc, sd, t->sl->t, b, rc, rd, t->rl->t, ic->inter),
           MPI_Ialltoallv(s, sc, sd, t->sl->t, b, rc, rd, t->rl->t, ic->inter, &req_));
    else
        DO(t->nb, MPI_Alltoallw(s, sc, sdb, st, b, rc, rdb, rt, ic->inter),
           MPI_Ialltoallw(s, sc, sdb, st, b, rc, rdb, rt, ic->inter, &req_));
    for (int j = 0; j < m; j++) {
        for (long i = 0; i < rc[j]; i++)
            CT_EXPECT(b, t->rl, rd[j] + i, ct_val(RW(ic, j), ME(ic), i, seed),
                      "alltoall form %d n=%ld from remote %d", form, n, j);
        if (form)
            CT_CHECK(CT_AT(b, t->rl, rd[j] + rc[j]) == CT_HOLE, "gap written");
    }
    free(s);
    free(b);
}

/* ---- reductions ------------------------------------------------------------- */

/* Affine maps x -> a x + b mod M as pairs (a, b); in op inout composes
 * them (in applied last): not commutative, so order errors show. */
#define AFF_M 1000003LL
static void aff(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *x = in;
    int *y = inout;
    for (int k = 0; k < *len; k++) {
        long long a = x[2 * k], b = x[2 * k + 1];
        long long c = y[2 * k], d = y[2 * k + 1];
        y[2 * k] = (int)(a * c % AFF_M);
        y[2 * k + 1] = (int)((a * d + b) % AFF_M);
    }
}
static MPI_Op aff_op;
static MPI_Datatype pair_t;

enum { R_SUM, R_MAX, R_BXOR, R_AFF, R_NOPS };
static MPI_Op rop(int o)
{
    return o == R_SUM ? MPI_SUM : o == R_MAX ? MPI_MAX : o == R_BXOR ? MPI_BXOR : aff_op;
}
static MPI_Datatype rtype(int o) { return o == R_AFF ? pair_t : MPI_INT; }
static int rints(int o) { return o == R_AFF ? 2 : 1; }

/* element i of world rank g's vector (rints(o) ints at e) */
static void contrib(int o, int g, long i, int seed, int *e)
{
    int v = ct_val(g, 0, i, seed);
    e[0] = o == R_AFF ? v % 1000 + 1 : v % 100000;
    if (o == R_AFF)
        e[1] = (v / 1000) % 1000;
}

/* element i of the reduction over group G's vectors, in rank order */
static void reference(int o, const ic_t *ic, int G, long i, int seed, int *acc)
{
    contrib(o, ic->w[G][0], i, seed, acc);
    for (int k = 1; k < ic->n[G]; k++) {
        int x[2], one = 1;
        contrib(o, ic->w[G][k], i, seed, x);
        if (o == R_SUM)
            acc[0] += x[0];
        else if (o == R_MAX)
            acc[0] = x[0] > acc[0] ? x[0] : acc[0];
        else if (o == R_BXOR)
            acc[0] ^= x[0];
        else {   /* acc = acc op x: x is the inout operand */
            aff(acc, x, &one, NULL);
            acc[0] = x[0];
            acc[1] = x[1];
        }
    }
}

static int *red_vec(int o, int g, long n, int seed)
{
    int *v = malloc((size_t)(n ? n : 1) * 2 * sizeof(int));
    CT_CHECK(v, "out of memory");
    for (long i = 0; i < n; i++)
        contrib(o, g, i, seed, v + i * rints(o));
    return v;
}

static int *red_out(long n)
{
    int *v = malloc((size_t)(n ? n : 1) * 2 * sizeof(int));
    CT_CHECK(v, "out of memory");
    for (long i = 0; i < 2 * n; i++)
        v[i] = CT_HOLE;
    return v;
}

/* out[i - first] must be element i of group G's reduction, i in [first, first + n) */
static void red_check(int o, const ic_t *ic, int G, const int *out, long first, long n,
                      int seed, const char *what)
{
    for (long i = 0; i < n; i++) {
        int want[2];
        reference(o, ic, G, first + i, seed, want);
        for (int k = 0; k < rints(o); k++)
            CT_CHECK(out[i * rints(o) + k] == want[k], "%s op %d element %ld: got %d, want %d",
                     what, o, first + i, out[i * rints(o) + k], want[k]);
    }
}

static void t_reduce(ic_t *ic, int nb, long n, int o, int G, int r, int seed)
{
    MPI_Op op = rop(o);
    MPI_Datatype dt = rtype(o);
    if (ic->c == G && ic->me != r) {
        DO(nb, MPI_Reduce(NULL, NULL, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, MPI_PROC_NULL,
                          ic->inter),
           MPI_Ireduce(NULL, NULL, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, MPI_PROC_NULL, ic->inter,
                       &req_));
    } else if (ic->c == G) {
        int *out = red_out(n);
        DO(nb, MPI_Reduce(NULL, out, (int)n, dt, op, MPI_ROOT, ic->inter),
           MPI_Ireduce(NULL, out, (int)n, dt, op, MPI_ROOT, ic->inter, &req_));
        red_check(o, ic, 1 - G, out, 0, n, seed, "reduce");
        free(out);
    } else {
        int *in = red_vec(o, ME(ic), n, seed);
        DO(nb, MPI_Reduce(in, NULL, (int)n, dt, op, r, ic->inter),
           MPI_Ireduce(in, NULL, (int)n, dt, op, r, ic->inter, &req_));
        free(in);
    }
}

static void t_allreduce(ic_t *ic, int nb, long n, int o, int seed)
{
    int *in = red_vec(o, ME(ic), n, seed), *out = red_out(n);
    DO(nb, MPI_Allreduce(in, out, (int)n, rtype(o), rop(o), ic->inter),
       MPI_Iallreduce(in, out, (int)n, rtype(o), rop(o), ic->inter, &req_));
    red_check(o, ic, 1 - ic->c, out, 0, n, seed, "allreduce");
    free(in);
    free(out);
}

/* Reduce_scatter: both groups reduce vectors of t elements, each cut among
 * its own ranks (uneven); block form: n * (remote size) elements per local
 * rank, so that both groups' vectors are n0 * n1 * n long. */
static void t_reduce_scatter(ic_t *ic, int nb, long n, int o, int block, int seed)
{
    int m = ic->n[ic->c], counts[64];
    long t = block ? n * m * RN(ic) : n * 3 + 1, first = 0;
    for (int i = 0; i < m; i++) {
        counts[i] = block ? (int)(n * RN(ic)) : (int)(t / m + (i < t % m));
        if (i < ic->me)
            first += counts[i];
    }
    int *in = red_vec(o, ME(ic), t, seed), *out = red_out(counts[ic->me]);
    if (block)
        DO(nb, MPI_Reduce_scatter_block(in, out, counts[0], rtype(o), rop(o), ic->inter),
           MPI_Ireduce_scatter_block(in, out, counts[0], rtype(o), rop(o), ic->inter, &req_));
    else
        DO(nb, MPI_Reduce_scatter(in, out, counts, rtype(o), rop(o), ic->inter),
           MPI_Ireduce_scatter(in, out, counts, rtype(o), rop(o), ic->inter, &req_));
    red_check(o, ic, 1 - ic->c, out, first, counts[ic->me], seed,
              block ? "reduce_scatter_block" : "reduce_scatter");
    free(in);
    free(out);
}

/* ---- barriers ---------------------------------------------------------------- */

/* Each rank, once out of the barrier, sends a token to a remote rank; no
 * token may be seen before the receiver has entered it (it looks for a
 * while first). */
static void t_barrier(ic_t *ic)
{
    int flag = 0, tok = ME(ic), m = RN(ic), mine = ic->n[ic->c];
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 0.002 && !flag)
        CT_OK(MPI_Iprobe(MPI_ANY_SOURCE, 7, ic->inter, &flag, MPI_STATUS_IGNORE));
    CT_CHECK(!flag, "a remote rank left MPI_Barrier before this one entered");
    CT_OK(MPI_Barrier(ic->inter));
    MPI_Request r;
    CT_OK(MPI_Isend(&tok, 1, MPI_INT, ic->me % m, 7, ic->inter, &r));
    for (int j = 0; j < m; j++) {
        int got = -1;
        if (j % mine != ic->me)
            continue;
        CT_OK(MPI_Recv(&got, 1, MPI_INT, j, 7, ic->inter, MPI_STATUS_IGNORE));
        CT_CHECK(got == RW(ic, j), "token %d from remote %d", got, j);
    }
    CT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

/* Group G's rank 0 tests its Ibarrier while the other group's rank 0 has
 * not started its own (it waits for G's go-ahead): it must not complete. */
static void t_ibarrier(ic_t *ic, int G)
{
    MPI_Request r;
    int flag = 0, go = 1;
    if (ic->c != G && ic->me == 0)
        CT_OK(MPI_Recv(&go, 1, MPI_INT, 0, 8, ic->inter, MPI_STATUS_IGNORE));
    CT_OK(MPI_Ibarrier(ic->inter, &r));
    if (ic->c == G && ic->me == 0) {
        for (int k = 0; k < 50; k++) {
            CT_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            CT_CHECK(!flag, "MPI_Ibarrier completed before the remote group entered");
        }
        CT_OK(MPI_Send(&go, 1, MPI_INT, 0, 8, ic->inter));
    }
    CT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

/* Several nonblocking operations outstanding at once on one
 * intercommunicator, completed in reverse order. */
static void t_overlap(ic_t *ic, int seed)
{
    long n = 100;
    int m = RN(ic), *b = ct_alloc(n, &ct_dense), *ag = ct_alloc(n * m, &ct_dense);
    int *s = ct_alloc(n, &ct_dense), *in = red_vec(R_AFF, ME(ic), n, seed), *out = red_out(n);
    int root = ic->c == 0 ? (ic->me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request r[3];
    if (root == MPI_ROOT)
        fill(b, &ct_dense, n, ME(ic), 0, seed);
    fill(s, &ct_dense, n, ME(ic), 1, seed);
    CT_OK(MPI_Ibcast(b, (int)n, MPI_INT, root, ic->inter, &r[0]));
    CT_OK(MPI_Iallreduce(in, out, (int)n, pair_t, aff_op, ic->inter, &r[1]));
    CT_OK(MPI_Iallgather(s, (int)n, MPI_INT, ag, (int)n, MPI_INT, ic->inter, &r[2]));
    for (int k = 2; k >= 0; k--)
        CT_OK(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
    for (long i = 0; root == 0 && i < n; i++)
        CT_EXPECT(b, &ct_dense, i, ct_val(ic->w[0][0], 0, i, seed), "overlapped ibcast");
    for (int j = 0; j < m; j++)
        for (long i = 0; i < n; i++)
            CT_EXPECT(ag, &ct_dense, j * n + i, ct_val(RW(ic, j), 1, i, seed),
                      "overlapped iallgather");
    red_check(R_AFF, ic, 1 - ic->c, out, 0, n, seed, "overlapped iallreduce");
    free(b);
    free(ag);
    free(s);
    free(in);
    free(out);
}

/* ---- intercommunicators made from another ---------------------------------- */

/* ic restricted to the ranks of each group whose index has parity `par`
 * (par < 0: all of them), over comm. */
static void ic_view(const ic_t *ic, MPI_Comm comm, int par, ic_t *out)
{
    memset(out, 0, sizeof *out);
    out->inter = comm;
    out->local = MPI_COMM_NULL;
    out->c = ic->c;
    for (int g = 0; g < 2; g++)
        for (int j = 0; j < ic->n[g]; j++) {
            if (par >= 0 && j % 2 != par)
                continue;
            if (g == ic->c && j == ic->me)
                out->me = out->n[g];
            out->w[g][out->n[g]++] = ic->w[g][j];
        }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
}

/* A few operations of each kind, both forms. */
static void t_some(ic_t *ic, int seed)
{
    t_barrier(ic);
    t_bcast(ic, &cases[2], 1, ic->n[1] - 1, ++seed);
    t_rooted(ic, &cases[6], 0, 0, 1, 0, ++seed);
    t_alltoall(ic, &cases[1], 2, ++seed);
    t_allgather(ic, &cases[7], 1, ++seed);
    t_reduce(ic, 0, 7, R_AFF, 1, 0, ++seed);
    t_allreduce(ic, 1, 1000, R_SUM, ++seed);
    t_allreduce(ic, 0, 7, R_AFF, ++seed);
    t_reduce_scatter(ic, 0, 10, R_AFF, 0, ++seed);
    t_reduce_scatter(ic, 1, 3, R_MAX, 1, ++seed);
}

/* The collectives on intercommunicators made by Comm_dup, Comm_idup,
 * Comm_create (the even ranks of each group) and Comm_split (by the parity
 * of the rank in each group) of this one. */
static void t_derived(ic_t *ic, int seed)
{
    MPI_Comm d;
    MPI_Request r;
    ic_t v;
    CT_OK(MPI_Comm_dup(ic->inter, &d));
    ic_view(ic, d, -1, &v);
    t_some(&v, seed);
    CT_OK(MPI_Comm_free(&d));
    CT_OK(MPI_Comm_idup(ic->inter, &d, &r));
    CT_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    ic_view(ic, d, -1, &v);
    t_some(&v, seed + 100);
    CT_OK(MPI_Comm_free(&d));
    MPI_Group g, even;
    int ranks[64], ne = 0;
    for (int j = 0; j < ic->n[ic->c]; j += 2)
        ranks[ne++] = j;
    CT_OK(MPI_Comm_group(ic->inter, &g));
    CT_OK(MPI_Group_incl(g, ne, ranks, &even));
    CT_OK(MPI_Comm_create(ic->inter, even, &d));
    CT_CHECK((d == MPI_COMM_NULL) == (ic->me % 2 == 1), "create: my result");
    if (d != MPI_COMM_NULL) {
        ic_view(ic, d, 0, &v);
        t_some(&v, seed + 300);
        CT_OK(MPI_Comm_free(&d));
    }
    MPI_Group_free(&even);
    MPI_Group_free(&g);
    CT_OK(MPI_Comm_split(ic->inter, ic->me % 2, ic->me, &d));
    if (d != MPI_COMM_NULL) {   /* both groups have ranks of my parity */
        ic_view(ic, d, ic->me % 2, &v);
        int lsize = 0, rsize = 0;
        CT_OK(MPI_Comm_size(d, &lsize));
        CT_OK(MPI_Comm_remote_size(d, &rsize));
        CT_CHECK(lsize == v.n[v.c] && rsize == v.n[1 - v.c], "split: sizes %d, %d", lsize,
                 rsize);
        t_some(&v, seed + 200);
        CT_OK(MPI_Comm_free(&d));
    }
}

/* ---- argument checks: local, before any message ------------------------------ */

static void t_errors(ic_t *ic)
{
    int a[4] = { 0 }, b[64] = { 0 }, counts[64], m = RN(ic);
    MPI_Comm ic_ = ic->inter;
    MPI_Request r;
    for (int j = 0; j < 64; j++)
        counts[j] = 1;
    FAILS(MPI_ERR_ROOT, MPI_Bcast(a, 1, MPI_INT, m, ic_));
    FAILS(MPI_ERR_ROOT, MPI_Ibcast(a, 1, MPI_INT, -7, ic_, &r));
    FAILS(MPI_ERR_ROOT, MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, m + 3, ic_));
    FAILS(MPI_ERR_BUFFER, MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, ic_));
    FAILS(MPI_ERR_BUFFER, MPI_Ialltoall(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, ic_, &r));
    FAILS(MPI_ERR_BUFFER, MPI_Allreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, ic_));
    FAILS(MPI_ERR_BUFFER, MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, 0, ic_));
    FAILS(MPI_ERR_BUFFER, MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, ic_));
    FAILS(MPI_ERR_BUFFER, MPI_Gather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_ROOT, ic_));
    FAILS(MPI_ERR_TYPE, MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, 0, ic_));
    counts[m - 1] = -1;
    FAILS(MPI_ERR_COUNT, MPI_Gatherv(a, 1, MPI_INT, b, counts, counts, MPI_INT, MPI_ROOT, ic_));
    FAILS(MPI_ERR_COUNT, MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, ic_));
    FAILS(MPI_ERR_OP, MPI_Iallreduce(a, b, 1, MPI_INT, MPI_OP_NULL, ic_, &r));
    FAILS(MPI_ERR_COMM, MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, ic_));
    FAILS(MPI_ERR_COMM, MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, ic_));
    FAILS(MPI_ERR_COMM, MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, ic_, &r));
    FAILS(MPI_ERR_COMM, MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, ic_, &r));
    FAILS(MPI_ERR_COMM, MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, ic_));
    FAILS(MPI_ERR_COMM, MPI_Ineighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, ic_, &r));
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv, "intercoll");
    set_cases();
    CT_OK(MPI_Type_contiguous(2, MPI_INT, &pair_t));
    CT_OK(MPI_Type_commit(&pair_t));
    CT_OK(MPI_Op_create(aff, 0, &aff_op));
    for (int kind = 0; kind < 3; kind++) {
        ic_t ic;
        if (!ic_make(&ic, kind))
            continue;
        int seed = kind * 1000;
        t_errors(&ic);
        t_barrier(&ic);
        for (int G = 0; G < 2; G++) {
            t_ibarrier(&ic, G);
            for (int x = 0; x < 2; x++) {
                int r = x ? ic.n[G] - 1 : 0;
                if (x && r == 0)
                    continue;
                for (int k = 0; k < NCASES; k++) {
                    const tcase *t = &cases[k];
                    t_bcast(&ic, t, G, r, ++seed);
                    for (int v = 0; v < 2; v++)
                        for (int sc = 0; sc < 2; sc++)
                            t_rooted(&ic, t, G, r, v, sc, ++seed);
                    for (int o = 0; o < R_NOPS; o++)
                        t_reduce(&ic, t->nb, t->n, o, G, r, ++seed);
                }
            }
        }
        for (int k = 0; k < NCASES; k++) {
            const tcase *t = &cases[k];
            for (int v = 0; v < 2; v++)
                t_allgather(&ic, t, v, ++seed);
            for (int form = 0; form < 3; form++)
                t_alltoall(&ic, t, form, ++seed);
            for (int o = 0; o < R_NOPS; o++) {
                t_allreduce(&ic, t->nb, t->n, o, ++seed);
                t_reduce_scatter(&ic, t->nb, t->n > 100 ? 100 : t->n, o, 0, ++seed);
                t_reduce_scatter(&ic, t->nb, t->n > 100 ? 10 : t->n, o, 1, ++seed);
            }
        }
        t_overlap(&ic, ++seed);
        t_derived(&ic, seed += 1000);
        t_barrier(&ic);
        ic_free(&ic);
    }
    MPI_Op_free(&aff_op);
    MPI_Type_free(&pair_t);
    return ct_finish();
}
