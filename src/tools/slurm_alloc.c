/*
 * slurm_alloc.c — mpirun inside a Slurm allocation (salloc, sbatch, or a
 * step of one): as Hydra's slurm bootstrap does, the allocation's nodes
 * become the hosts, with its tasks per node as their slots; without -n the
 * job has the allocation's task count; ranks on other nodes start through
 * srun, one single-task step each, which Slurm accounts to the allocation
 * and ends with it. --hosts, --hostfile and --nodes leave the allocation
 * aside; -n and -ppn apply to its nodes; --launcher/--launcher-exec pick
 * another way to reach them.
 */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tools/mpirun.h"

/* The words mpirun puts before "<host> env ... program": one task on that
 * node, sharing the CPUs of the allocation's other steps (--overlap), with
 * no PMI of Slurm's (the rank speaks to mpirun), and quiet. */
const char mpirun_srun_launcher[] =
    "srun --nodes=1 --ntasks=1 --overlap --mpi=none --quiet --nodelist";

static const char *nodelist_env(void)
{
    const char *l = getenv("SLURM_JOB_NODELIST");
    return l && *l ? l : getenv("SLURM_NODELIST");
}

/* "2(x3),1" (SLURM_TASKS_PER_NODE): the count of node k, or -1. */
static int tasks_of_node(const char *spec, int k)
{
    const char *p = spec;
    while (*p) {
        char *end;
        long n = strtol(p, &end, 10), rep = 1;
        if (end == p || n < 0 || n > (1 << 20))
            return -1;
        p = end;
        if (*p == '(') {
            if (p[1] != 'x')
                return -1;
            rep = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || rep < 1)
                return -1;
            p = end + 1;
        }
        if (k < rep)
            return (int)n;
        k -= (int)rep;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return -1;
}

static long total_tasks(const char *spec)
{
    long sum = 0;
    for (int k = 0;; k++) {
        int n = tasks_of_node(spec, k);
        if (n < 0)
            return sum;
        sum += n;
    }
}

void mpirun_slurm_opts(struct mpirun_opts *o, const char *self)
{
    const char *job = getenv("SLURM_JOB_ID"), *list = nodelist_env();
    if (!job || !*job || !list || !*list)
        return;
    o->slurm = 1;
    if (!o->np_given) {
        const char *nt = getenv("SLURM_NTASKS"), *tpn = getenv("SLURM_TASKS_PER_NODE");
        char *end = NULL;
        long n = nt && *nt ? strtol(nt, &end, 10) : 0;
        if (!end || *end || n < 1)
            n = tpn ? total_tasks(tpn) : 0;
        if (n < 1 || n > (1 << 20)) {
            fprintf(stderr, "%s: inside Slurm job %s but neither SLURM_NTASKS nor "
                    "SLURM_TASKS_PER_NODE gives a task count; give -n\n", self, job);
            exit(2);
        }
        o->np = (int)n;
    }
    if (!o->launcher_given)
        o->launcher_exec = mpirun_srun_launcher;
    if (o->verbose)
        fprintf(stderr, "%s: Slurm job %s: nodes %s, %d rank%s%s\n", self, job, list, o->np,
                o->np == 1 ? "" : "s", o->launcher_given ? "" : ", other nodes through srun");
}

/* The allocation's host names, one per line, from "node[1-3],gpu7"
 * (scontrol knows every form the list can take). */
static FILE *expand_nodelist(const char *self, const char *list)
{
    for (const char *c = list; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("[]-,._", *c)) {
            fprintf(stderr, "%s: unexpected character in SLURM_JOB_NODELIST '%s'\n", self, list);
            exit(2);
        }
    char cmd[4200];
    if (snprintf(cmd, sizeof cmd, "scontrol show hostnames '%s'", list) >= (int)sizeof cmd) {
        fprintf(stderr, "%s: SLURM_JOB_NODELIST too long\n", self);
        exit(2);
    }
    FILE *f = popen(cmd, "r");
    if (!f) {
        perror(self);
        exit(1);
    }
    return f;
}

void mpirun_slurm_hosts(struct job *j)
{
    const char *list = nodelist_env(), *tpn = getenv("SLURM_TASKS_PER_NODE");
    FILE *f = expand_nodelist(j->self, list);
    char line[300], where[64];
    snprintf(where, sizeof where, "SLURM_JOB_NODELIST");
    int k = 0;
    while (fgets(line, sizeof line, f)) {
        size_t l = strcspn(line, "\r\n");
        if (l == 0)
            continue;
        /* A node without a count (or without SLURM_TASKS_PER_NODE) takes
         * the ranks evenly with the others, as --hosts without slots. */
        int slots = tpn ? tasks_of_node(tpn, k) : 0;
        mpirun_add_host(j, line, l, slots > 0 ? slots : 0, where);
        k++;
    }
    int st = pclose(f);
    if (k == 0 || st != 0) {
        fprintf(stderr, "%s: cannot list the nodes of SLURM_JOB_NODELIST=%s "
                "(scontrol show hostnames failed); give --hosts\n", j->self, list);
        exit(2);
    }
}
