/*
 * spawn.c — starting processes (MPI-3.1 10.3): MPI_Comm_spawn and
 * MPI_Comm_get_parent.
 *
 * The root opens a port, asks the process manager to start the children
 * as a job of their own (PMI-1 spawn, the port among its key-value pairs;
 * clumpi's mpirun runs a second mpirun for it, src/tools/spawnjob.c), and
 * the parents accept on that port. The children connect to it over their
 * MPI_COMM_WORLD at the end of MPI_Init, which gives them their parent
 * intercommunicator. The info keys honoured are host, wdir and path (the
 * others, soft and arch among them, are ignored as MPI-3.1 allows).
 * Several commands become one job (one MPI_COMM_WORLD, MPI_APPNUM the
 * command's index); they must agree on wdir and host (mpirun refuses
 * otherwise, MPI_ERR_SPAWN). Spawning is all or nothing: a failure leaves
 * every code its class (MPI_ERR_SPAWN when the children could not be
 * started). Children that end before they connect (an exit before
 * MPI_Init, a crash) end their job; clumpi's mpirun then tells the root,
 * still accepting at the port (port.c), and the spawn fails with
 * MPI_ERR_SPAWN instead of waiting. Another process manager (Hydra) does
 * not report it: there the root waits CLUMPI_SPAWN_TIMEOUT seconds at most.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/core.h"
#include "coll/coll.h"
#include "src/dynamic.h"
#include "src/util/clock.h"
#include "src/util/param.h"
#include "src/util/pmi.h"

static mpir_comm *parent;   /* the parent intercommunicator, until freed */

int mpir_spawn_init(void)
{
    static const char fn[] = "MPI_Init";
    char port[MPI_MAX_PORT_NAME];
    const char *env = getenv("CLUMPI_PARENT_PORT");
    if (env && *env)
        snprintf(port, sizeof port, "%s", env);
    /* clumpi's mpirun (CLUMPI_JOB_ID) says so in the environment; another
     * manager (Hydra) puts the port in our key-value space */
    else if (getenv("CLUMPI_JOB_ID") || cu_pmi_is_singleton() ||
             cu_pmi_get("PARENT_ROOT_PORT_NAME", port, sizeof port) != 0)
        return MPI_SUCCESS;   /* not spawned */
    unsetenv("CLUMPI_PARENT_PORT");   /* for our own children, if any, it is not theirs */
    mpir_comm *ic = NULL;
    int rc = mpir_port_join(fn, mpir_comm_get(MPI_COMM_WORLD), 0, 1, port, MPI_SUCCESS, 0, &ic);
    if (rc == MPI_SUCCESS) {
        parent = ic;
        snprintf(ic->name, sizeof ic->name, "MPI_COMM_PARENT");
    }
    return rc;
}

int mpir_universe_size(void)
{
    int u = cu_pmi_universe_size();
    return u > mpid_world_size() ? u : mpid_world_size();
}

void mpir_spawn_comm_gone(const mpir_comm *c)
{
    if (c == parent)
        parent = NULL;
}

int PMPI_Comm_get_parent(MPI_Comm *p)
{
    static const char fn[] = "MPI_Comm_get_parent";
    MPIR_ENTER(fn);
    if (!p)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "parent is NULL"));
    *p = parent ? parent->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_get_parent)

/* The info keys passed on to the process manager. */
static const char *const spawn_keys[] = { "host", "wdir", "path" };
#define NKEYS (int)(sizeof spawn_keys / sizeof spawn_keys[0])

/* What the root hands the process manager for one command. */
typedef struct spawn_arg {
    char **argv;                                /* command, then its arguments */
    const char *keys[NKEYS], *vals[NKEYS];
    char valbuf[NKEYS][MPI_MAX_INFO_VAL + 1];
} spawn_arg;

/* Checks command k's arguments at the root and fills a. */
static int spawn_arg_fill(const char *fn, int k, const char *command, char **argv, int maxprocs,
                          MPI_Info info, spawn_arg *a, cu_pmi_spawn_cmd *c)
{
    if (!command || !*command)
        return mpir_err(MPI_ERR_ARG, fn, "command %d is NULL or empty at the root", k);
    if (maxprocs <= 0)
        return mpir_err(MPI_ERR_ARG, fn, "maxprocs %d of command %d at the root (must be "
                        "positive)", maxprocs, k);
    if (info != MPI_INFO_NULL && !mpir_handle_get(&mpir_infos, info))
        return mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x) of command %d at the root",
                        (unsigned)info, k);
    int ninfo = 0, argc = 0;
    for (int i = 0; info != MPI_INFO_NULL && i < NKEYS; i++) {
        int flag = 0;
        if (mpir_Info_get(info, spawn_keys[i], MPI_MAX_INFO_VAL, a->valbuf[ninfo], &flag) ==
                MPI_SUCCESS && flag) {
            a->keys[ninfo] = spawn_keys[i];
            a->vals[ninfo] = a->valbuf[ninfo];
            ninfo++;
        }
    }
    while (argv && argv[argc])
        argc++;
    if (!(a->argv = malloc(((size_t)argc + 2) * sizeof *a->argv)))
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    a->argv[0] = (char *)command;
    for (int i = 0; i < argc; i++)
        a->argv[i + 1] = argv[i];
    a->argv[argc + 1] = NULL;
    *c = (cu_pmi_spawn_cmd){ .np = maxprocs, .argv = a->argv, .ninfo = ninfo,
                             .info_keys = a->keys, .info_vals = a->vals };
    return MPI_SUCCESS;
}

/* At the root: checks its arguments and starts the children of the count
 * commands as one job; MPI_SUCCESS or an error code. */
static int root_spawn(const char *fn, int count, char **commands, char ***argvs,
                      const int *maxprocs, const MPI_Info *infos, const char *port)
{
    if (count <= 0)
        return mpir_err(MPI_ERR_ARG, fn, "count %d at the root (must be positive)", count);
    if (!commands || !maxprocs || !infos)
        return mpir_err(MPI_ERR_ARG, fn, "an array argument is NULL at the root");
    /* When the root cannot open an endpoint for other jobs, no child may
     * start only to fail (its failure would end this job). */
    char addr[MPID_DYN_ADDR_MAX];
    size_t alen = sizeof addr;
    if (mpid_dyn_addr(addr, &alen) != MPI_SUCCESS)
        return mpir_err(MPI_ERR_UNSUPPORTED_OPERATION, fn, "no network endpoint for other jobs "
                        "could be opened here");
    spawn_arg *a = calloc((size_t)count, sizeof *a);
    cu_pmi_spawn_cmd *c = calloc((size_t)count, sizeof *c);
    int rc = a && c ? MPI_SUCCESS : mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"), total = 0;
    for (int k = 0; rc == MPI_SUCCESS && k < count; k++) {
        rc = spawn_arg_fill(fn, k, commands[k], argvs ? argvs[k] : NULL, maxprocs[k], infos[k],
                            &a[k], &c[k]);
        total += rc == MPI_SUCCESS ? maxprocs[k] : 0;
    }
    char why[256];
    if (rc == MPI_SUCCESS && cu_pmi_spawn(c, count, port, why, sizeof why) != 0)
        rc = mpir_err(MPI_ERR_SPAWN, fn, "cannot start %d process%s of \"%.64s\"%s: %s", total,
                      total == 1 ? "" : "es", commands[0], count > 1 ? " and more" : "", why);
    for (int k = 0; a && k < count; k++)
        free(a[k].argv);
    free(a);
    free(c);
    return rc;
}

/* Both spawn calls: the root starts the children, everyone accepts them.
 * nown: the number of codes the caller's own arguments give (significant
 * at the root only). */
static int spawn_common(const char *fn, int count, char **commands, char ***argvs,
                        const int *maxprocs, const MPI_Info *infos, int root, MPI_Comm comm,
                        MPI_Comm *intercomm, int *errcodes, int nown)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = mpir_check_intra(fn, c);
    if (rc == MPI_SUCCESS && (root < 0 || root >= c->group->size))
        rc = mpir_err(MPI_ERR_ROOT, fn, "invalid root %d (comm size %d)", root, c->group->size);
    if (rc == MPI_SUCCESS && !intercomm)
        rc = mpir_err(MPI_ERR_ARG, fn, "intercomm is NULL");
    if (rc)
        return mpir_err_comm(comm, rc);
    /* array_of_errcodes holds one code per process the root asked for, and
     * only the root's arguments say how many (MPI-3.1 10.3.2) */
    int ncodes = nown;
    rc = coll_bcast(&ncodes, 1, cu_dtype_builtin(MPI_INT & 0xffffff), root, &c->dev);
    if (rc)
        return mpir_err_comm(comm, rc);
    char port[MPI_MAX_PORT_NAME] = "";
    int err = MPI_SUCCESS, opened = 0;
    if (c->dev.rank == root) {
        err = mpir_port_open(fn, port);
        opened = err == MPI_SUCCESS;
        if (opened)
            err = root_spawn(fn, count, commands, argvs, maxprocs, infos, port);
    }
    /* clumpi's mpirun reports children that end before connecting; under
     * another process manager only a deadline keeps the root from waiting
     * for them forever */
    long long deadline = getenv("CLUMPI_JOB_ID") ? 0 : cu_now_ns() +
                         cu_param_int("SPAWN_TIMEOUT") * 1000000000LL;
    mpir_comm *ic = NULL;
    rc = mpir_port_join(fn, c, root, 0, port, err, deadline, &ic);
    if (opened)
        mpir_port_close(port);
    int n = rc == MPI_SUCCESS ? ic->remote_group->size : ncodes, cls = rc & 0xff;
    for (int i = 0; errcodes != MPI_ERRCODES_IGNORE && i < n; i++)
        errcodes[i] = cls;
    *intercomm = rc == MPI_SUCCESS ? ic->handle : MPI_COMM_NULL;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : mpir_err_comm(comm, rc);
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char fn[] = "MPI_Comm_spawn";
    MPIR_ENTER(fn);
    char *cmd = (char *)command;
    char **argvs[1] = { argv };
    return spawn_common(fn, 1, &cmd, argvs, &maxprocs, &info, root, comm, intercomm,
                        array_of_errcodes, maxprocs > 0 ? maxprocs : 0);
}
MPIR_WEAK(Comm_spawn)

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    static const char fn[] = "MPI_Comm_spawn_multiple";
    MPIR_ENTER(fn);
    /* the codes of a failed call: one per process the root asked for,
     * which only the root knows */
    int nown = 0;
    const mpir_comm *c = mpir_comm_get(comm);
    for (int k = 0; c && c->dev.rank == root && array_of_maxprocs && k < count; k++)
        nown += array_of_maxprocs[k] > 0 ? array_of_maxprocs[k] : 0;
    return spawn_common(fn, count, array_of_commands, array_of_argv, array_of_maxprocs,
                        array_of_info, root, comm, intercomm, array_of_errcodes, nown);
}
MPIR_WEAK(Comm_spawn_multiple)
