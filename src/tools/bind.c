/*
 * bind.c — binding ranks to cores with hwloc. A rank that owns a core keeps
 * its caches and never migrates; but when ranks outnumber cores, pinning
 * would stack them on cores while others idle, so the default binds only
 * when the node's ranks fit on its cores.
 */
#include "config.h"
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>
#include <string.h>
#include "src/tools/mpirun.h"

void bind_plan(struct job *j)
{
    const struct mpirun_opts *o = j->o;
    for (int i = 0; i < j->n; i++) {
        j->r[i].bound = 0;
        snprintf(j->r[i].bind_desc, sizeof j->r[i].bind_desc, "not bound (--bind-to none)");
    }
    if (o->bind == BIND_NONE)
        return;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) < 0 || hwloc_topology_load(topo) < 0) {
        for (int i = 0; i < j->n; i++)
            snprintf(j->r[i].bind_desc, sizeof j->r[i].bind_desc, "not bound (no hwloc topology)");
        return;
    }
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    hwloc_obj_type_t type = HWLOC_OBJ_CORE;
    if (ncores <= 0) {   /* some VMs report PUs only */
        type = HWLOC_OBJ_PU;
        ncores = hwloc_get_nbobjs_by_type(topo, type);
    }
    for (int i = 0; i < j->n; i++) {
        struct rank *r = &j->r[i];
        int nlocal = 0;
        for (int k = 0; k < j->n; k++)
            nlocal += j->r[k].node == r->node;
        if (ncores <= 0) {
            snprintf(r->bind_desc, sizeof r->bind_desc, "not bound (no cores found)");
            continue;
        }
        if (o->bind == BIND_AUTO && nlocal > ncores) {
            snprintf(r->bind_desc, sizeof r->bind_desc,
                     "not bound (%d ranks on %d cores: oversubscribed)", nlocal, ncores);
            continue;
        }
        /* Explicit --bind-to core with more ranks than cores wraps round. */
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, type, (unsigned)(r->local % ncores));
        if (!core || !core->cpuset)
            continue;
        CPU_ZERO(&r->cpus);
        if (hwloc_cpuset_to_glibc_sched_affinity(topo, core->cpuset, &r->cpus, sizeof r->cpus) < 0)
            continue;
        r->bound = 1;
        char pus[96];
        hwloc_bitmap_list_snprintf(pus, sizeof pus, core->cpuset);
        snprintf(r->bind_desc, sizeof r->bind_desc, "bound to %s %u (cpus %s)",
                 type == HWLOC_OBJ_CORE ? "core" : "PU", core->logical_index, pus);
    }
    hwloc_topology_destroy(topo);
}

void bind_report(struct job *j)
{
    for (int i = 0; i < j->n; i++)
        fprintf(stderr, "%s: rank %d: %s\n", j->self, i, j->r[i].bind_desc);
}
