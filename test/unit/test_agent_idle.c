/*
 * test_agent_idle — offload mode's idle agents block: "the agent waits on
 * its fabric completion queue and its command rings without spinning when
 * idle". Every rank but 0 waits in MPI_Recv while rank 0 sleeps, then one
 * byte crosses each node. Each node's agent is a child of the rank that
 * started it; that rank reads the agent's CPU time (/proc/PID/stat) around
 * the wait, and the test fails unless every node's agent was found and used
 * less than MAX_BUSY of the wait's wall time (blocked: well under 1%; a
 * spinning agent takes a whole core, or its share of a loaded machine).
 *
 * usage: CLUMPI_NET=agent mpirun --nodes N -n P test_agent_idle [SECONDS]
 *        (default 2 s)
 */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "test/unit/proc_stat.h"

#define MAX_BUSY 0.05

/* The pid of this process's child named clumpi-agent, or 0. */
static int my_agent(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        proc_stat ps;
        if (pid > 0 && proc_stat_read(pid, "clumpi-agent", &ps) && ps.ppid == (long)getpid())
            found = pid;
    }
    closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned secs = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    MPI_Comm node;
    int local, leaders, nodes;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    local = local == 0;
    MPI_Allreduce(&local, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    int agent = my_agent(), has = agent != 0;
    MPI_Allreduce(&has, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    proc_stat ps0 = {0}, ps1 = {0};
    char b = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = proc_now();
    if (agent)
        has = proc_stat_read(agent, "clumpi-agent", &ps0);
    if (rank == 0) {
        sleep(secs);
        for (int r = 1; r < size; r++) {
            b = (char)r;
            MPI_Send(&b, 1, MPI_CHAR, r, 0, MPI_COMM_WORLD);
        }
    } else {
        MPI_Recv(&b, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (agent)
        has = has && proc_stat_read(agent, "clumpi-agent", &ps1);
    double wall = proc_now() - t0, cpu0 = ps0.cpu, cpu1 = ps1.cpu;
    int ok = 1;
    if (rank != 0 && b != (char)rank) {
        fprintf(stderr, "FAIL test_agent_idle rank %d: got %d, not %d\n", rank, b, rank);
        ok = 0;
    }
    if (agent && !has) {
        fprintf(stderr, "FAIL test_agent_idle rank %d: agent %d gone during the wait\n", rank,
                agent);
        ok = 0;
    } else if (agent && (cpu1 - cpu0) >= MAX_BUSY * wall) {
        fprintf(stderr,
                "FAIL test_agent_idle rank %d: idle agent %d busy %.1f%% of a %.2f s wait "
                "(at most %.0f%%: it must block, not spin)\n",
                rank, agent, 100 * (cpu1 - cpu0) / wall, wall, 100 * MAX_BUSY);
        ok = 0;
    } else if (agent) {
        printf("test_agent_idle rank %d: agent busy %.1f%% of a %.2f s wait\n", rank,
               100 * (cpu1 - cpu0) / wall, wall);
    }
    if (rank == 0 && leaders != nodes) {
        fprintf(stderr, "FAIL test_agent_idle: %d NI agents found for %d nodes "
                        "(needs CLUMPI_NET=agent)\n", leaders, nodes);
        ok = 0;
    }
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0 && all)
        printf("PASS test_agent_idle: %d idle agents blocked\n", nodes);
    MPI_Finalize();
    return all ? 0 : 1;
}
