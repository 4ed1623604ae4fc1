/*
 * dynpeer.c — the routing table's slots for processes of other jobs
 * (spawned, connected through a port, joined over a socket). A slot is an
 * index after the world ranks, used wherever world ranks are (the rank maps
 * of communicators), so the paths that route by world rank stay as they
 * are. The processes of one new group get consecutive slots that every
 * local member agrees on (mpid_dyn_next: each proposes its next free slot,
 * the largest wins), so one number names the same remote process in every
 * member's table, and the other side learns it as the source id to put on
 * the packets it sends us.
 */
#include <string.h>
#include "mpid/mpidi.h"
#include "src/util/log.h"

/* The network channel that reaches other jobs, opened on first use; NULL
 * (with *why set) when it cannot be had. */
static const mpid_channel *dyn_chan(const char **why)
{
    const mpid_channel *ch = mpid_net_open_dynamic();
    *why = ch ? NULL : "the network channel could not be opened";
    return ch;
}

int mpid_dyn_addr(void *buf, size_t *len)
{
    const char *why;
    const mpid_channel *ch = dyn_chan(&why);
    if (!ch) {
        cu_debug("dynamic processes: %s", why);
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    return ch->dyn->addr(buf, len) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int mpid_dyn_next(void)
{
    return mpid_dyn_top;
}

int mpid_dyn_add(int slot, const void *addr, size_t len, int my_id)
{
    const char *why;
    const mpid_channel *ch = dyn_chan(&why);
    if (!ch)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    if (slot < mpid_my_world_size || slot >= mpid_my_world_size + MPID_DYN_MAX) {
        cu_warn("dynamic processes: all %d slots for processes of other jobs are used",
                MPID_DYN_MAX);
        return MPI_ERR_NO_MEM;
    }
    if (ch->dyn->peer_add(slot, addr, len, my_id) != 0)
        return MPI_ERR_OTHER;
    mpid_dest_set(&mpid_dests[slot], ch);
    if (slot >= mpid_dyn_top)
        mpid_dyn_top = slot + 1;
    return MPI_SUCCESS;
}

void mpid_dyn_skip(int upto)
{
    if (upto > mpid_my_world_size + MPID_DYN_MAX)
        upto = mpid_my_world_size + MPID_DYN_MAX;
    if (upto > mpid_dyn_top)
        mpid_dyn_top = upto;
}

/* Nothing to slot still waits in the device: no queued first packet or
 * control packet, no rendezvous to it unanswered. */
static int slot_idle(void *arg)
{
    const mpid_dest *d = arg;
    return !d->qhead && !d->chead && !d->rts_out;
}

int mpid_dyn_drain(int slot)
{
    if (slot < mpid_my_world_size || slot >= mpid_dyn_top || !mpid_dests[slot].ch)
        return MPI_SUCCESS;
    return mpid_progress_until(slot_idle, &mpid_dests[slot]);
}
