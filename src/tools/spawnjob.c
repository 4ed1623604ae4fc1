/*
 * spawnjob.c — jobs started for MPI_Comm_spawn (PMI "spawn"). A spawned
 * job is this mpirun run again (/proc/self/exe) with our layout options
 * (--nodes, -ppn, --emulate-nodes, --hosts, --hostfile, launcher): it has
 * its own job id, key-value space and world, its mpirun forwards its
 * output, ends it on a failure and removes its segments. Its processes
 * find the parents' port in CLUMPI_PARENT_PORT and connect in MPI_Init.
 *
 * Lifetime: the job waits for its spawned jobs before it ends. One that
 * ends before its processes connected to the parents (a process exited
 * before MPI_Init, crashed, or aborted) is reported to the parents' root,
 * still accepting at the port: their MPI_Comm_spawn fails with
 * MPI_ERR_SPAWN and this job goes on. One that exits non-zero later (a
 * crash or an abort there) ends the whole job, and a job that ends for any
 * reason sends its spawned jobs SIGTERM, which their mpiruns turn into
 * their own clean end.
 *
 * The programs are resolved before anything starts (in the forked child,
 * after wdir and each command's path are applied, reported back over a
 * pipe), so a missing program is an error of the spawn call, not a dead
 * job. Several commands (MPI_Comm_spawn_multiple) become the MPMD apps of
 * that mpirun: one world, appnum the command's index; they must agree on
 * wdir and host, since one mpirun has one of each.
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
#include "src/util/port_wire.h"

/* How long the parents' root may take to answer that its children are gone
 * (it answers at once while accepting; a closed port refuses at once). */
#define GONE_WAIT_MS 3000

/* Appends s to the argument vector v (room for it was counted). */
#define ARG(s) (v[n++] = (char *)(s))

/* The program of c resolved after the command's path is put before PATH
 * (PATH is restored): 0 with *prog malloc'd, or an errno. */
static int resolve(const struct spawn_cmd *c, char **prog)
{
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    if (c->path) {
        char *np = malloc(strlen(c->path) + (old ? strlen(old) : 0) + 2);
        if (!np) {
            free(old);
            return ENOMEM;
        }
        sprintf(np, "%s%s%s", c->path, old ? ":" : "", old ? old : "");
        setenv("PATH", np, 1);
        free(np);
    }
    int e = launch_find_exec(c->argv[0], prog);
    if (old)
        setenv("PATH", old, 1);
    free(old);
    return e;
}

/* The child: applies wdir, resolves every program (e, the failed one's
 * index and the errno, go back over errfd), runs mpirun with the layout
 * options and the commands as MPMD apps. */
static void child(struct job *j, const struct spawn_cmd *c, int ncmd, const char *port,
                  int errfd)
{
    const struct mpirun_opts *o = j->o;
    int e[2] = { 0, 0 };
    char **prog = calloc((size_t)ncmd, sizeof *prog);
    size_t cap = 32 + (size_t)o->nhostspecs * 2;
    for (int k = 0; k < ncmd; k++)
        for (char **a = c[k].argv; *a; a++)
            cap += 4;
    char **v = calloc(cap, sizeof *v), (*nbuf)[16] = calloc((size_t)ncmd + 1, sizeof *nbuf);
    if (!prog || !v || !nbuf)
        e[1] = ENOMEM;
    if (!e[1] && c[0].wdir && chdir(c[0].wdir) != 0)
        e[1] = errno;
    for (int k = 0; !e[1] && k < ncmd; k++)
        if ((e[1] = resolve(&c[k], &prog[k])) != 0)
            e[0] = k;
    if (e[1]) {
        (void)!write(errfd, e, sizeof e);
        _exit(127);
    }
    int n = 0, total = 0;
    for (int k = 0; k < ncmd; k++)
        total += c[k].np;
    snprintf(nbuf[ncmd], sizeof nbuf[ncmd], "%d", c[0].np);
    ARG("mpirun");
    ARG("-n");
    ARG(nbuf[ncmd]);
    if (c[0].host) {
        ARG("--hosts");
        ARG(c[0].host);
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
            snprintf(nbuf[0], sizeof nbuf[0], "%d", o->nodes < total ? o->nodes : total);
            ARG("--nodes");
            ARG(nbuf[0]);
        }
        if (o->ppn > 0) {
            static char ppn[16];
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
    for (int k = 0; k < ncmd; k++) {
        if (k > 0) {
            snprintf(nbuf[k], sizeof nbuf[k], "%d", c[k].np);
            ARG(":");
            ARG("-n");
            ARG(nbuf[k]);
        }
        ARG(prog[k]);
        for (char **a = c[k].argv + 1; *a; a++)
            ARG(*a);
    }
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
    e[1] = errno;
    e[0] = -1;
    (void)!write(errfd, e, sizeof e);
    _exit(127);
}

/* Strings that name a job's placement must agree between the commands:
 * the spawned job is one mpirun with one working directory and layout. */
static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

int spawnjob_start(struct job *j, const struct spawn_cmd *c, int ncmd, const char *port,
                   char *why, size_t whylen)
{
    for (int k = 1; k < ncmd; k++)
        if (!same(c[k].wdir, c[0].wdir) || !same(c[k].host, c[0].host)) {
            snprintf(why, whylen, "commands_with_different_wdir_or_host_are_not_served");
            return -1;
        }
    struct spawned *grown = realloc(j->spawned, (size_t)(j->nspawned + 1) * sizeof *grown);
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
        child(j, c, ncmd, port, p[1]);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        snprintf(why, whylen, "fork_failed");
        return -1;
    }
    int e[2] = { 0, 0 };
    ssize_t got;
    while ((got = read(p[0], e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(p[0]);
    if (got == (ssize_t)sizeof e) {   /* it never became mpirun */
        waitpid(pid, NULL, 0);
        snprintf(why, whylen, "%s:_%s", e[0] >= 0 && e[0] < ncmd ? c[e[0]].argv[0] : "mpirun",
                 e[1] == ENOENT ? "command_not_found" : e[1] == EACCES ? "not_executable"
                                                      : "cannot_start");
        for (char *s = why; *s; s++)
            if (*s == ' ')
                *s = '_';
        return -1;
    }
    j->spawned[j->nspawned].pid = pid;
    snprintf(j->spawned[j->nspawned++].port, sizeof grown->port, "%s", port);
    j->nspawn_alive++;
    if (j->o->verbose)
        fprintf(stderr, "%s: spawned a job of %d command%s (mpirun pid %ld)\n", j->self, ncmd,
                ncmd == 1 ? "" : "s", (long)pid);
    return 0;
}

int spawnjob_reaped(struct job *j, pid_t pid, int wstatus)
{
    for (int i = 0; i < j->nspawned; i++) {
        if (j->spawned[i].pid != pid)
            continue;
        j->spawned[i].pid = -1;
        j->nspawn_alive--;
        int st = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        /* Parents still accepting at the port take the end as their spawn's
         * failure (MPI_ERR_SPAWN); past that, a failed job ends ours. */
        if (!j->ending && cu_port_tell_gone(j->spawned[i].port, st, GONE_WAIT_MS)) {
            if (j->o->verbose)
                fprintf(stderr, "%s: a spawned job (mpirun pid %ld) ended with status %d "
                        "before connecting; its parents were told\n", j->self, (long)pid, st);
        } else if (st != 0 && !j->ending)
            job_fail(j, st, "a spawned job (mpirun pid %ld) ended with status %d; ending the job",
                     (long)pid, st);
        return 1;
    }
    return 0;
}

void spawnjob_signal_all(struct job *j)
{
    for (int i = 0; i < j->nspawned; i++)
        if (j->spawned[i].pid > 0)
            kill(j->spawned[i].pid, SIGTERM);
}
