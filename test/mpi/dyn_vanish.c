/*
 * dyn_vanish.c — one side of test/mpi/dyn_vanish.sh: two jobs started by
 * separate mpiruns connect through the name service ("server NAME": rank 0
 * opens and publishes the port, the job accepts; "client NAME PIDFILE": the
 * job connects, rank 0 writes its pid to PIDFILE and sleeps outside MPI).
 * After an inter allreduce, every server rank waits in MPI_Recv from the
 * client's rank 0, which the script kills: the server must not wait
 * forever (the job ends naming the lost process).
 */
#include <unistd.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "dyn_vanish");
    CHECK(argc >= 3, "usage: dyn_vanish server NAME | client NAME PIDFILE");
    int server = !strcmp(argv[1], "server");
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm ic = mt_meet(server, argv[2], port);
    int rsize, one = 1, got = -1;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    MPI_OK(MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, ic));
    CHECK(got == rsize, "inter allreduce %d, expected %d", got, rsize);
    if (server && mt_rank == 0)
        MPI_OK(MPI_Unpublish_name(argv[2], MPI_INFO_NULL, port));
    MPI_OK(MPI_Barrier(ic));
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
    MPI_Recv(&got, 1, MPI_INT, 0, 2, ic, MPI_STATUS_IGNORE);   /* never comes */
    MT_FAIL("a receive from a dead process returned");
}
