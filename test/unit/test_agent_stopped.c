/*
 * test_agent_stopped — a rank that does not run (stopped, or kept off the
 * cores) must not stall its node's NI agent: the node's other ranks and
 * the traffic from other nodes go on. The agent wakes a sleeping rank with
 * a byte on its socket; while it wrote one per packet and blocking, ~280
 * undrained bytes filled the socket and the agent waited in write() with
 * the whole node behind that one rank (now: one byte per sleep, never
 * blocking).
 *
 * Rank 2 stops rank 3, its neighbour on node 1, while rank 3 sleeps in
 * MPI_Recv (SIGSTOP); rank 0 sends rank 3 400 empty messages (one
 * completion cell each: they all fit its queue), then pings rank 2, which
 * must answer while rank 3 is still stopped. Rank 3 is let go either way
 * and takes all of its messages.
 *
 * usage: CLUMPI_NET=agent mpirun --nodes 2 -n 4 test_agent_stopped
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test/unit/proc_stat.h"

#define FLOOD 400
enum { T_PID, T_FLOOD, T_FINAL, T_GO, T_PING, T_ANSWER };

/* Wait until pid shows as stopped in /proc (the signal is asynchronous). */
static int stopped(pid_t pid)
{
    for (double end = proc_now() + 5; proc_now() < end; usleep(1000)) {
        proc_stat ps;
        if (!proc_stat_read((int)pid, NULL, &ps))
            return 0;
        if (ps.state == 'T' || ps.state == 't')
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, local;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    /* ranks 0, 1 on node 0 and 2, 3 on node 1 */
    int layout = size == 4 && local == 2, all;
    MPI_Allreduce(&layout, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0)
            fprintf(stderr, "test_agent_stopped: needs --nodes 2 -n 4\n");
        MPI_Finalize();
        return 1;
    }
    int ok = 0;
    if (rank == 3) {
        int pid = (int)getpid();
        MPI_Send(&pid, 1, MPI_INT, 2, T_PID, MPI_COMM_WORLD);
        for (int i = 0; i < FLOOD; i++)
            MPI_Recv(NULL, 0, MPI_BYTE, 0, T_FLOOD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, 0, T_FINAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        int pid;
        MPI_Recv(&pid, 1, MPI_INT, 3, T_PID, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        usleep(300000);   /* rank 3 is asleep in its first MPI_Recv by now */
        kill(pid, SIGSTOP);
        int st = stopped(pid);
        MPI_Send(&st, 1, MPI_INT, 0, T_GO, MPI_COMM_WORLD);
        MPI_Request q;
        MPI_Irecv(NULL, 0, MPI_BYTE, 0, T_PING, MPI_COMM_WORLD, &q);
        for (double end = proc_now() + 10; !ok && proc_now() < end;)
            MPI_Test(&q, &ok, MPI_STATUS_IGNORE);
        kill(pid, SIGCONT);
        if (!ok)
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        ok = ok && st;
        MPI_Send(&ok, 1, MPI_INT, 0, T_ANSWER, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int st;
        MPI_Recv(&st, 1, MPI_INT, 2, T_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < FLOOD; i++)
            MPI_Send(NULL, 0, MPI_BYTE, 3, T_FLOOD, MPI_COMM_WORLD);
        MPI_Send(NULL, 0, MPI_BYTE, 2, T_PING, MPI_COMM_WORLD);
        MPI_Recv(&ok, 1, MPI_INT, 2, T_ANSWER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 3, T_FINAL, MPI_COMM_WORLD);
        if (!st)
            fprintf(stderr, "FAIL test_agent_stopped: rank 3 did not stop\n");
        else if (!ok)
            fprintf(stderr, "FAIL test_agent_stopped: node 1's agent served nobody while "
                            "rank 3 was stopped\n");
        else
            printf("PASS test_agent_stopped\n");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return ok ? 0 : 1;
}
