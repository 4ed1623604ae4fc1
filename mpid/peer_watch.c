/*
 * peer_watch.c — a rank of this node that ends before MPI_Finalize ends the
 * job, under launchers that let the others run on (srun without -K or
 * --kill-on-bad-exit, whose other tasks would wait for the dead one
 * forever in a receive or a PMI fence). clumpi's mpirun ends the job
 * itself (CLUMPI_JOB_ID says it started us), so there nothing is watched.
 *
 * A thread holds a pidfd of every other rank of the node and sleeps in
 * poll() (no CPU time) until one becomes readable: that process is gone.
 * Under srun the ranks of a node are the children of one slurmstepd,
 * which forks them all before any runs, so they are found at once and
 * watched from the start of MPI_Init: a death during init would otherwise
 * leave the others in a PMI fence for good. Elsewhere each rank publishes
 * its pid through PMI before the channels' barriers and the watch starts
 * after them. Every rank enters MPI_Finalize's barrier before any may
 * leave it, and the watch stops before the barrier, so a readable pidfd
 * is always an abnormal end. Ranks on other nodes are watched by their
 * own node's ranks, whose abort ends the whole job through the process
 * manager. The watcher first gives the launcher a second to end the job
 * itself (so that MPI_Abort's code, not ours, is the job's), then aborts
 * it naming the dead rank.
 */
#include "config.h"
#include <errno.h>
#include <dirent.h>
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
    int early;            /* the srun siblings, watched from the start of init */
    int n;                /* watched peers */
    int *fd, *rank;       /* their pidfds and world ranks; fd[n] is the stop pipe */
    int stop[2];
    pthread_t thread;
    int running;
} pw = { .stop = { -1, -1 } };

static int start_thread(void);
static int open_pidfd(pid_t pid);

/* The world rank a sibling task of an srun step was given (its
 * SLURM_PROCID), or -1 when its environment cannot be read: it is gone. */
static int task_rank(pid_t pid)
{
    char path[64], buf[16384];
    snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    for (char *e = buf; e < buf + n; e += strlen(e) + 1)
        if (!strncmp(e, "SLURM_PROCID=", 13))
            return atoi(e + 13);
    return -1;
}

/* Under srun: watch the other tasks of the step on this node, the children
 * of our parent slurmstepd, from now on. Returns 0 when they are watched,
 * 1 when this is not an srun task (or the tasks are not exactly the node's
 * ranks: then the PMI way serves), and ends the job when one is gone. */
static int watch_siblings(const mpid_chan_info *info)
{
    char path[300], comm[32] = "";
    pid_t self = getpid(), parent = getppid();
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)parent);
    FILE *f = getenv("SLURM_STEP_ID") ? fopen(path, "re") : NULL;
    if (!f)
        return 1;
    int is_stepd = fgets(comm, sizeof comm, f) && !strncmp(comm, "slurmstepd", 10);
    fclose(f);
    if (!is_stepd)
        return 1;
    pid_t kids[256];
    int nk = 0, alive = 0;
    snprintf(path, sizeof path, "/proc/%ld/task", (long)parent);
    DIR *d = opendir(path);
    for (struct dirent *t; d && (t = readdir(d)) != NULL;) {
        char cp[600];
        snprintf(cp, sizeof cp, "%s/%s/children", path, t->d_name);
        FILE *c = t->d_name[0] != '.' ? fopen(cp, "re") : NULL;
        for (long k; c && fscanf(c, "%ld", &k) == 1;)
            if ((pid_t)k != self && nk < 256)
                kids[nk++] = (pid_t)k;
        if (c)
            fclose(c);
    }
    if (d)
        closedir(d);
    pw.fd = malloc(((size_t)nk + 1) * sizeof *pw.fd);
    pw.rank = malloc(((size_t)nk + 1) * sizeof *pw.rank);
    if (!pw.fd || !pw.rank)
        return 1;
    for (int i = 0; i < nk; i++) {
        int r = task_rank(kids[i]);
        int fd = r >= 0 ? open_pidfd(kids[i]) : -1;
        if (fd < 0)
            continue;
        pw.fd[pw.n] = fd;
        pw.rank[pw.n++] = r;
        alive++;
    }
    if (alive < info->local_size - 1) {
        /* all were forked before any ran: a missing one has ended */
        char msg[160];
        snprintf(msg, sizeof msg,
                 "a rank on this node (of %d) ended before MPI_Init finished; ending the job",
                 info->local_size);
        cu_pmi_abort(1, msg);
    }
    if (alive > info->local_size - 1 || pipe2(pw.stop, O_CLOEXEC) < 0 || start_thread() != 0) {
        mpid_peer_watch_stop();   /* not only the node's ranks: leave it to PMI */
        return 1;
    }
    pw.early = 1;
    return 0;
}

int mpid_peer_watch_publish(const mpid_chan_info *info)
{
    pw.on = info->local_size > 1 && !getenv("CLUMPI_JOB_ID") && !cu_pmi_is_singleton();
    if (!pw.on || watch_siblings(info) == 0)
        return 0;
    pw.on = info->local_size > 1;   /* watch_siblings' stop cleared it */
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

/* A pidfd of PID, or one that reads as gone when PID has ended already. */
static int open_pidfd(pid_t pid)
{
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0 && errno == ESRCH)
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);   /* the poll sees it at once */
    if (fd >= 0)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
}

/* The watch thread, with every signal blocked: they stay with the
 * program's threads. 0 when it runs. */
static int start_thread(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pw.running = pthread_create(&pw.thread, NULL, watch, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!pw.running)
        cu_debug("peer watch: no thread (%s); a dead local rank is the launcher's to see",
                 strerror(errno));
    return pw.running ? 0 : -1;
}

void mpid_peer_watch_start(const mpid_chan_info *info)
{
    if (!pw.on || pw.early)
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
        int fd = open_pidfd((pid_t)atol(val));
        if (fd < 0)
            continue;
        pw.fd[pw.n] = fd;
        pw.rank[pw.n++] = r;
    }
    if (pw.n > 0 && start_thread() == 0)
        return;
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
    pw.on = pw.early = 0;
}
