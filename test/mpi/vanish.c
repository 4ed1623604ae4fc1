/* Run by vanish.sh (no "np" line: not run on its own).
 *
 * usage: vanish MODE VICTIM
 * A peer that disappears mid-transfer. Every rank starts (a barrier); then
 * rank 0 (the survivor) and rank VICTIM (on another node) move data, and the
 * victim kills itself with SIGKILL in the middle, while the other ranks
 * block in MPI_Recv:
 *   send   the survivor streams eager messages to the victim, which takes
 *          some and dies: the survivor's next sends fail on the network
 *   read   the victim starts a large send (the survivor's receive is a
 *          rendezvous: fi_read, or CTS + pipelined chunks without RMA) and
 *          dies at once, before the data has moved
 * The job must end, non-zero, within seconds, with a message naming the
 * victim: from mpirun when it sees the death, or from the survivor when its
 * completion queue reports the lost peer first (vanish.sh hides the death
 * from mpirun to test that). The victim prints when it dies and its job id
 * (clumpi's, to look for leftover segments).
 */
#include <signal.h>
#include "mtest.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "vanish");
    int rank = mt_rank, victim = argc > 2 ? atoi(argv[2]) : mt_size - 1;
    const char *mode = argc > 1 ? argv[1] : "send";
    CHECK(mt_size >= 2 && victim > 0 && victim < mt_size,
          "needs 2 ranks or more and a victim other than rank 0");
    CHECK(!strcmp(mode, "send") || !strcmp(mode, "read"), "unknown mode %s", mode);
    mt_barrier();   /* all are up */

    size_t big = 32u << 20;   /* read: far more than one read or chunk */
    size_t small = 16384;     /* send: eager everywhere */
    char *buf = mt_malloc(big);
    memset(buf, rank + 1, big);
    const double limit = 30.0;   /* the survivor gives up (and fails) after this */
    int sending = strcmp(mode, "send") == 0;

    if (rank == 0) {
        double t0 = now();
        while (now() - t0 < limit) {
            if (sending)
                MPI_Send(buf, (int)small, MPI_BYTE, victim, 1, MPI_COMM_WORLD);
            else
                MPI_Recv(buf, (int)big, MPI_BYTE, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        fprintf(stderr, "vanish: rank 0 still running %.0f s after rank %d died\n", limit, victim);
        return 3;   /* without MPI_Finalize: the job fails */
    }
    if (rank == victim) {
        if (sending) {
            for (int i = 0; i < 50; i++)
                MPI_Recv(buf, (int)small, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Request rq;
            MPI_Isend(buf, (int)big, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq);
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);   /* vanish.sh times the end from here */
        const char *job = getenv("CLUMPI_JOB_ID");
        fprintf(stderr, "vanish: rank %d dies at %.3f, job %s\n", rank,
                ts.tv_sec + ts.tv_nsec * 1e-9, job ? job : "-");
        fflush(stderr);
        raise(SIGKILL);
    }
    /* the others: wait for a message that never comes */
    int tok;
    MPI_Recv(&tok, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
