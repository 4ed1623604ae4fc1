/*
 * comm.c — communicators: the objects, context ids, and the entry points
 * common to intra- and intercommunicators (the inter forms of creation live
 * in intercomm.c).
 *
 * Context ids: each process keeps a monotone counter next_ctx (even; 0 is
 * MPI_COMM_WORLD, 2 MPI_COMM_SELF). A new communicator takes the maximum of
 * next_ctx over the processes that agree on it, and each of them moves its
 * counter past it. No process has used that id yet, and matching needs
 * uniqueness only per process, so communicators made by disjoint splits may
 * share an id without harm. A blocking agreement marks its sample in flight
 * (mpir_ctx_begin .. mpir_ctx_end): an MPI_Comm_idup completing meanwhile
 * must not take an id at or above it (comm_idup.c).
 *
 * Under MPI_THREAD_MULTIPLE other threads may make communicators on other
 * parents while an agreement waits, so its maximum may be taken here by
 * then, or be another agreement's: when any member runs MULTIPLE (a flag
 * in the low bit of its sample), the agreement confirms its id as idups
 * do: each member refuses it when it is taken or reserved here, else
 * reserves it, and all move past it and try again while anyone refused.
 *
 * A process may be a member twice (two threads: a communicator merged from
 * an intercommunicator with lanes, intercomm.c, and those made from it); its two members then receive on ids of their own, x and x + 2 (by a
 * table of the members', mpid_comm.ctx_hi), and the agreement carries an
 * identity so that the two threads never refuse each other's
 * reservations.
 */
#include <stdlib.h>
#include <string.h>
#include "src/core.h"
#include "src/dynamic.h"
#include "coll/coll.h"

static int next_ctx = 4;
/* The samples of the blocking agreements under way (one per thread at most). */
static int *inflight, ninflight, capinflight;
static __thread int my_sample = -1;
/* Ids held by agreements between their proposal and their communicator,
 * and the agreement holding each (0: anonymous). */
static int *reserved, nreserved, capreserved;
static uint64_t *owners;

static const cu_dtype *dt_int(void)
{
    return cu_dtype_builtin(MPI_INT & 0xffffff);
}

int mpir_ctx_next(void)
{
    return next_ctx;
}

void mpir_ctx_accept(int ctx)
{
    if (ctx + 2 > next_ctx)
        next_ctx = ctx + 2;
}

/* Appends v to a growable int list; MPI_ERR_NO_MEM when it cannot grow. */
static int list_add(int **list, int *n, int *cap, int v)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 8;
        int *r = realloc(*list, (size_t)c * sizeof(int));
        if (!r)
            return MPI_ERR_NO_MEM;
        *list = r;
        *cap = c;
    }
    (*list)[(*n)++] = v;
    return MPI_SUCCESS;
}

/* Drops one v from the list, if there. */
static void list_drop(int *list, int *n, int v)
{
    for (int i = 0; i < *n; i++)
        if (list[i] == v) {
            list[i] = list[--*n];
            return;
        }
}

int mpir_ctx_begin(void)
{
    my_sample = next_ctx;
    if (list_add(&inflight, &ninflight, &capinflight, my_sample) != MPI_SUCCESS)
        my_sample = -1;   /* unrecorded: an idup may then refuse less; ids still agree */
    return next_ctx;
}

void mpir_ctx_end(int ctx)
{
    if (my_sample >= 0)
        list_drop(inflight, &ninflight, my_sample);
    my_sample = -1;
    if (ctx >= 0)
        mpir_ctx_accept(ctx);
}

int mpir_ctx_inflight(void)
{
    int m = -1;
    for (int i = 0; i < ninflight; i++)
        if (m < 0 || inflight[i] < m)
            m = inflight[i];
    return m;
}

int mpir_ctx_reserve(int ctx)
{
    return mpir_ctx_reserve_as(ctx, 0);
}

int mpir_ctx_reserve_as(int ctx, uint64_t agreement)
{
    if (nreserved == capreserved) {   /* owners grows with reserved */
        uint64_t *o = realloc(owners, (size_t)(capreserved ? 2 * capreserved : 8) *
                                          sizeof *owners);
        if (!o)
            return MPI_ERR_NO_MEM;
        owners = o;
    }
    int rc = list_add(&reserved, &nreserved, &capreserved, ctx);
    if (rc == MPI_SUCCESS)
        owners[nreserved - 1] = agreement;
    return rc;
}

void mpir_ctx_unreserve(int ctx)
{
    for (int i = 0; i < nreserved; i++)
        if (reserved[i] == ctx) {
            reserved[i] = reserved[--nreserved];
            owners[i] = owners[nreserved];
            return;
        }
}

int mpir_ctx_taken(int ctx)
{
    return mpir_ctx_taken_by_other(ctx, 0);
}

int mpir_ctx_taken_by_other(int ctx, uint64_t agreement)
{
    for (int i = 0; i < nreserved; i++)
        if (reserved[i] == ctx && (agreement == 0 || owners[i] != agreement))
            return 1;
    for (int i = 1; i < mpir_comms.cap; i++) {
        const mpir_comm *c = mpir_comms.obj[i];
        if (c && (c->dev.context_id == (uint32_t)ctx ||
                  (c->dev.remote_context_id & ~MPID_CTX_BY_RANK) == (uint32_t)ctx ||
                  (c->local_comm && c->local_comm->dev.context_id == (uint32_t)ctx)))
            return 1;
    }
    return 0;
}

/* The base is the lower of c's receive and send contexts, the same at both
 * sides' objects of a process on both sides, and taken here while c lives
 * (mpir_ctx_taken_by_other counts send contexts too), so no two live
 * communicators of a process share it. */
uint64_t mpir_ctx_agreement(const mpir_comm *c, unsigned kind, unsigned seq)
{
    uint32_t a = c->dev.context_id, b = c->dev.remote_context_id & ~MPID_CTX_BY_RANK;
    uint32_t base = a < b ? a : b;
    return 1ull << 63 | (uint64_t)(kind & 3) << 61 | (uint64_t)(base & 0x1fffffff) << 32 | seq;
}

/* A communicator over group (retained) with context ctx; it inherits
 * parent's error handler (MPI-3.1 8.3: new communicators take their
 * parent's), or gets ERRORS_ARE_FATAL when parent is NULL. index > 0: a
 * predefined handle; 0: a new handle; < 0: no handle (internal). */
static mpir_comm *comm_new(const mpir_comm *parent, mpir_group *g, int ctx, int index)
{
    mpir_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->dev.context_id = (uint32_t)ctx;
    c->dev.remote_context_id = (uint32_t)ctx;
    c->dev.rank = g->rank;
    c->dev.size = g->size;
    c->dev.world_ranks = g->world_ranks;
    c->dev.foreign = mpir_group_foreign(g);
    c->group = g;
    c->errhandler = parent ? parent->errhandler : MPI_ERRORS_ARE_FATAL;
    c->refcount = 1;
    c->info = MPI_INFO_NULL;
    if (index > 0) {
        mpir_handle_set(&mpir_comms, index, c);
        c->handle = CLUMPI_HANDLE(CLUMPI_KIND_COMM, index);
    } else if (index < 0) {
        c->handle = MPI_COMM_NULL;
    } else {
        c->handle = mpir_handle_new(&mpir_comms, c);
        if (c->handle == MPI_COMM_NULL) {
            free(c);
            return NULL;
        }
    }
    mpir_group_retain(g);
    mpir_errhandler_retain(c->errhandler);
    return c;
}

mpir_comm *mpir_comm_new(const mpir_comm *parent, mpir_group *g, int ctx, int internal)
{
    return comm_new(parent, g, ctx, internal ? -1 : 0);
}

/* Whether the ranks of intracommunicator c receive on contexts of their
 * own (MPID_CTX_BY_RANK). */
static int by_rank(const mpir_comm *c)
{
    return !c->is_inter && (c->dev.remote_context_id & MPID_CTX_BY_RANK);
}

int mpir_comm_sides_of(const mpir_comm *parent, const mpir_group *g, unsigned char **out)
{
    *out = NULL;
    if (!by_rank(parent))
        return MPI_SUCCESS;
    unsigned char *t = malloc((size_t)(g->size ? g->size : 1));
    if (!t)
        return MPI_ERR_NO_MEM;
    const int *pw = parent->group->world_ranks;
    for (int i = 0; i < g->size; i++) {
        int w = g->world_ranks[i], k = 0, p = 0;
        for (int j = 0; j < i; j++)
            k += g->world_ranks[j] == w;
        for (; p < parent->group->size; p++)
            if (pw[p] == w && k-- == 0)
                break;
        t[i] = p < parent->group->size ? parent->dev.ctx_hi[p] : 0;
    }
    *out = t;
    return MPI_SUCCESS;
}

void mpir_comm_set_ctx(mpir_comm *c, int ctx)
{
    c->dev.context_id = c->dev.remote_context_id = (uint32_t)ctx;
    if (c->dev.ctx_hi) {
        c->dev.context_id += 2u * c->dev.ctx_hi[c->dev.rank];
        c->dev.remote_context_id |= MPID_CTX_BY_RANK;
        c->dev.foreign = 1;
    }
}

/* A communicator of parent's over g (retained) on the contexts agreed from
 * ctx (a new handle), with the lanes t (taken; NULL: g's as they are in
 * parent); NULL when memory runs out. */
static mpir_comm *comm_derived(const mpir_comm *parent, mpir_group *g, int ctx,
                               unsigned char *t)
{
    if (!t && mpir_comm_sides_of(parent, g, &t) != MPI_SUCCESS)
        return NULL;
    mpir_comm *c = comm_new(parent, g, ctx, 0);
    if (!c) {
        free(t);
        return NULL;
    }
    c->dev.ctx_hi = t;
    mpir_comm_set_ctx(c, ctx);
    return c;
}

void mpir_comm_release(mpir_comm *c)
{
    if (!c)
        return;
    if (c->is_inter) {
        mpir_spawn_comm_gone(c);
        mpir_group_release(c->remote_group);
        mpir_comm_release(c->local_comm);
    }
    coll_comm_free(&c->dev);
    free(c->dev.ctx_hi);
    mpir_topo_free(c->topo);
    mpir_info_release(c->info);
    mpir_errhandler_release(c->errhandler);
    mpir_group_release(c->group);
    mpir_handle_free(&mpir_comms, c->handle);
    free(c);
}

int mpir_comm_init(void)
{
    int n = mpid_world_size(), me = mpid_world_rank();
    int *wr = malloc((size_t)n * sizeof(int));
    if (!wr)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        wr[i] = i;
    mpir_group *gw = mpir_group_new(n, wr);
    mpir_group *gs = mpir_group_new(1, &me);
    free(wr);
    if (!gw || !gs)
        return MPI_ERR_NO_MEM;
    mpir_comm *w = comm_new(NULL, gw, 0, MPI_COMM_WORLD & 0xffffff);
    mpir_comm *s = comm_new(NULL, gs, 2, MPI_COMM_SELF & 0xffffff);
    mpir_group_release(gw);
    mpir_group_release(gs);
    if (!w || !s)
        return MPI_ERR_NO_MEM;
    strcpy(w->name, "MPI_COMM_WORLD");
    strcpy(s->name, "MPI_COMM_SELF");
    next_ctx = 4;
    return MPI_SUCCESS;
}

void mpir_comm_finalize(void)
{
    for (int i = 1; i < mpir_comms.cap; i++) {
        mpir_comm *c = mpir_comms.obj[i];
        if (c) {
            mpir_comm_attrs_drop(c);
            mpir_comm_release(c);
        }
    }
    mpir_comms.nfree_hint = 1;
}

/* Allgathers n ints per member of view on its collective context, with
 * the internal tag (tag < 0) or the caller's. */
static int allgather_ints(const int *mine, int n, int *all, const mpid_comm *view, int tag)
{
    return tag < 0 ? coll_allgather(mine, (size_t)n, dt_int(), all, (size_t)n, dt_int(), view)
                   : coll_allgather_tag(mine, (size_t)n, dt_int(), all, (size_t)n, dt_int(),
                                        view, tag);
}

int mpir_ctx_confirm(mpir_ctx_maxfn *maxfn, void *arg, int m, int span, uint64_t agreement,
                     int *ctx)
{
    for (;;) {
        int refused = 0, held = 0;
        for (int k = 0; k < span && !refused; k++)
            refused = mpir_ctx_taken_by_other(m + 2 * k, agreement);
        while (!refused && held < span)
            if (mpir_ctx_reserve_as(m + 2 * held++, agreement) != MPI_SUCCESS)
                refused = 1;
        mpir_ctx_accept(m + 2 * (span - 1));
        int mine[2] = { refused, mpir_ctx_next() }, max[2];
        int rc = maxfn(arg, mine, 2, max);
        /* held until the caller made its communicators, which it does
         * before it waits again: the table then shows them */
        while (held > 0)
            mpir_ctx_unreserve(m + 2 * --held);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!max[0]) {
            *ctx = m;
            return MPI_SUCCESS;
        }
        m = max[1];
    }
}

void mpir_ctx_fold_max(const int *table, int rows, int n, int *max)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++)
            if (table[i * n + j] > max[j])
                max[j] = table[i * n + j];
}

int mpir_ctx_sample_max(const int *table, int rows, int n, int col, int m, int *mt)
{
    for (int i = 0; i < rows; i++) {
        int v = table[i * n + col];
        *mt |= v & 1;
        if ((v & ~1) > m)
            m = v & ~1;
    }
    return m;
}

/* An agreement over an intracommunicator view (tag as in allgather_ints). */
typedef struct view_arg { const mpid_comm *view; int tag; } view_arg;

static int view_max(void *arg, const int *mine, int n, int *max)
{
    const view_arg *v = arg;
    int *a = malloc((size_t)v->view->size * (size_t)n * sizeof(int));
    if (!a)
        return MPI_ERR_NO_MEM;
    int rc = allgather_ints(mine, n, a, v->view, v->tag);
    for (int j = 0; j < n; j++)
        max[j] = 0;
    if (rc == MPI_SUCCESS)
        mpir_ctx_fold_max(a, v->view->size, n, max);
    free(a);
    return rc;
}

/* Agrees on a context over view (tag as in allgather_ints): allgathers
 * `nint` ints per member (the caller's data, whose last int this fills
 * with next_ctx) and returns the largest next_ctx through *ctx, confirmed
 * under MULTIPLE. Everyone in view moves past it. A view whose ranks
 * receive apart takes two ids, and as a process may then be in it twice
 * (two threads), its agreement carries the identity id. */
static int agree_on(const mpid_comm *view, int tag, uint64_t id, int *mine, int nint, int **all,
                    int *ctx)
{
    int span = view->remote_context_id & MPID_CTX_BY_RANK ? 2 : 1;
    int *a = malloc((size_t)view->size * (size_t)nint * sizeof(int));
    if (!a)
        return MPI_ERR_NO_MEM;   /* a failing rank cannot be told apart; peers will hang */
    mine[nint - 1] = mpir_ctx_begin() | (cu_mt != 0);
    int rc = allgather_ints(mine, nint, a, view, tag);
    if (rc != MPI_SUCCESS) {
        mpir_ctx_end(-1);
        free(a);
        return rc;
    }
    int mt = 0, m = mpir_ctx_sample_max(a, view->size, nint, nint - 1, 0, &mt);
    if (mt) {
        view_arg va = { view, tag };
        rc = mpir_ctx_confirm(view_max, &va, m, span, id, &m);
    }
    mpir_ctx_end(rc == MPI_SUCCESS ? m + 2 * (span - 1) : -1);
    if (rc != MPI_SUCCESS) {
        free(a);
        return rc;
    }
    *ctx = m;
    *all = a;
    return MPI_SUCCESS;
}

static int agree(mpir_comm *parent, int *mine, int nint, int **all, int *ctx)
{
    uint64_t id = mpir_ctx_agreement(parent, 0, parent->agree_seq++);
    return agree_on(&parent->dev, -1, by_rank(parent) ? id : 0, mine, nint, all, ctx);
}

int mpir_comm_create_from_group(mpir_comm *parent, mpir_group *group, mpir_comm **out)
{
    int mine[1], *all = NULL, ctx;
    *out = NULL;
    int rc = agree(parent, mine, 1, &all, &ctx);
    free(all);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!group)
        return MPI_SUCCESS;
    *out = comm_derived(parent, group, ctx, NULL);
    return *out ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* ---- split --------------------------------------------------------------------- */

struct member { int key, prank; };

static int cmp_member(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->prank > y->prank) - (x->prank < y->prank);
}

mpir_group *mpir_group_of_color(const int *table, int rows, int stride, int color,
                                const mpir_group *from, const unsigned char *lanes,
                                unsigned char **lanes_out)
{
    struct member *m = malloc((size_t)(rows ? rows : 1) * sizeof *m);
    int *wr = malloc((size_t)(rows ? rows : 1) * sizeof(int));
    if (!m || !wr) {
        free(m);
        free(wr);
        return NULL;
    }
    int n = 0;
    for (int i = 0; i < rows; i++)
        if (table[stride * i] == color)
            m[n++] = (struct member){ table[stride * i + 1], i };
    /* By key, ties broken by rank in the parent (qsort is not stable). */
    qsort(m, (size_t)n, sizeof *m, cmp_member);
    for (int i = 0; i < n; i++)
        wr[i] = from->world_ranks[m[i].prank];
    mpir_group *g = mpir_group_new(n, wr);
    unsigned char *l = lanes && g ? malloc((size_t)(n ? n : 1)) : NULL;
    for (int i = 0; l && i < n; i++)
        l[i] = lanes[m[i].prank];
    if (lanes && !l) {
        mpir_group_release(g);
        g = NULL;
    }
    if (lanes_out)
        *lanes_out = l;
    free(m);
    free(wr);
    return g;
}

int mpir_comm_split(mpir_comm *parent, int color, int key, mpir_comm **out)
{
    if (parent->is_inter)
        return mpir_intercomm_split(parent, color, key, out);
    int mine[3] = { color, key, 0 }, *all = NULL, ctx;
    *out = NULL;
    int rc = agree(parent, mine, 3, &all, &ctx);
    if (rc != MPI_SUCCESS || color == MPI_UNDEFINED) {
        free(all);
        return rc;
    }
    unsigned char *lanes = NULL;   /* by row: the world ranks may repeat */
    mpir_group *g = mpir_group_of_color(all, parent->dev.size, 3, color, parent->group,
                                        by_rank(parent) ? parent->dev.ctx_hi : NULL, &lanes);
    free(all);
    if (!g)
        return MPI_ERR_NO_MEM;
    *out = comm_derived(parent, g, ctx, lanes);
    mpir_group_release(g);
    return *out ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* ---- entry points -------------------------------------------------------------- */

#define ARG_ERR(fn, comm, ...) mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, __VA_ARGS__))

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    static const char fn[] = "MPI_Comm_size";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!size)
        return ARG_ERR(fn, comm, "size is NULL");
    *size = c->group->size;   /* the local group's, on an intercommunicator */
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    static const char fn[] = "MPI_Comm_rank";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!rank)
        return ARG_ERR(fn, comm, "rank is NULL");
    *rank = c->dev.rank;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_rank)

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char fn[] = "MPI_Comm_group";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!group)
        return ARG_ERR(fn, comm, "group is NULL");
    mpir_group_retain(c->group);   /* the caller's reference, for Group_free */
    *group = c->group->handle;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_group)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char fn[] = "MPI_Comm_compare";
    MPIR_ENTER(fn);
    mpir_comm *c1, *c2;
    MPIR_GET_COMM(fn, comm1, c1);
    MPIR_GET_COMM(fn, comm2, c2);
    if (!result)
        return ARG_ERR(fn, comm1, "result is NULL");
    if (c1 == c2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    /* MPI-3.1 6.6.2: an intra- and an intercommunicator are unequal; two
     * intercommunicators compare both their local and their remote groups. */
    if (c1->is_inter != c2->is_inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int r, rr = MPI_IDENT;
    int rc = mpir_Group_compare(c1->group->handle, c2->group->handle, &r);
    if (rc == MPI_SUCCESS && c1->is_inter)
        rc = mpir_Group_compare(c1->remote_group->handle, c2->remote_group->handle, &rr);
    if (rc != MPI_SUCCESS)
        return rc;
    if (r == MPI_UNEQUAL || rr == MPI_UNEQUAL)
        *result = MPI_UNEQUAL;
    else if (r == MPI_SIMILAR || rr == MPI_SIMILAR)
        *result = MPI_SIMILAR;
    else   /* same members in the same order but another context */
        *result = MPI_CONGRUENT;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_compare)

int mpir_comm_dup_props(const char *fn, mpir_comm *c, mpir_comm *nc, MPI_Info info)
{
    int rc = mpir_comm_attrs_copy(c, nc);
    if (rc != MPI_SUCCESS) {
        mpir_comm_release(nc);
        return mpir_err(rc, fn, "an attribute copy callback failed (%d)", rc);
    }
    nc->topo = mpir_topo_dup(c->topo);
    int irc = mpir_info_dup(info, &nc->info);
    if ((c->topo && !nc->topo) || irc != MPI_SUCCESS) {
        mpir_comm_attrs_free(nc);
        mpir_comm_release(nc);
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    }
    return MPI_SUCCESS;
}

int mpir_comm_dup_checks(const char *fn, MPI_Comm comm, int use_info, MPI_Info info,
                         MPI_Comm *newcomm, mpir_comm **c)
{
    MPIR_GET_COMM(fn, comm, *c);
    if (!newcomm)
        return ARG_ERR(fn, comm, "newcomm is NULL");
    if (use_info && info != MPI_INFO_NULL && !mpir_handle_get(&mpir_infos, info))
        return mpir_err_comm(comm, mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x)", (unsigned)info));
    return MPI_SUCCESS;
}

static int dup_common(const char *fn, MPI_Comm comm, int use_info, MPI_Info info, MPI_Comm *newcomm)
{
    mpir_comm *c, *nc;
    int rc = mpir_comm_dup_checks(fn, comm, use_info, info, newcomm, &c);
    if (rc)
        return rc;
    /* the inter form: the same two groups in the same orders */
    rc = c->is_inter ? mpir_intercomm_split(c, 0, c->dev.rank, &nc)
                     : mpir_comm_create_from_group(c, c->group, &nc);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "could not agree on a context id"));
    rc = mpir_comm_dup_props(fn, c, nc, use_info ? info : c->info);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, rc);
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPIR_ENTER("MPI_Comm_dup");
    return dup_common("MPI_Comm_dup", comm, 0, MPI_INFO_NULL, newcomm);
}
MPIR_WEAK(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    MPIR_ENTER("MPI_Comm_dup_with_info");
    return dup_common("MPI_Comm_dup_with_info", comm, 1, info, newcomm);
}
MPIR_WEAK(Comm_dup_with_info)

/* Checks that every member of g is in c; errors name the first outsider. */
static int check_subgroup(const char *fn, MPI_Comm comm, const mpir_comm *c, const mpir_group *g)
{
    for (int i = 0; i < g->size; i++)
        if (mpir_group_find(c->group, g->world_ranks[i]) == MPI_UNDEFINED)
            return mpir_err_comm(comm, mpir_err(MPI_ERR_GROUP, fn,
                                                "group rank %d (world rank %d) is not in comm",
                                                i, g->world_ranks[i]));
    return MPI_SUCCESS;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    mpir_group *g = mpir_group_get(group);
    if (!g)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_GROUP, fn, "invalid group (0x%x)", (unsigned)group));
    if (!newcomm)
        return ARG_ERR(fn, comm, "newcomm is NULL");
    int rc = check_subgroup(fn, comm, c, g);
    if (rc)
        return rc;
    mpir_comm *nc;
    /* The inter form (MPI-3.1 6.4.2): group is a subset of the local group;
     * the result joins it with the subset the remote group passed, ranked
     * as in the groups. */
    if (c->is_inter)
        rc = mpir_intercomm_split(c, g->rank != MPI_UNDEFINED ? 0 : MPI_UNDEFINED, g->rank, &nc);
    else
        rc = mpir_comm_create_from_group(c, g->rank != MPI_UNDEFINED ? g : NULL, &nc);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "could not create the communicator"));
    *newcomm = nc ? nc->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_create)

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_group";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    mpir_group *g = mpir_group_get(group);
    if (!g)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_GROUP, fn, "invalid group (0x%x)", (unsigned)group));
    if (!newcomm)
        return ARG_ERR(fn, comm, "newcomm is NULL");
    int rc = mpir_check_tag(fn, "tag", tag, 0);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_intra(fn, c);
    if (rc)
        return mpir_err_comm(comm, rc);
    rc = check_subgroup(fn, comm, c, g);
    if (rc)
        return rc;
    if (g->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    /* Only the group's members take part: they agree among themselves,
     * ranked as in the group, on the parent's collective context, kept
     * apart from other such calls by the user's tag. */
    mpid_comm sub = { .context_id = c->dev.context_id, .rank = g->rank, .size = g->size,
                      .world_ranks = g->world_ranks,
                      .remote_context_id = c->dev.remote_context_id };
    rc = mpir_comm_sides_of(c, g, &sub.ctx_hi);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "out of memory"));
    int mine, *all = NULL, m;
    rc = agree_on(&sub, tag, sub.ctx_hi ? mpir_ctx_agreement(c, 2, (unsigned)tag) : 0, &mine, 1,
                  &all, &m);
    free(all);
    free(sub.ctx_hi);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "could not agree on a context id"));
    mpir_comm *nc = comm_derived(c, g, m, NULL);
    if (!nc)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_create_group)

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_split";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (color < 0 && color != MPI_UNDEFINED)
        return ARG_ERR(fn, comm, "color = %d is negative and not MPI_UNDEFINED", color);
    if (!newcomm)
        return ARG_ERR(fn, comm, "newcomm is NULL");
    mpir_comm *nc;
    int rc = mpir_comm_split(c, color, key, &nc);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "could not create the communicator"));
    *newcomm = nc ? nc->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_split_type";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = mpir_check_intra(fn, c);
    if (rc)
        return mpir_err_comm(comm, rc);
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return ARG_ERR(fn, comm, "split_type = %d is neither MPI_COMM_TYPE_SHARED nor MPI_UNDEFINED",
                       split_type);
    if (info != MPI_INFO_NULL && !mpir_handle_get(&mpir_infos, info))
        return mpir_err_comm(comm, mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x)", (unsigned)info));
    if (!newcomm)
        return ARG_ERR(fn, comm, "newcomm is NULL");
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED
                : c->dev.foreign                ? mpir_dyn_node_color()
                                                : mpid_node_of(mpid_world_rank());
    mpir_comm *nc;
    rc = mpir_comm_split(c, color, key, &nc);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "could not create the communicator"));
    *newcomm = nc ? nc->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_split_type)

int mpir_comm_free_checks(const char *fn, MPI_Comm *comm, mpir_comm **out)
{
    if (!comm)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "comm is NULL"));
    mpir_comm *c;
    MPIR_GET_COMM(fn, *comm, c);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return mpir_err_comm(*comm, mpir_err(MPI_ERR_COMM, fn, "%s cannot be freed", c->name));
    /* its idup request still holds it */
    if (c->dev.context_id == MPIR_CTX_PENDING)
        return mpir_err_comm(*comm, mpir_err(MPI_ERR_COMM, fn, "comm (0x%x) is not usable yet: "
                                             "its MPI_Comm_idup has not completed",
                                             (unsigned)*comm));
    *out = c;
    return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_free";
    MPIR_ENTER(fn);
    mpir_comm *c;
    int rc = mpir_comm_free_checks(fn, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Delete callbacks run even if one fails; the communicator goes anyway
     * and the failure is reported, through its handler while it exists. */
    rc = mpir_comm_attrs_free(c);
    if (rc != MPI_SUCCESS)
        rc = mpir_err_comm(*comm, mpir_err(rc, fn, "an attribute delete callback failed (%d)", rc));
    mpir_comm_release(c);
    *comm = MPI_COMM_NULL;
    return rc;
}
MPIR_WEAK(Comm_free)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    static const char fn[] = "MPI_Comm_test_inter";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!flag)
        return ARG_ERR(fn, comm, "flag is NULL");
    *flag = c->is_inter;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_test_inter)

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    static const char fn[] = "MPI_Comm_set_name";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!comm_name)
        return ARG_ERR(fn, comm, "comm_name is NULL");
    strncpy(c->name, comm_name, MPI_MAX_OBJECT_NAME - 1);
    c->name[MPI_MAX_OBJECT_NAME - 1] = 0;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    static const char fn[] = "MPI_Comm_get_name";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!comm_name || !resultlen)
        return ARG_ERR(fn, comm, "%s is NULL", comm_name ? "resultlen" : "comm_name");
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(c->name);
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_get_name)

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char fn[] = "MPI_Comm_set_info";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!mpir_handle_get(&mpir_infos, info))
        return mpir_err_comm(comm, mpir_err(MPI_ERR_INFO, fn, "invalid info (0x%x)", (unsigned)info));
    MPI_Info n;
    int rc = mpir_info_dup(info, &n);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "out of memory"));
    mpir_info_release(c->info);
    c->info = n;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Comm_get_info";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!info_used)
        return ARG_ERR(fn, comm, "info_used is NULL");
    /* Always a new object the caller frees, empty when no hints were set. */
    if (c->info == MPI_INFO_NULL)
        return mpir_Info_create(info_used);
    int rc = mpir_info_dup(c->info, info_used);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "out of memory"));
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_get_info)
