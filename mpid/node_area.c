/*
 * node_area.c — node areas: shared memory among the ranks of a communicator
 * (or a sub-view of one) on this node, made by the shm channel and handed
 * to the collectives (coll/shm_*.c). See mpid.h.
 *
 * The first call on a view is collective over its members and runs over
 * point-to-point on the view's collective context, tag MPID_TAG_NODE_AREA:
 * the leader (member 0) makes the area and tells every member whether it
 * could, with the key of its share; each member fetches it and answers;
 * the leader ends the share and sends the verdict, so every member gets
 * the memory or every member gets the error (a half-shared area would
 * deadlock the collective using it).
 * The same exchange settles single copy among the members: each one reads
 * a word of the leader's memory (the address comes with the key), and the
 * verdict says whether all of them could, so the collectives choose single
 * copy or slots alike on every member (the kernel's ptrace policy or
 * CLUMPI_SHM_CMA=0 may forbid it).
 * The outcome is cached per view (context id and member list) until the
 * communicator is freed or MPI_Finalize, so later calls cost a list walk.
 * Context ids are never reused within a process (src/comm.c), so a freed
 * communicator's areas cannot be mistaken for a later one's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include "mpid/mpidi.h"
#include "src/util/log.h"

typedef struct mpid_node_area {
    struct mpid_node_area *next;
    uint32_t ctx;
    uint64_t members;     /* hash of the members' world ranks */
    int      size;
    size_t   bytes;
    void    *base;        /* NULL: the view cannot have one */
    int      copy;        /* every member can single-copy from the others */
} node_area;


static uint64_t members_hash(const mpid_comm *v)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (int i = 0; i < v->size; i++) {
        h ^= (uint32_t)v->world_ranks[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Every member on this node, reached by the shm channel (emulated nodes on
 * one machine share memory too, but must keep to their network path). */
static int all_local(const mpid_comm *v)
{
    const mpid_channel *ch = mpid_node_chan;
    if (!ch->area)
        return 0;
    for (int i = 0; i < v->size; i++) {
        int w = v->world_ranks[i];
        if (w != mpid_st.world_rank && mpid_st.dests[w].ch != ch)
            return 0;
    }
    return 1;
}

/* n ints to or from a member, blocking. */
static int xfer(const mpid_comm *v, int peer, int *val, int n, int send)
{
    mpid_request *r;
    const cu_dtype *t = cu_dtype_builtin(CU_DT_INT);
    int rc = send ? mpid_isend(val, n, t, peer, MPID_TAG_NODE_AREA, v, MPID_CTX_COLL,
                               MPID_SEND_STANDARD, &r)
                  : mpid_irecv(val, n, t, peer, MPID_TAG_NODE_AREA, v, MPID_CTX_COLL, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    mpid_wait(r);
    rc = r->status.MPI_ERROR;
    mpid_request_free(r);
    return rc;
}

/* The word members read from the leader to learn whether single copy works. */
#define PROBE_MAGIC 0x636c756d70694e41ULL
static const volatile uint64_t probe_word = PROBE_MAGIC;

/* Bit 1 of a member's answer and of the verdict: single copy works. */
#define VERDICT_COPY 2

static int probe_leader(const mpid_comm *v, uint64_t addr)
{
    uint64_t got = 0;
    return mpid_node_read(v, 0, &got, (const void *)(uintptr_t)addr, sizeof got) ==
               MPI_SUCCESS && got == PROBE_MAGIC;
}

/* The make / fetch / drop protocol; the area or NULL, alike everywhere,
 * and in *copy whether every member can single-copy from the leader. */
static void *establish(const mpid_comm *v, size_t bytes, int *copy)
{
    const mpid_chan_area *ar = mpid_node_chan->area;
    *copy = 0;
    int rc = MPI_SUCCESS;
    void *base = NULL, *share = NULL;
    struct { int ok, pad; uint64_t key[2], probe; } m = {
        .ok = 1, .probe = (uintptr_t)&probe_word };
    const int nm = (int)(sizeof m / sizeof(int));
    /* Every member sees the same routes: a view that spans nodes fails
     * everywhere without a message. (Sub-views of one communicator share
     * its context and name their leader by view rank 0, so a message of a
     * needless exchange could be taken by the next view's.) */
    if (!all_local(v))
        return NULL;
    if (v->rank == 0) {
        if (m.ok && !(base = ar->make(bytes, m.key, &share)))
            m.ok = 0;
        for (int i = 1; i < v->size && rc == MPI_SUCCESS; i++)
            rc = xfer(v, i, &m.ok, nm, 1);
        /* the members fetch as soon as the key reaches them */
        if (rc == MPI_SUCCESS && m.ok && ar->serve(share, v->size - 1) != 0)
            m.ok = 0;
        ar->drop(share);
        int ok = m.ok, cp = VERDICT_COPY;
        for (int i = 1; i < v->size && rc == MPI_SUCCESS; i++) {
            int theirs = 0;
            rc = xfer(v, i, &theirs, 1, 0);
            ok = ok && (theirs & 1);
            cp &= theirs;
        }
        int verdict = ok ? 1 | cp : 0;
        for (int i = 1; i < v->size && rc == MPI_SUCCESS; i++)
            rc = xfer(v, i, &verdict, 1, 1);
        m.ok = ok;
        *copy = ok && cp;
    } else {
        rc = xfer(v, 0, &m.ok, nm, 0);
        int mine = rc == MPI_SUCCESS && m.ok && (base = ar->fetch(m.key, bytes)) != NULL;
        if (mine && probe_leader(v, m.probe))
            mine |= VERDICT_COPY;
        if (rc == MPI_SUCCESS)
            rc = xfer(v, 0, &mine, 1, 1);
        int verdict = 0;
        if (rc == MPI_SUCCESS)
            rc = xfer(v, 0, &verdict, 1, 0);
        m.ok = verdict & 1;
        *copy = m.ok && (verdict & VERDICT_COPY);
    }
    if ((rc != MPI_SUCCESS || !m.ok) && base) {
        ar->unmap(base, bytes);
        base = NULL;
    }
    return base;
}

int mpid_node_area(const mpid_comm *view, size_t bytes, void **base, int *copy)
{
    uint64_t h = members_hash(view);
    for (node_area *a = mpid_st.areas; a; a = a->next)
        if (a->ctx == view->context_id && a->members == h && a->size == view->size &&
            a->bytes == bytes) {
            *base = a->base;
            if (copy)
                *copy = a->copy;
            return a->base ? MPI_SUCCESS : MPI_ERR_UNSUPPORTED_OPERATION;
        }
    node_area *a = calloc(1, sizeof *a);
    if (!a)
        return MPI_ERR_NO_MEM;   /* before any message: the caller must abort */
    a->ctx = view->context_id;
    a->members = h;
    a->size = view->size;
    a->bytes = bytes;
    a->base = view->size > 1 ? establish(view, bytes, &a->copy) : NULL;
    a->next = mpid_st.areas;
    mpid_st.areas = a;
    *base = a->base;
    if (copy)
        *copy = a->copy;
    return a->base ? MPI_SUCCESS : MPI_ERR_UNSUPPORTED_OPERATION;
}

void mpid_node_wake(const mpid_comm *view, int rank)
{
    int w = view->world_ranks[rank];
    if (w != mpid_st.world_rank && mpid_node_chan->wake)
        mpid_node_chan->wake(w);
}

/* One single copy between my memory and member `rank`'s (write: mine to
 * theirs), all of len bytes or an error. */
static int node_copy(const mpid_comm *view, int rank, void *mine, const void *theirs,
                     size_t len, int write)
{
    if (len == 0)
        return MPI_SUCCESS;
    int w = view->world_ranks[rank];
    if (w == mpid_st.world_rank) {
        if (write)
            memmove((void *)(uintptr_t)theirs, mine, len);
        else
            memmove(mine, theirs, len);
        return MPI_SUCCESS;
    }
    const mpid_chan_copy *cp = mpid_node_chan->copy;
    if (!cp || !cp->read || (write && !cp->write))
        return MPI_ERR_UNSUPPORTED_OPERATION;
    struct iovec l = { mine, len }, r = { (void *)(uintptr_t)theirs, len };
    ssize_t n = write ? cp->write(w, &l, 1, &r, 1) : cp->read(w, &l, 1, &r, 1);
    if (n == (ssize_t)len)
        return MPI_SUCCESS;
    if (n == -ENOTSUP || n == -EPERM)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    cu_warn("single copy %s member %d of a node area (world rank %d) failed: %s",
             write ? "to" : "from", rank, w, n < 0 ? strerror((int)-n) : "short transfer");
    return MPI_ERR_OTHER;
}

int mpid_node_read(const mpid_comm *view, int rank, void *dst, const void *src, size_t len)
{
    return node_copy(view, rank, dst, src, len, 0);
}

int mpid_node_write(const mpid_comm *view, int rank, void *dst, const void *src, size_t len)
{
    return node_copy(view, rank, (void *)(uintptr_t)src, dst, len, 1);
}

/* Drops the areas of context ctx, or all of them (all != 0). */
static void drop(uint32_t ctx, int all)
{
    for (node_area **p = &mpid_st.areas; *p;) {
        node_area *a = *p;
        if (!all && a->ctx != ctx) {
            p = &a->next;
            continue;
        }
        *p = a->next;
        if (a->base)
            mpid_node_chan->area->unmap(a->base, a->bytes);
        free(a);
    }
}

void mpid_node_area_release(uint32_t context_id)
{
    drop(context_id, 0);
}

void mpid_node_area_finalize(void)
{
    drop(0, 1);
}
