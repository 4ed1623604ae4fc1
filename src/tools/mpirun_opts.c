/*
 * mpirun_opts.c — the command line: MPICH (Hydra) spellings with the Open MPI
 * ones users type most (-np, -x, --bind-to, --report-bindings). Options end
 * at the first word that is not an option: the program.
 * Usage errors print one line and exit 2.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tools/mpirun.h"
#include "src/util/param.h"

void mpirun_usage(const char *self)
{
    printf(
"NAME\n"
"    %1$s - run an MPI program with clumpi\n"
"\n"
"SYNOPSIS\n"
"    %1$s [-n N] [-ppn P] [-genv KEY VALUE] [-x KEY[=VALUE]] [-l]\n"
"           [--coll OP=ALGO[,OP=ALGO...]]\n"
"           [--bind-to core|none] [--report-bindings] [--timeout S] [-v]\n"
"           [--nodes M | --emulate-nodes]\n"
"           [--hosts H[:SLOTS],... | --hostfile FILE]\n"
"           [--launcher ssh|rsh|fork|srun | --launcher-exec CMD]\n"
"           program [args...] [: -n N2 program2 [args...] ...]\n"
"\n"
"DESCRIPTION\n"
"    Starts N copies (ranks) of program and serves them the PMI-1 protocol\n"
"    they use to find each other. By default every rank runs on this\n"
"    machine, as one node. Output of every rank goes to mpirun's stdout and\n"
"    stderr, line by line; mpirun's stdin goes to rank 0 (the others read\n"
"    /dev/null). SIGINT, SIGTERM and SIGHUP are passed to the ranks and end\n"
"    the job.\n"
"\n"
"    Several programs make one job (MPMD): 'prog1 args : -n N2 prog2 args'\n"
"    starts -n N ranks of prog1 and then N2 of prog2, consecutive ranks of\n"
"    one MPI_COMM_WORLD; MPI_APPNUM is each program's index. MPI_Comm_spawn\n"
"    runs one more mpirun like this one for the children.\n"
"\n"
"    If a rank is killed by a signal, exits with a non-zero status, exits\n"
"    without calling MPI_Finalize, or calls MPI_Abort, mpirun prints one line\n"
"    naming the rank and the cause and ends the other ranks (SIGTERM, then\n"
"    SIGKILL after a short grace). The job's shared memory has no name: it\n"
"    goes with its last rank.\n"
"\n"
"SLURM\n"
"    Inside a Slurm allocation (salloc, sbatch: SLURM_JOB_ID and\n"
"    SLURM_JOB_NODELIST set) and without --hosts, --hostfile or --nodes, the\n"
"    allocation's nodes are the hosts, each with its SLURM_TASKS_PER_NODE as\n"
"    slots; without -n the job has SLURM_NTASKS ranks. Ranks on the other\n"
"    nodes start through srun (one single-task step each, --overlap), as\n"
"    Hydra's slurm bootstrap does. -n and -ppn apply to the allocation's\n"
"    nodes; --hosts, --hostfile, --launcher and --launcher-exec override.\n"
"    Under srun itself (srun --mpi=pmix or --mpi=pmi2 ./prog) no mpirun is\n"
"    needed.\n"
"\n"
"NODES\n"
"    Ranks on one node talk through shared memory, ranks on different nodes\n"
"    through the network. The library learns the nodes from the\n"
"    PMI_process_mapping that mpirun publishes.\n"
"\n"
"    Emulated nodes (--nodes M, or -ppn P --emulate-nodes for N/P nodes) run\n"
"    every rank here but split them into M nodes of consecutive ranks, as\n"
"    even as N allows (-n 7 --nodes 3: ranks 0-2, 3-4, 5-6); with -ppn too,\n"
"    blocks of P ranks go to the nodes in turn. Ranks are still bound to\n"
"    cores over the whole machine.\n"
"\n"
"    Real hosts (--hosts, --hostfile): one node per host. With -ppn P, P\n"
"    consecutive ranks go to each host in turn; else hosts with SLOTS fill up\n"
"    to them in order (then round again); hosts without any slots share the\n"
"    ranks evenly. A host listed twice adds slots. Ranks on this machine\n"
"    (localhost or its host name, with ssh or rsh) are started directly;\n"
"    the others through the launcher, as\n"
"        <launcher> <host> env VAR=VALUE... sh -c ... <cwd> program args\n"
"    which changes to mpirun's working directory there (it must exist) and\n"
"    passes the environment explicitly: every CLUMPI_* variable of mpirun,\n"
"    -genv/-x, and the job's own (below); use -x to pass more (PATH,\n"
"    LD_LIBRARY_PATH). The program must be at the same path on every host.\n"
"    Remote ranks reach mpirun's PMI service over TCP (a port the kernel\n"
"    picks, on every address) and present the job's random secret, which\n"
"    travels through the launcher's stdin, never on a command line; a\n"
"    connection without it is refused and logged with its address.\n"
"    Their output comes back through the launcher's pipes. When the job\n"
"    ends, the launcher processes are killed; a remote rank whose launcher\n"
"    does not take it along (ssh) ends itself once mpirun's PMI connection\n"
"    closes. Ranks on other hosts are not bound to cores.\n"
"\n"
"OPTIONS\n"
"    -n N, -np N          number of ranks (default 1; in a Slurm allocation,\n"
"                         its task count)\n"
"    -ppn P               ranks per node (with one node, all ranks run here)\n"
"    --nodes M            emulate M nodes on this machine (M <= N)\n"
"    --emulate-nodes      emulate N/P nodes (rounded up) of -ppn P ranks\n"
"    --hosts LIST         comma-separated host[:slots] (also -hosts, -H);\n"
"                         may be repeated\n"
"    --hostfile FILE      hosts one per line: \"host\", \"host:N\" or\n"
"                         \"host slots=N\"; # starts a comment (also -f)\n"
"    --launcher NAME      how to reach other hosts: ssh (default: ssh -x -o\n"
"                         BatchMode=yes -o ConnectTimeout=...), rsh, fork\n"
"                         (every host is this machine: named emulated nodes)\n"
"                         or srun (also slurm: one Slurm step per rank; the\n"
"                         default inside an allocation)\n"
"    --launcher-exec CMD  any rsh-like command, split at spaces; mpirun runs\n"
"                         CMD host words... Words pass as they are (ip netns\n"
"                         exec, docker exec), quoted for a shell when CMD's\n"
"                         program is named *ssh or *rsh. CMD must pass stdin\n"
"    -genv KEY VALUE      set KEY=VALUE in every rank's environment\n"
"    -x KEY[=VALUE]       the same; without VALUE, pass mpirun's own KEY\n"
"    --coll OP=ALGO,...   force collective algorithms: sets CLUMPI_COLL_<OP>=ALGO\n"
"                         (OP upper-cased) for every rank, e.g. --coll\n"
"                         bcast=binary,allreduce=ring; may be repeated. An\n"
"                         unknown ALGO fails the collective with a message\n"
"                         listing the valid names\n"
"    -l, --label          prefix every output line with \"[rank] \"\n"
"    --bind-to core|none  bind each rank to a core, or not at all. Default:\n"
"                         bind to cores when this machine's ranks fit, else\n"
"                         no binding\n"
"    --report-bindings    print each rank's binding and the NIC near it\n"
"                         (hwloc's network devices), one line per rank. In\n"
"                         multi-node jobs, when a NIC is local to part of the\n"
"                         machine only, cores near it are used first\n"
"    --timeout S          end the job after S seconds (also MPIEXEC_TIMEOUT)\n"
"    -v, --verbose        say what mpirun does: job id, node layout (which\n"
"                         ranks on which node and host), launches; -v -v also\n"
"                         the launcher command lines\n"
"    -h, --help           this text\n"
"    --version            the clumpi version\n"
"    --                   end of options\n"
"\n"
"    Long options also take --opt=value; a single dash works for the long\n"
"    ones too (-bind-to core). Hydra's -f, -bootstrap and -bootstrap-exec\n"
"    and Open MPI's -H, --host and --machinefile are accepted.\n"
"\n"
"ENVIRONMENT\n"
"    Ranks here inherit mpirun's environment plus PMI_FD, PMI_RANK,\n"
"    PMI_SIZE, CLUMPI_JOB_ID (unique per job), CLUMPI_LOCAL_RANK,\n"
"    CLUMPI_LOCAL_SIZE, MPI_LOCALRANKID and MPI_LOCALNRANKS (rank and size\n"
"    within the node). Remote ranks get PMI_PORT=addr:port and PMI_ID\n"
"    instead of PMI_FD, and CLUMPI_PMI_SECRET.\n"
"    MPIEXEC_TIMEOUT: default for --timeout.\n"
"    CLUMPI_VERBOSE=1: as -v (the library talks too).\n"
"    CLUMPI_PMI_HOST: the address remote ranks connect to, and the only one\n"
"    mpirun listens on (default: the source address of the route to the\n"
"    first remote host, loopback when every host is this one, else the\n"
"    first non-loopback address here). The port closes once every remote\n"
"    rank connected.\n"
"    CLUMPI_CONNECT_TIMEOUT: seconds (default 30) within which remote ranks\n"
"    must connect once the first rank has started MPI_Init; also ssh's\n"
"    ConnectTimeout and the ranks' own connect timeout.\n"
"\n"
"EXIT STATUS\n"
"    0 if every rank exited with 0; else the first failing rank's exit\n"
"    status (128+signal for a rank killed by a signal), or MPI_Abort's code;\n"
"    for a remote rank, its launcher's status (ssh: 255 when it could not\n"
"    connect). 124 when --timeout ends the job, 128+signal when a signal\n"
"    ends it, 2 for a usage error (also a bad host list or hostfile), 127\n"
"    when the program or the launcher is missing or not executable.\n"
"\n"
"EXAMPLES\n"
"    %1$s -n 4 ./ring\n"
"    %1$s -n 8 -l --timeout 60 ./pi 1000000 < input.txt\n"
"    %1$s -n 2 -genv CLUMPI_VERBOSE 1 --report-bindings ./hello\n"
"    %1$s -n 8 --coll bcast=binary,allreduce=ring ./app\n"
"    %1$s -n 8 --nodes 4 -v ./ring          # 4 emulated nodes of 2 ranks\n"
"    %1$s -n 16 --hosts node1:8,node2:8 -x LD_LIBRARY_PATH ./ring\n"
"    %1$s -n 4 --hosts ns1,ns2 --launcher-exec \"ip netns exec\" ./ring\n"
"\n"
"    Programs built with clumpi also run under MPICH's Hydra mpiexec and\n"
"    under srun: clumpi speaks the PMI-1 wire protocol (srun --mpi=pmi2) and,\n"
"    when built with OpenPMIx, PMIx (srun --mpi=pmix).\n", self);
}

static void usage_error(const char *self, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", self);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, " (see %s --help)\n", self);
    exit(2);
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static double parse_seconds(const char *self, const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 1e9)
        usage_error(self, "%s: expected a positive number of seconds, got '%s'", opt, s);
    return v;
}

static void add_env(struct mpirun_opts *o, const char *key, const char *val)
{
    struct mpirun_env *e = realloc(o->env, (size_t)(o->nenv + 1) * sizeof *e);
    if (!e) {
        perror("mpirun");
        exit(1);
    }
    o->env = e;
    e[o->nenv].key = strdup(key);
    e[o->nenv].val = val ? strdup(val) : NULL;
    o->nenv++;
}

static int valid_env_name(const char *k, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (k[i] == '=' || k[i] == '\0')
            return 0;
    return 1;
}

/* --coll bcast=binary,allreduce=ring: one CLUMPI_COLL_<OP>=<algo> per item.
 * Only the syntax is checked here; the library knows the names and reports
 * an unknown one (mpirun does not link the selection table). */
static void add_coll(struct mpirun_opts *o, const char *self, const char *spec)
{
    const char *p = spec;
    do {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        size_t kl = eq ? (size_t)(eq - p) : 0;
        int ok = eq && kl > 0 && kl < 48 && len - kl - 1 > 0;
        for (size_t j = 0; ok && j < kl; j++)
            ok = isalnum((unsigned char)p[j]) || p[j] == '_';
        if (!ok)
            usage_error(self, "--coll: expected OP=ALGO[,OP=ALGO...], got '%s'%s", spec, "");
        char key[64] = "CLUMPI_COLL_";
        size_t kp = strlen(key);
        for (size_t j = 0; j < kl; j++)
            key[kp++] = (char)toupper((unsigned char)p[j]);
        key[kp] = '\0';
        char *val = strndup(eq + 1, len - kl - 1);
        if (!val) {
            perror(self);
            exit(1);
        }
        add_env(o, key, val);
        free(val);
        p += len;
    } while (*p++ == ',');
}

/* MPMD: "prog args : -n N prog2 args ...". Each ':' ends an app (it is
 * replaced by the NULL that ends the app's argv); the apps after the first
 * take -n N (or -np) and nothing else. o->np becomes the total, the first
 * app keeping the -n given before it. */
static void split_apps(struct mpirun_opts *o, int argc, char **argv, const char *self)
{
    int napps = 1;
    for (int k = 0; k < argc; k++)
        napps += strcmp(argv[k], ":") == 0;
    o->apps = calloc((size_t)napps, sizeof *o->apps);
    if (!o->apps) {
        fprintf(stderr, "%s: out of memory\n", self);
        exit(1);
    }
    o->apps[0].np = o->np;
    o->apps[0].argv = argv;
    o->napps = 1;
    long total = o->np;
    for (int k = 0; k < argc; k++) {
        if (strcmp(argv[k], ":") != 0)
            continue;
        argv[k] = NULL;
        long v = 0;
        if (k + 3 >= argc || (strcmp(argv[k + 1], "-n") && strcmp(argv[k + 1], "-np")) ||
            parse_int(argv[k + 2], 1, 1 << 20, &v) < 0 || !strcmp(argv[k + 3], ":"))
            usage_error(self, "after ':' comes -n N and a program%s%s", "", "");
        struct mpirun_app *ap = &o->apps[o->napps++];
        ap->np = (int)v;
        ap->argv = argv + k + 3;
        total += v;
        k += 2;
    }
    if (total > (1 << 20))
        usage_error(self, "too many ranks in all%s%s", "", "");
    o->np = (int)total;
}

int mpirun_parse_opts(struct mpirun_opts *o, int argc, char **argv, const char *self)
{
    memset(o, 0, sizeof *o);
    o->np = 1;
    o->bind = BIND_AUTO;
    const char *t = getenv("MPIEXEC_TIMEOUT");
    if (t && *t)
        o->timeout = parse_seconds(self, "MPIEXEC_TIMEOUT", t);

    int i = 1;
    for (; i < argc; i++) {
        char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        /* Accept -opt and --opt alike; --opt=value carries its value. */
        const char *name = a + 1 + (a[1] == '-');
        char namebuf[64];
        const char *inl = NULL;
        const char *eq = strchr(name, '=');
        if (eq && a[1] == '-') {
            size_t nl = (size_t)(eq - name);
            if (nl >= sizeof namebuf)
                usage_error(self, "unknown option '%s'%s", a, "");
            memcpy(namebuf, name, nl);
            namebuf[nl] = '\0';
            name = namebuf;
            inl = eq + 1;
        }
#define IS(s) (strcmp(name, s) == 0)
#define ARG() (inl ? inl : (i + 1 < argc ? argv[++i] : \
        (usage_error(self, "option '%s' needs an argument%s", a, ""), (char *)NULL)))
        long v;
        if (IS("n") || IS("np") || IS("c")) {
            const char *s = ARG();
            if (parse_int(s, 1, 1 << 20, &v) < 0)
                usage_error(self, "%s: expected a positive number of ranks, got '%s'", a, s);
            o->np = (int)v;
            o->np_given = 1;
        } else if (IS("ppn") || IS("npernode")) {
            const char *s = ARG();
            if (parse_int(s, 1, 1 << 20, &v) < 0)
                usage_error(self, "%s: expected a positive number of ranks per node, got '%s'", a, s);
            o->ppn = (int)v;
        } else if (IS("genv")) {
            if (inl)
                usage_error(self, "%s takes two arguments: -genv KEY VALUE%s", "-genv", "");
            if (i + 2 >= argc)
                usage_error(self, "option '%s' needs two arguments (KEY VALUE)%s", a, "");
            const char *k = argv[++i], *val = argv[++i];
            if (!valid_env_name(k, strlen(k)))
                usage_error(self, "-genv: bad variable name '%s'%s", k, "");
            add_env(o, k, val);
        } else if (IS("x")) {
            const char *s = ARG();
            const char *e = strchr(s, '=');
            size_t kl = e ? (size_t)(e - s) : strlen(s);
            if (!valid_env_name(s, kl))
                usage_error(self, "-x: bad variable name in '%s'%s", s, "");
            char *k = strndup(s, kl);
            add_env(o, k, e ? e + 1 : NULL);
            free(k);
        } else if (IS("coll")) {
            add_coll(o, self, ARG());
        } else if (IS("l") || IS("label") || IS("prepend-rank")) {
            o->label = 1;
        } else if (IS("bind-to") || IS("binding")) {
            const char *s = ARG();
            if (strcmp(s, "core") == 0 || strcmp(s, "cores") == 0)
                o->bind = BIND_CORE;
            else if (strcmp(s, "none") == 0)
                o->bind = BIND_NONE;
            else
                usage_error(self, "--bind-to: expected core or none, got '%s'%s", s, "");
        } else if (IS("nodes")) {
            const char *s = ARG();
            if (parse_int(s, 1, 1 << 20, &v) < 0)
                usage_error(self, "%s: expected a positive number of nodes, got '%s'", a, s);
            o->nodes = (int)v;
        } else if (IS("emulate-nodes")) {
            o->emulate = 1;
        } else if (IS("hosts") || IS("host") || IS("H")) {
            const char *s = ARG();
            char **h = realloc(o->hostspecs, (size_t)(o->nhostspecs + 1) * sizeof *h);
            if (!h) {
                perror(self);
                exit(1);
            }
            o->hostspecs = h;
            h[o->nhostspecs++] = (char *)s;
        } else if (IS("hostfile") || IS("f") || IS("machinefile")) {
            o->hostfile = ARG();
        } else if (IS("launcher") || IS("bootstrap")) {
            const char *s = ARG();
            if (strcmp(s, "ssh") == 0)
                o->launcher = LAUNCH_SSH;
            else if (strcmp(s, "rsh") == 0)
                o->launcher = LAUNCH_RSH;
            else if (strcmp(s, "fork") == 0)
                o->launcher = LAUNCH_FORK;
            else if (strcmp(s, "srun") == 0 || strcmp(s, "slurm") == 0)
                o->launcher_exec = mpirun_srun_launcher;
            else
                usage_error(self, "--launcher: expected ssh, rsh, fork or srun, got '%s'%s", s, "");
            o->launcher_given = 1;
        } else if (IS("launcher-exec") || IS("bootstrap-exec")) {
            const char *s = ARG();
            if (strspn(s, " \t") == strlen(s))
                usage_error(self, "%s: empty command%s", a, "");
            o->launcher_exec = s;
            o->launcher_given = 1;
        } else if (IS("report-bindings")) {
            o->report_bindings = 1;
        } else if (IS("timeout")) {
            o->timeout = parse_seconds(self, a, ARG());
        } else if (IS("v") || IS("verbose")) {
            o->verbose++;
        } else if (IS("h") || IS("help")) {
            mpirun_usage(self);
            exit(0);
        } else if (IS("version") || IS("V")) {
            printf("%s (clumpi) %s\n", self, PACKAGE_VERSION);
            exit(0);
        } else {
            usage_error(self, "unknown option '%s'%s", a, "");
        }
        if (inl && (IS("l") || IS("label") || IS("prepend-rank") || IS("report-bindings") ||
                    IS("v") || IS("verbose") || IS("emulate-nodes")))
            usage_error(self, "option '%s' takes no value%s", a, "");
#undef IS
#undef ARG
    }
    if (i >= argc)
        usage_error(self, "no program given%s%s", "", "");
    o->argv = argv + i;
    if (!o->nhostspecs && !o->hostfile && !o->nodes && !o->emulate)
        mpirun_slurm_opts(o, self);
    split_apps(o, argc - i, argv + i, self);

    /* Option combinations, checked once all are known. */
    int have_hosts = o->nhostspecs > 0 || o->hostfile;
    if (have_hosts && (o->nodes || o->emulate))
        usage_error(self, "--nodes/--emulate-nodes split this machine into nodes; "
                          "they do not combine with --hosts or --hostfile%s%s", "", "");
    if (o->emulate && !o->nodes && !o->ppn)
        usage_error(self, "--emulate-nodes needs -ppn (ranks per emulated node)%s%s", "", "");
    if (o->emulate && !o->nodes)
        o->nodes = (o->np + o->ppn - 1) / o->ppn;
    if (o->nodes > o->np) {
        char b1[24], b2[24];
        snprintf(b1, sizeof b1, "%d", o->nodes);
        snprintf(b2, sizeof b2, "%d", o->np);
        usage_error(self, "--nodes %s with %s ranks: every node needs at least one rank", b1, b2);
    }
    if (o->nodes && o->ppn && (long)o->nodes * o->ppn < o->np && o->verbose)
        fprintf(stderr, "%s: %d ranks on %d nodes of %d: placing round-robin\n", self, o->np,
                o->nodes, o->ppn);
    /* CLUMPI_VERBOSE asks the library to talk; mpirun joins in with the layout. */
    if (cu_param_int("VERBOSE") != 0 && !o->verbose)
        o->verbose = 1;
    return 0;
}

void mpirun_free_opts(struct mpirun_opts *o)
{
    for (int a = 0; a < o->napps; a++)
        free(o->apps[a].prog);   /* o->prog is the first app's */
    free(o->apps);
    for (int i = 0; i < o->nenv; i++) {
        free(o->env[i].key);
        free(o->env[i].val);
    }
    free(o->env);
    free(o->hostspecs);
}

/* ---- Hosts ------------------------------------------------------------- */

static void hosts_fail(const char *self, const char *where, const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", self, where, what);
    exit(2);
}

/* Adds host (with slots, 0 = not given) to the job; a name seen before
 * adds its slots to the first entry, as a hostfile listing a host twice
 * means more slots there, not another node. */
void mpirun_add_host(struct job *j, const char *name, size_t len, int slots, const char *where)
{
    if (len == 0 || len > 255)
        hosts_fail(j->self, where, len ? "host name too long" : "empty host name");
    for (size_t k = 0; k < len; k++)
        if (!isgraph((unsigned char)name[k]) || name[k] == '\'' || name[k] == '"')
            hosts_fail(j->self, where, "host names are printable words without quotes");
    for (int i = 0; i < j->nhosts; i++)
        if (strlen(j->hosts[i].name) == len && strncmp(j->hosts[i].name, name, len) == 0) {
            struct host *h = &j->hosts[i];
            h->slots = (h->slots ? h->slots : 1) + (slots ? slots : 1);
            return;
        }
    struct host *h = realloc(j->hosts, (size_t)(j->nhosts + 1) * sizeof *h);
    if (!h || !(name = strndup(name, len))) {
        perror(j->self);
        exit(1);
    }
    j->hosts = h;
    h[j->nhosts++] = (struct host){ .name = (char *)name, .slots = slots };
}

static int parse_slots(const char *s, size_t len)
{
    char buf[16];
    long v;
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return parse_int(buf, 1, 1 << 20, &v) < 0 ? -1 : (int)v;
}

/* One "host", "host:N" or "host slots=N" entry (the hostfile allows the
 * last form; Open MPI's max_slots= is accepted and ignored). */
static void parse_host_entry(struct job *j, const char *s, const char *where)
{
    const char *end = s + strcspn(s, " \t");
    const char *colon = memchr(s, ':', (size_t)(end - s));
    int slots = 0;
    size_t nlen = (size_t)((colon ? colon : end) - s);
    if (colon && (slots = parse_slots(colon + 1, (size_t)(end - colon - 1))) < 0)
        hosts_fail(j->self, where, "expected host:N with N a positive number of slots");
    for (const char *p = end;;) {
        p += strspn(p, " \t");
        if (!*p)
            break;
        size_t wl = strcspn(p, " \t");
        if (wl > 6 && strncmp(p, "slots=", 6) == 0 && !colon) {
            if ((slots = parse_slots(p + 6, wl - 6)) < 0)
                hosts_fail(j->self, where, "expected slots=N with N a positive number");
        } else if (!(wl > 10 && strncmp(p, "max_slots=", 10) == 0)) {
            hosts_fail(j->self, where, "expected \"host\", \"host:N\" or \"host slots=N\"");
        }
        p += wl;
    }
    mpirun_add_host(j, s, nlen, slots, where);
}

void mpirun_read_hosts(struct job *j)
{
    struct mpirun_opts *o = j->o;
    if (o->slurm)
        mpirun_slurm_hosts(j);
    char where[600];
    for (int i = 0; i < o->nhostspecs; i++) {
        snprintf(where, sizeof where, "--hosts '%.500s'", o->hostspecs[i]);
        const char *p = o->hostspecs[i];
        if (!*p)
            hosts_fail(j->self, where, "empty host list");
        for (;;) {
            size_t l = strcspn(p, ",");
            char entry[300];
            if (l == 0 || l >= sizeof entry || memchr(p, ' ', l))
                hosts_fail(j->self, where, "expected a comma-separated list of host[:slots]");
            memcpy(entry, p, l);
            entry[l] = '\0';
            parse_host_entry(j, entry, where);
            if (!p[l])
                break;
            p += l + 1;
        }
    }
    if (o->hostfile) {
        FILE *f = fopen(o->hostfile, "r");
        if (!f) {
            snprintf(where, sizeof where, "--hostfile %.500s", o->hostfile);
            hosts_fail(j->self, where, strerror(errno));
        }
        char line[1024];
        int lineno = 0, before = j->nhosts;
        while (fgets(line, sizeof line, f)) {
            lineno++;
            snprintf(where, sizeof where, "%.500s:%d", o->hostfile, lineno);
            char *hash = strchr(line, '#');
            if (hash)
                *hash = '\0';
            size_t l = strlen(line);
            while (l && isspace((unsigned char)line[l - 1]))
                line[--l] = '\0';
            char *p = line + strspn(line, " \t");
            if (*p)
                parse_host_entry(j, p, where);
        }
        fclose(f);
        if (j->nhosts == before) {
            snprintf(where, sizeof where, "--hostfile %.500s", o->hostfile);
            hosts_fail(j->self, where, "no hosts in the file");
        }
    }
}
