/*
 * dynpeer.c — the routing table's slots for processes of other jobs
 * (spawned, connected through a port, joined over a socket). A slot is an
 * index after the world ranks, used wherever world ranks are (the rank maps
 * of communicators), so the paths that route by world rank stay as they
 * are. Each process numbers its remote peers itself and tells each peer
 * the number it gave it (the source id the peer puts on its packets to us).
 *
 * Slots are counted per peer process, the peer known by its network
 * address: a peer reached again while its slot lives (a second connection
 * to the same job) gets the same slot; each group that names a slot holds
 * one reference (src/group.c), and so does a handshake between choosing a
 * slot and making its group. When the last reference goes, the slot
 * becomes free once nothing for it waits in the device: its address leaves
 * the channel (the AV entry is removed) and the slot is handed out again.
 * CLUMPI_DYN_SLOTS (at most MPID_DYN_MAX) bounds the live slots.
 */
#include <stdlib.h>
#include <string.h>
#include "mpid/mpidi.h"
#include "src/util/log.h"
#include "src/util/param.h"

typedef struct mpid_dyn_slot {
    int refs;                 /* groups and handshakes naming the slot */
    int routed;               /* its address is in the channel */
    size_t len;
    unsigned char addr[MPID_DYN_ADDR_MAX];
} dyn_slot;


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

/* Nothing to slot still waits in the device: no queued first packet or
 * control packet, no rendezvous to it unanswered. */
static int slot_idle(void *arg)
{
    const mpid_dest *d = arg;
    return !d->qhead && !d->chead && !d->rts_out;
}

/* Slot i (an index into mpid_st.dyn.slots) without references: when idle, its
 * address leaves the channel and its entry is cleared. 1 when it is free. */
static int slot_reclaim(int i)
{
    dyn_slot *s = &mpid_st.dyn.slots[i];
    if (s->refs > 0)
        return 0;
    if (!s->routed)
        return 1;
    int w = mpid_st.world_size + i;
    mpid_dest *d = &mpid_st.dests[w];
    if (!slot_idle(d) || d->dirty)
        return 0;
    for (const mpid_req *r = mpid_st.streams; r; r = r->p.next)
        if (r->p.peer == w)
            return 0;   /* DATA packets still stream to it */
    if (d->ch && d->ch->dyn)
        d->ch->dyn->peer_del(w);
    mpid_st.dyn.nlost -= d->lost;
    memset(d, 0, sizeof *d);
    s->routed = 0;
    mpid_cnt.dyn_slots--;
    return 1;
}

int mpid_dyn_acquire(const void *addr, size_t len, int share, int *slot)
{
    if (!mpid_st.dyn.slots) {
        long c = cu_param_int("DYN_SLOTS");
        mpid_st.dyn.cap = c > 0 && c < MPID_DYN_MAX ? (int)c : MPID_DYN_MAX;
        if (!(mpid_st.dyn.slots = calloc((size_t)mpid_st.dyn.cap, sizeof *mpid_st.dyn.slots)))
            return MPI_ERR_NO_MEM;
    }
    if (len == 0 || len > MPID_DYN_ADDR_MAX)
        return MPI_ERR_OTHER;
    int free_at = -1;
    for (int i = 0; i < mpid_st.dyn.cap; i++) {
        dyn_slot *s = &mpid_st.dyn.slots[i];
        if (share && s->refs > 0 && s->len == len && !memcmp(s->addr, addr, len) &&
            !mpid_st.dests[mpid_st.world_size + i].lost) {   /* a new process at its address */
            s->refs++;
            *slot = mpid_st.world_size + i;
            return MPI_SUCCESS;
        }
        if (free_at < 0 && slot_reclaim(i))
            free_at = i;
    }
    if (free_at < 0) {
        cu_warn("dynamic processes: all %d slots for processes of other jobs are in use "
                "(CLUMPI_DYN_SLOTS)", mpid_st.dyn.cap);
        return MPI_ERR_NO_MEM;
    }
    dyn_slot *s = &mpid_st.dyn.slots[free_at];
    s->refs = 1;
    s->len = share ? len : 0;   /* a length no address has: never found again */
    memcpy(s->addr, addr, len);
    *slot = mpid_st.world_size + free_at;
    return MPI_SUCCESS;
}

/* The entry of slot w, or NULL when w is not a live dynamic slot. */
static dyn_slot *slot_of(int w)
{
    int i = w - mpid_st.world_size;
    return mpid_st.dyn.slots && mpid_st.dests && i >= 0 && i < mpid_st.dyn.cap
               ? &mpid_st.dyn.slots[i] : NULL;
}

void mpid_dyn_ref(int w)
{
    dyn_slot *s = slot_of(w);
    if (s)
        s->refs++;
}

void mpid_dyn_unref(int w)
{
    dyn_slot *s = slot_of(w);
    if (s && s->refs > 0 && --s->refs == 0)
        slot_reclaim(w - mpid_st.world_size);
}

int mpid_dyn_add(int w, const void *addr, size_t len, int my_id)
{
    const char *why;
    const mpid_channel *ch = dyn_chan(&why);
    dyn_slot *s = slot_of(w);
    if (!ch)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    if (!s || s->refs <= 0)
        return MPI_ERR_OTHER;
    /* a slot reached again only learns the id the peer gave us this time */
    if (ch->dyn->peer_add(w, addr, len, my_id) != 0)
        return MPI_ERR_OTHER;
    if (!s->routed) {
        mpid_dest_set(&mpid_st.dests[w], ch);
        s->routed = 1;
        if (++mpid_cnt.dyn_slots > mpid_cnt.dyn_slots_hwm)
            mpid_cnt.dyn_slots_hwm = mpid_cnt.dyn_slots;
    }
    if (w >= mpid_st.dyn_top)
        mpid_st.dyn_top = w + 1;
    return MPI_SUCCESS;
}

int mpid_dyn_drain(int w)
{
    if (w < mpid_st.world_size || w >= mpid_st.dyn_top || !mpid_st.dests[w].ch)
        return MPI_SUCCESS;
    return mpid_progress_until(slot_idle, &mpid_st.dests[w]);
}

void mpid_dyn_finalize(void)
{
    free(mpid_st.dyn.slots);
    mpid_st.dyn.slots = NULL;
    mpid_st.dyn.cap = 0;
    mpid_st.dyn.nlost = 0;
}
