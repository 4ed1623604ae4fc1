/* np: 2 3 4
 *
 * Large messages at the edges of the rendezvous and chunk sizes (standard
 * MPI; written for offload mode's bulk path, netmod/agent/agent_bulk.c,
 * where a rendezvous read moves in chunks of CLUMPI_AGENT_BULK_CHUNK bytes,
 * at most AGT_BULK_SEGS sender segments per request, through a table of 64
 * exposures per rank). Every rank sends to the next and receives from the
 * previous: sizes 0, 1, around the agent's eager limit (31744) and around
 * one, two and several chunks (the default 262144, or the chunk size in
 * the environment), megabytes; a strided sender of more segments than one
 * request carries into a strided receiver; truncation (the prefix lands,
 * nothing past the buffer, MPI_ERR_TRUNCATE); ANY_SOURCE receives of large
 * messages in each sender's order; more sends in flight than exposures
 * (the rest go by CTS); and every pair exchanging large messages at once
 * (both sides reading).
 */
#include "mtest.h"

#define EAGER 31744   /* the agent channel's largest eager message */

static size_t chunk;
static int next, prev;

static unsigned seed_of(int round, int k, int rank)
{
    return (unsigned)(round * 1009 + k * 31 + rank * 7 + 1);
}

static void ring(int round, size_t n)
{
    char *s = mt_malloc(n), *r = mt_malloc(n + 64);
    mt_fill(s, n, seed_of(round, 0, mt_rank));
    memset(r, 0xee, n + 64);
    MPI_Request q[2];
    MPI_Status st[2];
    MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, prev, round, MPI_COMM_WORLD, &q[0]));
    MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, next, round, MPI_COMM_WORLD, &q[1]));
    MPI_OK(MPI_Waitall(2, q, st));
    int cnt = -1;
    MPI_OK(MPI_Get_count(&st[0], MPI_BYTE, &cnt));
    CHECK(cnt == (int)n, "%zu bytes from %d: count %d", n, prev, cnt);
    long bad = mt_verify(r, n, seed_of(round, 0, prev));
    CHECK(bad < 0, "%zu bytes from %d: byte %ld wrong", n, prev, bad);
    CHECK(mt_all(r + n, 64, 0xee) < 0, "%zu bytes from %d: written past the end", n, prev);
    free(s);
    free(r);
}

/* nblk blocks of blk bytes, every other one, into a receive with blocks
 * of blk2 bytes every third one: segments on both sides misaligned. */
static void strided(int round, int nblk, int blk, int blk2)
{
    size_t n = (size_t)nblk * blk;
    if (n % (size_t)blk2)
        return;
    int nblk2 = (int)(n / (size_t)blk2);
    char *s = mt_malloc(2 * n), *r = mt_malloc(3 * n);
    mt_fill(s, 2 * n, seed_of(round, 1, mt_rank));
    memset(r, 0xee, 3 * n);
    MPI_Datatype vs, vr;
    MPI_OK(MPI_Type_vector(nblk, blk, 2 * blk, MPI_BYTE, &vs));
    MPI_OK(MPI_Type_vector(nblk2, blk2, 3 * blk2, MPI_BYTE, &vr));
    MPI_OK(MPI_Type_commit(&vs));
    MPI_OK(MPI_Type_commit(&vr));
    MPI_Request q[2];
    MPI_OK(MPI_Irecv(r, 1, vr, prev, round, MPI_COMM_WORLD, &q[0]));
    MPI_OK(MPI_Isend(s, 1, vs, next, round, MPI_COMM_WORLD, &q[1]));
    MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    char *ref = mt_malloc(2 * n), *packed = mt_malloc(n);
    mt_fill(ref, 2 * n, seed_of(round, 1, prev));
    for (int b = 0; b < nblk; b++)
        memcpy(packed + (size_t)b * blk, ref + (size_t)2 * b * blk, (size_t)blk);
    for (int b = 0; b < nblk2; b++) {
        CHECK(memcmp(r + (size_t)3 * b * blk2, packed + (size_t)b * blk2, (size_t)blk2) == 0,
              "strided %d x %d into %d: block %d wrong", nblk, blk, blk2, b);
        CHECK(mt_all(r + (size_t)3 * b * blk2 + blk2, 2 * (size_t)blk2, 0xee) < 0,
              "strided %d x %d into %d: gap after block %d written", nblk, blk, blk2, b);
    }
    MPI_OK(MPI_Type_free(&vs));
    MPI_OK(MPI_Type_free(&vr));
    free(ref);
    free(packed);
    free(s);
    free(r);
}

/* n bytes into a buffer of cap < n: the first cap bytes, then nothing. */
static void truncated(int round, size_t n, size_t cap)
{
    char *s = mt_malloc(n), *r = mt_malloc(cap + 64);
    mt_fill(s, n, seed_of(round, 2, mt_rank));
    memset(r, 0xee, cap + 64);
    MPI_Request q;
    MPI_Status st;
    MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, next, round, MPI_COMM_WORLD, &q));
    int rc = MPI_Recv(r, (int)cap, MPI_BYTE, prev, round, MPI_COMM_WORLD, &st);
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "%zu bytes into %zu: class %d, not MPI_ERR_TRUNCATE",
          n, cap, mt_class(rc));
    MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    long bad = mt_verify(r, cap, seed_of(round, 2, prev));
    CHECK(bad < 0, "%zu bytes into %zu: byte %ld wrong", n, cap, bad);
    CHECK(mt_all(r + cap, 64, 0xee) < 0, "%zu bytes into %zu: written past the buffer", n, cap);
    free(s);
    free(r);
}

/* Rank 0 takes two large messages from every other rank with ANY_SOURCE;
 * each sender's arrive in its order. */
static void anysource(int round, size_t n)
{
    if (mt_rank != 0) {
        char *s = mt_malloc(2 * n);
        mt_fill(s, n, seed_of(round, 0, mt_rank));
        mt_fill(s + n, n, seed_of(round, 1, mt_rank));
        MPI_OK(MPI_Send(s, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(s + n, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD));
        free(s);
        return;
    }
    int *seen = calloc((size_t)mt_size, sizeof *seen);
    char *r = mt_malloc(n);
    for (int i = 0; i < 2 * (mt_size - 1); i++) {
        MPI_Status st;
        MPI_OK(MPI_Recv(r, (int)n, MPI_BYTE, MPI_ANY_SOURCE, round, MPI_COMM_WORLD, &st));
        int src = st.MPI_SOURCE;
        CHECK(src > 0 && src < mt_size && seen[src] < 2, "ANY_SOURCE: source %d", src);
        long bad = mt_verify(r, n, seed_of(round, seen[src], src));
        CHECK(bad < 0, "ANY_SOURCE: message %d of rank %d, byte %ld wrong", seen[src], src, bad);
        seen[src]++;
    }
    free(seen);
    free(r);
}

/* More sends in flight than a rank has exposures; receives posted late,
 * in reverse. Their tags stay clear of the other rounds' (a round number
 * each): the previous rank may start these while this one is still in
 * anysource(), whose ANY_SOURCE receives would take a message tagged with
 * their round. */
static void many(int round, int k, size_t n)
{
    mt_in_flight(round, k, n, next, prev, 10000 + round * 100, seed_of);
}

/* Pairs (0,1), (2,3), ... exchange n bytes both ways at once. */
static void exchange(int round, size_t n)
{
    int peer = mt_rank ^ 1;
    if (peer >= mt_size)
        return;
    char *s = mt_malloc(n), *r = mt_malloc(n);
    mt_fill(s, n, seed_of(round, 3, mt_rank));
    MPI_OK(MPI_Sendrecv(s, (int)n, MPI_BYTE, peer, round, r, (int)n, MPI_BYTE, peer, round,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    long bad = mt_verify(r, n, seed_of(round, 3, peer));
    CHECK(bad < 0, "exchange of %zu bytes with %d: byte %ld wrong", n, peer, bad);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "bulk");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* the sizes every rank uses: a job whose nodes run different chunk
     * sizes names one here */
    const char *c = getenv("BULK_TEST_CHUNK");
    if (!c)
        c = getenv("CLUMPI_AGENT_BULK_CHUNK");
    chunk = c && atol(c) >= 4096 ? (size_t)atol(c) & ~(size_t)63 : 262144;
    next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    const size_t sizes[] = { 0, 1, EAGER - 1, EAGER, EAGER + 1, chunk - 1, chunk, chunk + 1,
                             2 * chunk - 1, 2 * chunk + 1, 5 * chunk + 4093, 3u << 20 | 7 };
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    int round = 0;
    for (int i = 0; i < ns; i++, round++)
        ring(round, sizes[i]);
    strided(round++, 200, 2048, 4096);     /* 200 sender segments: 4 requests */
    strided(round++, 65, 8192, 1024);      /* 65: one past a request */
    strided(round++, 3, 300000, 100000);   /* segments larger than a chunk */
    truncated(round++, 2 * chunk + 5, chunk + 1);
    truncated(round++, 100000, EAGER + 1);
    truncated(round++, EAGER + 1, EAGER);
    anysource(round++, chunk + 3);
    anysource(round++, 40000);
    many(round++, 80, EAGER + 100);
    many(round++, 6, 3 * chunk + 1);
    exchange(round++, 4u << 20);
    exchange(round++, chunk + 1);
    for (int i = 0; i < 20; i++, round++)   /* repeated, alternating sizes */
        ring(round, i % 2 ? 200000 : 1u << 20);
    return mt_finish();
}
