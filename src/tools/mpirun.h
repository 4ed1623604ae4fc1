/*
 * mpirun.h — the launcher's shared state. One job: N ranks, each with a PMI
 * connection and stdout/stderr pipes that one poll() loop serves. Ranks on
 * this machine get a socketpair; ranks on other hosts are started through a
 * launcher (ssh, rsh, any rsh-like command) whose pipes carry their output,
 * and reach the PMI service over TCP with the job's secret.
 */
#ifndef MPIRUN_H
#define MPIRUN_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>
#include "src/util/pmi.h"

enum { BIND_AUTO, BIND_CORE, BIND_NONE };
enum { LAUNCH_SSH, LAUNCH_RSH, LAUNCH_FORK };

struct mpirun_env { char *key, *val; };   /* val NULL: forward the caller's value */

/* One program of the job (MPMD: several, separated by ':'); its ranks are
 * consecutive, in the order given, and its index is their appnum. */
struct mpirun_app {
    int np;
    char **argv;          /* program and its arguments, NULL-terminated */
    char *prog;           /* resolved through PATH */
};

struct mpirun_opts {
    int np;               /* ranks */
    int ppn;              /* ranks per node, 0 = all on one node */
    int label;            /* -l: prefix output lines with "[rank] " */
    int bind;             /* BIND_* */
    int report_bindings;
    double timeout;       /* seconds, 0 = none */
    int verbose;
    int nodes;            /* --nodes: emulated nodes here, 0 = not given */
    int emulate;          /* --emulate-nodes: -n/ppn nodes here */
    char **hostspecs;     /* --hosts lists, in order */
    int nhostspecs;
    const char *hostfile; /* --hostfile */
    int np_given;         /* -n was given (else an allocation's task count) */
    int slurm;            /* the hosts are a Slurm allocation's (slurm_alloc.c) */
    int launcher;         /* LAUNCH_* */
    int launcher_given;   /* --launcher or --launcher-exec was given */
    const char *launcher_exec;   /* --launcher-exec CMD, NULL = by launcher */
    struct mpirun_env *env;
    int nenv;
    char **argv;          /* program and its arguments (the first app's) */
    char *prog;           /* program resolved through PATH (the first app's, not owned) */
    struct mpirun_app *apps;
    int napps;
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

/* A host of --hosts/--hostfile; without them, one host: this machine. */
struct host {
    char *name;
    int slots;            /* 0 = not given */
    int here;             /* ranks on it run on this machine (fork/exec) */
};

/* One command of a spawn request, as the PMI request gave it (malloc'd). */
struct spawn_cmd {
    int np;
    char **argv;          /* program and arguments, NULL-terminated */
    char *host, *wdir, *path;   /* the info keys honoured, or NULL */
};

/* A job started for MPI_Comm_spawn: its mpirun, and the parents' port. */
struct spawned {
    pid_t pid;            /* -1 once reaped */
    char port[CU_PMI_VALLEN_MAX];
};

struct rank {
    int rank, node, local;
    int app;              /* index in o->apps: its program, its appnum */
    int host;             /* index in job.hosts */
    int remote;           /* started through the launcher, PMI over TCP */
    int connected;        /* remote: its PMI connection passed the handshake */
    int ordinal;          /* index among the ranks on this machine (binding) */
    pid_t pid;            /* the rank, or for a remote rank its launcher */
    int pmi_fd;           /* mpirun's end of the PMI connection, -1 when closed */
    cu_pmi_linebuf lb;
    struct outstream out, err;
    int pmi_inited, finalized, in_barrier;
    int aborted, abort_code;
    char *mcmd;           /* a multi-line PMI request (mcmd=spawn) being received */
    size_t mcmd_len;
    struct spawn_cmd *spw;   /* the commands of a spawn request received so far */
    int nspw, nspw_seen;     /* commands kept, blocks received */
    char spw_port[CU_PMI_VALLEN_MAX];
    char spw_why[256];       /* the request failed: the answer's reason */
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
    struct host *hosts;
    int nhosts;
    int nremote;          /* ranks started through the launcher */
    int nconnected;       /* remote ranks that passed the PMI handshake */
    /* PMI over TCP for remote ranks */
    int listen_fd;        /* -1 without remote ranks */
    char pmi_addr[300];   /* PMI_PORT value given to remote ranks: addr:port */
    char secret[33];      /* CLUMPI_PMI_SECRET: random hex, per job */
    double connect_timeout;   /* CLUMPI_CONNECT_TIMEOUT, seconds */
    double connect_deadline;  /* remote ranks must connect by then, 0 = not armed */
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
    /* jobs started for MPI_Comm_spawn (spawnjob.c) */
    struct spawned *spawned;
    int nspawned, nspawn_alive;
    /* a job spawned itself: its parents wait at this port (the -genv
     * CLUMPI_PARENT_PORT spawnjob.c gives it), or NULL */
    const char *parent_port;
};



/* mpirun_opts.c */
int  mpirun_parse_opts(struct mpirun_opts *o, int argc, char **argv, const char *self);
void mpirun_usage(const char *self);
/* --hosts and --hostfile into j->hosts (duplicates merged); exits 2 on bad input. */
void mpirun_read_hosts(struct job *j);
/* Adds host name[0..len) with slots (0: not given) to j->hosts; a name seen
 * before adds slots to it. where names the source in messages. */
void mpirun_add_host(struct job *j, const char *name, size_t len, int slots, const char *where);

/* Inside a Slurm allocation (slurm_alloc.c), when no --hosts, --hostfile or
 * --nodes was given: o->slurm, the default -n and the srun launcher. */
void mpirun_slurm_opts(struct mpirun_opts *o, const char *self);
/* --launcher-exec of --launcher srun (or slurm): one srun step per rank. */
extern const char mpirun_srun_launcher[];
/* The allocation's nodes and their task counts into j->hosts. */
void mpirun_slurm_hosts(struct job *j);
void mpirun_free_opts(struct mpirun_opts *o);

/* spawnjob.c */
/* Starts the job of the n commands c (MPMD, in order) of a spawn request
 * whose parents listen at port. 0, or -1 with why (a PMI message token: no
 * spaces) filled. */
int  spawnjob_start(struct job *j, const struct spawn_cmd *c, int n, const char *port, char *why,
                    size_t whylen);
/* A reaped pid: 1 when it was a spawned job's mpirun (a non-zero status
 * ends this job), else 0. */
int  spawnjob_reaped(struct job *j, pid_t pid, int wstatus);
/* SIGTERM to every spawned job still running (they end themselves). */
void spawnjob_signal_all(struct job *j);

/* launch.c */
/* Resolves name as execvp would (PATH as it is now): 0 with *out malloc'd,
 * or an errno (ENOENT, EACCES, ...). */
int  launch_find_exec(const char *name, char **out);
int  launch_find_program(struct job *j);
void launch_assign_nodes(struct job *j);
void launch_print_layout(struct job *j);
int  launch_all(struct job *j);
/* "pid 123" or "host b, pid 123" for messages about rank r. */
const char *launch_where(struct job *j, struct rank *r, char *buf, size_t len);

/* bind.c */
void bind_plan(struct job *j);
void bind_report(struct job *j);

/* pmi_server.c */
int  pmisrv_init(struct job *j);
void pmisrv_read(struct job *j, struct rank *r);
void pmisrv_rank_gone(struct job *j, struct rank *r);
void pmisrv_free(void);
/* Forgets a rank's partial spawn request. */
void pmisrv_spawn_reset(struct rank *r);
/* The TCP service for remote ranks: listen socket, secret, address. */
int  pmisrv_listen(struct job *j);
void pmisrv_accept(struct job *j);
/* Connections still in the handshake (secret, then rank id), at most: */
#define PMISRV_MAXPENDING 256
int  pmisrv_pending_fds(struct job *j, int *fds, int max);
void pmisrv_pending_read(struct job *j, int fd);
void pmisrv_tick(struct job *j, double now);
double pmisrv_next_deadline(struct job *j);
void pmisrv_close_all(struct job *j);

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
void job_tick(struct job *j, double now);

#endif
