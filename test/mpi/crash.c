/* Run by crash.sh (no "np" line: not run on its own).
 *
 * usage: crash MODE [VICTIM [coll]]
 * Every rank starts, a token goes once round the ring (so all are up), then
 * rank VICTIM (default: the last) ends badly according to MODE while the
 * others block in MPI_Recv forever (with "coll": after one allreduce of
 * 1 MiB together, in a second one, whose shm form waits on flags in the
 * node area, not on a message):
 *   abort   MPI_Abort(MPI_COMM_WORLD, 3)
 *   segv    raise(SIGSEGV)
 *   exit    exit(5) without MPI_Finalize
 *   exit0   return 0 from main without MPI_Finalize
 *   kill    raise(SIGKILL)
 *   abortsub MPI_Abort on a communicator of the victim alone
 *   ok      nobody dies: every rank finalizes
 * The launcher must end the whole job, non-zero, within about 2 s.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* crash.sh looks for leftovers of this job only (other tests run
     * beside it under make -j check) */
    const char *job = getenv("CLUMPI_JOB_ID");
    if (rank == 0 && job) {
        printf("crash: job %s\n", job);
        fflush(stdout);
    }
    const char *mode = argc > 1 ? argv[1] : "abort";
    int victim = argc > 2 ? atoi(argv[2]) : size - 1;
    if (victim < 0 || victim >= size)
        victim = size - 1;
    int tok = 0;
    if (size > 1)
        MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &tok, 1, MPI_INT,
                     (rank - 1 + size) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!strcmp(mode, "ok")) { /* nobody dies: the job ends normally */
        MPI_Finalize();
        return 0;
    }
    int coll = argc > 3 && !strcmp(argv[3], "coll");
    static double v[1 << 17], r[1 << 17];   /* 1 MiB */
    if (coll)
        MPI_Allreduce(v, r, 1 << 17, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm self_only;
    MPI_Comm_split(MPI_COMM_WORLD, rank == victim, 0, &self_only);
    if (rank == victim) {
        if (!strcmp(mode, "abort"))
            MPI_Abort(MPI_COMM_WORLD, 3);
        else if (!strcmp(mode, "abortsub"))
            MPI_Abort(self_only, 4);
        else if (!strcmp(mode, "segv"))
            raise(SIGSEGV);
        else if (!strcmp(mode, "kill"))
            raise(SIGKILL);
        else if (!strcmp(mode, "exit"))
            exit(5);
        else if (!strcmp(mode, "exit0"))
            return 0;
        fprintf(stderr, "crash: unknown mode %s\n", mode);
        return 2;
    }
    int x;
    if (coll)
        MPI_Allreduce(v, r, 1 << 17, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "crash: rank %d got past a rank that died\n", rank);
    MPI_Finalize();
    return 1;
}
