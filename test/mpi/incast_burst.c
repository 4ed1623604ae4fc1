/* np: 8 16
 *
 * Rounds of a hand-made linear gather: in each round every rank sends rank
 * 0 one small message and goes on, rank 0 receives one from each. The
 * senders run ahead, so their messages pile up at rank 0 as unexpected
 * ones; when the last round is sent nobody sends anything more, so a
 * message rank 0's channel stopped reading is never read and the job hangs
 * (its timeout fails the test). Every message must arrive, in order.
 *
 * Across emulated nodes this hung the network channel: libfabric 1.17's
 * net provider stops reading a connection whose next message finds no
 * posted receive, and a receive posted later resumes only the first of
 * those connections. A multi-recv slab reposted after a burst served one
 * connection and the others stayed unread while the slab had room
 * (netmod/ofi/init.c uses one-packet buffers with that provider).
 */
#include "mtest.h"

#define MAXSIZE 8192
#define BYTES (4 << 20)   /* per sender and size: rounds = BYTES / size, at most 4000 */

static unsigned seed_of(int src, int round)
{
    return (unsigned)(src * 7919 + round);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "incast_burst");
    int n = mt_size;
    unsigned char *b = mt_malloc((size_t)n * MAXSIZE);
    MPI_Request *rq = mt_malloc((size_t)n * sizeof *rq);
    MPI_Status *st = mt_malloc((size_t)n * sizeof *st);
    for (size_t len = 1; len <= MAXSIZE; len *= 2) {
        int rounds = BYTES / (int)len < 4000 ? BYTES / (int)len : 4000;
        for (int round = 0; round < rounds; round++) {
            int tag = round % 1000;
            if (mt_rank == 0) {
                for (int src = 1; src < n; src++)
                    MPI_OK(MPI_Irecv(b + (size_t)src * MAXSIZE, MAXSIZE, MPI_BYTE, src, tag,
                                     MPI_COMM_WORLD, &rq[src]));
                MPI_OK(MPI_Waitall(n - 1, rq + 1, st + 1));
                for (int src = 1; src < n; src++) {
                    int count;
                    MPI_OK(MPI_Get_count(&st[src], MPI_BYTE, &count));
                    CHECK(count == (int)len, "%zu B round %d from %d: count %d", len, round, src,
                          count);
                    long bad = mt_verify(b + (size_t)src * MAXSIZE, len, seed_of(src, round));
                    CHECK(bad < 0, "%zu B round %d from %d: byte %ld wrong (lost or reordered)",
                          len, round, src, bad);
                }
            } else {
                mt_fill(b, len, seed_of(mt_rank, round));
                MPI_OK(MPI_Send(b, (int)len, MPI_BYTE, 0, tag, MPI_COMM_WORLD));
            }
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(st);
    free(rq);
    free(b);
    return mt_finish();
}
