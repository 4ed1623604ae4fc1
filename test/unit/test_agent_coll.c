/*
 * test_agent_coll.c — NI-level collectives (coll/bcast_ni.c, reduce_ni.c)
 * against a reference, with the algorithm named by argv[1] (default
 * ni-binary) forced for MPI_Bcast and, when it is an ni-* one, for
 * MPI_Reduce, MPI_Allreduce and MPI_Barrier too (CLUMPI_COLL_<OP>, set
 * before MPI_Init).
 * Broadcast: every root, sizes around the packet payload (MTU 2 KiB) and
 * the credit window, a derived type, and two overlapping communicators in
 * flight at once (ranks enter them in opposite orders: NI forwarding must
 * not need the receivers, and the trees must not deadlock each other).
 * Reductions: predefined ops on predefined types (pair types and a vector
 * type included), every root, sizes across the packet (of the run's MTU)
 * and window and megabytes, in
 * place; user ops (commutative, and non-commutative: the host's ordered
 * fallback); disjoint communicators reducing at the same time through the
 * same agents, and overlapping ones in turn; a barrier that must hold.
 * MPIX_Counter: two counters fetch-and-added by every rank at once.
 * host-packet: a rank that computes delays its subtree; NI forwarding not.
 * Run by netmod/agent/test_agent.sh on 1-8 emulated nodes, 1-3 ranks each.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

#define CHECK(c, ...)                                                         \
    do {                                                                      \
        if (!(c)) {                                                           \
            fprintf(stderr, "FAIL test_agent_coll rank %d: ", rank);          \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                     \
        }                                                                     \
    } while (0)

static unsigned char pat(size_t i, int root, int iter)
{
    return (unsigned char)(i * 131 + (size_t)root * 17 + (size_t)iter * 7 + 1);
}

static void bcast_check(MPI_Comm comm, size_t n, int root, int iter)
{
    int r;
    MPI_Comm_rank(comm, &r);
    unsigned char *b = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        b[i] = r == root ? pat(i, root, iter) : 0xee;
    CHECK(MPI_Bcast(b, (int)n, MPI_BYTE, root, comm) == MPI_SUCCESS, "bcast failed");
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == pat(i, root, iter), "%zu bytes from root %d: byte %zu is %d, not %d", n,
              root, i, b[i], pat(i, root, iter));
    free(b);
}

/* ---- reductions --------------------------------------------------------- */
/* rank r's element i: small positive integers, exact in every type */
static long long val(int r, size_t i, int salt) { return (long long)((r * 7 + i * 3 + salt) % 11) + 1; }

static long long ref_op(MPI_Op op, long long a, long long b)
{
    if (op == MPI_SUM) return a + b;
    if (op == MPI_PROD) return a * b;
    if (op == MPI_MAX) return a > b ? a : b;
    if (op == MPI_MIN) return a < b ? a : b;
    if (op == MPI_BXOR) return a ^ b;
    if (op == MPI_BOR) return a | b;
    if (op == MPI_BAND) return a & b;
    if (op == MPI_LAND) return a && b;
    return (a || b) && !(a && b);   /* MPI_LXOR */
}

typedef struct { double v; int i; } dbl_int;

/* One reduction of n elements of type t with op over comm, at root (or
 * all, allreduce), optionally in place; checked element by element. */
static void red_check(MPI_Comm comm, MPI_Datatype t, MPI_Op op, size_t n, int root, int all,
                      int inplace, int salt)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int pair = t == MPI_DOUBLE_INT || t == MPI_2INT;
    size_t es = t == MPI_DOUBLE_INT ? sizeof(dbl_int) : t == MPI_2INT ? 2 * sizeof(int)
              : t == MPI_INT ? sizeof(int) : t == MPI_DOUBLE ? sizeof(double)
              : t == MPI_FLOAT ? sizeof(float) : t == MPI_UNSIGNED_CHAR ? 1 : sizeof(long long);
    char *s = malloc(n * es + 1), *d = malloc(n * es + 1);
    for (size_t i = 0; i < n; i++) {
        long long v = val(r, i, salt);
        if (op == MPI_PROD)
            v = v % 2 + 1;   /* 2^8 at most over 8 ranks: exact */
        char *e = s + i * es;
        if (t == MPI_INT) *(int *)e = (int)v;
        else if (t == MPI_DOUBLE) *(double *)e = (double)v;
        else if (t == MPI_FLOAT) *(float *)e = (float)v;
        else if (t == MPI_UNSIGNED_CHAR) *(unsigned char *)e = (unsigned char)v;
        else if (t == MPI_LONG_LONG) *(long long *)e = v;
        else if (t == MPI_DOUBLE_INT) *(dbl_int *)e = (dbl_int){ (double)v, r };
        else ((int *)e)[0] = (int)v, ((int *)e)[1] = r;
    }
    memset(d, 0xee, n * es);
    if (inplace && (all || r == root))
        memcpy(d, s, n * es);
    const void *sb = inplace && (all || r == root) ? MPI_IN_PLACE : s;
    int rc = all ? MPI_Allreduce(sb, d, (int)n, t, op, comm)
                 : MPI_Reduce(sb, d, (int)n, t, op, root, comm);
    CHECK(rc == MPI_SUCCESS, "reduction failed");
    if (all || r == root)
        for (size_t i = 0; i < n; i++) {
            long long want = 0, got = 0;
            int wloc = 0, gloc = 0;
            for (int q = 0; q < p; q++) {
                long long v = val(q, i, salt);
                if (op == MPI_PROD)
                    v = v % 2 + 1;
                if (pair) {   /* MINLOC / MAXLOC: the lowest index among equals */
                    int better = q == 0 || (op == MPI_MINLOC ? v < want : v > want);
                    if (better)
                        want = v, wloc = q;
                } else {
                    want = q == 0 ? v : ref_op(op, want, v);
                }
            }
            const char *e = d + i * es;
            if (t == MPI_INT) got = *(const int *)e;
            else if (t == MPI_DOUBLE) got = (long long)*(const double *)e;
            else if (t == MPI_FLOAT) got = (long long)*(const float *)e;
            else if (t == MPI_UNSIGNED_CHAR) got = *(const unsigned char *)e, want &= 0xff;
            else if (t == MPI_LONG_LONG) got = *(const long long *)e;
            else if (t == MPI_DOUBLE_INT) got = (long long)((const dbl_int *)e)->v,
                                          gloc = ((const dbl_int *)e)->i;
            else got = ((const int *)e)[0], gloc = ((const int *)e)[1];
            CHECK(got == want && gloc == wloc,
                  "%s of %zu elements, root %d, in place %d: element %zu is %lld (at %d), "
                  "not %lld (at %d)", all ? "allreduce" : "reduce", n, root, inplace, i, got,
                  gloc, want, wloc);
        }
    free(s);
    free(d);
}

/* x -> m x + c, composed: non-commutative, associative (mod a prime) */
typedef struct { long long m, c; } affine;
#define AFF_P 1000003LL
static void aff_compose(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    affine *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {   /* b = a o b */
        affine x = { a[i].m * b[i].m % AFF_P, (a[i].m * b[i].c + a[i].c) % AFF_P };
        b[i] = x;
    }
}
static void int_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void user_ops(MPI_Comm comm)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    MPI_Op aff, sum;
    MPI_Op_create(aff_compose, 0, &aff);
    MPI_Op_create(int_sum, 1, &sum);
    enum { N = 700 };   /* 11200 bytes of affine: several packets */
    affine *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (int i = 0; i < N; i++)
        a[i] = (affine){ (r + i) % 5 + 1, (r * 3 + i) % 7 };
    MPI_Datatype pairt;
    MPI_Type_contiguous(2, MPI_LONG_LONG, &pairt);
    MPI_Type_commit(&pairt);
    MPI_Allreduce(a, b, N, pairt, aff, comm);
    for (int i = 0; i < N; i++) {
        affine w = { (0 + i) % 5 + 1, (0 * 3 + i) % 7 };
        for (int q = 1; q < p; q++) {   /* w = w o v_q */
            affine v = { (q + i) % 5 + 1, (q * 3 + i) % 7 };
            w = (affine){ w.m * v.m % AFF_P, (w.m * v.c + w.c) % AFF_P };
        }
        CHECK(b[i].m == w.m && b[i].c == w.c, "non-commutative allreduce: element %d", i);
    }
    int x[3000], y[3000];
    for (int i = 0; i < 3000; i++)
        x[i] = r + i;
    MPI_Reduce(x, y, 3000, MPI_INT, sum, p - 1, comm);
    if (r == p - 1)
        for (int i = 0; i < 3000; i++)
            CHECK(y[i] == p * (p - 1) / 2 + p * i, "user-op reduce: element %d", i);
    MPI_Type_free(&pairt);
    MPI_Op_free(&aff);
    MPI_Op_free(&sum);
    free(a);
    free(b);
}

/* Rank 0 enters late: nobody may leave before it came in. (Emulated nodes
 * share one machine, so MPI_Wtime, CLOCK_MONOTONIC, is one clock.) */
static void barrier_check(MPI_Comm comm)
{
    int r;
    MPI_Comm_rank(comm, &r);
    for (int round = 0; round < 3; round++) {
        MPI_Barrier(comm);
        if (r == 0)
            usleep(30000);
        double in = MPI_Wtime();
        CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "barrier failed");
        double out = MPI_Wtime();
        MPI_Bcast(&in, 1, MPI_DOUBLE, 0, comm);
        CHECK(out >= in, "left the barrier %.6f s before rank 0 entered it", in - out);
    }
}

static void reductions(MPI_Comm comm, int salt)
{
    int p;
    MPI_Comm_size(comm, &p);
    /* 496 ints fill one packet's 1984 bytes; 16 packets the credit window */
    const size_t counts[] = { 1, 3, 495, 496, 497, 993, 16 * 496 + 1, 30000 };
    const size_t nc = sizeof counts / sizeof counts[0];
    for (int root = 0; root < p; root++)
        for (size_t c = 0; c < nc; c++)
            red_check(comm, MPI_INT, MPI_SUM, counts[c], root, 0, root == 1, salt + (int)c);
    for (size_t c = 0; c < nc; c++)
        red_check(comm, MPI_INT, MPI_SUM, counts[c], 0, 1, (int)c & 1, salt + (int)c);
    /* reductions fill packets of this run's MTU (CLUMPI_AGENT_MTU) with
     * whole elements: around its payload (MTU - 64 bytes), its window, a
     * pair type whose 12 packed bytes do not divide it, and megabytes */
    const char *mtu = getenv("CLUMPI_AGENT_MTU");
    size_t pi = ((mtu ? strtoul(mtu, NULL, 0) : 2048) - 64) / sizeof(int);
    const size_t big[] = { pi - 1, pi + 1, 16 * pi + 1, 300000 };
    for (size_t c = 0; c < sizeof big / sizeof big[0]; c++) {
        red_check(comm, MPI_INT, MPI_SUM, big[c], p - 1, 0, (int)c & 1, salt + (int)c);
        red_check(comm, MPI_INT, MPI_SUM, big[c], 0, 1, (int)c & 1, salt + (int)c);
    }
    red_check(comm, MPI_DOUBLE_INT, MPI_MINLOC, 3 * pi + 5, 0, 1, 0, salt);
    struct { MPI_Datatype t; MPI_Op op; } tops[] = {
        { MPI_INT, MPI_MAX }, { MPI_INT, MPI_MIN }, { MPI_DOUBLE, MPI_SUM },
        { MPI_DOUBLE, MPI_PROD }, { MPI_FLOAT, MPI_MIN }, { MPI_LONG_LONG, MPI_BXOR },
        { MPI_UNSIGNED_CHAR, MPI_BOR }, { MPI_INT, MPI_BAND }, { MPI_INT, MPI_LAND },
        { MPI_INT, MPI_LXOR }, { MPI_DOUBLE_INT, MPI_MINLOC }, { MPI_2INT, MPI_MAXLOC },
    };
    for (size_t k = 0; k < sizeof tops / sizeof tops[0]; k++) {
        red_check(comm, tops[k].t, tops[k].op, 5000, p - 1, 0, 0, salt + (int)k);
        red_check(comm, tops[k].t, tops[k].op, 777, 0, 1, 0, salt + (int)k);
    }
    /* a strided type: packed into the agents, unpacked at the ranks */
    MPI_Datatype vec;
    MPI_Type_vector(1000, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int r;
    MPI_Comm_rank(comm, &r);
    int *v = malloc(5000 * sizeof(int)), *w = malloc(5000 * sizeof(int));
    for (int i = 0; i < 5000; i++)
        v[i] = r + i, w[i] = -7;
    MPI_Allreduce(v, w, 1, vec, MPI_SUM, comm);
    for (int i = 0; i < 5000; i++)
        CHECK(w[i] == (i % 5 < 3 ? p * i + p * (p - 1) / 2 : -7), "vector allreduce: %d is %d",
              i, w[i]);
    free(v);
    free(w);
    MPI_Type_free(&vec);
}

/* ---- who forwards: the agents, or the ranks ----------------------------
 * 4 nodes of one rank: the tree from rank 0 reaches rank 3 through rank 1
 * (binary) or rank 2 (binomial). That rank computes 600 ms before it calls
 * MPI_Bcast: NI forwarding reaches rank 3 anyway, host forwarding
 * (host-packet) only once the forwarder calls (Verstoep et al. §7.4's effect). */
static void forwarding_check(const char *algo, int nodes)
{
    if (size != 4 || nodes != 4)
        return;
    int host = strncmp(algo, "host-packet", 11) == 0;
    int fwd = strstr(algo, "binary") ? 1 : 2;
    char b[8192];
    memset(b, rank == 0 ? 5 : 0, sizeof b);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == fwd)
        usleep(600000);
    MPI_Bcast(b, sizeof b, MPI_BYTE, 0, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    CHECK(b[sizeof b - 1] == 5, "forwarding: wrong data");
    if (rank == 3)
        CHECK(host ? t >= 0.55 : t < 0.4, "%s: rank 3 got the broadcast after %.3f s while "
              "rank %d computed 0.6 s", algo, t, fwd);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- MPIX_Counter: fetch-and-add held by the owner's agent ------------ */
static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* Every rank adds to two counters (owners on different nodes) at once: the
 * old values seen by all must be exactly initial .. initial + n - 1. */
static void fadd_check(void)
{
    enum { N = 200 };
    MPIX_Counter c[2];
    const long long init[2] = { -50, 1LL << 40 };
    for (int j = 0; j < 2; j++)
        CHECK(MPIX_Counter_create(MPI_COMM_WORLD, j ? size - 1 : 0, init[j], &c[j]) ==
              MPI_SUCCESS, "counter create");
    long long *old = malloc(sizeof *old * 2 * N), *all = malloc(sizeof *all * 2 * N * size);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 2; j++)
            CHECK(MPIX_Counter_fetch_and_add(c[j], j ? 3 : 1, &old[j * N + i]) == MPI_SUCCESS,
                  "fetch_and_add");
    MPI_Allgather(old, 2 * N, MPI_LONG_LONG, all, 2 * N, MPI_LONG_LONG, MPI_COMM_WORLD);
    for (int j = 0; j < 2; j++) {
        long long *v = malloc(sizeof *v * N * size);
        for (int r = 0; r < size; r++)
            memcpy(v + (size_t)r * N, all + (size_t)r * 2 * N + (size_t)j * N, sizeof *v * N);
        qsort(v, (size_t)N * size, sizeof *v, cmp_ll);
        for (int i = 0; i < N * size; i++)
            CHECK(v[i] == init[j] + (long long)i * (j ? 3 : 1),
                  "counter %d: the %d-th value taken is %lld", j, i, v[i]);
        free(v);
    }
    long long last;
    MPI_Barrier(MPI_COMM_WORLD);
    MPIX_Counter_fetch_and_add(c[1], 0, &last);
    CHECK(last == init[1] + 3LL * N * size, "counter ends at %lld", last);
    MPIX_Counter dead = c[0];
    for (int j = 0; j < 2; j++) {
        CHECK(MPIX_Counter_free(&c[j]) == MPI_SUCCESS && c[j] == MPIX_COUNTER_NULL, "free");
    }
    /* a freed counter is an argument error, not a crash */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPIX_Counter_fetch_and_add(dead, 1, &last);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "fetch_and_add on a freed counter: class %d", cls);
    rc = MPIX_Counter_create(MPI_COMM_WORLD, size, 0, &dead);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "counter owner out of range: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(old);
    free(all);
}

int main(int argc, char **argv)
{
    const char *algo = argc > 1 ? argv[1] : "ni-binary";
    setenv("CLUMPI_COLL_BCAST", algo, 1);
    if (strncmp(algo, "ni-", 3) == 0) {
        setenv("CLUMPI_COLL_REDUCE", algo, 1);
        setenv("CLUMPI_COLL_ALLREDUCE", algo, 1);
        setenv("CLUMPI_COLL_BARRIER", algo, 1);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* payload 1984 = 2048 - 16 (wire) - 48 (header room); window 16 packets */
    const size_t sizes[] = { 0, 1, 1983, 1984, 1985, 3968, 3969, 16 * 1984 + 1, 200000 };
    int iter = 0;
    for (int root = 0; root < size; root++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            bcast_check(MPI_COMM_WORLD, sizes[s], root, iter++);

    /* a vector type: packed through the agent, unpacked at each rank */
    MPI_Datatype vec;
    MPI_Type_vector(1000, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *v = calloc(5000, sizeof(int));
    for (int i = 0; i < 5000; i++)
        v[i] = rank == size - 1 ? i : (i % 5 < 3 ? -1 : i);
    MPI_Bcast(v, 1, vec, size - 1, MPI_COMM_WORLD);
    for (int i = 0; i < 5000; i++)
        CHECK(v[i] == i, "vector element %d is %d", i, v[i]);
    free(v);
    MPI_Type_free(&vec);

    /* two overlapping communicators, reversed rank order, entered in
     * opposite orders by even and odd ranks: only valid where the agents
     * forward (the root never waits), i.e. offload mode on several nodes,
     * and not under CLUMPI_AGENT_REL=host, whose root waits for every
     * rank's report of the packets it holds (coll/bcast_ni.c) */
    MPI_Comm node;
    int nodes, lr;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lr);
    lr = lr == 0;
    MPI_Allreduce(&lr, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    const char *net = getenv("CLUMPI_NET"), *rel = getenv("CLUMPI_AGENT_REL");
    if (strncmp(algo, "ni-", 3) == 0 && nodes > 1 && net && strcmp(net, "agent") == 0 &&
        !(rel && strcmp(rel, "host") == 0)) {
        MPI_Comm a, b;
        MPI_Comm_dup(MPI_COMM_WORLD, &a);
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &b);
        for (int round = 0; round < 4; round++) {
            size_t n = round & 1 ? 100000 : 3000;
            if (rank % 2 == 0) {
                bcast_check(a, n, 0, iter);
                bcast_check(b, n, 0, iter + 1);
            } else {
                bcast_check(b, n, 0, iter + 1);
                bcast_check(a, n, 0, iter);
            }
            iter += 2;
        }
        MPI_Comm_free(&a);
        MPI_Comm_free(&b);
    }

    fadd_check();
    if (strncmp(algo, "ni-", 3) == 0 || strncmp(algo, "host-packet", 11) == 0)
        forwarding_check(algo, net && strcmp(net, "agent") == 0 ? nodes : 1);
    if (strncmp(algo, "ni-", 3) == 0) {
        reductions(MPI_COMM_WORLD, 0);
        user_ops(MPI_COMM_WORLD);
        barrier_check(MPI_COMM_WORLD);
        /* even and odd ranks reduce at the same time through the same agents;
         * then overlapping communicators in turn, in the same order */
        MPI_Comm half, rev;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
        for (int round = 0; round < 3; round++) {
            red_check(half, MPI_INT, MPI_SUM, round & 1 ? 20000 : 600, 0, 1, 0, round);
            red_check(half, MPI_DOUBLE, MPI_MAX, 3000, 0, 0, 0, round);
            red_check(MPI_COMM_WORLD, MPI_INT, MPI_SUM, 10000, round % size, 0, 0, round);
            red_check(rev, MPI_INT, MPI_MIN, 10000, 0, 1, 0, round);
            MPI_Barrier(rev);
            red_check(MPI_COMM_WORLD, MPI_LONG_LONG, MPI_SUM, 5000, 0, 1, 1, round);
        }
        MPI_Comm_free(&half);
        MPI_Comm_free(&rev);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_agent_coll %s: %d ranks ok\n", algo, size);
    MPI_Finalize();
    return 0;   /* every failed check aborts the job */
}
