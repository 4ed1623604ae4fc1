/*
 * ni.c — what the NI-level collectives (the *_ni.c files of coll/) share:
 * when they may run in the agents, how they wait, the note of a host fallback.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "coll/coll_impl.h"
#include "coll/ni.h"
#include "src/util/param.h"

void coll_ni_fallback_note(const char *what, int shape, const mpid_comm *comm, int who,
                           const char *why)
{
    static char said[8][16];   /* operations already told about */
    if (comm->rank != who || !cu_param_int("COLL_VERBOSE"))
        return;
    int i = 0;
    while (i < 8 && said[i][0] && strcmp(said[i], what) != 0)
        i++;
    if (i < 8 && said[i][0])
        return;
    if (i < 8)
        snprintf(said[i], sizeof said[i], "%s", what);
    const char *tree = (shape & MPID_TREE_SHAPE) == MPID_TREE_BINARY ? "binary" : "binomial";
    fprintf(stderr, "clumpi: coll: %s-%s %s %s; using the host's %s tree\n",
            shape & MPID_TREE_HOST ? "host-packet" : "ni", tree, what, why, tree);
}

const char *coll_ni_why_not(const mpid_comm *comm)
{
    return mpid_offload_lossy(comm)
               ? "is not repaired end to end under CLUMPI_AGENT_REL=host (only ni-* "
                 "broadcasts are)"
               : "needs the NI agent (CLUMPI_NET=agent, several nodes, a communicator "
                 "that fits a forwarding table)";
}

int coll_ni_err(int rc)
{
    return rc == 0 ? MPI_SUCCESS : rc == -ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
}
