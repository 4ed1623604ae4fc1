/* np: 2 3 4
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Ping-pong of every size class from 0 bytes to 8 MiB between rank pairs
 * (0,1), (2,3), ... at once: odd sizes, each side of the usual eager limits
 * (4/8/16/32/64/128 KiB +- 1) and megabytes. Every transfer checks the data,
 * the status (source, tag, count) and guard bytes after the buffer. Blocking
 * and nonblocking variants, receives posted before and after the send arrives.
 */
#include "mtest.h"

#define GUARD 64

static const size_t sizes[] = {
    0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 55, 56, 57, 63, 64, 65,
    100, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 2047, 2048, 2049,
    4095, 4096, 4097, 8191, 8192, 8193, 12345, 16383, 16384, 16385,
    32767, 32768, 32769, 65535, 65536, 65537, 131071, 131072, 131073, 262147,
    524288, 1048575, 1048576, 1048577, 3145733, 4194304, 8388607, 8388608,
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static unsigned char *buf;

static void check_recv(size_t n, unsigned seed, const MPI_Status *st, int src, int tag)
{
    int count = -1;
    long bad = mt_verify(buf, n, seed);
    CHECK(bad < 0, "size %zu: byte %ld is %d, expected %d", n, bad, buf[bad],
          mt_byte((size_t)bad, seed));
    CHECK(mt_all(buf + n, GUARD, 0xEE) < 0, "size %zu: wrote past the message", n);
    CHECK(st->MPI_SOURCE == src, "size %zu: status source %d, expected %d", n,
          st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "size %zu: status tag %d, expected %d", n, st->MPI_TAG, tag);
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == (int)n, "size %zu: Get_count says %d", n, count);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "pingpong");
    int npairs = mt_size / 2;
    if (mt_rank >= 2 * npairs) { /* odd rank out: only the barriers */
        mt_barrier();
        return mt_finish();
    }
    int peer = mt_rank ^ 1, first = !(mt_rank & 1);
    size_t max = sizes[NSIZES - 1];
    buf = mt_malloc(max + GUARD);

    for (int variant = 0; variant < 3; variant++) {
        for (size_t k = 0; k < NSIZES; k++) {
            size_t n = sizes[k];
            int iters = n <= 65536 ? 3 : 1;
            for (int it = 0; it < iters; it++) {
                unsigned seed = (unsigned)(k * 7 + it + variant * 1000);
                int tag = (int)(k % 100) + variant;
                MPI_Status st;
                MPI_Request rq;
                for (int leg = 0; leg < 2; leg++) {
                    int sending = (leg == 0) == first;
                    unsigned s = seed + (unsigned)leg;
                    if (sending) {
                        mt_fill(buf, n, s);
                        if (variant == 1) {
                            MPI_OK(MPI_Isend(buf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq));
                            MPI_OK(MPI_Wait(&rq, &st));
                        } else {
                            MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
                        }
                    } else {
                        memset(buf, 0xEE, n + GUARD);
                        if (variant == 0) {
                            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                        } else if (variant == 1) {
                            MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq));
                            MPI_OK(MPI_Wait(&rq, &st));
                        } else {
                            /* larger receive buffer, wildcards */
                            MPI_OK(MPI_Recv(buf, (int)max, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                            MPI_COMM_WORLD, &st));
                        }
                        check_recv(n, s, &st, peer, tag);
                    }
                }
            }
        }
    }

    /* MPI_INT counts: odd element counts across the limits. */
    static const int icounts[] = {1, 3, 1023, 4097, 16385, 262145, 2097151};
    for (size_t k = 0; k < sizeof icounts / sizeof icounts[0]; k++) {
        int n = icounts[k];
        int *ib = (int *)buf;
        MPI_Status st;
        int count;
        if (first) {
            for (int i = 0; i < n; i++)
                ib[i] = i * 3 + (int)k;
            MPI_OK(MPI_Send(ib, n, MPI_INT, peer, 7, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(ib, n, MPI_INT, peer, 8, MPI_COMM_WORLD, &st));
            for (int i = 0; i < n; i++)
                CHECK(ib[i] == -(i * 3 + (int)k), "int count %d: element %d is %d", n, i, ib[i]);
        } else {
            MPI_OK(MPI_Recv(ib, n, MPI_INT, peer, 7, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
            CHECK(count == n, "int count %d: Get_count %d", n, count);
            for (int i = 0; i < n; i++) {
                CHECK(ib[i] == i * 3 + (int)k, "int count %d: element %d is %d", n, i, ib[i]);
                ib[i] = -ib[i];
            }
            MPI_OK(MPI_Send(ib, n, MPI_INT, peer, 8, MPI_COMM_WORLD));
        }
    }

    /* Receive posted long after the message arrived (unexpected path), every
     * size class, sent with Isend so the sender does not wait. */
    for (size_t k = 0; k < NSIZES; k += 3) {
        size_t n = sizes[k];
        unsigned seed = 5000u + (unsigned)k;
        if (first) {
            MPI_Request rq;
            mt_fill(buf, n, seed);
            MPI_OK(MPI_Isend(buf, (int)n, MPI_BYTE, peer, 99, MPI_COMM_WORLD, &rq));
            char go = 1;
            MPI_OK(MPI_Send(&go, 1, MPI_CHAR, peer, 98, MPI_COMM_WORLD));
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Recv(&go, 1, MPI_CHAR, peer, 97, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            char go;
            MPI_Status st;
            MPI_OK(MPI_Recv(&go, 1, MPI_CHAR, peer, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            mt_sleep_ms(n > 1000000 ? 5 : 1);
            memset(buf, 0xEE, n + GUARD);
            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, peer, 99, MPI_COMM_WORLD, &st));
            check_recv(n, seed, &st, peer, 99);
            MPI_OK(MPI_Send(&go, 1, MPI_CHAR, peer, 97, MPI_COMM_WORLD));
        }
    }

    free(buf);
    mt_barrier();
    return mt_finish();
}
