/*
 * mtest.h — helpers shared by the multi-rank tests in test/mpi/.
 *
 * Each test is a standard MPI program that checks its own results: it exits 0
 * when everything held, and on the first failure prints one line
 *   FAIL <test> rank <r> <file>:<line>: <what>
 * to stderr and calls MPI_Abort. The first comment of each test names the rank
 * counts it runs with ("np: 2 4"); test/mpi/run-mpi-test reads it.
 *
 * Only point-to-point calls are used here (mt_barrier is a dissemination
 * barrier over a private duplicate of MPI_COMM_WORLD), so a test of
 * point-to-point does not depend on the collectives; mt_meet, for the tests
 * of separately started jobs, adds the name service and accept/connect. Valid C++ too (the
 * C++ tests use it).
 */
#ifndef MTEST_H
#define MTEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int mt_rank = -1, mt_size = 0;
static const char *mt_name = "?";
static MPI_Comm mt_comm = MPI_COMM_NULL; /* private: barriers, handshakes */

#define MT_FAIL(...)                                                          \
    do {                                                                      \
        fprintf(stderr, "FAIL %s rank %d %s:%d: ", mt_name, mt_rank,          \
                __FILE__, __LINE__);                                          \
        fprintf(stderr, __VA_ARGS__);                                         \
        fputc('\n', stderr);                                                  \
        fflush(stderr);                                                       \
        MPI_Abort(MPI_COMM_WORLD, 1);                                         \
        exit(1);                                                              \
    } while (0)

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond))                                                          \
            MT_FAIL(__VA_ARGS__);                                             \
    } while (0)

/* A call that must succeed; on failure print its error string. */
#define MPI_OK(call)                                                          \
    do {                                                                      \
        int mt_rc_ = (call);                                                  \
        if (mt_rc_ != MPI_SUCCESS) {                                          \
            char mt_s_[MPI_MAX_ERROR_STRING] = "";                            \
            int mt_l_ = 0;                                                    \
            MPI_Error_string(mt_rc_, mt_s_, &mt_l_);                          \
            MT_FAIL("%s returned %d (%s)", #call, mt_rc_, mt_s_);             \
        }                                                                     \
    } while (0)

/* The error class of a return code. */
static inline int mt_class(int rc)
{
    int cls = -1;
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS)
        return -1;
    return cls;
}

/* A call that must fail with error class cls (the communicator's error
 * handler must be MPI_ERRORS_RETURN). */
#define MPI_FAILS(cls, call)                                                  \
    do {                                                                      \
        int mt_rc_ = (call);                                                  \
        CHECK(mt_rc_ != MPI_SUCCESS, "%s succeeded, expected class %s",       \
              #call, #cls);                                                   \
        CHECK(mt_class(mt_rc_) == (cls),                                      \
              "%s returned class %d, expected %s (%d)", #call,                \
              mt_class(mt_rc_), #cls, (int)(cls));                            \
    } while (0)

/* The byte at position i of a message identified by seed. */
static inline unsigned char mt_byte(size_t i, unsigned seed)
{
    return (unsigned char)(i * 131u + (i >> 8) * 7u + (i >> 16) * 3u + seed * 29u + 1u);
}

static inline void mt_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = (unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        p[i] = mt_byte(i, seed);
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long mt_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != mt_byte(i, seed))
            return (long)i;
    return -1;
}

/* Index of the first byte of buf[0..n) that is not c, or -1. */
static inline long mt_all(const void *buf, size_t n, unsigned char c)
{
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != c)
            return (long)i;
    return -1;
}

static inline void *mt_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        MT_FAIL("out of memory (%zu bytes)", n);
    return p;
}

/* Dissemination barrier over point-to-point on mt_comm. */
static inline void mt_barrier(void)
{
    char s = 0, r = 0;
    for (int d = 1; d < mt_size; d *= 2) {
        int to = (mt_rank + d) % mt_size, from = (mt_rank - d + mt_size) % mt_size;
        MPI_OK(MPI_Sendrecv(&s, 1, MPI_CHAR, to, 30000, &r, 1, MPI_CHAR, from, 30000,
                            mt_comm, MPI_STATUS_IGNORE));
    }
}

/* k messages of n bytes in flight at once to `next` (tags tag0 + i, each
 * filled with seed(round, i, sender)); after a barrier, so that they are
 * unexpected, the receives from `prev` are posted last tag first, and every
 * message is checked. */
static inline void mt_in_flight(int round, int k, size_t n, int next, int prev, int tag0,
                                unsigned (*seed)(int round, int i, int rank))
{
    char **s = (char **)mt_malloc((size_t)k * sizeof *s);
    char **r = (char **)mt_malloc((size_t)k * sizeof *r);
    MPI_Request *q = (MPI_Request *)mt_malloc(2 * (size_t)k * sizeof *q);
    for (int i = 0; i < k; i++) {
        s[i] = (char *)mt_malloc(n);
        r[i] = (char *)mt_malloc(n);
        mt_fill(s[i], n, seed(round, i, mt_rank));
        MPI_OK(MPI_Isend(s[i], (int)n, MPI_BYTE, next, tag0 + i, MPI_COMM_WORLD, &q[i]));
    }
    mt_barrier();
    for (int i = k - 1; i >= 0; i--)
        MPI_OK(MPI_Irecv(r[i], (int)n, MPI_BYTE, prev, tag0 + i, MPI_COMM_WORLD, &q[k + i]));
    MPI_OK(MPI_Waitall(2 * k, q, MPI_STATUSES_IGNORE));
    for (int i = 0; i < k; i++) {
        long bad = mt_verify(r[i], n, seed(round, i, prev));
        CHECK(bad < 0, "in flight %d of %d, %zu bytes from %d: byte %ld wrong", i, k, n, prev,
              bad);
        free(s[i]);
        free(r[i]);
    }
    free(s);
    free(r);
    free(q);
}

static inline void mt_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline void mt_init(int *argc, char ***argv, const char *name)
{
    mt_name = name;
    MPI_OK(MPI_Init(argc, argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &mt_comm));
    setvbuf(stdout, NULL, _IOLBF, 0);
}

/* mt_init under MPI_THREAD_MULTIPLE, which must be granted. */
static inline void mt_init_multiple(int *argc, char ***argv, const char *name)
{
    mt_name = name;
    int provided = -1;
    MPI_OK(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &mt_comm));
    setvbuf(stdout, NULL, _IOLBF, 0);
}

/* Two jobs started apart meet through the name service. Server: rank 0
 * opens a port (into port) and publishes it as name, and the job accepts.
 * Client: rank 0 looks name up until it is published (MPI_ERR_NAME
 * meanwhile, for up to 30 s), and the job connects. Leaves MPI_COMM_WORLD
 * with MPI_ERRORS_RETURN; returns the intercommunicator. */
static inline MPI_Comm mt_meet(int server, const char *name, char port[MPI_MAX_PORT_NAME])
{
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    port[0] = '\0';
    if (mt_rank == 0 && server) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        MPI_OK(MPI_Publish_name(name, MPI_INFO_NULL, port));
    } else if (mt_rank == 0) {
        int rc = MPI_ERR_NAME;
        for (int i = 0; i < 3000 && rc != MPI_SUCCESS; i++) {
            rc = MPI_Lookup_name(name, MPI_INFO_NULL, port);
            CHECK(rc == MPI_SUCCESS || mt_class(rc) == MPI_ERR_NAME, "lookup of %s: class %d",
                  name, mt_class(rc));
            if (rc != MPI_SUCCESS)
                mt_sleep_ms(10);
        }
        MPI_OK(rc);
    }
    MPI_Comm ic;
    if (server)
        MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
    else
        MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
    return ic;
}

/* Every rank reaches this point: barrier, report, finalize. */
static inline int mt_finish(void)
{
    mt_barrier();
    MPI_OK(MPI_Comm_free(&mt_comm));
    if (mt_rank == 0)
        printf("PASS %s (%d ranks)\n", mt_name, mt_size);
    MPI_OK(MPI_Finalize());
    return 0;
}

#endif
