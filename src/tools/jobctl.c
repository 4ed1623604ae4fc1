/*
 * jobctl.c — how a job ends: the first failure (or signal, or timeout) is
 * reported in one line and fixes the exit status; the other ranks get
 * SIGTERM, then SIGKILL after a grace period; the job's shared-memory
 * segments are removed. Each rank runs in its own process group, so
 * whatever it forked goes with it.
 */
#include "config.h"
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "src/tools/mpirun.h"

#define GRACE 1.0   /* seconds between SIGTERM and SIGKILL */

double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void job_signal_all(struct job *j, int sig)
{
    spawnjob_signal_all(j);
    for (int i = 0; i < j->n; i++) {
        struct rank *r = &j->r[i];
        if (r->pid <= 0)
            continue;
        /* The group of a reaped rank still holds its children, if any. */
        if (kill(-r->pid, sig) < 0 && !r->exited)
            kill(r->pid, sig);
    }
}

static void begin_end(struct job *j, int status, int sig)
{
    j->ending = 1;
    j->status = status;
    job_signal_all(j, sig);
    j->kill_at = now_sec() + GRACE;
}

void job_fail(struct job *j, int status, const char *fmt, ...)
{
    if (j->ending)
        return;   /* only the first cause is reported */
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", j->self, msg);
    begin_end(j, status, SIGTERM);
}

void job_on_signal(struct job *j, int sig)
{
    if (j->ending) {
        /* A second Ctrl-C: no more grace. */
        if (sig == SIGINT || sig == SIGTERM) {
            job_signal_all(j, SIGKILL);
            j->killed = 1;
        }
        return;
    }
    fprintf(stderr, "%s: received signal %d (%s); ending the job\n", j->self, sig, strsignal(sig));
    begin_end(j, 128 + sig, sig);
}

void job_rank_exited(struct job *j, struct rank *r, int ws)
{
    r->exited = 1;
    j->nalive--;
    pmisrv_rank_gone(j, r);
    iofwd_drain(j, r);
    if (r->rank == 0 && j->stdin_dst >= 0)
        iofwd_stdin_close(j);
    if (j->ending || r->aborted)
        return;   /* the first cause is reported, or its abort says why */
    char where[320];
    launch_where(j, r, where, sizeof where);
    if (r->remote && !r->connected && !(WIFEXITED(ws) && WEXITSTATUS(ws) == 0) && j->listen_fd >= 0) {
        /* The launcher failed, or the rank died before reaching mpirun: the
         * launcher's own message (ssh: ...) came just before this line. */
        int st = WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
        job_fail(j, st, "rank %d (%s) ended with status %d before connecting to mpirun%s; ending the job",
                 r->rank, where, st,
                 st == 255 && !j->o->launcher_exec && j->o->launcher == LAUNCH_SSH ? " (ssh could not run it there)" :
                 st == 126 || st == 127 ? " (command or directory not found there?)" : "");
    } else if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        job_fail(j, 128 + sig, "rank %d (%s) was killed by signal %d (%s)%s; ending the job",
                 r->rank, where, sig, strsignal(sig), WCOREDUMP(ws) ? ", core dumped" : "");
    } else if (WEXITSTATUS(ws) != 0) {
        job_fail(j, WEXITSTATUS(ws), "rank %d (%s) exited with status %d; ending the job",
                 r->rank, where, WEXITSTATUS(ws));
    } else if (r->pmi_inited && !r->finalized) {
        job_fail(j, 1, "rank %d (%s) exited without calling MPI_Finalize; ending the job",
                 r->rank, where);
    } else if (j->parent_port && !r->finalized) {
        /* a spawned process must connect to its parents in MPI_Init: they
         * and its own job would wait for it forever */
        job_fail(j, 1, "rank %d (%s) of a spawned job exited without calling MPI_Init; "
                 "ending the job", r->rank, where);
    }
}

void job_reap(struct job *j)
{
    for (;;) {
        int ws;
        pid_t pid = waitpid(-1, &ws, WNOHANG);
        if (pid <= 0)
            return;
        if (spawnjob_reaped(j, pid, ws))
            continue;
        for (int i = 0; i < j->n; i++)
            if (j->r[i].pid == pid && !j->r[i].exited) {
                job_rank_exited(j, &j->r[i], ws);
                break;
            }
    }
}

void job_tick(struct job *j, double now)
{
    if (j->deadline > 0 && now >= j->deadline && !j->ending)
        job_fail(j, 124, "the job ran longer than --timeout %g s; ending the job", j->o->timeout);
    if (j->ending && !j->killed && j->kill_at > 0 && now >= j->kill_at) {
        job_signal_all(j, SIGKILL);
        j->killed = 1;
    }
}
