/* np: 2
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * A message longer than the receive buffer: with MPI_ERRORS_RETURN the
 * receive reports MPI_ERR_TRUNCATE (Recv, Wait, Waitall through
 * MPI_ERR_IN_STATUS, Mrecv), for inline, eager and rendezvous sizes and a
 * derived receive type, and nothing is written past the buffer (guard bytes).
 * Afterwards the pair still communicates normally.
 */
#include "mtest.h"

#define GUARD 256

static const int sizes[] = {1, 9, 100, 5000, 70000, 1 << 20, 5 << 20};
#define NS ((int)(sizeof sizes / sizeof sizes[0]))

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "truncate");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (mt_rank > 1) {
        return mt_finish();
    }
    int peer = 1 - mt_rank;
    unsigned char *buf = mt_malloc((size_t)(5 << 20) + 2 * GUARD);

    for (int k = 0; k < NS; k++) {
        int n = sizes[k];
        int short_n = n / 2; /* receive room */
        for (int how = 0; how < 4; how++) {
            int tag = k * 10 + how;
            if (mt_rank == 0) {
                mt_fill(buf, (size_t)n, (unsigned)tag);
                MPI_OK(MPI_Send(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
                /* then a normal message that must still get through */
                MPI_OK(MPI_Send(&tag, 1, MPI_INT, peer, tag, MPI_COMM_WORLD));
                continue;
            }
            memset(buf, 0xEE, (size_t)n + 2 * GUARD);
            unsigned char *rb = buf + GUARD;
            MPI_Status st;
            int rc;
            if (how == 0) {
                rc = MPI_Recv(rb, short_n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
            } else if (how == 1) {
                MPI_Request rq;
                MPI_OK(MPI_Irecv(rb, short_n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq));
                rc = MPI_Wait(&rq, &st);
                CHECK(rq == MPI_REQUEST_NULL, "size %d: request not freed after Wait", n);
            } else if (how == 2) {
                MPI_Request rq[1];
                MPI_Status sts[1];
                MPI_OK(MPI_Irecv(rb, short_n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[0]));
                rc = MPI_Waitall(1, rq, sts);
                CHECK(mt_class(rc) == MPI_ERR_IN_STATUS || mt_class(rc) == MPI_ERR_TRUNCATE,
                      "size %d: Waitall returned class %d", n, mt_class(rc));
                CHECK(mt_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE,
                      "size %d: Waitall status error class %d, expected MPI_ERR_TRUNCATE", n,
                      mt_class(sts[0].MPI_ERROR));
                rc = sts[0].MPI_ERROR;
            } else {
                MPI_Message msg;
                MPI_OK(MPI_Mprobe(peer, tag, MPI_COMM_WORLD, &msg, &st));
                int count;
                MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
                CHECK(count == n, "size %d: Mprobe count %d", n, count);
                rc = MPI_Mrecv(rb, short_n, MPI_BYTE, &msg, &st);
            }
            CHECK(rc != MPI_SUCCESS, "size %d (way %d): truncated receive succeeded", n, how);
            CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "size %d (way %d): class %d, expected "
                  "MPI_ERR_TRUNCATE", n, how, mt_class(rc));
            CHECK(mt_all(buf, GUARD, 0xEE) < 0, "size %d (way %d): wrote before the buffer", n, how);
            long bad = mt_all(rb + short_n, GUARD + (size_t)(n - short_n), 0xEE);
            CHECK(bad < 0, "size %d (way %d): wrote %ld bytes past the %d-byte buffer", n, how,
                  bad + 1, short_n);
            int v = -1;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
            CHECK(v == tag, "size %d: next message %d, expected %d", n, v, tag);
        }
    }

    /* Derived receive type: a vector of 10 blocks of 2 ints, stride 4; the
     * sender sends 30 ints. The holes and the guard must stay untouched. */
    {
        MPI_Datatype vec;
        MPI_OK(MPI_Type_vector(10, 2, 4, MPI_INT, &vec));
        MPI_OK(MPI_Type_commit(&vec));
        if (mt_rank == 0) {
            int out[30];
            for (int i = 0; i < 30; i++)
                out[i] = i + 1;
            MPI_OK(MPI_Send(out, 30, MPI_INT, peer, 500, MPI_COMM_WORLD));
        } else {
            int in[64];
            for (int i = 0; i < 64; i++)
                in[i] = -7;
            int rc = MPI_Recv(in, 1, vec, peer, 500, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "vector: class %d", mt_class(rc));
            for (int i = 0; i < 64; i++) {
                int in_block = i < 38 && (i % 4) < 2;
                if (!in_block)
                    CHECK(in[i] == -7, "vector: int %d (outside the type) overwritten", i);
            }
        }
        MPI_OK(MPI_Type_free(&vec));
    }

    /* Normal traffic still works both ways. */
    int x = mt_rank == 0 ? 42 : 0;
    if (mt_rank == 0) {
        MPI_OK(MPI_Send(&x, 1, MPI_INT, peer, 600, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, peer, 601, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(x == 43, "after truncation: got %d", x);
    } else {
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, peer, 600, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        x++;
        MPI_OK(MPI_Send(&x, 1, MPI_INT, peer, 601, MPI_COMM_WORLD));
    }
    free(buf);
    return mt_finish();
}
