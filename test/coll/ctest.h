/*
 * ctest.h — helpers of the collective tests (test/coll/): standard MPI only,
 * so each test also runs under Open MPI and MPICH (which is how the tests
 * themselves were validated).
 *
 * Every rank knows what every other rank contributes (ct_val), so each
 * result is checked against a reference computed locally. Data are ints
 * laid out either densely (MPI_INT) or with a hole after each element (a
 * resized type, extent 8): sender and receiver may use different layouts
 * (same type signature), and holes must come back untouched.
 *
 * The tests run each check on MPI_COMM_WORLD and on a communicator with the
 * ranks reversed (comm rank != world rank). ct_long() is set by
 * COLL_LONG=1: bigger counts and every root.
 */
#ifndef CTEST_H
#define CTEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ct_wrank, ct_wsize;
static const char *ct_name = "?";

#define CT_FAIL(...)                                                          \
    do {                                                                      \
        fprintf(stderr, "FAIL %s rank %d %s:%d: ", ct_name, ct_wrank,         \
                __FILE__, __LINE__);                                          \
        fprintf(stderr, __VA_ARGS__);                                         \
        fputc('\n', stderr);                                                  \
        fflush(stderr);                                                       \
        MPI_Abort(MPI_COMM_WORLD, 1);                                         \
        exit(1);                                                              \
    } while (0)
#define CT_CHECK(cond, ...) do { if (!(cond)) CT_FAIL(__VA_ARGS__); } while (0)
#define CT_OK(call)                                                           \
    do {                                                                      \
        int ct_rc_ = (call);                                                  \
        if (ct_rc_ != MPI_SUCCESS) {                                          \
            char ct_s_[MPI_MAX_ERROR_STRING] = "";                            \
            int ct_l_ = 0;                                                    \
            MPI_Error_string(ct_rc_, ct_s_, &ct_l_);                          \
            CT_FAIL("%s returned %d (%s)", #call, ct_rc_, ct_s_);             \
        }                                                                     \
    } while (0)

#define CT_HOLE (-7)

/* a layout of ints: dense, or one hole after each element */
typedef struct { MPI_Datatype t; int stride; const char *name; } ct_layout;
static ct_layout ct_dense, ct_holes;

static inline int ct_long(void)
{
    const char *v = getenv("COLL_LONG");
    return v && *v && *v != '0';
}

/* Long counts at every root and in every layout: check-long, up to 9
 * ranks. 16 ranks on a 2-core machine took minutes a run there and move
 * the same data the same way; they keep every root for the shorter counts
 * and the large ones at one root. So do the variants run with COLL_BIG=0
 * (a segment size of 1 KiB +- 1 byte forced: a thousand segments a
 * megabyte at every root made them check-long's slowest runs). */
static inline int ct_long_big(int p)
{
    const char *big = getenv("COLL_BIG");
    return ct_long() && p <= 9 && !(big && strcmp(big, "0") == 0);
}

/* what rank `from` contributes for rank `to`, element i, in test `seed` */
static inline int ct_val(int from, int to, long i, int seed)
{
    return (int)(((unsigned)from * 7919u + (unsigned)to * 104729u + (unsigned)i * 31u +
                  (unsigned)seed * 1000003u) & 0x7fffffffu);
}

/* room for n elements of layout l, holes and all set to CT_HOLE */
static inline int *ct_alloc(long n, const ct_layout *l)
{
    size_t ints = (size_t)(n > 0 ? n : 1) * (size_t)l->stride;
    int *b = malloc(ints * sizeof(int));
    if (!b)
        CT_FAIL("out of memory (%zu ints)", ints);
    for (size_t i = 0; i < ints; i++)
        b[i] = CT_HOLE;
    return b;
}
#define CT_AT(buf, l, i) ((buf)[(long)(i) * (l)->stride])

/* element i must be v, and the hole after it untouched */
#define CT_EXPECT(buf, l, i, v, ...)                                           \
    do {                                                                       \
        int ct_got_ = CT_AT(buf, l, i), ct_want_ = (v);                        \
        if (ct_got_ != ct_want_) {                                             \
            fprintf(stderr, "  element %ld: got %d, want %d\n", (long)(i),     \
                    ct_got_, ct_want_);                                        \
            CT_FAIL(__VA_ARGS__);                                              \
        }                                                                      \
        if ((l)->stride == 2 && (buf)[(long)(i) * 2 + 1] != CT_HOLE)           \
            CT_FAIL("hole after element %ld overwritten", (long)(i));          \
    } while (0)

static void ct_init(int *argc, char ***argv, const char *name)
{
    ct_name = name;
    CT_OK(MPI_Init(argc, argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &ct_wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &ct_wsize);
    ct_dense.t = MPI_INT;
    ct_dense.stride = 1;
    ct_dense.name = "int";
    CT_OK(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &ct_holes.t));
    CT_OK(MPI_Type_commit(&ct_holes.t));
    ct_holes.stride = 2;
    ct_holes.name = "holes";
}

/* MPI_COMM_WORLD, then the same ranks in reverse order */
static MPI_Comm ct_comm(int k)
{
    static MPI_Comm rev = MPI_COMM_NULL;
    if (k == 0)
        return MPI_COMM_WORLD;
    if (rev == MPI_COMM_NULL) {
        CT_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, ct_wsize - ct_wrank, &rev));
        MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);
    }
    return rev;
}
#define CT_NCOMMS 2

/* The counts every family runs: 0, 1, odd, 1000 and 65536 elements. */
static const long ct_counts[] = { 0, 1, 7, 1000, 65536 };
#define CT_NCOUNTS ((int)(sizeof ct_counts / sizeof ct_counts[0]))

/* The driver the tests share: body(comm, p, n, k) for each test
 * communicator (ct_comm, p ranks) and each count k of ct_counts, n capped
 * so that n * p stays within cap elements (0: no cap). */
static inline void ct_each_count(long cap, void (*body)(MPI_Comm comm, int p, long n, int k))
{
    for (int c = 0; c < CT_NCOMMS; c++) {
        MPI_Comm comm = ct_comm(c);
        int p;
        MPI_Comm_size(comm, &p);
        for (int k = 0; k < CT_NCOUNTS; k++) {
            long n = ct_counts[k];
            if (cap && n * p > cap)
                n = cap / p;
            body(comm, p, n, k);
        }
    }
}

/* One rooted call checked against the reference: n elements per rank
 * (the v forms: base), layouts of the send and receive buffers. */
typedef void ct_rooted_fn(MPI_Comm comm, long n, int root, const ct_layout *sl,
                          const ct_layout *rl, int inplace, int seed);

/* A rooted family at count n (count index k): for every root, fn with
 * three layout pairs (one in place) and, up to 1000 elements, its v form
 * fnv the same way; large counts only at root `one` unless ct_long_big. */
static inline void ct_rooted(MPI_Comm comm, int p, long n, int k, int one, ct_rooted_fn *fn,
                             ct_rooted_fn *fnv)
{
    for (int root = 0; root < p; root++) {
        if (n > 1000 && !ct_long_big(p) && root != one)
            continue;
        int seed = k * 100 + root;
        for (int v = 0; v < (n <= 1000 ? 2 : 1); v++) {
            ct_rooted_fn *f = v ? fnv : fn;
            f(comm, n, root, &ct_dense, &ct_dense, 0, seed + 3 * v);
            f(comm, n, root, &ct_holes, &ct_dense, 1, seed + 3 * v + 1);
            f(comm, n, root, &ct_dense, &ct_holes, 0, seed + 3 * v + 2);
        }
    }
}

static int ct_finish(void)
{
    MPI_Type_free(&ct_holes.t);
    MPI_Comm rev = ct_comm(1);
    MPI_Comm_free(&rev);
    CT_OK(MPI_Finalize());
    return 0;
}

#endif
