/*
 * test_agent_idle — offload mode's idle check (issue 5: "the agent waits on
 * its fabric completion queue and its command rings without spinning when
 * idle"). Every rank but 0 waits in MPI_Recv while rank 0 sleeps, then one
 * byte crosses each node; test_agent.sh runs it with CLUMPI_AGENT_STATS=1
 * and checks the agents' busy fraction. While the net provider's wait fd
 * stayed readable after its first completion (before ofi_cqwait), an idle
 * agent never slept: busy 87-99%, a whole core per agent.
 *
 * usage: test_agent_idle [SECONDS]   (default 2)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned secs = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    char b = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        sleep(secs);
        for (int r = 1; r < size; r++) {
            b = (char)r;
            MPI_Send(&b, 1, MPI_CHAR, r, 0, MPI_COMM_WORLD);
        }
    } else {
        MPI_Recv(&b, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (b != (char)rank) {
            fprintf(stderr, "rank %d: got %d\n", rank, b);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Finalize();
    return 0;
}
