/* np: 1 2
 *
 * MPI_PROC_NULL as source or destination: every send and receive form
 * succeeds at once, leaves the buffer untouched, and the status says source
 * MPI_PROC_NULL, tag MPI_ANY_TAG, count 0.
 */
#include "mtest.h"

static void check_null_status(const MPI_Status *st, const char *what)
{
    int count = -1;
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL, "%s: source %d", what, st->MPI_SOURCE);
    CHECK(st->MPI_TAG == MPI_ANY_TAG, "%s: tag %d", what, st->MPI_TAG);
    MPI_OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(count == 0, "%s: count %d", what, count);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "procnull");
    int buf[4] = {1, 2, 3, 4};
    MPI_Status st;
    MPI_Request rq[8];

    MPI_OK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Bsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD)); /* no buffer needed */
    MPI_OK(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv");
    CHECK(buf[0] == 1 && buf[3] == 4, "Recv from PROC_NULL wrote the buffer");

    MPI_OK(MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Issend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Irsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[2]));
    MPI_OK(MPI_Ibsend(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[3]));
    MPI_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[4]));
    MPI_Status sts[5];
    MPI_OK(MPI_Waitall(5, rq, sts));
    check_null_status(&sts[4], "Irecv");
    CHECK(buf[0] == 1 && buf[3] == 4, "Irecv from PROC_NULL wrote the buffer");

    /* persistent */
    MPI_OK(MPI_Send_init(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Recv_init(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq[1]));
    for (int i = 0; i < 3; i++) {
        MPI_OK(MPI_Startall(2, rq));
        int flag = 0;
        MPI_OK(MPI_Testall(2, rq, &flag, sts));
        CHECK(flag, "persistent PROC_NULL requests did not complete at once");
        check_null_status(&sts[1], "Recv_init");
    }
    MPI_OK(MPI_Request_free(&rq[0]));
    MPI_OK(MPI_Request_free(&rq[1]));

    /* Sendrecv with one side PROC_NULL: a shift without wraparound */
    int right = mt_rank + 1 < mt_size ? mt_rank + 1 : MPI_PROC_NULL;
    int left = mt_rank > 0 ? mt_rank - 1 : MPI_PROC_NULL;
    int out = mt_rank * 10, in = -1;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 3, &in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &st));
    if (left == MPI_PROC_NULL) {
        check_null_status(&st, "Sendrecv");
        CHECK(in == -1, "Sendrecv from PROC_NULL wrote %d", in);
    } else {
        CHECK(in == left * 10 && st.MPI_SOURCE == left, "shift: got %d from %d", in, st.MPI_SOURCE);
    }
    return mt_finish();
}
