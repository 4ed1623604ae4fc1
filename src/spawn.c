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
 * Spawning is all or nothing: a failure leaves every code its class
 * (MPI_ERR_SPAWN when the children could not be started).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/core.h"
#include "src/dynamic.h"
#include "src/util/pmi.h"

static mpir_comm *parent;   /* the parent intercommunicator, until freed */

int mpir_spawn_init(void)
{
    static const char fn[] = "MPI_Init";
    char port[MPI_MAX_PORT_NAME];
    const char *env = getenv("CLUMPI_PARENT_PORT");
    if (env && *env)
        snprintf(port, sizeof port, "%s", env);
    else if (cu_pmi_is_singleton() || cu_pmi_get("PARENT_ROOT_PORT_NAME", port, sizeof port) != 0)
        return MPI_SUCCESS;   /* not spawned */
    mpir_comm *ic = NULL;
    int rc = mpir_port_join(fn, mpir_comm_get(MPI_COMM_WORLD), 0, 1, port, MPI_SUCCESS, &ic);
    if (rc == MPI_SUCCESS) {
        parent = ic;
        snprintf(ic->name, sizeof ic->name, "MPI_COMM_PARENT");
    }
    return rc;
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

/* At the root: checks its arguments and starts the children; MPI_SUCCESS
 * or an error code. */
static int root_spawn(const char *fn, const char *command, char **argv, int maxprocs,
                      MPI_Info info, const char *port)
{
    if (!command || !*command)
        return mpir_err(MPI_ERR_ARG, fn, "command is NULL or empty at the root");
    if (maxprocs <= 0)
        return mpir_err(MPI_ERR_ARG, fn, "maxprocs %d at the root (must be positive)", maxprocs);
    if (info != MPI_INFO_NULL && !mpir_handle_get(&mpir_infos, info))
        return mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x) at the root", (unsigned)info);
    /* The network mode is the same in every process of the job: when the
     * root cannot reach other jobs, nobody can, and no child may start
     * only to fail (its failure would end this job). */
    char addr[MPID_DYN_ADDR_MAX];
    size_t alen = sizeof addr;
    if (mpid_dyn_addr(addr, &alen) != MPI_SUCCESS)
        return mpir_err(MPI_ERR_UNSUPPORTED_OPERATION, fn, "the network mode (CLUMPI_NET=agent "
                        "across nodes) does not reach other jobs");
    char vals[NKEYS][MPI_MAX_INFO_VAL + 1];
    const char *keys[NKEYS], *v[NKEYS];
    int ninfo = 0;
    for (int k = 0; info != MPI_INFO_NULL && k < NKEYS; k++) {
        int flag = 0;
        if (PMPI_Info_get(info, spawn_keys[k], MPI_MAX_INFO_VAL, vals[ninfo], &flag) ==
                MPI_SUCCESS && flag) {
            keys[ninfo] = spawn_keys[k];
            v[ninfo] = vals[ninfo];
            ninfo++;
        }
    }
    int argc = 0;
    while (argv && argv[argc])
        argc++;
    char **full = malloc(((size_t)argc + 2) * sizeof *full);
    if (!full)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    full[0] = (char *)command;
    for (int i = 0; i < argc; i++)
        full[i + 1] = argv[i];
    full[argc + 1] = NULL;
    char why[256];
    int rc = cu_pmi_spawn(maxprocs, full, ninfo, keys, v, port, why, sizeof why);
    free(full);
    if (rc != 0)
        return mpir_err(MPI_ERR_SPAWN, fn, "cannot start %d process%s of \"%.64s\": %s", maxprocs,
                        maxprocs == 1 ? "" : "es", command, why);
    return MPI_SUCCESS;
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char fn[] = "MPI_Comm_spawn";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = mpir_check_intra(fn, c);
    if (rc == MPI_SUCCESS && (root < 0 || root >= c->group->size))
        rc = mpir_err(MPI_ERR_ROOT, fn, "invalid root %d (comm size %d)", root, c->group->size);
    if (rc == MPI_SUCCESS && !intercomm)
        rc = mpir_err(MPI_ERR_ARG, fn, "intercomm is NULL");
    if (rc)
        return mpir_err_comm(comm, rc);
    char port[MPI_MAX_PORT_NAME] = "";
    int err = MPI_SUCCESS, opened = 0;
    if (c->dev.rank == root) {
        err = mpir_port_open(fn, port);
        opened = err == MPI_SUCCESS;
        if (opened)
            err = root_spawn(fn, command, argv, maxprocs, info, port);
    }
    mpir_comm *ic = NULL;
    rc = mpir_port_join(fn, c, root, 0, port, err, &ic);
    if (opened)
        mpir_port_close(port);
    int n = rc == MPI_SUCCESS ? ic->remote_group->size : maxprocs, cls = rc & 0xff;
    for (int i = 0; array_of_errcodes != MPI_ERRCODES_IGNORE && i < n; i++)
        array_of_errcodes[i] = cls;
    *intercomm = rc == MPI_SUCCESS ? ic->handle : MPI_COMM_NULL;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : mpir_err_comm(comm, rc);
}
MPIR_WEAK(Comm_spawn)
