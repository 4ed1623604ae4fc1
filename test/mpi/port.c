/* np: 2 3 4 5 7 8
 *
 * Ports within one job: the lower half of the ranks (A, rank 0 opens the
 * port) accepts, the upper half (B) connects, over their own
 * intracommunicators; the groups then route to each other through the
 * dynamic-peer slots. Over the intercommunicator: data both ways (eager and
 * rendezvous sizes, checked against the pattern), a broadcast from each
 * side, an allreduce, remote size and group, Intercomm_merge (the ordering
 * of `high`), a window on the merged communicator (refused:
 * MPI_ERR_UNSUPPORTED_OPERATION), disconnect. A second connect to the same port works. Then
 * MPI_Comm_join over a TCP connection made by ranks 0 and size-1, and the
 * error classes: a malformed port name and a closed port (MPI_ERR_PORT),
 * Close_port of an unknown name (MPI_ERR_PORT), a bad root (MPI_ERR_ROOT),
 * join on a non-socket fd (MPI_ERR_ARG), disconnect of COMM_WORLD
 * (MPI_ERR_COMM).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include "mtest.h"

#define BIG (200 * 1000)

/* Traffic across ic: every local rank i sends to remote rank i % rsize and
 * receives from every remote rank j with j % lsize == i. */
static void traffic(MPI_Comm ic, int side, size_t n, unsigned tag)
{
    int me, lsize, rsize;
    MPI_OK(MPI_Comm_rank(ic, &me));
    MPI_OK(MPI_Comm_size(ic, &lsize));
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    unsigned char *s = mt_malloc(n), *r = mt_malloc(n);
    mt_fill(s, n, tag + (unsigned)(side * 100 + me));
    MPI_Request q;
    MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, me % rsize, (int)tag, ic, &q));
    for (int j = 0; j < rsize; j++) {
        if (j % lsize != me)
            continue;
        MPI_Status st;
        MPI_OK(MPI_Recv(r, (int)n, MPI_BYTE, j, (int)tag, ic, &st));
        long bad = mt_verify(r, n, tag + (unsigned)((1 - side) * 100 + j));
        CHECK(bad < 0 && st.MPI_SOURCE == j, "side %d: %zu bytes from remote %d: byte %ld "
              "wrong (source %d)", side, n, j, bad, st.MPI_SOURCE);
    }
    MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    free(s);
    free(r);
}

static void use(MPI_Comm ic, int side, int lsize_want, int rsize_want)
{
    int flag, lsize, rsize, me;
    MPI_OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "not an intercommunicator");
    MPI_OK(MPI_Comm_size(ic, &lsize));
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    MPI_OK(MPI_Comm_rank(ic, &me));
    CHECK(lsize == lsize_want && rsize == rsize_want, "sizes %d/%d, expected %d/%d", lsize,
          rsize, lsize_want, rsize_want);
    traffic(ic, side, 100, 1);
    traffic(ic, side, BIG, 2);
    /* a broadcast from each group's rank 0 */
    for (int from = 0; from < 2; from++) {
        int v = side == from && me == 0 ? 4242 + from : -1;
        int root = side == from ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_OK(MPI_Bcast(&v, 1, MPI_INT, root, ic));
        if (side != from)
            CHECK(v == 4242 + from, "bcast from side %d: %d", from, v);
    }
    /* inter allreduce: each group gets the sum over the other group */
    int x = side * 1000 + me, sum;
    MPI_OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, ic));
    int want = (1 - side) * 1000 * rsize + rsize * (rsize - 1) / 2;
    CHECK(sum == want, "inter allreduce: %d, expected %d", sum, want);
    /* merge: side B passes high, so A's ranks come first */
    MPI_Comm m;
    MPI_OK(MPI_Intercomm_merge(ic, side == 1, &m));
    int mrank, msize;
    MPI_OK(MPI_Comm_rank(m, &mrank));
    MPI_OK(MPI_Comm_size(m, &msize));
    CHECK(msize == lsize + rsize && mrank == (side ? rsize + me : me), "merged rank %d of %d",
          mrank, msize);
    int all[16];
    MPI_OK(MPI_Allgather(&side, 1, MPI_INT, all, 1, MPI_INT, m));
    /* windows span one job: refused on every member alike */
    MPI_Win win;
    MPI_OK(MPI_Comm_set_errhandler(m, MPI_ERRORS_RETURN));
    MPI_FAILS(MPI_ERR_UNSUPPORTED_OPERATION, MPI_Win_create(all, 16, 1, MPI_INFO_NULL, m, &win));
    for (int i = 0; i < msize; i++)
        CHECK(all[i] == (i >= (side ? rsize : lsize)), "merged rank %d is of side %d", i, all[i]);
    MPI_OK(MPI_Comm_free(&m));
    /* both groups pass the same high: the order is one both agree on */
    MPI_OK(MPI_Intercomm_merge(ic, 0, &m));
    MPI_OK(MPI_Allgather(&side, 1, MPI_INT, all, 1, MPI_INT, m));
    int changes = 0;
    for (int i = 1; i < msize; i++)
        changes += all[i] != all[i - 1];
    CHECK(changes == 1, "tie merge mixes the sides (%d changes)", changes);
    MPI_OK(MPI_Comm_free(&m));
}

static void join_pair(void)
{
    int last = mt_size - 1, fd = -1;
    if (mt_rank == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t sl = sizeof sa;
        CHECK(l >= 0 && bind(l, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(l, 1) == 0 &&
              getsockname(l, (struct sockaddr *)&sa, &sl) == 0, "listen");
        int port = ntohs(sa.sin_port);
        MPI_OK(MPI_Send(&port, 1, MPI_INT, last, 7, MPI_COMM_WORLD));
        fd = accept(l, NULL, NULL);
        close(l);
    } else if (mt_rank == last) {
        int port;
        MPI_OK(MPI_Recv(&port, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        fd = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect");
    } else
        return;
    CHECK(fd >= 0, "no socket");
    MPI_Comm ic;
    int rc = MPI_Comm_join(fd, &ic);
    MPI_OK(rc);
    int rsize, v = mt_rank, got = -1;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    CHECK(rsize == 1, "join: remote size %d", rsize);
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE));
    CHECK(got == (mt_rank == 0 ? last : 0), "join: got %d", got);
    MPI_OK(MPI_Comm_disconnect(&ic));
    CHECK(ic == MPI_COMM_NULL, "disconnect left the handle");
    close(fd);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "port");
    if (mt_size < 2) {
        MPI_OK(MPI_Finalize());
        return 0;
    }
    int half = mt_size / 2, side = mt_rank >= half;
    MPI_Comm mine;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, side, mt_rank, &mine));
    MPI_OK(MPI_Comm_set_errhandler(mine, MPI_ERRORS_RETURN));
    char port[MPI_MAX_PORT_NAME] = "";
    if (mt_rank == 0)
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
    MPI_OK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    int lsize = side ? mt_size - half : half, rsize = side ? half : mt_size - half;
    for (int round = 0; round < 2; round++) {
        MPI_Comm ic;
        int rc = side == 0 ? MPI_Comm_accept(port, MPI_INFO_NULL, 0, mine, &ic)
                           : MPI_Comm_connect(port, MPI_INFO_NULL, lsize - 1, mine, &ic);
        MPI_OK(rc);
        use(ic, side, lsize, rsize);
        MPI_OK(MPI_Comm_disconnect(&ic));
        CHECK(ic == MPI_COMM_NULL, "disconnect left the handle");
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    join_pair();

    /* error classes */
    MPI_Comm ic;
    if (side == 1) {
        MPI_FAILS(MPI_ERR_PORT, MPI_Comm_connect("no-such-port", MPI_INFO_NULL, 0, mine, &ic));
        MPI_FAILS(MPI_ERR_ROOT, MPI_Comm_connect(port, MPI_INFO_NULL, lsize, mine, &ic));
    } else {
        MPI_FAILS(MPI_ERR_PORT, MPI_Comm_accept("clumpi-port:1.2.3.4:1:0", MPI_INFO_NULL, 0,
                                                mine, &ic));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        MPI_OK(MPI_Close_port(port));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (side == 1)   /* the port is closed now: nobody listens there */
        MPI_FAILS(MPI_ERR_PORT, MPI_Comm_connect(port, MPI_INFO_NULL, 0, mine, &ic));
    MPI_FAILS(MPI_ERR_PORT, MPI_Close_port("clumpi-port:127.0.0.1:9:0"));
    MPI_FAILS(MPI_ERR_ARG, MPI_Comm_join(-1, &ic));
    int pfd[2];
    CHECK(pipe(pfd) == 0, "pipe");
    MPI_FAILS(MPI_ERR_ARG, MPI_Comm_join(pfd[0], &ic));   /* not a socket */
    close(pfd[0]);
    close(pfd[1]);
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_FAILS(MPI_ERR_COMM, MPI_Comm_disconnect(&w));
    MPI_OK(MPI_Comm_free(&mine));
    return mt_finish();
}
