/*
 * dyn_vanish.c — one side of test/mpi/dyn_vanish.sh: two jobs started by
 * separate mpiruns connect through the name service ("server NAME": rank 0
 * opens and publishes the port, the job accepts; "client NAME PIDFILE": the
 * job connects, rank 0 writes its pid to PIDFILE and sleeps outside MPI).
 * After an inter allreduce, every server rank waits in MPI_Recv from the
 * client's rank 0, which the script kills: the server must not wait
 * forever (MPI_ERRORS_ARE_FATAL on the intercommunicator: the job ends
 * naming the lost process).
 *
 * "keep NAME NAME2": a server whose intercommunicator has MPI_ERRORS_RETURN.
 * Before the kill every rank has a receive from the client's rank 0, one
 * from MPI_ANY_SOURCE, a synchronous send and a rendezvous send (1 MiB)
 * pending, none of which the client answers; after it, each must complete
 * with MPI_ERR_OTHER, and so must new sends, receives and probes. Then the
 * intercommunicator is disconnected, and the server accepts a second
 * client ("client2 NAME2") under NAME2 and exchanges data with it both
 * ways (eager and rendezvous), checked against what was sent. Before the
 * kill the two jobs also merge the intercommunicator (a client whose NAME
 * starts with "keep" takes part), and the server ranks but 0 disconnect
 * the merged communicator at once, with nothing pending to the client;
 * rank 0 does so once its operations with the client failed: all must
 * come out of the disconnect, none waiting for the dead client.
 */
#include <unistd.h>
#include "mtest.h"

#define BIG (1 << 20)

/* A request or call that must fail because its peer is gone. */
static void expect_lost(int rc, const char *what)
{
    CHECK(rc != MPI_SUCCESS, "%s with the killed client succeeded", what);
    CHECK(mt_class(rc) == MPI_ERR_OTHER, "%s with the killed client: class %d, expected "
          "MPI_ERR_OTHER", what, mt_class(rc));
}

/* Both sides after a connection: the inter allreduce, then the barrier
 * that says both sides are past it. */
static void meet_check(MPI_Comm ic)
{
    int rsize, one = 1, got = -1;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    MPI_OK(MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, ic));
    CHECK(got == rsize, "inter allreduce %d, expected %d", got, rsize);
}

/* Server and second client (one rank): each server rank and the client
 * swap 7 ints and BIG bytes both ways, each side checking what the other
 * sent. */
static void exchange(MPI_Comm ic, int server)
{
    int rsize, me;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    MPI_OK(MPI_Comm_rank(ic, &me));
    unsigned char *out = malloc(BIG), *in = malloc(BIG);
    CHECK(out && in, "out of memory");
    for (int k = 0; k < (server ? 1 : rsize); k++) {
        int peer = server ? 0 : k, s = server ? me : k;   /* s: the pair's server rank */
        int small[7], rsmall[7];
        for (int i = 0; i < 7; i++)
            small[i] = s * 100 + i + (server ? 0 : 50);
        for (int i = 0; i < BIG; i++)
            out[i] = (unsigned char)(i * 7 + s + (server ? 0 : 1));
        MPI_Request rq[4];
        MPI_OK(MPI_Irecv(rsmall, 7, MPI_INT, peer, 5, ic, &rq[0]));
        MPI_OK(MPI_Irecv(in, BIG, MPI_BYTE, peer, 6, ic, &rq[1]));
        MPI_OK(MPI_Isend(small, 7, MPI_INT, peer, 5, ic, &rq[2]));
        MPI_OK(MPI_Isend(out, BIG, MPI_BYTE, peer, 6, ic, &rq[3]));
        MPI_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 7; i++)
            CHECK(rsmall[i] == s * 100 + i + (server ? 50 : 0), "pair %d: int %d is %d", s, i,
                  rsmall[i]);
        for (int i = 0; i < BIG; i++)
            CHECK(in[i] == (unsigned char)(i * 7 + s + (server ? 1 : 0)),
                  "pair %d: byte %d is %d", s, i, in[i]);
    }
    free(out);
    free(in);
}

static void keep(const char *name, const char *name2)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm ic = mt_meet(1, name, port);
    MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    meet_check(ic);
    if (mt_rank == 0)
        MPI_OK(MPI_Unpublish_name(name, MPI_INFO_NULL, port));
    MPI_OK(MPI_Barrier(ic));
    MPI_Comm mc;
    MPI_OK(MPI_Intercomm_merge(ic, 0, &mc));
    MPI_OK(MPI_Comm_set_errhandler(mc, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Barrier(mc));
    /* the others disconnect before the kill with nothing pending to the
     * client: they have not seen it go, rank 0 (below) has */
    if (mt_rank != 0)
        MPI_OK(MPI_Comm_disconnect(&mc));
    static char big[BIG];
    int got = -1, any = -1, sync = 1;
    MPI_Request rq[4];
    int rc[4];
    rc[0] = MPI_Irecv(&got, 1, MPI_INT, 0, 2, ic, &rq[0]);
    rc[1] = MPI_Irecv(&any, 1, MPI_INT, MPI_ANY_SOURCE, 3, ic, &rq[1]);
    rc[2] = MPI_Issend(&sync, 1, MPI_INT, 0, 4, ic, &rq[2]);
    rc[3] = MPI_Isend(big, BIG, MPI_BYTE, 0, 4, ic, &rq[3]);
    const char *what[4] = { "a pending receive", "a pending MPI_ANY_SOURCE receive",
                            "a pending synchronous send", "a pending 1 MiB send" };
    /* rank 0 posts before the kill; the others may post after it was
     * seen, when posting fails at once */
    for (int i = 0; i < 4; i++) {
        if (mt_rank == 0)
            MPI_OK(rc[i]);
        expect_lost(rc[i] != MPI_SUCCESS ? rc[i] : MPI_Wait(&rq[i], MPI_STATUS_IGNORE),
                    what[i]);
    }
    expect_lost(MPI_Send(&sync, 1, MPI_INT, 0, 7, ic), "a new send");
    expect_lost(MPI_Send(big, BIG, MPI_BYTE, 0, 7, ic), "a new 1 MiB send");
    expect_lost(MPI_Recv(&got, 1, MPI_INT, 0, 7, ic, MPI_STATUS_IGNORE), "a new receive");
    expect_lost(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, ic, MPI_STATUS_IGNORE),
                "a new MPI_ANY_SOURCE receive");
    int flag = 1;
    expect_lost(MPI_Probe(0, 7, ic, MPI_STATUS_IGNORE), "a probe");
    expect_lost(MPI_Iprobe(MPI_ANY_SOURCE, 7, ic, &flag, MPI_STATUS_IGNORE),
                "an MPI_ANY_SOURCE iprobe");
    if (mt_rank == 0)
        MPI_OK(MPI_Comm_disconnect(&mc));
    CHECK(mc == MPI_COMM_NULL, "disconnect left the merged communicator");
    MPI_OK(MPI_Comm_disconnect(&ic));
    CHECK(ic == MPI_COMM_NULL, "disconnect left the communicator");
    if (mt_rank == 0) {
        MPI_OK(MPI_Publish_name(name2, MPI_INFO_NULL, port));
        printf("server: lost client handled, accepting another\n");
        fflush(stdout);
    }
    MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
    MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    meet_check(ic);
    if (mt_rank == 0) {
        MPI_OK(MPI_Unpublish_name(name2, MPI_INFO_NULL, port));
        MPI_OK(MPI_Close_port(port));
    }
    exchange(ic, 1);
    MPI_OK(MPI_Comm_disconnect(&ic));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "dyn_vanish");
    const char *job = getenv("CLUMPI_JOB_ID");   /* its /dev/shm names (the script) */
    if (job && mt_rank == 0) {
        printf("dyn_vanish: job %s\n", job);
        fflush(stdout);   /* the client is killed */
    }
    CHECK(argc >= 3, "usage: dyn_vanish server NAME | client NAME PIDFILE | keep NAME NAME2 |"
          " client2 NAME2");
    if (!strcmp(argv[1], "keep")) {
        CHECK(argc >= 4, "keep NAME NAME2");
        keep(argv[2], argv[3]);
        return mt_finish();
    }
    if (!strcmp(argv[1], "client2")) {
        char port[MPI_MAX_PORT_NAME];
        MPI_Comm ic = mt_meet(0, argv[2], port);
        meet_check(ic);
        exchange(ic, 0);
        MPI_OK(MPI_Comm_disconnect(&ic));
        return mt_finish();
    }
    int server = !strcmp(argv[1], "server");
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm ic = mt_meet(server, argv[2], port);
    /* it took MPI_ERRORS_RETURN from MPI_COMM_WORLD (mt_meet) */
    MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL));
    meet_check(ic);
    if (server && mt_rank == 0)
        MPI_OK(MPI_Unpublish_name(argv[2], MPI_INFO_NULL, port));
    MPI_OK(MPI_Barrier(ic));
    if (!server && !strncmp(argv[2], "keep", 4)) {
        MPI_Comm mc;
        MPI_OK(MPI_Intercomm_merge(ic, 1, &mc));
        MPI_OK(MPI_Barrier(mc));
    }
    if (!server) {
        if (mt_rank == 0) {
            FILE *f = fopen(argv[3], "w");
            CHECK(f, "cannot write %s", argv[3]);
            fprintf(f, "%ld\n", (long)getpid());
            fclose(f);
        }
        sleep(60);   /* killed meanwhile */
        MT_FAIL("the client was not killed");
    }
    int got = -1;
    MPI_Recv(&got, 1, MPI_INT, 0, 2, ic, MPI_STATUS_IGNORE);   /* never comes */
    MT_FAIL("a receive from a dead process returned");
}
