/*
 * peer_watch.c — a rank of this node that ends before MPI_Finalize ends the
 * job, under launchers that let the others run on (srun without -K or
 * --kill-on-bad-exit, whose other tasks would wait for the dead one
 * forever in a receive). clumpi's mpirun ends the job itself
 * (CLUMPI_JOB_ID says it started us), so there nothing is watched.
 *
 * Each rank publishes its pid through PMI during init; a thread holds a
 * pidfd of every other rank of the node and sleeps in poll() (no CPU time)
 * until one becomes readable: that process is gone. Every rank enters
 * MPI_Finalize's barrier before any may leave it, and the watch stops
 * before the barrier, so a readable pidfd is always an abnormal end.
 * Ranks on other nodes are watched by their own node's ranks, whose abort
 * ends the whole job through the process manager. The watcher first
 * gives the launcher a second to end the job itself (so that MPI_Abort's
 * code, not ours, is the job's), then aborts it naming the dead rank.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "mpid/mpidi.h"
#include "src/util/log.h"
#include "src/util/pmi.h"

#define GRACE_MS 1000

static struct {
    int on;               /* pids published: the watch starts after init */
    int n;                /* watched peers */
    int *fd, *rank;       /* their pidfds and world ranks; fd[n] is the stop pipe */
    int stop[2];
    pthread_t thread;
    int running;
} pw = { .stop = { -1, -1 } };

int mpid_peer_watch_publish(const mpid_chan_info *info)
{
    pw.on = info->local_size > 1 && !getenv("CLUMPI_JOB_ID") && !cu_pmi_is_singleton();
    if (!pw.on)
        return 0;
    char key[32], val[32];
    snprintf(key, sizeof key, "pid-%d", info->world_rank);
    snprintf(val, sizeof val, "%ld", (long)getpid());
    return cu_pmi_put(key, val);
}

static void *watch(void *arg)
{
    (void)arg;
    struct pollfd *p = calloc((size_t)pw.n + 1, sizeof *p);
    if (!p)
        return NULL;
    for (int i = 0; i <= pw.n; i++)
        p[i] = (struct pollfd){ .fd = i < pw.n ? pw.fd[i] : pw.stop[0], .events = POLLIN };
    for (;;) {
        int k = poll(p, (nfds_t)pw.n + 1, -1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 || p[pw.n].revents)
            break;
        for (int i = 0; i < pw.n; i++) {
            if (!p[i].revents)
                continue;
            /* The stop pipe wins over a death seen in the same grace. */
            struct pollfd s = { .fd = pw.stop[0], .events = POLLIN };
            if (poll(&s, 1, GRACE_MS) != 0)
                goto out;
            char msg[160];
            snprintf(msg, sizeof msg,
                     "rank %d on this node ended before MPI_Finalize; ending the job",
                     pw.rank[i]);
            cu_pmi_abort(1, msg);
        }
    }
out:
    free(p);
    return NULL;
}

void mpid_peer_watch_start(const mpid_chan_info *info)
{
    if (!pw.on)
        return;
    pw.fd = malloc((size_t)info->local_size * sizeof *pw.fd);
    pw.rank = malloc((size_t)info->local_size * sizeof *pw.rank);
    if (!pw.fd || !pw.rank || pipe2(pw.stop, O_CLOEXEC) < 0)
        goto fail;
    for (int i = 0; i < info->local_size; i++) {
        int r = info->local_ranks[i];
        char key[32], val[32];
        if (r == info->world_rank)
            continue;
        snprintf(key, sizeof key, "pid-%d", r);
        if (cu_pmi_get(key, val, sizeof val) != 0)
            continue;   /* no pid, no watch: the launcher's duty alone */
        int fd = (int)syscall(SYS_pidfd_open, (pid_t)atol(val), 0);
        if (fd < 0) {
            /* already gone: the poll below sees it at once */
            if (errno != ESRCH || (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
                continue;
        }
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        pw.fd[pw.n] = fd;
        pw.rank[pw.n++] = r;
    }
    if (pw.n == 0)
        goto fail;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* signals stay with the program's threads */
    pw.running = pthread_create(&pw.thread, NULL, watch, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pw.running)
        return;
    cu_debug("peer watch: no thread (%s); a dead local rank is the launcher's to see",
             strerror(errno));
fail:
    mpid_peer_watch_stop();
}

void mpid_peer_watch_stop(void)
{
    if (pw.running) {
        char c = 0;
        while (write(pw.stop[1], &c, 1) < 0 && errno == EINTR)
            ;
        pthread_join(pw.thread, NULL);
        pw.running = 0;
    }
    for (int i = 0; i < pw.n; i++)
        close(pw.fd[i]);
    for (int i = 0; i < 2; i++)
        if (pw.stop[i] >= 0)
            close(pw.stop[i]);
    pw.stop[0] = pw.stop[1] = -1;
    free(pw.fd);
    free(pw.rank);
    pw.fd = pw.rank = NULL;
    pw.n = 0;
    pw.on = 0;
}
