/*
 * win.c — windows: creation (Win_create on user memory, Win_allocate and
 * Win_allocate_shared in a per-node shared segment, Win_create_dynamic with
 * attach/detach), Win_shared_query, Win_free, the group, the predefined
 * attributes, names and error handlers (hints: win_info.c).
 *
 * Every creation exchanges each rank's size, disp_unit and device window
 * index, so origins check target ranges themselves and address packets to
 * the target's window. Allocated windows put each node's memory in one
 * shared segment without a name (made by the node's first rank of the
 * window and handed to the others, mpid/rma.h): same-node peers reach it
 * with loads, stores and atomics (MPI_WIN_UNIFIED).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/core.h"
#include "src/win.h"

int mpir_err_win(mpir_win *w, int code)
{
    return mpir_err_handler_call(w->handle, w->errhandler, code);
}

#define WIN_ERR(w, cls, fn, ...) mpir_err_win(w, mpir_err(cls, fn, __VA_ARGS__))

typedef struct win_info {   /* what every rank learns of every other */
    uint64_t base;          /* Win_create: the address, for single-copy access */
    uint64_t size;
    int32_t disp_unit;
    int32_t index;
} win_info;

/* SEG_LOCKS: only the lock lines (Win_create: the memory is the user's,
 * reached by single copy, but the lock words must be shared). */
enum { SEG_NONE = 0, SEG_ALLOCATE, SEG_SHARED, SEG_LOCKS };

static void win_destroy(mpir_win *w)
{
    if (!w)
        return;
    mpid_win_unregister(&w->dev);
    mpid_win_seg_unmap(w->dev.seg, w->dev.seg_len);
    free(w->alloc);
    free(w->locks);
    if (w->comm)
        mpir_comm_release(w->comm);
    mpir_errhandler_release(w->errhandler);
    free(w);
}

/* Bytes of the segment taken by a rank's `size`: Win_allocate_shared
 * memory is contiguous across ranks (MPI-3.1 11.2.3: rank i's part starts
 * right after rank i-1's), Win_allocate's is aligned like malloc's so any
 * type can live at its base (an odd size before it left the next rank's
 * doubles misaligned: UBSan in test/rma/netrma). */
static size_t part_len(size_t size, int mode)
{
    size_t a = _Alignof(max_align_t);
    return mode == SEG_SHARED ? size : (size + a - 1) / a * a;
}

/* The per-node segment: lock lines of the node's ranks, then their memory
 * in rank order, contiguous (SEG_LOCKS: no memory). Collective over the
 * window. */
static int map_segment(const char *fn, mpir_win *w, const win_info *all, int mode)
{
    int shared_only = mode == SEG_SHARED, locks_only = mode == SEG_LOCKS;
    int n = w->comm->dev.size, me = w->comm->dev.rank;
    const int *wr = w->comm->dev.world_ranks;
    int mynode = mpid_node_of(wr[me]), nlocal = 0, myidx = 0, leader = -1;
    size_t mem = 0, mine_off = 0;
    for (int t = 0; t < n; t++) {
        if (mpid_node_of(wr[t]) != mynode) {
            if (shared_only)
                return mpir_err(MPI_ERR_RMA_SHARED, fn, "the communicator spans several "
                                "nodes (rank %d is on another node than rank %d)", t, me);
            continue;
        }
        if (leader < 0)
            leader = t;
        if (t == me) {
            myidx = nlocal;
            mine_off = mem;
        }
        nlocal++;
        mem += locks_only ? 0 : part_len(all[t].size, mode);
    }
    size_t hdr = ((size_t)nlocal * sizeof(mpid_rma_tstate) + 4095) & ~(size_t)4095;
    size_t len = hdr + (mem ? mem : 1);
    /* The leader makes it and everyone learns whether it could, with the
     * key; the others fetch it while the leader serves them; everyone
     * agrees again. The memory has no name: it ends with its mappings. */
    typedef struct { int ok, pad; uint64_t key[2]; } seg_msg;
    seg_msg m = { .ok = 1 }, *all_m = malloc((size_t)n * sizeof *all_m);
    int rc = MPI_SUCCESS;
    if (!all_m)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    char *seg = NULL;
    void *share = NULL;
    for (int round = 0; round < 2 && rc == MPI_SUCCESS; round++) {
        if (round == 0 && me == leader)
            m.ok = (seg = mpid_win_seg_make(len, m.key, &share)) != NULL;
        else if (round == 1 && me == leader)
            m.ok = mpid_win_seg_serve(share, nlocal - 1) == 0;
        else if (round == 1)
            m.ok = (seg = mpid_win_seg_fetch(all_m[leader].key, len)) != NULL;
        rc = mpir_Allgather(&m, (int)sizeof m, MPI_BYTE, all_m, (int)sizeof m, MPI_BYTE,
                            w->comm->handle);
        for (int t = 0; t < n && rc == MPI_SUCCESS; t++)
            if (!all_m[t].ok)
                rc = mpir_err(MPI_ERR_NO_MEM, fn, "could not map the window's shared segment "
                              "of %zu bytes on rank %d's node", len, t);
    }
    free(all_m);
    mpid_win_seg_drop(share);
    if (rc != MPI_SUCCESS) {
        mpid_win_seg_unmap(seg, len);
        return rc;
    }
    w->dev.seg = seg;
    w->dev.seg_len = len;
    w->dev.my_ts = (mpid_rma_tstate *)seg + myidx;
    if (!locks_only)
        w->dev.base = seg + hdr + mine_off;
    size_t off = 0;
    int li = 0;
    for (int t = 0; t < n; t++) {
        if (mpid_node_of(wr[t]) != mynode)
            continue;
        if (!locks_only)
            w->dev.peers[t].direct = seg + hdr + off;
        w->dev.peers[t].ts = (mpid_rma_tstate *)seg + li;
        off += locks_only ? 0 : part_len(all[t].size, mode);
        li++;
    }
    return MPI_SUCCESS;
}

/* Two ranks of the window on one node (the same answer on every rank). */
static int shares_node(const mpir_comm *c)
{
    for (int t = 0; t < c->dev.size; t++)
        for (int u = t + 1; u < c->dev.size; u++)
            if (mpid_node_of(c->dev.world_ranks[t]) == mpid_node_of(c->dev.world_ranks[u]))
                return 1;
    return 0;
}

/* Common creation. seg: SEG_NONE (base is the user's or NULL), SEG_ALLOCATE
 * or SEG_SHARED. */
static int win_new(const char *fn, MPI_Comm comm, int flavor, void *base, MPI_Aint size,
                   int disp_unit, MPI_Info info, int seg, void *baseptr, MPI_Win *win)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = mpir_check_intra(fn, c);
    /* the one-sided paths index their per-peer state by world rank */
    if (rc == MPI_SUCCESS && c->dev.foreign)
        rc = mpir_err(MPI_ERR_UNSUPPORTED_OPERATION, fn, "comm holds processes of other jobs "
                      "(spawned, connected or joined): windows span one job");
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    mpir_win_hints hints;
    mpir_win_hints_default(&hints);
    rc = mpir_win_hints_read(fn, &hints, info, 1);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    if (!win)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "win is NULL"));
    if (size < 0)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_SIZE, fn, "size %ld is negative",
                                            (long)size));
    if (disp_unit <= 0)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_DISP, fn, "disp_unit %d is not positive",
                                            disp_unit));
    if (seg != SEG_NONE && !baseptr)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "baseptr is NULL"));
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "base is NULL with size %ld",
                                            (long)size));
    mpir_win *w = calloc(1, sizeof *w);
    if (!w)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->handle = MPI_WIN_NULL;
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->disp_unit = disp_unit;
    w->size = size;
    w->hints = hints;
    w->dev.index = -1;
    rc = mpir_comm_create_from_group(c, c->group, &w->comm);
    win_info *all = NULL;
    if (rc == MPI_SUCCESS)
        rc = mpid_win_register(&w->dev, &w->comm->dev);
    int n = c->dev.size;
    w->locks = calloc((size_t)n, 1);
    all = malloc((size_t)n * sizeof *all);
    if (rc == MPI_SUCCESS && (!w->locks || !all))
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(all);
        win_destroy(w);
        return mpir_err_comm(comm, mpir_err(rc, fn, "window set-up failed"));
    }
    win_info mine = { (uintptr_t)base, (uint64_t)size, disp_unit, w->dev.index };
    rc = mpir_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE,
                        w->comm->handle);
    if (seg == SEG_NONE && flavor == MPI_WIN_FLAVOR_CREATE && shares_node(w->comm))
        seg = SEG_LOCKS;
    if (rc == MPI_SUCCESS && seg != SEG_NONE)
        rc = map_segment(fn, w, all, seg);
    if (rc != MPI_SUCCESS) {
        free(all);
        win_destroy(w);
        return mpir_err_comm(comm, rc);
    }
    for (int t = 0; t < n; t++) {
        w->dev.peers[t].base = all[t].base;
        w->dev.peers[t].size = all[t].size;
        w->dev.peers[t].disp_unit = all[t].disp_unit;
        w->dev.peers[t].win_index = all[t].index;
    }
    free(all);
    w->dev.dynamic = flavor == MPI_WIN_FLAVOR_DYNAMIC;
    if (seg == SEG_NONE || seg == SEG_LOCKS)
        w->dev.base = base;
    w->dev.size = (size_t)size;
    w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM : w->dev.base;
    mpid_win_set_paths(&w->dev);
    w->handle = mpir_handle_new(&mpir_wins, w);
    if (w->handle == MPI_WIN_NULL) {
        win_destroy(w);
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of window handles"));
    }
    if (baseptr)
        *(void **)baseptr = w->dev.base;
    *win = w->handle;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    static const char fn[] = "MPI_Win_create";
    MPIR_ENTER(fn);
    return win_new(fn, comm, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, SEG_NONE, NULL,
                   win);
}
MPIR_WEAK(Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      void *baseptr, MPI_Win *win)
{
    static const char fn[] = "MPI_Win_allocate";
    MPIR_ENTER(fn);
    return win_new(fn, comm, MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, SEG_ALLOCATE,
                   baseptr, win);
}
MPIR_WEAK(Win_allocate)

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    static const char fn[] = "MPI_Win_allocate_shared";
    MPIR_ENTER(fn);
    /* alloc_shared_noncontig: contiguous anyway, which is allowed */
    return win_new(fn, comm, MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, SEG_SHARED,
                   baseptr, win);
}
MPIR_WEAK(Win_allocate_shared)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    static const char fn[] = "MPI_Win_create_dynamic";
    MPIR_ENTER(fn);
    return win_new(fn, comm, MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, SEG_NONE, NULL, win);
}
MPIR_WEAK(Win_create_dynamic)

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    static const char fn[] = "MPI_Win_shared_query";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        return WIN_ERR(w, MPI_ERR_RMA_FLAVOR, fn, "the window was not made by "
                       "MPI_Win_allocate_shared");
    if (!size || !disp_unit || !baseptr)
        return WIN_ERR(w, MPI_ERR_ARG, fn, "size, disp_unit or baseptr is NULL");
    int n = w->comm->dev.size;
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= n))
        return WIN_ERR(w, MPI_ERR_RANK, fn, "rank %d is not in the window (size %d)", rank, n);
    int t = rank;
    if (rank == MPI_PROC_NULL) {
        /* The lowest rank with memory (MPI-3.1 §11.2.3). */
        for (t = 0; t < n - 1 && w->dev.peers[t].size == 0; t++)
            ;
    }
    *size = (MPI_Aint)w->dev.peers[t].size;
    *disp_unit = w->dev.peers[t].disp_unit;
    *(void **)baseptr = w->dev.peers[t].direct;
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_shared_query)

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char fn[] = "MPI_Win_attach";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return WIN_ERR(w, MPI_ERR_RMA_FLAVOR, fn, "the window is not dynamic");
    if (size < 0)
        return WIN_ERR(w, MPI_ERR_SIZE, fn, "size %ld is negative", (long)size);
    if (!base && size > 0)
        return WIN_ERR(w, MPI_ERR_ARG, fn, "base is NULL");
    uintptr_t b = (uintptr_t)base;
    for (mpid_win_region *r = w->dev.regions; r; r = r->next)
        if (b < r->base + r->len && r->base < b + (size_t)size)
            return WIN_ERR(w, MPI_ERR_RMA_ATTACH, fn, "memory at %p (%ld bytes) overlaps an "
                           "attached region", base, (long)size);
    mpid_win_region *r = malloc(sizeof *r);
    if (!r)
        return WIN_ERR(w, MPI_ERR_NO_MEM, fn, "out of memory");
    r->base = b;
    r->len = (size_t)size;
    r->next = w->dev.regions;
    w->dev.regions = r;
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    static const char fn[] = "MPI_Win_detach";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return WIN_ERR(w, MPI_ERR_RMA_FLAVOR, fn, "the window is not dynamic");
    for (mpid_win_region **pp = &w->dev.regions; *pp; pp = &(*pp)->next) {
        if ((*pp)->base == (uintptr_t)base) {
            mpid_win_region *r = *pp;
            *pp = r->next;
            free(r);
            return MPI_SUCCESS;
        }
    }
    return WIN_ERR(w, MPI_ERR_RMA_ATTACH, fn, "no region attached at %p", base);
}
MPIR_WEAK(Win_detach)

int PMPI_Win_free(MPI_Win *win)
{
    static const char fn[] = "MPI_Win_free";
    MPIR_ENTER(fn);
    if (!win)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "win is NULL"));
    mpir_win *w;
    MPIR_GET_WIN(fn, *win, w);
    if (w->nlocks || w->lock_all || w->start || w->post)
        return WIN_ERR(w, MPI_ERR_RMA_SYNC, fn, "an epoch is still open (%s)",
                       w->nlocks || w->lock_all ? "a lock is held" :
                       w->start ? "Win_start without Win_complete" : "Win_post without Win_wait");
    /* Our operations are answered, then nobody still touches our memory. */
    int err = mpid_win_flush(&w->dev, -1);
    int rc = mpir_Barrier(w->comm->handle);
    int arc = mpir_win_attrs_free(w);   /* callbacks still see a valid window */
    mpir_handle_free(&mpir_wins, w->handle);
    win_destroy(w);
    *win = MPI_WIN_NULL;
    if (err)
        return mpir_err_world(mpir_err(err, fn, "a target reported an error"));
    if (arc)
        return mpir_err_world(mpir_err(arc, fn, "an attribute's delete callback failed"));
    return rc;
}
MPIR_WEAK(Win_free)

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char fn[] = "MPI_Win_get_group";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!group)
        return WIN_ERR(w, MPI_ERR_ARG, fn, "group is NULL");
    return mpir_Comm_group(w->comm->handle, group);
}
MPIR_WEAK(Win_get_group)

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag)
{
    static const char fn[] = "MPI_Win_get_attr";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!attribute_val || !flag)
        return WIN_ERR(w, MPI_ERR_ARG, fn, "attribute_val or flag is NULL");
    *flag = 1;
    switch (keyval) {
    case MPI_WIN_BASE: *(void **)attribute_val = w->base; break;
    case MPI_WIN_SIZE: *(MPI_Aint **)attribute_val = &w->size; break;
    case MPI_WIN_DISP_UNIT: *(int **)attribute_val = &w->disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: *(int **)attribute_val = &w->flavor; break;
    case MPI_WIN_MODEL: *(int **)attribute_val = &w->model; break;
    default: {
        int rc = mpir_win_attr_get(fn, w, keyval, attribute_val, flag);
        return rc ? mpir_err_win(w, rc) : MPI_SUCCESS;
    }
    }
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_get_attr)

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char fn[] = "MPI_Win_set_name";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!win_name)
        return WIN_ERR(w, MPI_ERR_ARG, fn, "win_name is NULL");
    snprintf(w->name, sizeof w->name, "%s", win_name);
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char fn[] = "MPI_Win_get_name";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!win_name || !resultlen)
        return WIN_ERR(w, MPI_ERR_ARG, fn, "win_name or resultlen is NULL");
    strcpy(win_name, w->name);
    *resultlen = (int)strlen(w->name);
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_get_name)

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fnp, MPI_Errhandler *errhandler)
{
    /* The same handler objects as communicators': the function gets the
     * window's handle where a communicator handler gets the communicator's. */
    return mpir_Comm_create_errhandler((MPI_Comm_errhandler_function *)fnp, errhandler);
}
MPIR_WEAK(Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Win_set_errhandler";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!mpir_handle_get(&mpir_errhandlers, errhandler))
        return WIN_ERR(w, MPI_ERR_ARG, fn, "invalid error handler (0x%x)", (unsigned)errhandler);
    mpir_errhandler_retain(errhandler);
    mpir_errhandler_release(w->errhandler);
    w->errhandler = errhandler;
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Win_get_errhandler";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    if (!errhandler)
        return WIN_ERR(w, MPI_ERR_ARG, fn, "errhandler is NULL");
    mpir_errhandler_retain(w->errhandler);
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    static const char fn[] = "MPI_Win_call_errhandler";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    mpir_err_win(w, errorcode);
    return MPI_SUCCESS;
}
MPIR_WEAK(Win_call_errhandler)
