/*
 * mpirun.c — mpirun/mpiexec: set up the job, then one poll() loop serves
 * PMI, output, stdin and signals (through a signalfd) until every rank is
 * reaped. Nothing spins: poll sleeps until an fd, a signal or a deadline.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "src/tools/mpirun.h"
#include "src/util/param.h"

/* A rank's pipes and sockets must never land on 0-2. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd) {
                dup2(n, fd);
                close(n);
            }
        }
}

static void make_job_id(char *id)
{
    unsigned char b[8];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        /* No entropy source: pid and time still make it unique here. */
        unsigned long long x = ((unsigned long long)getpid() << 32) ^ (unsigned long long)(now_sec() * 1e9);
        memcpy(b, &x, sizeof b);
    }
    for (size_t i = 0; i < sizeof b; i++)
        sprintf(id + 2 * i, "%02x", b[i]);
}

static void raise_fd_limit(int n)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)(5 * n + 64)) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int poll_timeout_ms(struct job *j, double now)
{
    double next = -1;
#define EARLIER(t) do { if ((t) > 0 && (next < 0 || (t) < next)) next = (t); } while (0)
    EARLIER(j->deadline);
    EARLIER(pmisrv_next_deadline(j));
    if (j->ending && !j->killed)
        EARLIER(j->kill_at);
    for (int i = 0; i < j->n; i++) {
        if (j->r[i].out.partial_since > 0)
            EARLIER(j->r[i].out.partial_since + 0.05);
        if (j->r[i].err.partial_since > 0)
            EARLIER(j->r[i].err.partial_since + 0.05);
    }
#undef EARLIER
    if (next < 0)
        return -1;
    double ms = (next - now) * 1000.0 + 1;
    return ms < 0 ? 0 : ms > 1e6 ? 1000000 : (int)ms;
}

/* What a pollfd slot stands for. */
struct slot { int kind; int rank; };
enum { S_SIG, S_PMI, S_OUT, S_ERR, S_STDIN, S_STDIN_DST, S_LISTEN, S_PENDING };
#define MAXPEND PMISRV_MAXPENDING

static void run_loop(struct job *j, int sfd)
{
    size_t cap = (size_t)j->n * 3 + 4 + MAXPEND;
    int pendfd[MAXPEND];
    struct pollfd *pfd = malloc(cap * sizeof *pfd);
    struct slot *sl = malloc(cap * sizeof *sl);
    if (!pfd || !sl) {
        job_fail(j, 1, "out of memory; ending the job");
        free(pfd);
        free(sl);
        return;
    }
    for (;;) {
        /* Until every rank is reaped; drain_outputs takes the rest. */
        if (j->nalive == 0 && j->nspawn_alive == 0)
            break;
        nfds_t n = 0;
#define ADD(fd_, ev_, kind_, rank_) do { pfd[n].fd = (fd_); pfd[n].events = (ev_); pfd[n].revents = 0; \
        sl[n].kind = (kind_); sl[n].rank = (rank_); n++; } while (0)
        ADD(sfd, POLLIN, S_SIG, -1);
        for (int i = 0; i < j->n; i++) {
            struct rank *r = &j->r[i];
            if (r->pmi_fd >= 0)
                ADD(r->pmi_fd, POLLIN, S_PMI, i);
            if (r->out.fd >= 0)
                ADD(r->out.fd, POLLIN, S_OUT, i);
            if (r->err.fd >= 0)
                ADD(r->err.fd, POLLIN, S_ERR, i);
        }
        if (j->stdin_dst >= 0) {
            if (j->inlen > j->inoff)
                ADD(j->stdin_dst, POLLOUT, S_STDIN_DST, 0);
            else if (j->stdin_src >= 0)
                ADD(j->stdin_src, POLLIN, S_STDIN, 0);
        }
        if (j->listen_fd >= 0) {
            ADD(j->listen_fd, POLLIN, S_LISTEN, -1);
            int np = pmisrv_pending_fds(j, pendfd, MAXPEND);
            for (int k = 0; k < np; k++)
                ADD(pendfd[k], POLLIN, S_PENDING, -1);
        }
#undef ADD
        int rc = poll(pfd, n, poll_timeout_ms(j, now_sec()));
        if (rc < 0 && errno != EINTR) {
            job_fail(j, 1, "poll: %s; ending the job", strerror(errno));
            break;
        }
        for (nfds_t k = 0; rc > 0 && k < n; k++) {
            if (!pfd[k].revents)
                continue;
            struct rank *r = sl[k].rank >= 0 ? &j->r[sl[k].rank] : NULL;
            switch (sl[k].kind) {
            case S_SIG: {
                struct signalfd_siginfo si;
                while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                    if (si.ssi_signo == SIGCHLD)
                        job_reap(j);
                    else
                        job_on_signal(j, (int)si.ssi_signo);
                }
                break;
            }
            case S_PMI:
                pmisrv_read(j, r);
                break;
            case S_OUT:
                iofwd_read(j, r, &r->out);
                break;
            case S_ERR:
                iofwd_read(j, r, &r->err);
                break;
            case S_LISTEN:
                pmisrv_accept(j);
                break;
            case S_PENDING:
                pmisrv_pending_read(j, pfd[k].fd);
                break;
            case S_STDIN:
                if (j->stdin_src >= 0 && j->stdin_dst >= 0)
                    iofwd_stdin_read(j);
                break;
            case S_STDIN_DST:
                if (pfd[k].revents & (POLLERR | POLLHUP))
                    iofwd_stdin_close(j);
                else if (j->stdin_dst >= 0)
                    iofwd_stdin_write(j);
                break;
            }
        }
        double now = now_sec();
        pmisrv_tick(j, now);
        job_tick(j, now);
        for (int i = 0; i < j->n; i++) {
            iofwd_flush_partial(j, &j->r[i], &j->r[i].out, now);
            iofwd_flush_partial(j, &j->r[i], &j->r[i].err, now);
        }
    }
    free(pfd);
    free(sl);
}

/* All ranks are gone; take what is left in their pipes. A pipe still open
 * is held by something the rank started: wait briefly, not forever. */
static void drain_outputs(struct job *j)
{
    if (j->ending)
        job_signal_all(j, SIGKILL);   /* leftovers of failed ranks' groups */
    struct pollfd *pfd = malloc((size_t)j->n * 2 * sizeof *pfd);
    if (!pfd)
        return;
    for (;;) {
        nfds_t n = 0;
        for (int i = 0; i < j->n; i++) {
            if (j->r[i].out.fd >= 0)
                pfd[n++] = (struct pollfd){ .fd = j->r[i].out.fd, .events = POLLIN };
            if (j->r[i].err.fd >= 0)
                pfd[n++] = (struct pollfd){ .fd = j->r[i].err.fd, .events = POLLIN };
        }
        if (n == 0 || poll(pfd, n, 100) <= 0)
            break;
        for (int i = 0; i < j->n; i++)
            iofwd_drain(j, &j->r[i]);
    }
    free(pfd);
    /* Flush any unterminated tails. */
    for (int i = 0; i < j->n; i++) {
        iofwd_flush_partial(j, &j->r[i], &j->r[i].out, 1e300);
        iofwd_flush_partial(j, &j->r[i], &j->r[i].err, 1e300);
    }
}

static void free_job(struct job *j, struct mpirun_opts *o)
{
    for (int i = 0; i < j->n; i++) {
        free(j->r[i].mcmd);
        pmisrv_spawn_reset(&j->r[i]);
    }
    free(j->spawned);
    free(j->r);
    for (int h = 0; h < j->nhosts; h++)
        free(j->hosts[h].name);
    free(j->hosts);
    mpirun_free_opts(o);
}

int main(int argc, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    const char *self = strcmp(base, "mpiexec") == 0 ? "mpiexec" : "mpirun";
    ensure_std_fds();
    /* An ignored SIGCHLD (inherited from a shell or a harness) would make
     * the kernel reap our children unseen: no signal, and waitpid fails
     * with ECHILD. We watch every child, so take the default back. */
    signal(SIGCHLD, SIG_DFL);

    struct mpirun_opts o;
    mpirun_parse_opts(&o, argc, argv, self);
    /* A malformed CLUMPI_* value (ours, or one -genv/-x gives the ranks)
     * ends the job before it starts; an unknown name warns once, here. */
    extern char **environ;
    cu_param_check_all();
    cu_param_warn_unknown(environ);
    for (int i = 0; i < o.nenv; i++)
        if (o.env[i].val)
            cu_param_check_var(o.env[i].key, o.env[i].val);
    raise_fd_limit(o.np);

    struct job j;
    memset(&j, 0, sizeof j);
    j.o = &o;
    j.self = self;
    j.n = o.np;
    j.nnodes = 1;
    j.listen_fd = -1;
    j.stdin_src = STDIN_FILENO;
    j.stdin_dst = -1;
    for (int i = 0; i < o.nenv; i++)
        if (!strcmp(o.env[i].key, "CLUMPI_PARENT_PORT") && o.env[i].val)
            j.parent_port = o.env[i].val;
    make_job_id(j.id);
    j.r = calloc((size_t)j.n, sizeof *j.r);
    if (!j.r) {
        fprintf(stderr, "%s: out of memory\n", self);
        return 1;
    }
    for (int i = 0, a = 0, left = o.apps[0].np; i < j.n; i++, left--) {
        while (left == 0)
            left = o.apps[++a].np;
        j.r[i].app = a;
        j.r[i].rank = i;
        j.r[i].pmi_fd = -1;
        j.r[i].out.fd = j.r[i].err.fd = -1;
    }
    mpirun_read_hosts(&j);
    launch_assign_nodes(&j);
    /* Early exits free the job too: LeakSanitizer would add a report and
     * turn the status into 1. */
    if (launch_find_program(&j) < 0) {
        free_job(&j, &o);
        return 127;
    }
    bind_plan(&j);
    if (pmisrv_init(&j) < 0) {
        fprintf(stderr, "%s: out of memory\n", self);
        pmisrv_free();
        free_job(&j, &o);
        return 1;
    }
    if (pmisrv_listen(&j) < 0) {
        pmisrv_free();
        free_job(&j, &o);
        return 1;
    }
    if (o.verbose) {
        fprintf(stderr, "%s: job %s: %d rank%s on %d node%s, program %s\n", self, j.id, j.n,
                j.n == 1 ? "" : "s", j.nnodes, j.nnodes == 1 ? "" : "s", o.prog);
        launch_print_layout(&j);
    }
    if (o.report_bindings)
        bind_report(&j);

    /* Signals arrive through the poll loop; ranks get the defaults back. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0) {
        fprintf(stderr, "%s: signalfd: %s\n", self, strerror(errno));
        pmisrv_close_all(&j);
        pmisrv_free();
        free_job(&j, &o);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);

    if (o.timeout > 0)
        j.deadline = now_sec() + o.timeout;
    launch_all(&j);
    run_loop(&j, sfd);
    drain_outputs(&j);
    if (o.verbose)
        fprintf(stderr, "%s: job %s ended with status %d\n", self, j.id, j.status);
    pmisrv_close_all(&j);
    pmisrv_free();
    free_job(&j, &o);
    close(sfd);
    return j.status;
}
