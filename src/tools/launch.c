/*
 * launch.c — where ranks run and how they start: the program check, the
 * node assignment, and fork/exec of each rank with its PMI socket, pipes,
 * environment and binding.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "src/tools/mpirun.h"

/* 0 if path is an executable regular file, else an errno. */
static int check_exec(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
        return EACCES;
    return 0;
}

/* Resolve the program as execvp would, before anything starts, so that a
 * typo costs one line and no half-started job. */
int launch_find_program(struct mpirun_opts *o, const char *self)
{
    const char *name = o->argv[0];
    int err;
    if (!*name) {
        err = ENOENT;
    } else if (strchr(name, '/')) {
        err = check_exec(name);
        if (!err)
            o->prog = strdup(name);
    } else {
        const char *path = getenv("PATH");
        if (!path || !*path)
            path = "/usr/local/bin:/usr/bin:/bin";
        err = ENOENT;
        const char *p = path;
        while (*p || p == path) {
            const char *colon = strchr(p, ':');
            size_t dl = colon ? (size_t)(colon - p) : strlen(p);
            char *cand = malloc(dl + strlen(name) + 3);
            if (!cand)
                return -1;
            if (dl == 0)
                sprintf(cand, "./%s", name);
            else
                sprintf(cand, "%.*s/%s", (int)dl, p, name);
            int e = check_exec(cand);
            if (e == 0) {
                o->prog = cand;
                err = 0;
                break;
            }
            if (e != ENOENT && e != ENOTDIR)
                err = e;   /* remember "found but not executable" */
            free(cand);
            if (!colon)
                break;
            p = colon + 1;
        }
    }
    if (err) {
        if (err == ENOENT && !strchr(name, '/'))
            fprintf(stderr, "%s: %s: command not found\n", self, name);
        else
            fprintf(stderr, "%s: %s: %s\n", self, name,
                    err == EACCES ? "not executable (Permission denied)" : strerror(err));
        return -1;
    }
    return 0;
}

/* The one place that decides which node each rank is on. One node today:
 * every rank here. With nnodes > 1 (emulated or real nodes), consecutive
 * blocks of ppn ranks fill the nodes in turn, wrapping round as Hydra does. */
void launch_assign_nodes(struct job *j)
{
    int nn = j->nnodes > 0 ? j->nnodes : 1;
    int ppn = j->o->ppn > 0 ? j->o->ppn : (j->n + nn - 1) / nn;
    int *count = calloc((size_t)nn, sizeof *count);
    for (int i = 0; i < j->n; i++) {
        int node = (i / ppn) % nn;
        j->r[i].node = node;
        j->r[i].local = count[node]++;
    }
    free(count);
    j->nnodes = nn;
}

static int local_size(struct job *j, int node)
{
    int c = 0;
    for (int i = 0; i < j->n; i++)
        c += j->r[i].node == node;
    return c;
}

static void setenv_int(const char *k, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    setenv(k, b, 1);
}

/* In the child, between fork and exec. Failures print and _exit(127), which
 * mpirun reports like any other failed rank. */
static void exec_rank(struct job *j, struct rank *r, int pmi_fd, int in_fd, int out_fd,
                      int err_fd, pid_t parent)
{
    setpgid(0, 0);
    /* The rank must not outlive mpirun, however mpirun ends. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    sigset_t none;
    sigemptyset(&none);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);   /* ignored dispositions survive exec */
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(127);
    fcntl(pmi_fd, F_SETFD, 0);

    const struct mpirun_opts *o = j->o;
    for (int i = 0; i < o->nenv; i++) {
        if (o->env[i].val)
            setenv(o->env[i].key, o->env[i].val, 1);
        /* -x KEY alone: the rank already inherits mpirun's KEY here; the
         * entry matters for launches on other hosts. */
    }
    setenv_int("PMI_FD", pmi_fd);
    setenv_int("PMI_RANK", r->rank);
    setenv_int("PMI_SIZE", j->n);
    setenv("CLUMPI_JOB_ID", j->id, 1);
    int ls = local_size(j, r->node);
    setenv_int("CLUMPI_LOCAL_RANK", r->local);
    setenv_int("CLUMPI_LOCAL_SIZE", ls);
    setenv_int("MPI_LOCALRANKID", r->local);
    setenv_int("MPI_LOCALNRANKS", ls);
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");

    if (r->bound && sched_setaffinity(0, sizeof r->cpus, &r->cpus) < 0) {
        /* Not fatal: a restricted cpuset may refuse it; run unbound. */
    }
    execv(o->prog, o->argv);
    dprintf(2, "%s: cannot execute %s: %s\n", j->self, o->prog, strerror(errno));
    _exit(127);
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int launch_all(struct job *j)
{
    pid_t self = getpid();
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        fprintf(stderr, "%s: cannot open /dev/null: %s\n", j->self, strerror(errno));
        return -1;
    }
    for (int i = 0; i < j->n; i++) {
        struct rank *r = &j->r[i];
        int sv[2], po[2], pe[2], pin[2] = { -1, -1 };
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
            goto syserr;
        if (pipe2(po, O_CLOEXEC) < 0) {
            close(sv[0]);
            close(sv[1]);
            goto syserr;
        }
        if (pipe2(pe, O_CLOEXEC) < 0) {
            close(sv[0]);
            close(sv[1]);
            close(po[0]);
            close(po[1]);
            goto syserr;
        }
        if (i == 0 && j->stdin_src >= 0 && pipe2(pin, O_CLOEXEC) < 0)
            pin[0] = pin[1] = -1;   /* rank 0 reads /dev/null then */
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0)
            exec_rank(j, r, sv[1], pin[0] >= 0 ? pin[0] : devnull, po[1], pe[1], self);
        close(sv[1]);
        close(po[1]);
        close(pe[1]);
        if (pin[0] >= 0)
            close(pin[0]);
        r->pmi_fd = sv[0];
        iofwd_init(&r->out, po[0], 1);
        iofwd_init(&r->err, pe[0], 2);
        set_nonblock(sv[0]);
        set_nonblock(po[0]);
        set_nonblock(pe[0]);
        if (i == 0) {
            j->stdin_dst = pin[1];
            if (pin[1] >= 0)
                set_nonblock(pin[1]);
            else
                j->stdin_src = -1;
        }
        if (pid < 0) {
            r->exited = 1;
            job_fail(j, 1, "cannot start rank %d: fork: %s; ending the job", i, strerror(errno));
            break;
        }
        setpgid(pid, pid);   /* also in the parent: no race with kill(-pid) */
        r->pid = pid;
        j->nalive++;
        if (j->o->verbose)
            fprintf(stderr, "%s: rank %d: pid %d on node %d (local rank %d)\n", j->self, i,
                    (int)pid, r->node, r->local);
    }
    close(devnull);
    return 0;
syserr:
    close(devnull);
    job_fail(j, 1, "cannot set up a rank: %s; ending the job", strerror(errno));
    return -1;
}
