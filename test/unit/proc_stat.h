/*
 * proc_stat.h — what the offload-mode tests read of a process in
 * /proc/PID/stat (test_agent_idle: an agent's CPU time and parent,
 * test_agent_stopped: whether a rank shows as stopped), and a monotonic
 * clock for their deadlines.
 */
#ifndef TEST_PROC_STAT_H
#define TEST_PROC_STAT_H

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct proc_stat {
    char   state;   /* R, S, D, T (stopped), t (traced), Z, ... */
    long   ppid;
    double cpu;     /* user and system time, seconds */
} proc_stat;

/* Reads pid's stat line; the fields after the command name: 0 is the
 * state, 1 the parent pid, 11 and 12 user and system time in clock ticks.
 * Returns 0 when pid is gone, or when comm is not NULL and pid's name is
 * not comm. */
static inline int proc_stat_read(int pid, const char *comm, proc_stat *ps)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close)
        return 0;
    if (comm && ((size_t)(close - open - 1) != strlen(comm) ||
                 strncmp(open + 1, comm, strlen(comm)) != 0))
        return 0;
    unsigned long utime = 0, stime = 0;
    if (sscanf(close + 2, "%c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ps->state,
               &ps->ppid, &utime, &stime) != 4)
        return 0;
    ps->cpu = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
    return 1;
}

/* Seconds on the monotonic clock. */
static inline double proc_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
