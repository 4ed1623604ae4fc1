/* Run by shm_names.sh (no "np" line: not run on its own).
 *
 * usage: shm_names            every shared segment of the job (the node's,
 *                             windows', node areas', the agent's) is mapped
 *                             from no file: nothing in /proc/self/maps lies
 *                             under /dev/shm, and with a local peer the
 *                             memory is a memfd of ours
 *        shm_names kill WHEN DELAY_US VICTIM
 *                             rank VICTIM (by the launcher's rank variable:
 *                             PMI_RANK, PMIX_RANK or SLURM_PROCID) kills itself with
 *                             SIGKILL: WHEN = before MPI_Init, during it
 *                             (DELAY_US after it began, from a thread), or
 *                             after it with windows allocated; the others
 *                             go on and wait to be ended by the launcher
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long delay_us;

static void *killer(void *arg)
{
    (void)arg;
    usleep((useconds_t)delay_us);
    kill(getpid(), SIGKILL);
    return NULL;
}

/* 1 when a mapping of this process is a file under /dev/shm; *memfd: one
 * of clumpi's memfds is mapped. */
static int named_mapping(int *memfd, char *what, size_t cap)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int named = 0;
    *memfd = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strstr(line, " /dev/shm/")) {
            named = 1;
            snprintf(what, cap, "%s", strstr(line, "/dev/shm/"));
        }
        if (strstr(line, "/memfd:clumpi-"))
            *memfd = 1;
    }
    if (f)
        fclose(f);
    return named;
}

int main(int argc, char **argv)
{
    int kill_mode = argc > 4 && !strcmp(argv[1], "kill");
    const char *when = kill_mode ? argv[2] : "";
    const char *pr = getenv("PMI_RANK");
    if (!pr)
        pr = getenv("PMIX_RANK");
    if (!pr)
        pr = getenv("SLURM_PROCID");
    int victim = kill_mode && pr && atoi(pr) == atoi(argv[4]);
    delay_us = kill_mode ? atol(argv[3]) : 0;
    /* the barrier through a node area, so one is made */
    setenv("CLUMPI_COLL_BARRIER", "shm", 1);
    if (victim && !strcmp(when, "before"))
        kill(getpid(), SIGKILL);
    pthread_t t;
    if (victim && !strcmp(when, "during"))
        pthread_create(&t, NULL, killer, NULL);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nlocal;
    MPI_Comm_size(node, &nlocal);
    char *shared, *mem;
    MPI_Win wsh, wal;
    MPI_Win_allocate_shared(4096 + rank, 1, MPI_INFO_NULL, node, &shared, &wsh);
    MPI_Win_allocate(1000 + 8 * rank, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &wal);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(node);
    if (victim && !strcmp(when, "after"))
        kill(getpid(), SIGKILL);
    int errs = 0, memfd;
    char what[512] = "";
    if (named_mapping(&memfd, what, sizeof what)) {
        printf("rank %d: a segment has a name: %s", rank, what);
        errs++;
    }
    if (nlocal > 1 && !memfd) {
        printf("rank %d: %d ranks on the node but no clumpi memfd mapped\n", rank, nlocal);
        errs++;
    }
    /* the shared window is one memory: my neighbour's first byte is mine to see */
    MPI_Win_fence(0, wsh);
    shared[0] = (char)(rank + 1);
    MPI_Win_fence(0, wsh);
    if (nlocal > 1) {
        int me, peer;
        MPI_Comm_rank(node, &me);
        peer = (me + 1) % nlocal;
        MPI_Aint sz;
        int du;
        char *p;
        MPI_Win_shared_query(wsh, peer, &sz, &du, &p);
        int wr;
        MPI_Group g, wg;
        MPI_Comm_group(node, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_translate_ranks(g, 1, &peer, wg, &wr);
        if (p[0] != (char)(wr + 1)) {
            printf("rank %d: shared window of local rank %d holds %d, not %d\n", rank, peer,
                   p[0], wr + 1);
            errs++;
        }
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
    MPI_Win_fence(0, wsh);
    if (kill_mode) {   /* wait for the launcher to end us */
        int token = 0;
        MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Win_free(&wal);
    MPI_Win_free(&wsh);
    MPI_Comm_free(&node);
    int all;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "shm_names: %d errors\n" : "shm_names: ok (%d ranks)\n", all ? all : size);
    MPI_Finalize();
    return all != 0;
}
