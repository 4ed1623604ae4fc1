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
    int init_done;        /* MPI_Init has finished (read by the thread) */
    int n;                /* watched peers */
    int *fd, *rank;       /* their pidfds and world ranks (-1: not known) */
    pid_t *pid;           /* and pids */
    int stop[2];
    pthread_t thread;
    int running;
} pw = { .stop = { -1, -1 } };

static int start_thread(void);
static int open_pidfd(pid_t pid);

/* The world rank a sibling task of an srun step was given (its
 * SLURM_PROCID), or -1 when that cannot be read (a sibling not yet through
 * its exec still has slurmstepd's environment): for messages only. */
static int task_rank(pid_t pid)
{
    char path[64], buf[4096], *env = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC), r = -1;
    for (ssize_t n; fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0; len += (size_t)n) {
        char *grown = realloc(env, len + (size_t)n + 1);
        if (!grown)
            break;
        env = grown;
        memcpy(env + len, buf, (size_t)n);
    }
    if (fd >= 0)
        close(fd);
    if (env)
        env[len] = 0;
    for (char *e = env; e && e < env + len; e += strlen(e) + 1)
        if (!strncmp(e, "SLURM_PROCID=", 13))
            r = atoi(e + 13);
    free(env);
    return r;
}

/* The children of process PARENT but SELF, from every thread's children
 * list; -1 when the kernel has no such lists (CONFIG_PROC_CHILDREN). */
static int children_of(pid_t parent, pid_t self, pid_t **out)
{
    char path[64];
    int n = 0, cap = 0, lists = 0;
    pid_t *kids = NULL;
    snprintf(path, sizeof path, "/proc/%ld/task", (long)parent);
    DIR *d = opendir(path);
    for (struct dirent *t; d && (t = readdir(d)) != NULL;) {
        char cp[320];
        snprintf(cp, sizeof cp, "/proc/%ld/task/%s/children", (long)parent, t->d_name);
        FILE *c = t->d_name[0] != '.' ? fopen(cp, "re") : NULL;
        lists += c != NULL;
        for (long k; c && fscanf(c, "%ld", &k) == 1;) {
            if ((pid_t)k == self)
                continue;
            if (n == cap) {
                pid_t *grown = realloc(kids, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *kids);
                if (!grown) {
                    fclose(c);
                    closedir(d);
                    free(kids);
                    return -1;
                }
                kids = grown;
            }
            kids[n++] = (pid_t)k;
        }
        if (c)
            fclose(c);
    }
    if (d)
        closedir(d);
    if (!lists) {
        free(kids);
        return -1;
    }
    *out = kids;
    return n;
}

/* Under srun: watch the other tasks of the step on this node, the children
 * of our parent slurmstepd, from now on. slurmstepd forks every task of
 * the node before it lets any exec, so all are its children by the time
 * one runs; fewer than the node's other ranks means one has ended. Returns
 * 0 when they are watched, 1 when the PMI way must serve (not an srun task,
 * no children lists, or more children than ranks), and ends the job when a
 * rank is missing. */
static int watch_siblings(const mpid_chan_info *info)
{
    char path[64], comm[32] = "";
    pid_t *kids = NULL;
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)getppid());
    FILE *f = getenv("SLURM_STEP_ID") ? fopen(path, "re") : NULL;
    if (!f)
        return 1;
    int is_stepd = fgets(comm, sizeof comm, f) && !strncmp(comm, "slurmstepd", 10);
    fclose(f);
    int nk = is_stepd ? children_of(getppid(), getpid(), &kids) : -1;
    if (nk < 0 || nk > info->local_size - 1) {
        free(kids);
        return 1;
    }
    if (nk < info->local_size - 1) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "a rank on this node (of %d) ended before MPI_Init finished; ending the job",
                 info->local_size);
        cu_pmi_abort(1, msg);
    }
    pw.fd = malloc(((size_t)nk + 1) * sizeof *pw.fd);
    pw.rank = malloc(((size_t)nk + 1) * sizeof *pw.rank);
    pw.pid = malloc(((size_t)nk + 1) * sizeof *pw.pid);
    for (int i = 0; pw.fd && pw.rank && pw.pid && i < nk; i++) {
        int fd = open_pidfd(kids[i]);
        if (fd < 0)
            break;
        pw.fd[pw.n] = fd;
        pw.pid[pw.n] = kids[i];
        pw.rank[pw.n++] = task_rank(kids[i]);
    }
    free(kids);
    if (pw.n < nk || pipe2(pw.stop, O_CLOEXEC) < 0 || start_thread() != 0) {
        mpid_peer_watch_stop();
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
            char who[48], msg[160];
            if (pw.rank[i] >= 0)
                snprintf(who, sizeof who, "rank %d on this node", pw.rank[i]);
            else
                snprintf(who, sizeof who, "a rank on this node (pid %ld)", (long)pw.pid[i]);
            snprintf(msg, sizeof msg, "%s ended before %s; ending the job", who,
                     __atomic_load_n(&pw.init_done, __ATOMIC_ACQUIRE) ? "MPI_Finalize"
                                                                     : "MPI_Init finished");
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
    __atomic_store_n(&pw.init_done, 1, __ATOMIC_RELEASE);
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
    free(pw.pid);
    pw.fd = pw.rank = NULL;
    pw.pid = NULL;
    pw.n = 0;
    pw.on = pw.early = 0;
    __atomic_store_n(&pw.init_done, 0, __ATOMIC_RELEASE);
}
