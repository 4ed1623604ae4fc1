/* np: 1 2 3 4
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 *
 * cancel_send.c — MPI_Cancel of sends. Ranks pair up (0-1, 2-3; an odd one
 * out sends to itself). Whatever MPI_Test_cancelled says, the receiver must
 * agree: a cancelled message never arrives (the next message with its tag
 * is a marker sent after it), one not cancelled arrives whole. clumpi
 * cancels a rendezvous send and a synchronous send that the receiver has
 * not matched (checked under CLUMPI), a standard eager send only while it
 * waits for room at the destination (a burst into tiny shm queues), and a
 * send already matched never. Also a persistent send cancelled and started
 * again, and a send freed after its cancel.
 */
#include "mtest.h"

enum { BIG = 1 << 20, TAG = 7, MARK = -12345 };

static int peer;
static char *sbuf, *rbuf;

/* The receiver's side of one case: learns from the sender whether it was
 * cancelled, then takes the message (if not) and the marker. */
static void receive(int n, int tag)
{
    int cancelled = -1, mark = 0;
    MPI_Status st;
    MPI_OK(MPI_Recv(&cancelled, 1, MPI_INT, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (!cancelled) {
        memset(rbuf, 0, (size_t)n);
        MPI_OK(MPI_Recv(rbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
        int got = -1;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
        CHECK(got == n, "message not cancelled: %d bytes, expected %d", got, n);
        long bad = mt_verify(rbuf, (size_t)n, (unsigned)n);
        CHECK(bad < 0, "message not cancelled: byte %ld wrong", bad);
    }
    /* the next message with this tag must be the marker */
    MPI_OK(MPI_Recv(&mark, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
    int got = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
    CHECK(got == (int)sizeof(int) && mark == MARK, "%s message of %d bytes arrived (next on "
          "its tag: %d bytes, %d)", cancelled ? "a cancelled" : "after the", n, got, mark);
}

/* The peer's message with tag is waiting here, unexpected (probe does
 * not match it); then every rank knows that of its own message. */
static void arrived(int tag)
{
    int flag = 0;
    while (!flag)
        MPI_OK(MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    mt_barrier();
}

/* Both roles at once after a cancel: the outcome of our send (reported to
 * the receiver, then the marker) and the peer's message. */
static int settle(MPI_Request *rq, int n, int tag)
{
    MPI_Request out[2];
    int flag = -1, mark = MARK;
    MPI_Status st;
    MPI_OK(MPI_Wait(rq, &st));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    MPI_OK(MPI_Isend(&flag, 1, MPI_INT, peer, 100, MPI_COMM_WORLD, &out[0]));
    MPI_OK(MPI_Isend(&mark, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &out[1]));
    receive(n, tag);
    MPI_OK(MPI_Waitall(2, out, MPI_STATUSES_IGNORE));
    return flag;
}

/* One case, each rank both sender and receiver (the peer may be this
 * rank): n bytes, synchronous or standard; matched_first: the receive
 * completes before the cancel. Returns Test_cancelled. */
static int one(int n, int sync, int matched_first)
{
    MPI_Request rq, rr = MPI_REQUEST_NULL;
    mt_fill(sbuf, (size_t)n, (unsigned)n);
    if (sync)
        MPI_OK(MPI_Issend(sbuf, n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &rq));
    else
        MPI_OK(MPI_Isend(sbuf, n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &rq));
    if (matched_first) {
        /* the peer's receive completes before we cancel */
        MPI_OK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &rr));
        MPI_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
        CHECK(mt_verify(rbuf, (size_t)n, (unsigned)n) < 0, "matched message wrong");
        mt_barrier();
        MPI_OK(MPI_Cancel(&rq));
        int flag = -1, mark = MARK, got = 0;
        MPI_Status st;
        MPI_OK(MPI_Wait(&rq, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "a send whose receive completed was cancelled");
        MPI_OK(MPI_Sendrecv(&mark, 1, MPI_INT, peer, TAG, &got, 1, MPI_INT, peer, TAG,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == MARK, "marker %d", got);
        return flag;
    }
    arrived(TAG);
    MPI_OK(MPI_Cancel(&rq));
    return settle(&rq, n, TAG);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "cancel_send");
    peer = mt_rank ^ 1;
    if (peer >= mt_size)
        peer = mt_rank;
    sbuf = mt_malloc(BIG);
    rbuf = mt_malloc(BIG);

    /* rendezvous, unmatched: cancelled */
    int f = one(BIG, 0, 0);
#ifdef CLUMPI
    CHECK(f, "an unmatched rendezvous send was not cancelled");
#endif
    /* synchronous, small, unmatched: cancelled */
    f = one(64, 1, 0);
#ifdef CLUMPI
    CHECK(f, "an unmatched synchronous send was not cancelled");
#endif
    /* standard small: may go either way (clumpi: not cancelled unless it
     * still waited for room); the receiver agrees */
    one(64, 0, 0);
    one(0, 0, 0);
    /* matched before the cancel: never cancelled */
    one(BIG, 0, 1);
    one(64, 1, 1);
    mt_barrier();

    /* persistent: cancel a round, then start it again and deliver it */
    MPI_Request pr;
    mt_fill(sbuf, BIG, BIG);
    MPI_OK(MPI_Send_init(sbuf, BIG, MPI_BYTE, peer, TAG + 1, MPI_COMM_WORLD, &pr));
    MPI_OK(MPI_Start(&pr));
    arrived(TAG + 1);
    MPI_OK(MPI_Cancel(&pr));
    int flag = settle(&pr, BIG, TAG + 1);
    CHECK(pr != MPI_REQUEST_NULL, "Wait freed a persistent request");
#ifdef CLUMPI
    CHECK(flag, "an unmatched persistent rendezvous send was not cancelled");
#endif
    MPI_OK(MPI_Start(&pr));
    memset(rbuf, 0, BIG);
    MPI_OK(MPI_Recv(rbuf, BIG, MPI_BYTE, peer, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
    CHECK(mt_verify(rbuf, BIG, BIG) < 0, "restarted persistent send: data wrong");
    MPI_OK(MPI_Request_free(&pr));

    /* a burst of small sends cancelled at once: the ones still waiting for
     * room here (clumpi: with tiny shm queues) are cancelled, the others
     * arrive, in order */
    {
        enum { K = 40, M = 64 };
        MPI_Request b[K];
        int flags[K], theirs[K];
        char *msgs = mt_malloc(K * M);
        for (int i = 0; i < K; i++) {
            mt_fill(msgs + i * M, M, 500 + (unsigned)i);
            MPI_OK(MPI_Isend(msgs + i * M, M, MPI_BYTE, peer, 300, MPI_COMM_WORLD, &b[i]));
        }
        for (int i = 0; i < K; i++)
            MPI_OK(MPI_Cancel(&b[i]));
        for (int i = 0; i < K; i++) {
            MPI_Status st;
            MPI_OK(MPI_Wait(&b[i], &st));
            MPI_OK(MPI_Test_cancelled(&st, &flags[i]));
        }
        MPI_Request o[2];
        int mark = MARK;
        MPI_OK(MPI_Isend(flags, K, MPI_INT, peer, 100, MPI_COMM_WORLD, &o[0]));
        MPI_OK(MPI_Isend(&mark, 1, MPI_INT, peer, 300, MPI_COMM_WORLD, &o[1]));
        MPI_OK(MPI_Recv(theirs, K, MPI_INT, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < K; i++) {
            if (theirs[i])
                continue;
            char m[M];
            MPI_Status st;
            int n = -1;
            MPI_OK(MPI_Recv(m, M, MPI_BYTE, peer, 300, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
            CHECK(n == M && mt_verify(m, M, 500 + (unsigned)i) < 0, "burst message %d of %d "
                  "(not cancelled) wrong or out of order (%d bytes)", i, K, n);
        }
        int got = 0;
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, peer, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == MARK, "a cancelled burst message arrived");
        MPI_OK(MPI_Waitall(2, o, MPI_STATUSES_IGNORE));
        free(msgs);
    }

#ifdef CLUMPI
    /* freed after the cancel: it still completes (cancelled) by itself,
     * and nothing arrives */
    MPI_Request rq;
    MPI_OK(MPI_Isend(sbuf, BIG, MPI_BYTE, peer, TAG + 2, MPI_COMM_WORLD, &rq));
    arrived(TAG + 2);
    MPI_OK(MPI_Cancel(&rq));
    MPI_OK(MPI_Request_free(&rq));
    /* a token behind our CANCEL on the same ordered queue: once the peer
     * has it, it has handled the CANCEL too */
    int token = 1, tok = 0;
    MPI_OK(MPI_Sendrecv(&token, 1, MPI_INT, peer, 200, &tok, 1, MPI_INT, peer, 200,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int mark = MARK, got = 0, n = -1;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(&mark, 1, MPI_INT, peer, TAG + 2, &got, 1, MPI_INT, peer, TAG + 2,
                        MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == (int)sizeof(int) && got == MARK, "a freed, cancelled send arrived (%d bytes)", n);
#endif
    free(sbuf);
    free(rbuf);
    return mt_finish();
}
