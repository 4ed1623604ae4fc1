/*
 * bind.c — binding ranks to cores with hwloc. A rank that owns a core keeps
 * its caches and never migrates; but when ranks outnumber cores, pinning
 * would stack them on cores while others idle, so the default binds only
 * when this machine's ranks fit on its cores. Emulated nodes share the
 * machine, so cores are handed out over all ranks here, not per node.
 * Ranks on other hosts are not bound: mpirun does not know their cores.
 *
 * NICs: hwloc's network and OpenFabrics OS devices, with the cpus they are
 * local to. When a job spans nodes and a NIC sits near only part of the
 * machine (one socket of two), cores near it are handed out first, since
 * network traffic then stays off the inter-socket link.
 */
#include "config.h"
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/tools/mpirun.h"

#define MAXNIC 8

struct nic {
    char name[32];
    hwloc_bitmap_t cpus;   /* where it is local */
    int fabric;            /* OpenFabrics (RDMA) device: preferred */
};

static int find_nics(hwloc_topology_t topo, struct nic *nic)
{
    int n = 0;
    for (hwloc_obj_t o = NULL; n < MAXNIC && (o = hwloc_get_next_osdev(topo, o)) != NULL;) {
        hwloc_obj_osdev_type_t t = o->attr->osdev.type;
        if (t != HWLOC_OBJ_OSDEV_NETWORK && t != HWLOC_OBJ_OSDEV_OPENFABRICS)
            continue;
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
        if (!anc || !anc->cpuset)
            continue;
        snprintf(nic[n].name, sizeof nic[n].name, "%s", o->name ? o->name : "?");
        nic[n].cpus = anc->cpuset;
        nic[n].fabric = t == HWLOC_OBJ_OSDEV_OPENFABRICS;
        n++;
    }
    return n;
}

/* The NIC near this cpuset, preferring RDMA devices; "" if none. */
static void near_nics(const struct nic *nic, int nnic, hwloc_const_bitmap_t set, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int pass = 1; pass >= 0; pass--)
        for (int k = 0; k < nnic; k++)
            if (nic[k].fabric == pass && hwloc_bitmap_isincluded(set, nic[k].cpus) && off + 34 < len)
                off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", nic[k].name);
}

void bind_plan(struct job *j)
{
    const struct mpirun_opts *o = j->o;
    for (int i = 0; i < j->n; i++) {
        struct rank *r = &j->r[i];
        r->bound = 0;
        if (r->remote)
            snprintf(r->bind_desc, sizeof r->bind_desc, "on host %s, not bound (mpirun binds only here)",
                     j->hosts[r->host].name);
        else
            snprintf(r->bind_desc, sizeof r->bind_desc, "not bound (--bind-to none)");
    }
    int nhere = 0;
    for (int i = 0; i < j->n; i++)
        nhere += !j->r[i].remote;
    if (o->bind == BIND_NONE || nhere == 0)
        return;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) < 0)
        goto notopo;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
#if HWLOC_API_VERSION >= 0x00020100
    /* Not the "pci" plugin: libpciaccess under it leaks ~1 KB that the
     * plugin's unload leaves unattributable (LeakSanitizer fails mpirun).
     * hwloc's Linux backend reads the same PCI tree and NICs from sysfs. */
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
#endif
    if (hwloc_topology_load(topo) < 0) {
        hwloc_topology_destroy(topo);
        goto notopo;
    }
    hwloc_obj_type_t type = HWLOC_OBJ_CORE;
    int ncores = hwloc_get_nbobjs_by_type(topo, type);
    if (ncores <= 0) {   /* some VMs report PUs only */
        type = HWLOC_OBJ_PU;
        ncores = hwloc_get_nbobjs_by_type(topo, type);
    }
    struct nic nic[MAXNIC];
    int nnic = find_nics(topo, nic);

    /* The order cores are handed out in: near the preferred NIC first when
     * the job uses the network and that NIC is local to part of the machine. */
    hwloc_obj_t *order = calloc(ncores > 0 ? (size_t)ncores : 1, sizeof *order);
    int pref = -1;
    for (int k = 0; k < nnic; k++)
        if (pref < 0 || (nic[k].fabric && !nic[pref].fabric))
            pref = k;
    hwloc_const_bitmap_t whole = hwloc_topology_get_topology_cpuset(topo);
    int steer = j->nnodes > 1 && pref >= 0 && !hwloc_bitmap_isincluded(whole, nic[pref].cpus);
    int no = 0;
    for (int pass = steer ? 0 : 1; order && pass < 2; pass++)
        for (int c = 0; c < ncores; c++) {
            hwloc_obj_t core = hwloc_get_obj_by_type(topo, type, (unsigned)c);
            int near = core && core->cpuset && hwloc_bitmap_isincluded(core->cpuset, nic[pref < 0 ? 0 : pref].cpus);
            if (core && (!steer || (pass == 0) == near))
                order[no++] = core;
        }

    for (int i = 0; i < j->n; i++) {
        struct rank *r = &j->r[i];
        if (r->remote)
            continue;
        if (ncores <= 0 || !order || no == 0) {
            snprintf(r->bind_desc, sizeof r->bind_desc, "not bound (no cores found)");
            continue;
        }
        if (o->bind == BIND_AUTO && nhere > ncores) {
            snprintf(r->bind_desc, sizeof r->bind_desc,
                     "not bound (%d ranks on %d cores: oversubscribed)", nhere, ncores);
            continue;
        }
        /* Explicit --bind-to core with more ranks than cores wraps round. */
        hwloc_obj_t core = order[r->ordinal % no];
        if (!core->cpuset)
            continue;
        CPU_ZERO(&r->cpus);
        if (hwloc_cpuset_to_glibc_sched_affinity(topo, core->cpuset, &r->cpus, sizeof r->cpus) < 0)
            continue;
        r->bound = 1;
        char pus[96], nics[128];
        hwloc_bitmap_list_snprintf(pus, sizeof pus, core->cpuset);
        near_nics(nic, nnic, core->cpuset, nics, sizeof nics);
        snprintf(r->bind_desc, sizeof r->bind_desc, "bound to %s %u (cpus %s)%s%s",
                 type == HWLOC_OBJ_CORE ? "core" : "PU", core->logical_index, pus,
                 nnic ? (*nics ? ", near NIC " : ", far from every NIC") : ", no NIC found",
                 nics);
    }
    free(order);
    hwloc_topology_destroy(topo);
    return;
notopo:
    for (int i = 0; i < j->n; i++)
        if (!j->r[i].remote)
            snprintf(j->r[i].bind_desc, sizeof j->r[i].bind_desc, "not bound (no hwloc topology)");
}

void bind_report(struct job *j)
{
    for (int i = 0; i < j->n; i++)
        fprintf(stderr, "%s: rank %d: %s\n", j->self, i, j->r[i].bind_desc);
}
