/*
 * mpirun.h — the launcher's shared state. One job: N ranks started here,
 * each with a PMI socket and stdout/stderr pipes that one poll() loop serves.
 */
#ifndef MPIRUN_H
#define MPIRUN_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>
#include "src/util/pmi.h"

enum { BIND_AUTO, BIND_CORE, BIND_NONE };

struct mpirun_env { char *key, *val; };   /* val NULL: forward the caller's value */

struct mpirun_opts {
    int np;               /* ranks */
    int ppn;              /* ranks per node, 0 = all on one node */
    int label;            /* -l: prefix output lines with "[rank] " */
    int bind;             /* BIND_* */
    int report_bindings;
    double timeout;       /* seconds, 0 = none */
    int verbose;
    struct mpirun_env *env;
    int nenv;
    char **argv;          /* program and its arguments */
    char *prog;           /* program resolved through PATH */
};

/* Output of one stream of one rank, forwarded by lines. */
struct outstream {
    int fd;               /* read end, -1 once closed */
    int dest;             /* STDOUT_FILENO or STDERR_FILENO */
    char buf[8192];
    size_t len;
    int mid_line;         /* a partial line was flushed: no prefix on the rest */
    double partial_since; /* when the unterminated tail began waiting */
};

struct rank {
    int rank, node, local;
    pid_t pid;
    int pmi_fd;           /* mpirun's end of the PMI socketpair, -1 when closed */
    cu_pmi_linebuf lb;
    struct outstream out, err;
    int pmi_inited, finalized, in_barrier;
    int aborted, abort_code;
    int exited;           /* reaped */
    int bound;
    cpu_set_t cpus;
    char bind_desc[160];
};

struct job {
    struct mpirun_opts *o;
    const char *self;     /* program name for messages: mpirun or mpiexec */
    char id[33];          /* CLUMPI_JOB_ID: random hex */
    char kvsname[48];
    int n;
    struct rank *r;
    int nnodes;
    int nalive;
    int nbarrier;
    /* stdin forwarding to rank 0 */
    int stdin_src;        /* our stdin, -1 when done */
    int stdin_dst;        /* rank 0's stdin pipe, -1 when closed */
    char inbuf[4096];
    size_t inlen, inoff;
    /* ending */
    int ending;           /* the first failure or signal happened */
    int status;           /* the job's exit status */
    double kill_at;       /* when SIGKILL follows SIGTERM, 0 = not armed */
    int killed;
    double deadline;      /* --timeout, 0 = none */
};

/* mpirun_opts.c */
int  mpirun_parse_opts(struct mpirun_opts *o, int argc, char **argv, const char *self);
void mpirun_usage(const char *self);

/* launch.c */
int  launch_find_program(struct mpirun_opts *o, const char *self);
void launch_assign_nodes(struct job *j);
int  launch_all(struct job *j);

/* bind.c */
void bind_plan(struct job *j);
void bind_report(struct job *j);

/* pmi_server.c */
int  pmisrv_init(struct job *j);
void pmisrv_read(struct job *j, struct rank *r);
void pmisrv_rank_gone(struct job *j, struct rank *r);
void pmisrv_free(void);

/* iofwd.c */
void iofwd_init(struct outstream *s, int fd, int dest);
void iofwd_read(struct job *j, struct rank *r, struct outstream *s);
void iofwd_drain(struct job *j, struct rank *r);
void iofwd_flush_partial(struct job *j, struct rank *r, struct outstream *s, double now);
void iofwd_stdin_read(struct job *j);
void iofwd_stdin_write(struct job *j);
void iofwd_stdin_close(struct job *j);

/* jobctl.c */
double now_sec(void);
void job_fail(struct job *j, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void job_signal_all(struct job *j, int sig);
void job_on_signal(struct job *j, int sig);
void job_rank_exited(struct job *j, struct rank *r, int wstatus);
void job_reap(struct job *j);
void job_cleanup_shm(struct job *j);
void job_tick(struct job *j, double now);

#endif
