/*
 * agent_launch.c — starting and stopping the node's agent (rank side).
 *
 * The node's first rank creates the segment, forks and execs clumpi-agent,
 * and waits for it to publish its fabric address; the addresses travel
 * through PMI like direct mode's (no PMI in the agent: it is a child of a
 * rank, not of the launcher). Chosen over starting agents from mpirun: it
 * works unchanged under any PMI-1 launcher (Hydra, Slurm, our mpirun with
 * --hosts), and the agent's lifetime is tied to the rank by
 * PR_SET_PDEATHSIG, so a dying rank never leaves an agent behind.
 *
 * Path: CLUMPI_AGENT_PATH, else the configured $(bindir)/clumpi-agent (the
 * build tree's tests set CLUMPI_AGENT_PATH).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "netmod/agent/agent_launch.h"
#include "src/util/log.h"
#include "src/util/param.h"

#ifndef AGT_AGENT_PATH
#define AGT_AGENT_PATH "clumpi-agent"
#endif

pid_t agt_spawn(int segfd)
{
    const char *path = cu_param_str("AGENT_PATH");
    if (!path)
        path = AGT_AGENT_PATH;
    if (access(path, X_OK) != 0) {
        int e = errno;
        cu_warn("agent: cannot run the NI agent %s (%s); set CLUMPI_AGENT_PATH", path,
                strerror(e));
        return -e;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        /* The agent stands for the NI's own processor: not on the core
         * mpirun bound this rank to, where a rank that computes would hold
         * it off for whole time slices (Bilas: remote operations served
         * while the host computes). Any core the kernel lets us have. */
        cpu_set_t all;
        CPU_ZERO(&all);
        for (long c = 0, n = sysconf(_SC_NPROCESSORS_CONF); c < n && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &all);
        (void)sched_setaffinity(0, sizeof all, &all);
        /* keep stdio (messages, stats) and the segment as fd 3; drop the
         * rank's PMI and other fds */
        if (segfd != 3 && (dup2(segfd, 3) != 3 || close(segfd) != 0))
            _exit(127);
        fcntl(3, F_SETFD, 0);
        for (int fd = 4; fd < 1024; fd++)
            close(fd);
        execl(path, "clumpi-agent", "3", (char *)NULL);
        fprintf(stderr, "clumpi: cannot exec %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    return pid;
}

int agt_wait_state(_Atomic uint32_t *state, uint32_t want, pid_t pid, long timeout_ms)
{
    struct timespec t0, now, nap = { 0, 200000 };
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        uint32_t s = atomic_load_explicit(state, memory_order_acquire);
        if (s == want)
            return 0;
        if (s == AGT_ST_FAILED)
            return -EIO;
        int status;
        if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid)
            return -ECHILD;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
            return -ETIMEDOUT;
        nanosleep(&nap, NULL);
    }
}

void agt_stop(_Atomic uint32_t *state, pid_t pid)
{
    atomic_store_explicit(state, AGT_ST_QUIT, memory_order_release);
    /* it may be asleep: its socket wake-up comes from the caller */
    for (int i = 0; i < 2500; i++) {   /* 5 s */
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return;
        struct timespec nap = { 0, 2000000 };
        nanosleep(&nap, NULL);
    }
    cu_warn("agent: the NI agent (pid %d) did not stop; killing it", (int)pid);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}
