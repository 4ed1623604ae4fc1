/*
 * launch.c — where ranks run and how they start: the program check, the
 * node assignment, and fork/exec of each rank with its PMI socket, pipes,
 * environment and binding.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
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

/* Looks name up as execvp would. Returns 0 with *out malloc'd, or an errno
 * (ENOENT: nowhere; EACCES: found but not executable). */
int launch_find_exec(const char *name, char **out)
{
    int err;
    *out = NULL;
    if (!*name)
        return ENOENT;
    if (strchr(name, '/')) {
        err = check_exec(name);
        if (!err && !(*out = strdup(name)))
            err = ENOMEM;
        return err;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    err = ENOENT;
    const char *p = path;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        char *cand = malloc(dl + strlen(name) + 3);
        if (!cand)
            return ENOMEM;
        if (dl == 0)
            sprintf(cand, "./%s", name);
        else
            sprintf(cand, "%.*s/%s", (int)dl, p, name);
        int e = check_exec(cand);
        if (e == 0) {
            *out = cand;
            return 0;
        }
        if (e != ENOENT && e != ENOTDIR)
            err = e;   /* remember "found but not executable" */
        free(cand);
        if (!colon)
            break;
        p = colon + 1;
    }
    return err;
}

static void report_missing(const char *self, const char *what, const char *name, int err)
{
    if (err == ENOENT && !strchr(name, '/'))
        fprintf(stderr, "%s: %s%s: command not found\n", self, what, name);
    else
        fprintf(stderr, "%s: %s%s: %s\n", self, what, name,
                err == EACCES ? "not executable (Permission denied)" : strerror(err));
}

/* Resolve the program as execvp would, before anything starts, so that a
 * typo costs one line and no half-started job. When every rank runs on
 * other hosts the program need not exist here: those hosts will say. */
int launch_find_program(struct job *j)
{
    struct mpirun_opts *o = j->o;
    for (int a = 0; a < o->napps; a++) {
        struct mpirun_app *ap = &o->apps[a];
        int err = launch_find_exec(ap->argv[0], &ap->prog);
        if (err && j->nremote == j->n && err != ENOMEM) {
            ap->prog = strdup(ap->argv[0]);
            err = ap->prog ? 0 : ENOMEM;
        }
        if (err) {
            report_missing(j->self, "", ap->argv[0], err);
            return -1;
        }
    }
    o->prog = o->apps[0].prog;
    int err;
    /* The launcher, too: "ssh: not found" per rank would be a poor message. */
    if (j->nremote > 0) {
        char first[256], *found;
        const char *cmd = o->launcher_exec ? o->launcher_exec : o->launcher == LAUNCH_RSH ? "rsh" : "ssh";
        size_t skip = strspn(cmd, " \t"), l = strcspn(cmd + skip, " \t");
        snprintf(first, sizeof first, "%.*s", (int)(l < 255 ? l : 255), cmd + skip);
        if ((err = launch_find_exec(first, &found)) != 0) {
            report_missing(j->self, "launcher ", first, err);
            return -1;
        }
        free(found);
    }
    return 0;
}

/* Is name this machine? Only then can ssh be skipped and the rank forked
 * here (with its binding and a socketpair). */
static int is_this_host(const char *name)
{
    char me[256];
    if (!strcmp(name, "localhost") || !strcmp(name, "127.0.0.1") || !strcmp(name, "::1"))
        return 1;
    if (gethostname(me, sizeof me) < 0)
        return 0;
    me[sizeof me - 1] = '\0';
    if (!strcmp(name, me))
        return 1;
    /* "node1" and "node1.cluster" name the same machine. */
    size_t a = strcspn(name, "."), b = strcspn(me, ".");
    return a == b && !strncmp(name, me, a) && (!name[a] || !me[b]);
}

/* Ranks per node, spread as evenly as nodes allow: the first n % nn nodes
 * take one more. Consecutive ranks share a node, so neighbours in rank
 * order talk through shared memory. */
static void spread_even(struct job *j, int nn)
{
    int base = j->n / nn, extra = j->n % nn, r = 0;
    for (int node = 0; node < nn && r < j->n; node++)
        for (int k = 0; k < base + (node < extra); k++)
            j->r[r++].node = node;
}

/* The one place that decides which node (and host) each rank is on.
 *  - one node: every rank here;
 *  - --nodes N / --emulate-nodes: N nodes, all here, even blocks (or blocks
 *    of -ppn wrapping round, as Hydra does);
 *  - --hosts/--hostfile: a node per host. -ppn P puts P consecutive ranks
 *    on each host in turn; else hosts with slots fill up to them in order
 *    (then wrap round: oversubscription); hosts without any slots given
 *    share the ranks evenly.
 * Nodes are numbered densely in host order, which PMI_process_mapping needs. */
void launch_assign_nodes(struct job *j)
{
    const struct mpirun_opts *o = j->o;
    int nn;
    if (j->nhosts > 0) {
        int nh = j->nhosts, any_slots = 0;
        for (int h = 0; h < nh; h++)
            any_slots |= j->hosts[h].slots > 0;
        if (o->ppn > 0) {
            for (int i = 0; i < j->n; i++)
                j->r[i].node = (i / o->ppn) % nh;
        } else if (!any_slots) {
            spread_even(j, nh < j->n ? nh : j->n);
        } else {
            int h = 0, used = 0;
            for (int i = 0; i < j->n; i++) {
                j->r[i].node = h;
                int cap = j->hosts[h].slots > 0 ? j->hosts[h].slots : 1;
                if (++used == cap) {
                    used = 0;
                    h = (h + 1) % nh;
                }
            }
        }
        nn = 0;
        for (int i = 0; i < j->n; i++)
            if (j->r[i].node + 1 > nn)
                nn = j->r[i].node + 1;
        for (int i = 0; i < j->n; i++)
            j->r[i].host = j->r[i].node;
        for (int h = 0; h < nh; h++)
            j->hosts[h].here = o->launcher == LAUNCH_FORK ||
                               (!o->launcher_exec && is_this_host(j->hosts[h].name));
    } else {
        /* No hosts: this machine, as one node or as --nodes emulated ones. */
        char me[256];
        if (gethostname(me, sizeof me) < 0)
            strcpy(me, "localhost");
        me[sizeof me - 1] = '\0';
        j->hosts = calloc(1, sizeof *j->hosts);
        if (!j->hosts || !(j->hosts[0].name = strdup(me))) {
            perror(j->self);
            exit(1);
        }
        j->hosts[0].here = 1;
        j->nhosts = 1;
        nn = o->nodes > 0 ? o->nodes : 1;
        if (o->ppn > 0 && nn > 1) {
            for (int i = 0; i < j->n; i++)
                j->r[i].node = (i / o->ppn) % nn;
        } else {
            spread_even(j, nn);
        }
        for (int i = 0; i < j->n; i++)
            j->r[i].host = 0;
    }
    int *count = calloc((size_t)nn, sizeof *count);
    if (!count) {
        perror(j->self);
        exit(1);
    }
    int ordinal = 0;
    j->nremote = 0;
    for (int i = 0; i < j->n; i++) {
        struct rank *r = &j->r[i];
        r->local = count[r->node]++;
        r->remote = !j->hosts[r->host].here;
        r->ordinal = r->remote ? -1 : ordinal++;
        j->nremote += r->remote;
    }
    free(count);
    j->nnodes = nn;
}

/* Compact "0-3,8" list of the ranks on node. */
static void ranks_of_node(struct job *j, int node, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < j->n && off + 24 < len; i++) {
        if (j->r[i].node != node || (i > 0 && j->r[i - 1].node == node))
            continue;
        int k = i;
        while (k + 1 < j->n && j->r[k + 1].node == node)
            k++;
        off += (size_t)snprintf(buf + off, len - off, off ? ",%d" : "%d", i);
        if (k > i)
            off += (size_t)snprintf(buf + off, len - off, "-%d", k);
    }
    if (off + 24 >= len)
        snprintf(buf + len - 5, 5, ",...");
}

void launch_print_layout(struct job *j)
{
    char list[256];
    for (int node = 0; node < j->nnodes; node++) {
        struct rank *first = NULL;
        int count = 0;
        for (int i = 0; i < j->n; i++)
            if (j->r[i].node == node) {
                first = first ? first : &j->r[i];
                count++;
            }
        if (!first)
            continue;
        const struct host *h = &j->hosts[first->host];
        ranks_of_node(j, node, list, sizeof list);
        fprintf(stderr, "%s: node %d: host %s%s, %d rank%s: %s\n", j->self, node, h->name,
                j->nhosts == 1 && j->nnodes > 1 ? " (emulated node)" : h->here ? "" : " (remote)",
                count, count == 1 ? "" : "s", list);
    }
}

const char *launch_where(struct job *j, struct rank *r, char *buf, size_t len)
{
    if (r->remote)
        snprintf(buf, len, "host %s, pid %d", j->hosts[r->host].name, (int)r->pid);
    else
        snprintf(buf, len, "pid %d", (int)r->pid);
    return buf;
}

static int local_size(struct job *j, int node)
{
    int c = 0;
    for (int i = 0; i < j->n; i++)
        c += j->r[i].node == node;
    return c;
}

/* Ranks on the same host (emulated nodes share it): the device compares
 * them with the cores to tell whether ranks outnumber cores. */
static int host_size(struct job *j, int host)
{
    int c = 0;
    for (int i = 0; i < j->n; i++)
        c += j->r[i].host == host;
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
    setenv_int("CLUMPI_HOST_NRANKS", host_size(j, r->host));
    if (j->nremote == 0)   /* the network channel stays on loopback */
        setenv("CLUMPI_ONE_HOST", "1", 1);
    {   /* the cores mpirun may use here, before binding narrows the rank's */
        cpu_set_t all;
        if (sched_getaffinity(0, sizeof all, &all) == 0)
            setenv_int("CLUMPI_HOST_CPUS", CPU_COUNT(&all));
    }
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");

    if (r->bound && sched_setaffinity(0, sizeof r->cpus, &r->cpus) < 0) {
        /* Not fatal: a restricted cpuset may refuse it; run unbound. */
    }
    const char *prog = o->apps[r->app].prog;
    execv(prog, o->apps[r->app].argv);
    dprintf(2, "%s: cannot execute %s: %s\n", j->self, prog, strerror(errno));
    _exit(127);
}

/* ---- Ranks on other hosts ---------------------------------------------- */

/* A growing argv. Allocation failure ends mpirun: nothing has started. */
struct strv { char **v; int n, cap; };

static void sv_push(struct strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sv_push(struct strv *sv, const char *fmt, ...)
{
    if (sv->n + 2 > sv->cap) {
        sv->cap = sv->cap ? 2 * sv->cap : 32;
        sv->v = realloc(sv->v, (size_t)sv->cap * sizeof *sv->v);
        if (!sv->v) {
            perror("mpirun");
            exit(1);
        }
    }
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&sv->v[sv->n], fmt, ap) < 0) {
        perror("mpirun");
        exit(1);
    }
    va_end(ap);
    sv->v[++sv->n] = NULL;
}

static void sv_free(struct strv *sv)
{
    for (int i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
}

/* ssh and rsh hand the remote command to a shell; "ip netns exec", "docker
 * exec" and the like exec the words as they are. A --launcher-exec command
 * counts as a shell launcher when its program is named ...ssh or ...rsh. */
static int launcher_uses_shell(const struct mpirun_opts *o)
{
    if (!o->launcher_exec)
        return o->launcher != LAUNCH_FORK;
    const char *p = o->launcher_exec + strspn(o->launcher_exec, " \t");
    size_t l = strcspn(p, " \t");
    const char *base = p;
    for (size_t k = 0; k < l; k++)
        if (p[k] == '/')
            base = p + k + 1;
    size_t bl = (size_t)(p + l - base);
    return bl >= 3 && (!strncmp(base + bl - 3, "ssh", 3) || !strncmp(base + bl - 3, "rsh", 3));
}

/* One word for a POSIX shell: as is when it is plainly safe, else quoted. */
static char *shell_quote(const char *w)
{
    size_t n = strlen(w);
    if (n && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") == n)
        return strdup(w);
    char *q = malloc(4 * n + 3), *o = q;
    if (!q)
        return NULL;
    *o++ = '\'';
    for (const char *c = w; *c; c++) {
        if (*c == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *c;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

/* The remote side reads the job secret from its stdin (the launcher's pipe)
 * rather than from the command line, where any user could see it in ps;
 * then it goes to mpirun's directory and becomes the program. */
static const char remote_script[] =
    "IFS= read -r CLUMPI_PMI_SECRET || { echo \"clumpi: no job secret on stdin: the launcher "
    "must pass stdin through\" >&2; exit 126; }; export CLUMPI_PMI_SECRET; "
    "cd \"$0\" || exit 127; exec \"$@\"";

static int is_job_var(const char *name)
{
    static const char *const ours[] = { "PMI_PORT=", "PMI_ID=", "PMI_RANK=", "PMI_SIZE=",
                                        "PMI_FD=", "CLUMPI_PMI_SECRET=", NULL };
    for (int i = 0; ours[i]; i++)
        if (!strncmp(name, ours[i], strlen(ours[i])))
            return 1;
    return 0;
}

/* argv of the launcher process for remote rank r:
 *   <launcher> <host> env K=V... sh -c <script> <cwd> <program> <args...>
 * The environment goes explicitly: the remote side starts from its own.
 * Passed on: every CLUMPI_* of ours, -genv/-x, and the job's variables. */
static void remote_argv(struct job *j, struct rank *r, const char *cwd, struct strv *out)
{
    const struct mpirun_opts *o = j->o;
    struct strv words = { 0 };
    extern char **environ;
    sv_push(&words, "env");
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "CLUMPI_", 7) && !is_job_var(*e))
            sv_push(&words, "%s", *e);
    for (int i = 0; i < o->nenv; i++) {
        const char *v = o->env[i].val ? o->env[i].val : getenv(o->env[i].key);
        if (v)
            sv_push(&words, "%s=%s", o->env[i].key, v);
    }
    int ls = 0;
    for (int i = 0; i < j->n; i++)
        ls += j->r[i].node == r->node;
    sv_push(&words, "PMI_PORT=%s", j->pmi_addr);
    sv_push(&words, "PMI_ID=%d", r->rank);
    sv_push(&words, "PMI_RANK=%d", r->rank);
    sv_push(&words, "PMI_SIZE=%d", j->n);
    sv_push(&words, "CLUMPI_JOB_ID=%s", j->id);
    sv_push(&words, "CLUMPI_LOCAL_RANK=%d", r->local);
    sv_push(&words, "CLUMPI_LOCAL_SIZE=%d", ls);
    sv_push(&words, "MPI_LOCALRANKID=%d", r->local);
    sv_push(&words, "MPI_LOCALNRANKS=%d", ls);
    sv_push(&words, "CLUMPI_HOST_NRANKS=%d", host_size(j, r->host));
    sv_push(&words, "sh");
    sv_push(&words, "-c");
    sv_push(&words, "%s", remote_script);
    sv_push(&words, "%s", cwd);
    for (char **a = o->apps[r->app].argv; *a; a++)
        sv_push(&words, "%s", *a);

    const char *host = j->hosts[r->host].name;
    if (o->launcher_exec) {
        char *cmd = strdup(o->launcher_exec);
        if (!cmd) {
            perror("mpirun");
            exit(1);
        }
        for (char *w = strtok(cmd, " \t"); w; w = strtok(NULL, " \t"))
            sv_push(out, "%s", w);
        free(cmd);
    } else if (o->launcher == LAUNCH_RSH) {
        sv_push(out, "rsh");
    } else {
        /* BatchMode: a password prompt would hang the job; ConnectTimeout:
         * so would a host that drops packets. */
        sv_push(out, "ssh");
        sv_push(out, "-x");
        sv_push(out, "-o");
        sv_push(out, "BatchMode=yes");
        sv_push(out, "-o");
        sv_push(out, "ConnectTimeout=%d", j->connect_timeout < 1 ? 1 : (int)j->connect_timeout);
    }
    sv_push(out, "%s", host);
    if (launcher_uses_shell(o)) {
        /* The remote shell splits one command line: quote every word. */
        size_t len = 1;
        char **q = calloc((size_t)words.n, sizeof *q);
        for (int i = 0; q && i < words.n; i++) {
            if (!(q[i] = shell_quote(words.v[i]))) {
                perror("mpirun");
                exit(1);
            }
            len += strlen(q[i]) + 1;
        }
        char *line = q ? malloc(len) : NULL;
        if (!line) {
            perror("mpirun");
            exit(1);
        }
        line[0] = '\0';
        for (int i = 0; i < words.n; i++) {
            strcat(line, q[i]);
            if (i + 1 < words.n)
                strcat(line, " ");
            free(q[i]);
        }
        free(q);
        sv_push(out, "%s", line);
        free(line);
    } else {
        for (int i = 0; i < words.n; i++)
            sv_push(out, "%s", words.v[i]);
    }
    sv_free(&words);
}

/* In the child: become the launcher process for a remote rank. Its pipes
 * are the rank's stdin/stdout/stderr; its exit status is the rank's. */
static void exec_remote(struct job *j, char **argv, int in_fd, int out_fd, int err_fd, pid_t parent)
{
    setpgid(0, 0);
    /* With "ip netns exec" this is the rank itself; with ssh, the ssh
     * client, whose death closes the session. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    sigset_t none;
    sigemptyset(&none);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(127);
    /* A launcher that keeps our environment (ip netns exec) must not hand
     * the rank a PMI_FD of an outer job: it would win over PMI_PORT. */
    unsetenv("PMI_FD");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    unsetenv("CLUMPI_PMI_SECRET");
    execvp(argv[0], argv);
    dprintf(2, "%s: cannot execute the launcher %s: %s\n", j->self, argv[0], strerror(errno));
    _exit(127);
}

static void write_all_fd(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Starts remote rank r through the launcher. Its stdin pipe first carries
 * the secret line; rank 0's then carries mpirun's stdin, the others' ends. */
static int launch_remote(struct job *j, struct rank *r, const char *cwd, pid_t self)
{
    int po[2], pe[2], pin[2];
    if (pipe2(po, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(pe, O_CLOEXEC) < 0) {
        close(po[0]);
        close(po[1]);
        return -1;
    }
    if (pipe2(pin, O_CLOEXEC) < 0) {
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        return -1;
    }
    struct strv argv = { 0 };
    remote_argv(j, r, cwd, &argv);
    if (j->o->verbose >= 2) {
        fprintf(stderr, "%s: rank %d:", j->self, r->rank);
        for (int k = 0; k < argv.n; k++)
            fprintf(stderr, " %s", argv.v[k]);
        fputc('\n', stderr);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        exec_remote(j, argv.v, pin[0], po[1], pe[1], self);
    sv_free(&argv);
    close(po[1]);
    close(pe[1]);
    close(pin[0]);
    iofwd_init(&r->out, po[0], 1);
    iofwd_init(&r->err, pe[0], 2);
    set_nonblock(po[0]);
    set_nonblock(pe[0]);
    if (pid < 0) {
        close(pin[1]);
        r->exited = 1;
        job_fail(j, 1, "cannot start rank %d: fork: %s; ending the job", r->rank, strerror(errno));
        return 0;
    }
    /* An empty pipe takes the short line at once. */
    char line[sizeof j->secret + 1];
    int ll = snprintf(line, sizeof line, "%s\n", j->secret);
    write_all_fd(pin[1], line, (size_t)ll);
    if (r->rank == 0 && j->stdin_src >= 0) {
        j->stdin_dst = pin[1];
        set_nonblock(pin[1]);
    } else {
        close(pin[1]);
        if (r->rank == 0)
            j->stdin_src = -1;
    }
    setpgid(pid, pid);
    r->pid = pid;
    j->nalive++;
    if (j->o->verbose)
        fprintf(stderr, "%s: rank %d: launcher pid %d for host %s (node %d, local rank %d)\n",
                j->self, r->rank, (int)pid, j->hosts[r->host].name, r->node, r->local);
    return 0;
}

int launch_all(struct job *j)
{
    pid_t self = getpid();
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        fprintf(stderr, "%s: cannot open /dev/null: %s\n", j->self, strerror(errno));
        return -1;
    }
    char cwd[4096];
    if (j->nremote && !getcwd(cwd, sizeof cwd))
        strcpy(cwd, "/");   /* ours was removed: any directory will do */
    for (int i = 0; i < j->n; i++) {
        struct rank *r = &j->r[i];
        int sv[2] = { -1, -1 }, po[2], pe[2], pin[2] = { -1, -1 };
        if (r->remote) {
            if (launch_remote(j, r, cwd, self) < 0)
                goto syserr;
            continue;
        }
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
