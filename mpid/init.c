/*
 * init.c — bootstrap: rank, size and node layout from PMI (a singleton
 * without a launcher), the job id that names shared segments, the channels
 * and the routing table.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpid/mpidi.h"
#include "src/util/sigfault.h"
#include "src/util/log.h"
#include "src/util/param.h"
#include "src/util/pmi.h"

/* No self-channel packets before the channels open. */
static const int no_packets;
mpid_state mpid_st = {
    .job = { .nnodes = 1 },
    .self_busy = &no_packets,
    .eager_cap = -1,
    .wait = { .spin_polls = 4000, .yield_long_ns = 1000000, .sleep_us = 100000 },
    .net = { .ival_min = 1, .ival_max = 256, .nap_us = 200, .kick_fd = -1 },
};

const mpid_channel *const mpid_node_chan = &mpid_channel_shm;

int mpid_world_rank(void) { return mpid_st.world_rank; }
int mpid_world_size(void) { return mpid_st.world_size; }
int mpid_appnum(void) { return mpid_st.job.appnum; }
/* A peer of another job counts as a node of its own. */
int mpid_node_of(int world_rank)
{
    return world_rank < mpid_st.world_size ? mpid_st.job.node_of[world_rank]
                                           : mpid_st.job.nnodes +
                                                 (world_rank - mpid_st.world_size);
}
int mpid_node_count(void) { return mpid_st.job.nnodes; }
const char *mpid_job_id(void) { return mpid_st.job.id; }

static void make_job_id(void)
{
    const char *env = getenv("CLUMPI_JOB_ID");
    const char *src = env && *env ? env : cu_pmi_kvsname();
    size_t n = 0;
    if (!src || !*src) {
        snprintf(mpid_st.job.id, sizeof mpid_st.job.id, "single%ld", (long)getpid());
        return;
    }
    /* Only characters safe in a shm_open name. */
    for (const char *p = src; *p && n < sizeof mpid_st.job.id - 1; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.';
        mpid_st.job.id[n++] = ok ? c : '_';
    }
    mpid_st.job.id[n] = 0;
}

/* The collectives choose by whether ranks outnumber cores, and every rank
 * must choose alike: each node's first rank publishes its host's answer
 * before the channels' PMI barriers (publish_oversubscribed), and every
 * rank takes the OR of the nodes' answers after them (agree). Keys carry
 * the publisher's world rank, where PMIx looks first. */
static int publish_oversubscribed(int ovs, int local_rank)
{
    if (mpid_st.job.nnodes <= 1 || local_rank != 0)
        return 0;
    char key[32];
    snprintf(key, sizeof key, "ovs-%d", mpid_st.world_rank);
    return cu_pmi_put(key, ovs ? "1" : "0");
}

static int agree_oversubscribed(int ovs)
{
    int nn = mpid_st.job.nnodes;
    if (nn <= 1 || ovs)
        return ovs;
    char *seen = calloc((size_t)nn, 1);   /* nodes whose first rank was read */
    if (!seen)
        return -1;
    for (int r = 0; r < mpid_st.world_size && !ovs; r++) {
        int n = mpid_st.job.node_of[r];
        if (n < 0 || n >= nn || seen[n])
            continue;
        seen[n] = 1;
        char key[32], val[8];
        snprintf(key, sizeof key, "ovs-%d", r);
        if (cu_pmi_get(key, val, sizeof val) != 0) {
            cu_warn("no oversubscription answer from node %d (rank %d)", n, r);
            ovs = -1;
            break;
        }
        ovs = val[0] == '1';
    }
    free(seen);
    return ovs;
}

int mpid_init(void)
{
    int rank = 0, size = 1, appnum = 0;
    cu_sigfault_reset_foreign();
    if (cu_pmi_init(&rank, &size, &appnum) != 0) {
        cu_warn("PMI initialization failed");
        return MPI_ERR_OTHER;
    }
    mpid_st.world_rank = rank;
    mpid_st.world_size = size;
    mpid_st.job.appnum = appnum;
    cu_log_set_rank(rank);
    mpid_st.job.node_of = calloc((size_t)size, sizeof *mpid_st.job.node_of);
    mpid_st.job.local_ranks = calloc((size_t)size, sizeof *mpid_st.job.local_ranks);
    if (!mpid_st.job.node_of || !mpid_st.job.local_ranks)
        return MPI_ERR_NO_MEM;
    if (size > 1) {
        mpid_st.job.nnodes = cu_pmi_node_map(size, mpid_st.job.node_of);
        if (mpid_st.job.nnodes <= 0) {
            /* No usable PMI_process_mapping: take the ranks to share this node. */
            cu_debug("no process mapping from the process manager; assuming one node");
            for (int i = 0; i < size; i++)
                mpid_st.job.node_of[i] = 0;
            mpid_st.job.nnodes = 1;
        }
    }
    make_job_id();
    int my_node = mpid_st.job.node_of[rank], nlocal = 0, local_rank = 0;
    for (int i = 0; i < size; i++) {
        if (mpid_st.job.node_of[i] == my_node) {
            if (i == rank)
                local_rank = nlocal;
            mpid_st.job.local_ranks[nlocal++] = i;
        }
    }
    mpid_chan_info *info = &mpid_st.job.info;
    info->world_rank = rank;
    info->world_size = size;
    info->node = my_node;
    info->node_of = mpid_st.job.node_of;
    info->local_rank = local_rank;
    info->local_size = nlocal;
    info->local_ranks = mpid_st.job.local_ranks;
    info->job_id = mpid_st.job.id;
    info->progress = mpid_progress;
    info->progress_until = mpid_progress_until;
    info->peer_lost = mpid_on_peer_lost;

    /* CLUMPI_NET: how other nodes are reached: "direct" (a libfabric
     * endpoint per rank) or "agent" (the node's NI agent, netmod/agent). */
    const char *net = cu_param_str("NET");
    const mpid_channel *netch = &mpid_channel_ofi;
    if (!strcmp(net, "agent"))
        netch = &mpid_channel_agent;
    else if (strcmp(net, "direct") != 0) {
        cu_warn("CLUMPI_NET=%s is not a network mode; valid values: direct, agent", net);
        return MPI_ERR_OTHER;
    }

    mpid_st.nchans = 0;
    mpid_st.net_chan = NULL;
    /* read back after the channels' barriers */
    if (mpid_peer_watch_publish(info) != 0)
        return MPI_ERR_OTHER;
    /* offload mode: each node runs an NI agent beside its ranks */
    int agents = mpid_st.job.nnodes > 1 && netch == &mpid_channel_agent;
    long tasks;
    int ovs = mpid_host_oversubscribed(nlocal, agents, &tasks);
    if (publish_oversubscribed(ovs, local_rank) != 0)
        return MPI_ERR_OTHER;
    if (mpid_channel_self.init(info) != 0)
        return MPI_ERR_OTHER;
    mpid_st.self_busy = mpid_channel_self.pending;
    /* shm's init holds PMI barriers, which every rank must join: on several
     * nodes a rank alone on its node takes part too (and makes no segment) */
    if (nlocal > 1 || mpid_st.job.nnodes > 1) {
        int rc = mpid_node_chan->init(info);
        if (rc != 0) {
            cu_warn("shared-memory channel failed to start (%d)", rc);
            return MPI_ERR_OTHER;
        }
        mpid_st.job.shm_up = 1;
        if (nlocal > 1) {
            mpid_st.chans[mpid_st.nchans++] = mpid_node_chan;
            mpid_st.sleep_chan = mpid_node_chan->arm_sleep ? mpid_node_chan : NULL;
        }
    }
    if (mpid_st.job.nnodes > 1) {
        int rc = netch->init(info);
        if (rc != 0) {
            cu_warn("network channel (%s) failed to start: %s", netch->name,
                    strerror(rc < 0 ? -rc : rc));
            return MPI_ERR_OTHER;
        }
        mpid_st.job.net_up = 1;
        mpid_net_init(netch);
        cu_sigfault_reset_foreign();   /* providers may install more */
    }
    /* Progress first: whether the host is oversubscribed sets the routes'
     * eager limits. */
    mpid_progress_init(ovs, tasks);
    if ((mpid_st.wait.job_oversubscribed = agree_oversubscribed(ovs)) < 0)
        return MPI_ERR_OTHER;
    if (mpid_route_init(mpid_st.job.node_of, my_node, mpid_st.job.shm_up && nlocal > 1))
        return MPI_ERR_NO_MEM;
    mpid_peer_watch_start(info);
    return MPI_SUCCESS;
}

/* The network channel for peers of other jobs: the direct one, opened now
 * without an address exchange when the job has run on one node so far.
 * In offload mode the node's agent owns the job's network traffic and
 * knows only its peers, so ranks open a direct endpoint of their own for
 * the other jobs, polled with the local channels on every pass (its
 * completions wake nobody: idle waits become bounded naps, netpoll.c). */
const mpid_channel *mpid_net_open_dynamic(void)
{
    if (mpid_st.dyn_chan)
        return mpid_st.dyn_chan;
    if (mpid_st.job.net_up && mpid_st.net_chan->dyn) {
        mpid_st.dyn_chan = mpid_st.net_chan;
        return mpid_st.dyn_chan;
    }
    mpid_chan_info dyn = mpid_st.job.info;
    dyn.dynamic = 1;
    int rc = mpid_channel_ofi.init(&dyn);
    if (rc != 0) {
        cu_warn("network channel (ofi) failed to start for peers of other jobs: %s",
                strerror(rc < 0 ? -rc : rc));
        return NULL;
    }
    cu_sigfault_reset_foreign();
    mpid_st.dyn_chan = &mpid_channel_ofi;
    if (!mpid_st.job.net_up) {
        mpid_st.job.net_up = 1;
        mpid_net_init(&mpid_channel_ofi);
    } else {
        mpid_st.job.dyn_own = 1;
        mpid_st.chans[mpid_st.nchans++] = &mpid_channel_ofi;
    }
    return mpid_st.dyn_chan;
}

static int net_unacked(void)
{
    const mpid_channel *c = mpid_st.net_chan;
    return c && c->unacked ? c->unacked() : -1;
}

static int drained(void *arg)
{
    return !mpid_st.dirty && !mpid_st.streams && !mpid_self_pending() && mpid_st.detached == 0 &&
           net_unacked() <= 0;
}

static atomic_int barrier_done;

static void *barrier_thread(void *arg)
{
    (void)arg;
    cu_pmi_barrier();
    atomic_store(&barrier_done, 1);
    return NULL;
}

static int barrier_passed(void *arg)
{
    (void)arg;
    return atomic_load(&barrier_done);
}

/* The job's last barrier. A network channel that retransmits until its
 * packets are acknowledged must keep answering its peers until all of
 * them have theirs: its progress runs here while a thread waits in the
 * barrier (one that could not start leaves the plain barrier). */
static void finalize_barrier(void)
{
    pthread_t t;
    atomic_store(&barrier_done, 0);
    if (net_unacked() < 0 || pthread_create(&t, NULL, barrier_thread, NULL)) {
        cu_pmi_barrier();
        return;
    }
    mpid_progress_until(barrier_passed, NULL);
    pthread_join(t, NULL);
}

int mpid_finalize(void)
{
    /* Sends the user freed before completion, and packets still queued,
     * must reach their peers before the channels close. */
    mpid_progress_until(drained, NULL);
    mpid_peer_watch_stop();   /* peers leave normally once the barrier is done */
    if (mpid_st.world_size > 1)
        finalize_barrier();   /* no peer still reads our memory or queues */
    mpid_node_area_finalize();
    if (mpid_st.job.dyn_own)
        mpid_channel_ofi.finalize();
    mpid_st.job.dyn_own = 0;
    mpid_st.dyn_chan = NULL;
    if (mpid_st.job.net_up)
        mpid_st.net_chan->finalize();
    mpid_st.job.net_up = 0;
    mpid_st.net_chan = NULL;
    if (mpid_st.job.shm_up)
        mpid_node_chan->finalize();
    mpid_st.job.shm_up = 0;
    mpid_channel_self.finalize();
    mpid_st.nchans = 0;
    mpid_st.sleep_chan = NULL;
    mpid_route_finalize();
    mpid_ctxq_finalize(&mpid_st.ctxqs);
    mpid_req_finalize();
    cu_pmi_finalize();
    free(mpid_st.job.node_of);
    free(mpid_st.job.local_ranks);
    mpid_st.job.node_of = mpid_st.job.local_ranks = NULL;
    return MPI_SUCCESS;
}

void mpid_abort(int errorcode, const char *msg)
{
    cu_pmi_abort(errorcode, msg);
    /* A singleton, or a launcher that did not end us: end ourselves. */
    if (msg && *msg)
        cu_warn("%s", msg);
    _exit(errorcode ? errorcode : 1);
}
