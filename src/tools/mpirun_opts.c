/*
 * mpirun_opts.c — the command line: MPICH (Hydra) spellings with the Open MPI
 * ones users type most (-np, -x, --bind-to, --report-bindings). Options end
 * at the first word that is not an option: the program.
 * Usage errors print one line and exit 2.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tools/mpirun.h"

void mpirun_usage(const char *self)
{
    printf(
"NAME\n"
"    %1$s - run an MPI program with clumpi\n"
"\n"
"SYNOPSIS\n"
"    %1$s [-n N] [-ppn P] [-genv KEY VALUE] [-x KEY[=VALUE]] [-l]\n"
"           [--bind-to core|none] [--report-bindings] [--timeout S] [-v]\n"
"           program [args...]\n"
"\n"
"DESCRIPTION\n"
"    Starts N copies (ranks) of program on this machine and serves them the\n"
"    PMI-1 protocol they use to find each other. Output of every rank goes\n"
"    to mpirun's stdout and stderr, line by line; mpirun's stdin goes to\n"
"    rank 0 (the others read /dev/null). SIGINT, SIGTERM and SIGHUP are\n"
"    passed to the ranks and end the job.\n"
"\n"
"    If a rank is killed by a signal, exits with a non-zero status, exits\n"
"    without calling MPI_Finalize, or calls MPI_Abort, mpirun prints one line\n"
"    naming the rank and the cause, ends the other ranks (SIGTERM, then\n"
"    SIGKILL after a short grace) and removes the job's shared-memory\n"
"    segments (/dev/shm/clumpi-<job id>-*).\n"
"\n"
"OPTIONS\n"
"    -n N, -np N          number of ranks (default 1)\n"
"    -ppn P               ranks per node (with one node, all ranks run here;\n"
"                         P is kept for multi-node launches)\n"
"    -genv KEY VALUE      set KEY=VALUE in every rank's environment\n"
"    -x KEY[=VALUE]       the same; without VALUE, pass mpirun's own KEY\n"
"    -l, --label          prefix every output line with \"[rank] \"\n"
"    --bind-to core|none  bind each rank to a core, or not at all. Default:\n"
"                         bind to cores when the ranks fit, else no binding\n"
"    --report-bindings    print each rank's binding, one line per rank\n"
"    --timeout S          end the job after S seconds (also MPIEXEC_TIMEOUT)\n"
"    -v, --verbose        say what mpirun does (job id, nodes, launches)\n"
"    -h, --help           this text\n"
"    --version            the clumpi version\n"
"    --                   end of options\n"
"\n"
"    Long options also take --opt=value; a single dash works for the long\n"
"    ones too (-bind-to core).\n"
"\n"
"ENVIRONMENT\n"
"    Every rank inherits mpirun's environment plus PMI_FD, PMI_RANK,\n"
"    PMI_SIZE, CLUMPI_JOB_ID (unique per job), CLUMPI_LOCAL_RANK,\n"
"    CLUMPI_LOCAL_SIZE, MPI_LOCALRANKID and MPI_LOCALNRANKS.\n"
"    MPIEXEC_TIMEOUT: default for --timeout.\n"
"\n"
"EXIT STATUS\n"
"    0 if every rank exited with 0; else the first failing rank's exit\n"
"    status (128+signal for a rank killed by a signal), or MPI_Abort's code.\n"
"    124 when --timeout ends the job, 128+signal when a signal ends it,\n"
"    2 for a usage error, 127 when the program is missing or not executable.\n"
"\n"
"EXAMPLES\n"
"    %1$s -n 4 ./ring\n"
"    %1$s -n 8 -l --timeout 60 ./pi 1000000 < input.txt\n"
"    %1$s -n 2 -genv CLUMPI_VERBOSE 1 --report-bindings ./hello\n"
"\n"
"    Programs built with clumpi also run under MPICH's Hydra mpiexec or\n"
"    Slurm: clumpi speaks the PMI-1 wire protocol.\n", self);
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
                    IS("v") || IS("verbose")))
            usage_error(self, "option '%s' takes no value%s", a, "");
#undef IS
#undef ARG
    }
    if (i >= argc)
        usage_error(self, "no program given%s%s", "", "");
    o->argv = argv + i;
    return 0;
}
