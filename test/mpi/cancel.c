/* np: 1 2 3
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Cancel of receives: a receive that can never match is cancelled, its Wait
 * returns with Test_cancelled true and the buffer untouched; a cancelled
 * receive does not take a message sent later; cancelling a receive that
 * already completed has no effect; cancelled persistent receives restart.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "cancel");
    MPI_Status st;
    int flag;

    /* 1. never-matching receive, on COMM_WORLD and COMM_SELF */
    for (int c = 0; c < 2; c++) {
        MPI_Comm comm = c ? MPI_COMM_SELF : MPI_COMM_WORLD;
        int v = 99;
        MPI_Request rq;
        MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 12345, comm, &rq));
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK(rq == MPI_REQUEST_NULL, "Wait after Cancel did not free the request");
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "Test_cancelled false after cancelling an unmatched receive");
        CHECK(v == 99, "cancelled receive wrote its buffer");
    }

    /* 2. cancel, then a message with that tag goes to the next receive */
    {
        int peer = mt_rank ^ 1; /* pairs (0,1), (2,3), ...; an odd one out talks to itself */
        if (peer >= mt_size)
            peer = mt_rank;
        int v1 = -1, v2 = -1;
        MPI_Request r1, r2;
        MPI_OK(MPI_Irecv(&v1, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r1));
        MPI_OK(MPI_Cancel(&r1));
        MPI_OK(MPI_Wait(&r1, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "receive not cancelled");
        mt_barrier(); /* nobody sends before every cancel is done */
        MPI_OK(MPI_Irecv(&v2, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r2));
        int out = 1000 + mt_rank;
        MPI_Request s2;
        MPI_OK(MPI_Isend(&out, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &s2));
        MPI_OK(MPI_Wait(&r2, &st));
        MPI_OK(MPI_Wait(&s2, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "Test_cancelled true for a completed receive");
        CHECK(v2 == 1000 + peer && v1 == -1, "after cancel: v1 %d v2 %d", v1, v2);
    }
    mt_barrier();

    /* 3. cancel after completion: no effect */
    {
        int in = 0, out = 4242;
        MPI_Request r;
        MPI_OK(MPI_Irecv(&in, 1, MPI_INT, mt_rank, 6, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Send(&out, 1, MPI_INT, mt_rank, 6, MPI_COMM_WORLD));
        flag = 0;
        while (!flag)
            MPI_OK(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "cancel of a completed receive reported cancelled");
        CHECK(in == 4242 && st.MPI_SOURCE == mt_rank && st.MPI_TAG == 6,
              "completed receive: %d from %d tag %d", in, st.MPI_SOURCE, st.MPI_TAG);
    }

    /* 4. many cancelled receives interleaved with real traffic (self) */
    {
        MPI_Request rq[64];
        int vals[64];
        for (int i = 0; i < 64; i++) {
            vals[i] = -1;
            MPI_OK(MPI_Irecv(&vals[i], 1, MPI_INT, mt_rank, i % 2 ? 900 : 901, MPI_COMM_WORLD, &rq[i]));
        }
        for (int i = 0; i < 64; i += 2)
            MPI_OK(MPI_Cancel(&rq[i])); /* all the tag-901 ones */
        for (int i = 1; i < 64; i += 2) {
            int out = i;
            MPI_OK(MPI_Send(&out, 1, MPI_INT, mt_rank, 900, MPI_COMM_WORLD));
        }
        MPI_Status sts[64];
        MPI_OK(MPI_Waitall(64, rq, sts));
        for (int i = 0; i < 64; i++) {
            MPI_OK(MPI_Test_cancelled(&sts[i], &flag));
            if (i % 2)
                CHECK(!flag && vals[i] == i, "receive %d: cancelled %d value %d", i, flag, vals[i]);
            else
                CHECK(flag && vals[i] == -1, "receive %d: cancelled %d value %d", i, flag, vals[i]);
        }
    }

    /* 5. persistent receive: cancel, then start again and receive */
    {
        int v = -1;
        MPI_Request r;
        MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, mt_rank, 31, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "persistent receive not cancelled");
        CHECK(r != MPI_REQUEST_NULL, "Wait freed the persistent request");
        MPI_OK(MPI_Start(&r));
        int out = 31;
        MPI_OK(MPI_Send(&out, 1, MPI_INT, mt_rank, 31, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&r, &st));
        CHECK(v == 31, "persistent receive after cancel: %d", v);
        MPI_OK(MPI_Request_free(&r));
    }
    return mt_finish();
}
