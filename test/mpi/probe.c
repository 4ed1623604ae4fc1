/* np: 2 3
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * env: CLUMPI_EAGER_LIMIT=32768
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv: sizes learnt from the status
 * before receiving, small and rendezvous-sized messages, ANY_SOURCE/ANY_TAG,
 * a matched (Mprobe'd) message is removed from matching so later probes see
 * the next one, probing leaves the message in place, MPI_PROC_NULL.
 */
#include "mtest.h"

#define BIG (3 << 20)

static void send_msg(int dest, int tag, int n, unsigned seed)
{
    unsigned char *b = mt_malloc((size_t)n);
    mt_fill(b, (size_t)n, seed);
    MPI_OK(MPI_Send(b, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD));
    free(b);
}

static void check_status(const MPI_Status *st, int src, int tag, int n, const char *what)
{
    int count;
    CHECK(st->MPI_SOURCE == src, "%s: source %d, expected %d", what, st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "%s: tag %d, expected %d", what, st->MPI_TAG, tag);
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == n, "%s: count %d, expected %d", what, count, n);
}

static void check_data(const void *b, int n, unsigned seed, const char *what)
{
    long bad = mt_verify(b, (size_t)n, seed);
    CHECK(bad < 0, "%s: byte %ld corrupt", what, bad);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "probe");
    static const int sizes[] = {0, 1, 100, 20000, 70000, BIG};
    const int NS = (int)(sizeof sizes / sizeof sizes[0]);
    MPI_Status st;

    /* 1. Probe / Iprobe then Recv into a buffer of the probed size. */
    if (mt_rank == 0) {
        for (int k = 0; k < NS; k++)
            send_msg(1, 10 + k, sizes[k], (unsigned)k);
    } else if (mt_rank == 1) {
        for (int k = 0; k < NS; k++) {
            int n, flag = 0;
            if (k % 2) {
                while (!flag)
                    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            } else {
                MPI_OK(MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            }
            check_status(&st, 0, 10 + k, sizes[k], "probe");
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
            /* probing again sees the same message */
            MPI_OK(MPI_Probe(0, 10 + k, MPI_COMM_WORLD, &st));
            check_status(&st, 0, 10 + k, sizes[k], "second probe");
            unsigned char *b = mt_malloc((size_t)n);
            MPI_OK(MPI_Recv(b, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
            check_status(&st, 0, 10 + k, sizes[k], "recv after probe");
            check_data(b, n, (unsigned)k, "recv after probe");
            free(b);
        }
        int flag = 1;
        MPI_OK(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "Iprobe found a message that was already received");
    }
    mt_barrier();

    /* 2. Mprobe takes a message out of matching: two messages with the same
     * tag, Mprobe the first, then Probe must see the second. */
    if (mt_rank == 0) {
        /* nonblocking: the first (maybe rendezvous) send completes only after
         * the receiver has probed the second */
        for (int k = 0; k < NS; k++) {
            unsigned char *b1 = mt_malloc((size_t)sizes[k]), b2[16];
            MPI_Request rq[2];
            mt_fill(b1, (size_t)sizes[k], 100u + (unsigned)k);
            mt_fill(b2, (size_t)(7 + k), 200u + (unsigned)k);
            MPI_OK(MPI_Isend(b1, sizes[k], MPI_BYTE, 1, 50, MPI_COMM_WORLD, &rq[0]));
            MPI_OK(MPI_Isend(b2, 7 + k, MPI_BYTE, 1, 50, MPI_COMM_WORLD, &rq[1]));
            MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            free(b1);
        }
    } else if (mt_rank == 1) {
        for (int k = 0; k < NS; k++) {
            MPI_Message m1, m2;
            int flag = 0;
            if (k % 2)
                MPI_OK(MPI_Mprobe(0, 50, MPI_COMM_WORLD, &m1, &st));
            else
                while (!flag)
                    MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &flag, &m1, &st));
            check_status(&st, 0, 50, sizes[k], "mprobe first");
            CHECK(m1 != MPI_MESSAGE_NULL, "Mprobe gave MPI_MESSAGE_NULL");
            MPI_OK(MPI_Probe(0, 50, MPI_COMM_WORLD, &st));
            check_status(&st, 0, 50, 7 + k, "probe after mprobe (must see the second)");
            MPI_OK(MPI_Mprobe(0, 50, MPI_COMM_WORLD, &m2, &st));
            check_status(&st, 0, 50, 7 + k, "mprobe second");
            /* receive them in the opposite order */
            unsigned char *b2 = mt_malloc((size_t)(7 + k));
            MPI_OK(MPI_Mrecv(b2, 7 + k, MPI_BYTE, &m2, &st));
            CHECK(m2 == MPI_MESSAGE_NULL, "Mrecv did not set the message to MPI_MESSAGE_NULL");
            check_status(&st, 0, 50, 7 + k, "mrecv second");
            check_data(b2, 7 + k, 200u + (unsigned)k, "mrecv second");
            unsigned char *b1 = mt_malloc((size_t)sizes[k]);
            if (k % 2) {
                MPI_OK(MPI_Mrecv(b1, sizes[k], MPI_BYTE, &m1, &st));
            } else {
                MPI_Request rq;
                MPI_OK(MPI_Imrecv(b1, sizes[k], MPI_BYTE, &m1, &rq));
                CHECK(m1 == MPI_MESSAGE_NULL, "Imrecv did not set the message to MPI_MESSAGE_NULL");
                MPI_OK(MPI_Wait(&rq, &st));
            }
            check_status(&st, 0, 50, sizes[k], "mrecv first");
            check_data(b1, sizes[k], 100u + (unsigned)k, "mrecv first");
            free(b1);
            free(b2);
        }
    }
    mt_barrier();

    /* 3. A posted receive does not steal an Mprobe'd message; ANY_SOURCE
     * probing with several senders. */
    if (mt_size >= 3) {
        if (mt_rank == 0) {
            int total = 0;
            for (int i = 0; i < 2 * (mt_size - 1); i++) {
                MPI_Message m;
                int v[2];
                MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &m, &st));
                int src = st.MPI_SOURCE;
                MPI_OK(MPI_Mrecv(v, 2, MPI_INT, &m, &st));
                CHECK(st.MPI_SOURCE == src && v[0] == src, "mprobe any source: %d vs %d vs %d",
                      src, st.MPI_SOURCE, v[0]);
                total += v[1];
            }
            CHECK(total == (mt_size - 1) * 3, "mprobe any source: total %d", total);
        } else {
            int v[2] = {mt_rank, 1};
            MPI_OK(MPI_Send(v, 2, MPI_INT, 0, 70, MPI_COMM_WORLD));
            v[1] = 2;
            MPI_OK(MPI_Send(v, 2, MPI_INT, 0, 70, MPI_COMM_WORLD));
        }
    }
    mt_barrier();

    /* 4. MPI_PROC_NULL */
    {
        int flag = 0, count = -1;
        MPI_Message m;
        MPI_OK(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
              "Probe(PROC_NULL): source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == 0, "Probe(PROC_NULL): count %d", count);
        MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
        CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "Iprobe(PROC_NULL): flag %d source %d",
              flag, st.MPI_SOURCE);
        MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &st));
        CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) did not give MPI_MESSAGE_NO_PROC");
        char c = 'x';
        MPI_OK(MPI_Mrecv(&c, 1, MPI_CHAR, &m, &st));
        CHECK(c == 'x' && st.MPI_SOURCE == MPI_PROC_NULL, "Mrecv(MESSAGE_NO_PROC) changed data");
        flag = 0;
        MPI_OK(MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &m, &st));
        CHECK(flag && m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d", flag);
        MPI_Request rq;
        MPI_OK(MPI_Imrecv(&c, 1, MPI_CHAR, &m, &rq));
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK(c == 'x' && st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(MESSAGE_NO_PROC) changed data");
    }
    return mt_finish();
}
