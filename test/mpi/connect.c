/*
 * connect.c — one side of test/mpi/connect.sh: two jobs started by separate
 * mpiruns, finding each other through the name service. "server NAME":
 * rank 0 opens a port and publishes it as NAME, the job accepts, and
 * unpublishes at the end (a second name, NAME+" left", it leaves published:
 * its mpirun removes it when the job ends). "client NAME": rank 0 looks
 * NAME up until it is published (MPI_ERR_NAME meanwhile), and the job
 * connects (mt_meet). Over the intercommunicator: every process sends
 * its rank and job size to every remote process (eager) and a 100 KB
 * message to one (rendezvous), checked; an inter allreduce; merge; then
 * disconnect, after which the client outlives the server (it sleeps and
 * still talks within its own world), so the jobs are independent.
 */
#include <unistd.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "connect");
    CHECK(argc == 3, "usage: connect server|client NAME");
    int server = !strcmp(argv[1], "server");
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm ic = mt_meet(server, argv[2], port);
    if (mt_rank == 0 && server) {
        char left[256];
        snprintf(left, sizeof left, "%s left", argv[2]);
        MPI_OK(MPI_Publish_name(left, MPI_INFO_NULL, port));
    }
    int rsize;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    int mine[2] = { mt_rank, mt_size }, *got = mt_malloc(2 * sizeof(int) * (size_t)rsize);
    MPI_Request *q = mt_malloc(2 * sizeof *q * (size_t)rsize);
    for (int j = 0; j < rsize; j++) {
        MPI_OK(MPI_Irecv(&got[2 * j], 2, MPI_INT, j, 5, ic, &q[j]));
        MPI_OK(MPI_Isend(mine, 2, MPI_INT, j, 5, ic, &q[rsize + j]));
    }
    MPI_OK(MPI_Waitall(2 * rsize, q, MPI_STATUSES_IGNORE));
    for (int j = 0; j < rsize; j++)
        CHECK(got[2 * j] == j && got[2 * j + 1] == rsize, "from remote %d: %d %d", j,
              got[2 * j], got[2 * j + 1]);
    size_t n = 100000;
    unsigned char *s = mt_malloc(n), *r = mt_malloc(n);
    mt_fill(s, n, (unsigned)(server * 50 + mt_rank));
    /* rank i sends to remote i % rsize; receives from remote j if j % size == i */
    MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, mt_rank % rsize, 6, ic, &q[0]));
    for (int j = mt_rank; j < rsize; j += mt_size) {
        MPI_OK(MPI_Recv(r, (int)n, MPI_BYTE, j, 6, ic, MPI_STATUS_IGNORE));
        long bad = mt_verify(r, n, (unsigned)(!server * 50 + j));
        CHECK(bad < 0, "100 KB from remote %d: byte %ld wrong", j, bad);
    }
    MPI_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    int one = 1, total = 0;
    MPI_OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, ic));
    CHECK(total == rsize, "inter allreduce %d, expected %d", total, rsize);
    MPI_Comm m;
    MPI_OK(MPI_Intercomm_merge(ic, !server, &m));
    int mr, ms;
    MPI_OK(MPI_Comm_rank(m, &mr));
    MPI_OK(MPI_Comm_size(m, &ms));
    CHECK(ms == mt_size + rsize && mr == (server ? mt_rank : rsize + mt_rank), "merged %d/%d",
          mr, ms);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&mr, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == ms * (ms - 1) / 2, "merged allreduce %d", sum);
    MPI_OK(MPI_Comm_free(&m));
    MPI_OK(MPI_Comm_disconnect(&ic));
    if (server && mt_rank == 0) {
        MPI_OK(MPI_Unpublish_name(argv[2], MPI_INFO_NULL, port));
        MPI_OK(MPI_Close_port(port));
    }
    if (!server)
        mt_sleep_ms(1500);   /* the server job ends meanwhile */
    free(s);
    free(r);
    free(got);
    free(q);
    if (mt_rank == 0)
        printf("%s: %d processes talked to %d\n", argv[1], mt_size, rsize);
    return mt_finish();
}
