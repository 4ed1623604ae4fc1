/*
 * spawnjob.c — jobs started for MPI_Comm_spawn (PMI "spawn"). A spawned
 * job is this mpirun run again (/proc/self/exe) with our layout options
 * (--nodes, -ppn, --emulate-nodes, --hosts, --hostfile, launcher): it has
 * its own job id, key-value space and world, its mpirun forwards its
 * output, ends it on a failure and removes its segments. Its processes
 * find the parents' port in CLUMPI_PARENT_PORT and connect in MPI_Init.
 *
 * Lifetime: the job waits for its spawned jobs before it ends; one that
 * exits non-zero (a crash or an abort there) ends the whole job, and a job
 * that ends for any reason sends its spawned jobs SIGTERM, which their
 * mpiruns turn into their own clean end.
 *
 * The program is resolved before anything starts (in the forked child,
 * after its wdir and path are applied, reported back over a pipe), so a
 * missing program is an error of the spawn call, not a dead job.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/wait.h>
#include <unistd.h>
#include "src/tools/mpirun.h"

/* Appends s to the argument vector v (room for it was counted). */
#define ARG(s) (v[n++] = (char *)(s))

/* The child: applies wdir and path, checks the program, runs mpirun. */
static void child(struct job *j, const struct spawn_cmd *c, const char *port, int errfd)
{
    const struct mpirun_opts *o = j->o;
    int e = 0;
    char *prog = NULL;
    if (c->wdir && chdir(c->wdir) != 0)
        e = errno;
    if (!e && c->path) {
        const char *old = getenv("PATH");
        char *np = malloc(strlen(c->path) + (old ? strlen(old) : 0) + 2);
        if (np) {
            sprintf(np, "%s%s%s", c->path, old ? ":" : "", old ? old : "");
            setenv("PATH", np, 1);
            free(np);
        }
    }
    if (!e)
        e = launch_find_exec(c->argv[0], &prog);
    char nbuf[16], nodes[16], ppn[16];
    size_t cap = 32 + (size_t)o->nhostspecs * 2;
    for (char **a = c->argv; *a; a++)
        cap++;
    char **v = calloc(cap, sizeof *v);
    if (!e && !v)
        e = ENOMEM;
    if (e) {
        (void)!write(errfd, &e, sizeof e);
        _exit(127);
    }
    int n = 0;
    snprintf(nbuf, sizeof nbuf, "%d", c->np);
    ARG("mpirun");
    ARG("-n");
    ARG(nbuf);
    if (c->host) {
        ARG("--hosts");
        ARG(c->host);
    } else {
        for (int h = 0; h < o->nhostspecs; h++) {
            ARG("--hosts");
            ARG(o->hostspecs[h]);
        }
        if (o->hostfile) {
            ARG("--hostfile");
            ARG(o->hostfile);
        }
        if (o->nodes > 0) {
            snprintf(nodes, sizeof nodes, "%d", o->nodes < c->np ? o->nodes : c->np);
            ARG("--nodes");
            ARG(nodes);
        }
        if (o->ppn > 0) {
            snprintf(ppn, sizeof ppn, "%d", o->ppn);
            ARG("-ppn");
            ARG(ppn);
            if (o->emulate)
                ARG("--emulate-nodes");
        }
    }
    if (o->launcher_exec) {
        ARG("--launcher-exec");
        ARG(o->launcher_exec);
    } else if (o->launcher == LAUNCH_RSH) {
        ARG("--launcher");
        ARG("rsh");
    }
    if (o->label)
        ARG("-l");
    ARG("-genv");
    ARG("CLUMPI_PARENT_PORT");
    ARG(port);
    ARG(prog);
    for (char **a = c->argv + 1; *a; a++)
        ARG(*a);
    v[n] = NULL;
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);   /* the job's pipes and sockets stay ours */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execv("/proc/self/exe", v);
    e = errno;
    (void)!write(errfd, &e, sizeof e);
    _exit(127);
}

int spawnjob_start(struct job *j, const struct spawn_cmd *c, const char *port, char *why,
                   size_t whylen)
{
    pid_t *grown = realloc(j->spawned, (size_t)(j->nspawned + 1) * sizeof *grown);
    if (!grown) {
        snprintf(why, whylen, "out_of_memory");
        return -1;
    }
    j->spawned = grown;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe_failed");
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        child(j, c, port, p[1]);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        snprintf(why, whylen, "fork_failed");
        return -1;
    }
    int e = 0;
    ssize_t got;
    while ((got = read(p[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(p[0]);
    if (got == (ssize_t)sizeof e) {   /* it never became mpirun */
        waitpid(pid, NULL, 0);
        snprintf(why, whylen, "%s:_%s", c->argv[0],
                 e == ENOENT ? "command_not_found" : e == EACCES ? "not_executable" : "cannot_start");
        for (char *s = why; *s; s++)
            if (*s == ' ')
                *s = '_';
        return -1;
    }
    j->spawned[j->nspawned++] = pid;
    j->nspawn_alive++;
    if (j->o->verbose)
        fprintf(stderr, "%s: spawned a job of %d process%s of %s (mpirun pid %ld)\n", j->self,
                c->np, c->np == 1 ? "" : "es", c->argv[0], (long)pid);
    return 0;
}

int spawnjob_reaped(struct job *j, pid_t pid, int wstatus)
{
    for (int i = 0; i < j->nspawned; i++) {
        if (j->spawned[i] != pid)
            continue;
        j->spawned[i] = -1;
        j->nspawn_alive--;
        int st = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        if (st != 0 && !j->ending)
            job_fail(j, st, "a spawned job (mpirun pid %ld) ended with status %d; ending the job",
                     (long)pid, st);
        return 1;
    }
    return 0;
}

void spawnjob_signal_all(struct job *j)
{
    for (int i = 0; i < j->nspawned; i++)
        if (j->spawned[i] > 0)
            kill(j->spawned[i], SIGTERM);
}
