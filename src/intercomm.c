/*
 * intercomm.c — intercommunicators (MPI-3.1 6.6): MPI_Intercomm_create and
 * _merge, the remote-group queries, and the inter form of Comm_split (which
 * Comm_dup and Comm_create use too).
 *
 * Agreement: every new communicator made here follows one pattern
 * (swap_tables). Each group allgathers a small record per process over an
 * intracommunicator of its own, the two leaders swap their groups' tables,
 * and each leader broadcasts the other group's table to its group. Every
 * record carries the process's next context id, so both groups see the same
 * maximum X: an intercommunicator takes X, its local intracommunicator X+2
 * (the same id in both groups, which are disjoint), a merged one X; every
 * process of both groups moves its counter past X+2.
 *
 * A process may be twice among the members (core.h: lanes): on both
 * sides of a connection (dynamic.c), or twice in one group, made from such
 * a connection's merge. Each record then carries the member's lane, each
 * member receives on the id of its lane, and the new communicators take
 * their members' lanes from the old ones: an intercommunicator X .. X+6
 * (X, X+2 itself, X+4, X+6 its local one), a merged one X and X+2, each
 * member sending with the context of its destination's lane
 * (MPID_CTX_BY_RANK). Such agreements carry an identity
 * (mpir_ctx_agreement), so that the two threads of a process held twice
 * never refuse each other's ids.
 */
#include <stdlib.h>
#include <string.h>
#include "src/core.h"
#include "src/dynamic.h"
#include "coll/coll.h"

static const cu_dtype *dt_int(void)
{
    return cu_dtype_builtin(MPI_INT & 0xffffff);
}

/* Sends n ints to rank peer and receives up to cap ints from it, on comm's
 * context ctx_off with tag; *got is the number received. */
static int swap_ints(const mpid_comm *comm, unsigned ctx_off, int peer, int tag,
                     const int *send, int n, int *recv, int cap, int *got)
{
    mpid_request *r = NULL, *s = NULL;
    int rc = mpid_irecv(recv, (size_t)cap, dt_int(), peer, tag, comm, ctx_off, &r);
    if (rc == MPI_SUCCESS)
        rc = mpid_isend(send, (size_t)n, dt_int(), peer, tag, comm, ctx_off,
                        MPID_SEND_STANDARD, &s);
    if (s) {
        mpid_wait(s);
        if (rc == MPI_SUCCESS)
            rc = s->status.MPI_ERROR;
        mpid_request_free(s);
    }
    if (r) {
        if (rc != MPI_SUCCESS)
            mpid_cancel(r);
        mpid_wait(r);
        if (rc == MPI_SUCCESS)
            rc = r->status.MPI_ERROR;
        *got = (int)(r->status.clumpi_count / (MPI_Count)sizeof(int));
        mpid_request_free(r);
    }
    return rc;
}

/* The two groups swap tables of n ints per process. Collective over local
 * (my group); its member `leader` talks to rank peer_rank of peer on context
 * ctx_off with tag. *lall gets my group's table, *rall the other's, with
 * *rsize rows. leader_err, at the leader, is an error found before the swap
 * (then nothing is sent and every member of my group returns that class);
 * elsewhere it is ignored. */
static int swap_tables(const mpid_comm *local, int leader, int leader_err,
                       const mpid_comm *peer, unsigned ctx_off, int peer_rank, int tag,
                       const int *mine, int n, int **lall, int **rall, int *rsize)
{
    int lsize = local->size;
    int *l = malloc((size_t)lsize * (size_t)n * sizeof(int));
    int *r = NULL, hdr[2] = { 0, 0 };   /* remote rows, or -(error class) */
    *lall = *rall = NULL;
    if (!l)
        return MPI_ERR_NO_MEM;   /* the others will wait: nothing can tell them */
    int rc = coll_allgather(mine, (size_t)n, dt_int(), l, (size_t)n, dt_int(), local);
    if (rc != MPI_SUCCESS) {
        free(l);
        return rc;
    }
    if (local->rank == leader) {
        rc = leader_err;
        if (rc == MPI_SUCCESS) {
            int mhdr[2] = { lsize, n }, got;
            rc = swap_ints(peer, ctx_off, peer_rank, tag, mhdr, 2, hdr, 2, &got);
            if (rc == MPI_SUCCESS && (got != 2 || hdr[1] != n || hdr[0] <= 0))
                rc = MPI_ERR_INTERN;   /* the other side is not in the same call */
        }
        if (rc == MPI_SUCCESS) {
            r = malloc((size_t)hdr[0] * (size_t)n * sizeof(int));
            rc = r ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        }
        if (rc == MPI_SUCCESS) {
            int got;
            rc = swap_ints(peer, ctx_off, peer_rank, tag, l, lsize * n, r, hdr[0] * n, &got);
            if (rc == MPI_SUCCESS && got != hdr[0] * n)
                rc = MPI_ERR_INTERN;
        }
        if (rc != MPI_SUCCESS)
            hdr[0] = -(rc & 0xff);
    }
    int brc = coll_bcast(hdr, 1, dt_int(), leader, local);
    if (brc != MPI_SUCCESS || hdr[0] < 0) {
        free(l);
        free(r);
        return brc != MPI_SUCCESS ? brc : -hdr[0];
    }
    if (local->rank != leader && !(r = malloc((size_t)hdr[0] * (size_t)n * sizeof(int))))
        rc = MPI_ERR_NO_MEM;   /* still take part in the broadcast */
    int tmp;
    brc = coll_bcast(r ? r : &tmp, r ? (size_t)hdr[0] * (size_t)n : 0, dt_int(), leader, local);
    if (rc == MPI_SUCCESS)
        rc = brc;
    if (rc != MPI_SUCCESS) {
        free(l);
        free(r);
        return rc;
    }
    *lall = l;
    *rall = r;
    *rsize = hdr[0];
    return MPI_SUCCESS;
}

/* Swap over an existing intercommunicator: its local intracommunicator
 * and, between the leaders (rank 0 of each group), its collective context. */
static int swap_over(const mpir_comm *ic, const int *mine, int n, int **lall, int **rall)
{
    int rsize;
    int rc = swap_tables(&ic->local_comm->dev, 0, MPI_SUCCESS, &ic->dev, MPID_CTX_COLL, 0,
                         MPIR_TAG_INTER_AGREE, mine, n, lall, rall, &rsize);
    if (rc == MPI_SUCCESS && rsize != ic->remote_group->size) {
        free(*lall);
        free(*rall);
        return MPI_ERR_INTERN;
    }
    return rc;
}

/* The largest context sample of column col over both groups' tables;
 * *mt: some member runs MPI_THREAD_MULTIPLE (the id is then confirmed,
 * comm.c). */
static int sample_max(const int *l, int lrows, const int *r, int rrows, int n, int col,
                      int *mt)
{
    *mt = 0;
    return mpir_ctx_sample_max(r, rrows, n, col, mpir_ctx_sample_max(l, lrows, n, col, 0, mt),
                               mt);
}

/* The column maxima of both groups' tables (rc: the swap's result) into
 * max; frees the tables. */
static int tables_max(int rc, int *l, int lrows, int *r, int rrows, int n, int *max)
{
    if (rc != MPI_SUCCESS)
        return rc;
    for (int j = 0; j < n; j++)
        max[j] = 0;
    mpir_ctx_fold_max(l, lrows, n, max);
    mpir_ctx_fold_max(r, rrows, n, max);
    free(l);
    free(r);
    return MPI_SUCCESS;
}

/* The maximum over both groups, by tables swapped over an
 * intercommunicator (mpir_ctx_confirm's rounds). */
static int over_max(void *arg, const int *mine, int n, int *max)
{
    const mpir_comm *ic = arg;
    int *l, *r;
    int rc = swap_over(ic, mine, n, &l, &r);
    return tables_max(rc, l, ic->group->size, r, ic->remote_group->size, n, max);
}

/* The same through the leaders' channel of MPI_Intercomm_create. */
typedef struct create_arg {
    const mpid_comm *local, *peer;
    int leader, peer_rank, tag;
} create_arg;

static int create_max(void *arg, const int *mine, int n, int *max)
{
    const create_arg *a = arg;
    int *l, *r, rsize;
    int rc = swap_tables(a->local, a->leader, MPI_SUCCESS, a->peer, MPID_CTX_PT2PT,
                         a->peer_rank, a->tag, mine, n, &l, &r, &rsize);
    return tables_max(rc, l, a->local->size, r, rsize, n, max);
}

mpir_comm *mpir_intercomm_new(const mpir_comm *parent, mpir_group *local, mpir_group *remote,
                              int ctx)
{
    mpir_comm *lc = mpir_comm_new(parent, local, ctx + 2, 1);
    mpir_comm *ic = lc ? mpir_comm_new(parent, local, ctx, 0) : NULL;
    if (!ic) {
        mpir_comm_release(lc);
        return NULL;
    }
    ic->is_inter = 1;
    ic->local_comm = lc;
    ic->remote_group = remote;
    mpir_group_retain(remote);
    ic->dev.size = remote->size;
    ic->dev.world_ranks = remote->world_ranks;
    ic->dev.foreign = lc->dev.foreign || mpir_group_foreign(remote);
    return ic;
}

int mpir_intercomm_set_lanes(mpir_comm *ic, const unsigned char *local,
                             const unsigned char *remote)
{
    mpid_comm *l = &ic->local_comm->dev, *r = &ic->dev;
    free(l->ctx_hi);
    free(r->ctx_hi);
    l->ctx_hi = r->ctx_hi = NULL;
    if (!local)
        return MPI_SUCCESS;
    l->ctx_hi = malloc((size_t)l->size);
    r->ctx_hi = malloc((size_t)(r->size ? r->size : 1));
    if (!l->ctx_hi || !r->ctx_hi) {
        free(l->ctx_hi);
        free(r->ctx_hi);
        l->ctx_hi = r->ctx_hi = NULL;
        return MPI_ERR_NO_MEM;
    }
    memcpy(l->ctx_hi, local, (size_t)l->size);
    memcpy(r->ctx_hi, remote, (size_t)r->size);
    l->foreign = r->foreign = 1;   /* as an intracommunicator's (core.h) */
    return MPI_SUCCESS;
}

void mpir_intercomm_set_ctx(mpir_comm *ic, int x)
{
    mpir_comm *lc = ic->local_comm;
    if (!lc->dev.ctx_hi) {
        ic->dev.context_id = ic->dev.remote_context_id = (uint32_t)x;
        lc->dev.context_id = lc->dev.remote_context_id = (uint32_t)x + 2;
        return;
    }
    ic->dev.context_id = (uint32_t)x + 2u * lc->dev.ctx_hi[lc->dev.rank];
    ic->dev.remote_context_id = (uint32_t)x | MPID_CTX_BY_RANK;
    mpir_comm_set_ctx(lc, x + 4);
}

/* The lanes of an intercommunicator being made: both tables (malloc'd:
 * rows of my group and of the other) from column col of the records, or
 * none (*apart 0) when every lane is 0; MPI_ERR_NO_MEM. */
static int lanes_of(const int *l, int lrows, const int *r, int rrows, int n, int col,
                    unsigned char **lt, unsigned char **rt, int *apart)
{
    *lt = *rt = NULL;
    *apart = 0;
    for (int i = 0; i < lrows; i++)
        *apart |= l[i * n + col] != 0;
    for (int i = 0; i < rrows; i++)
        *apart |= r[i * n + col] != 0;
    if (!*apart)
        return MPI_SUCCESS;
    *lt = malloc((size_t)lrows);
    *rt = malloc((size_t)(rrows ? rrows : 1));
    if (!*lt || !*rt) {
        free(*lt);
        free(*rt);
        *lt = *rt = NULL;
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < lrows; i++)
        (*lt)[i] = (unsigned char)l[i * n + col];
    for (int i = 0; i < rrows; i++)
        (*rt)[i] = (unsigned char)r[i * n + col];
    return MPI_SUCCESS;
}

int mpir_intercomm_split(mpir_comm *ic, int color, int key, mpir_comm **out)
{
    int mine[3] = { color, key, mpir_ctx_begin() | (cu_mt != 0) }, *lall, *rall;
    int apart = mpir_intercomm_apart(ic), span = apart ? MPIR_LANES_SPAN : 2;
    uint64_t id = mpir_ctx_agreement(ic, 0, ic->agree_seq++);
    *out = NULL;
    int rc = swap_over(ic, mine, 3, &lall, &rall);
    if (rc != MPI_SUCCESS) {
        mpir_ctx_end(-1);
        return rc;
    }
    int lsize = ic->group->size, rsize = ic->remote_group->size, mt;
    int x = sample_max(lall, lsize, rall, rsize, 3, 2, &mt);
    if (mt)
        rc = mpir_ctx_confirm(over_max, ic, x, span, id, &x);
    mpir_ctx_end(rc == MPI_SUCCESS ? x + 2 * (span - 1) : -1);
    if (rc != MPI_SUCCESS) {
        free(lall);
        free(rall);
        return rc;
    }
    mpir_group *lg = NULL, *rg = NULL;
    unsigned char *ll = NULL, *rl = NULL;   /* by row: the world ranks may repeat */
    if (color != MPI_UNDEFINED) {
        lg = mpir_group_of_color(lall, lsize, 3, color, ic->group, ic->local_comm->dev.ctx_hi,
                                 &ll);
        rg = mpir_group_of_color(rall, rsize, 3, color, ic->remote_group, ic->dev.ctx_hi, &rl);
        if (!lg || !rg)
            rc = MPI_ERR_NO_MEM;
        else if (rg->size > 0)   /* lg holds me at least */
            rc = (*out = mpir_intercomm_new(ic, lg, rg, x)) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        if (*out && apart && (rc = mpir_intercomm_set_lanes(*out, ll, rl)) != MPI_SUCCESS) {
            mpir_comm_release(*out);
            *out = NULL;
        }
        if (*out)
            mpir_intercomm_set_ctx(*out, x);
    }
    free(ll);
    free(rl);
    mpir_group_release(lg);
    mpir_group_release(rg);
    free(lall);
    free(rall);
    return rc;
}

/* ---- entry points ---------------------------------------------------------- */

/* The communicator behind handle, required to be an intercommunicator. */
static int get_inter(const char *fn, MPI_Comm comm, mpir_comm **out)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    if (!c->is_inter)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_COMM, fn, "comm (0x%x) is an "
                                            "intracommunicator; this operation needs an "
                                            "intercommunicator", (unsigned)comm));
    *out = c;
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char fn[] = "MPI_Comm_remote_size";
    MPIR_ENTER(fn);
    mpir_comm *c;
    int rc = get_inter(fn, comm, &c);
    if (rc)
        return rc;
    if (!size)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "size is NULL"));
    *size = c->remote_group->size;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char fn[] = "MPI_Comm_remote_group";
    MPIR_ENTER(fn);
    mpir_comm *c;
    int rc = get_inter(fn, comm, &c);
    if (rc)
        return rc;
    if (!group)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "group is NULL"));
    mpir_group_retain(c->remote_group);   /* the caller's reference, for Group_free */
    *group = c->remote_group->handle;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_remote_group)

/* Checks the arguments only the local leader uses; MPI_SUCCESS or a code. */
static int check_peer(const char *fn, const mpir_comm *lc, MPI_Comm peer_comm, int remote_leader,
                      mpir_comm **peer)
{
    mpir_comm *p = *peer = mpir_comm_get(peer_comm);
    if (!p)
        return mpir_err(MPI_ERR_COMM, fn, "invalid peer_comm (0x%x) at the local leader",
                        (unsigned)peer_comm);
    if (remote_leader < 0 || remote_leader >= p->dev.size)
        return mpir_err(MPI_ERR_RANK, fn, "invalid remote_leader %d (peer_comm %s size %d)",
                        remote_leader, p->is_inter ? "remote group" : "comm", p->dev.size);
    if (mpir_group_find(lc->group, p->dev.world_ranks[remote_leader]) != MPI_UNDEFINED)
        return mpir_err(MPI_ERR_RANK, fn, "remote_leader %d of peer_comm is a member of the "
                        "local group (the groups must be disjoint)", remote_leader);
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create";
    MPIR_ENTER(fn);
    mpir_comm *lc, *peer = NULL;
    MPIR_GET_COMM(fn, local_comm, lc);
    int rc = mpir_check_intra(fn, lc);
    if (rc == MPI_SUCCESS && (local_leader < 0 || local_leader >= lc->group->size))
        rc = mpir_err(MPI_ERR_RANK, fn, "invalid local_leader %d (local_comm size %d)",
                      local_leader, lc->group->size);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_tag(fn, "tag", tag, 0);
    if (rc == MPI_SUCCESS && !newintercomm)
        rc = mpir_err(MPI_ERR_ARG, fn, "newintercomm is NULL");
    if (rc)
        return mpir_err_comm(local_comm, rc);
    int lerr = lc->dev.rank == local_leader ? check_peer(fn, lc, peer_comm, remote_leader, &peer)
                                            : MPI_SUCCESS;
    /* record: my world rank, my next context id, my lane in local_comm (a
     * process held there twice has both lanes; the groups hold no process
     * in common, so the intercommunicator keeps them) */
    int mine[3] = { lc->group->world_ranks[lc->dev.rank], mpir_ctx_begin() | (cu_mt != 0),
                    lc->dev.ctx_hi ? lc->dev.ctx_hi[lc->dev.rank] : 0 };
    uint64_t id = mpir_ctx_agreement(lc, 0, lc->agree_seq++);
    int *lall, *rall, rsize, mt, apart;
    rc = swap_tables(&lc->dev, local_leader, lerr, peer ? &peer->dev : NULL, MPID_CTX_PT2PT,
                     remote_leader, tag, mine, 3, &lall, &rall, &rsize);
    if (rc != MPI_SUCCESS) {
        mpir_ctx_end(-1);
        return mpir_err_comm(local_comm, lerr ? lerr : mpir_err(rc, fn, "could not exchange "
                             "the groups with the remote leader"));
    }
    unsigned char *ll, *rl;
    int lrc = lanes_of(lall, lc->group->size, rall, rsize, 3, 2, &ll, &rl, &apart);
    int span = apart ? MPIR_LANES_SPAN : 2;
    int x = sample_max(lall, lc->group->size, rall, rsize, 3, 1, &mt);
    if (mt) {
        create_arg ca = { &lc->dev, peer ? &peer->dev : NULL, local_leader, remote_leader, tag };
        rc = mpir_ctx_confirm(create_max, &ca, x, span, lc->dev.ctx_hi ? id : 0, &x);
    }
    mpir_ctx_end(rc == MPI_SUCCESS ? x + 2 * (span - 1) : -1);
    int *wr = rc == MPI_SUCCESS ? malloc((size_t)rsize * sizeof(int)) : NULL;
    mpir_group *rg = NULL;
    if (wr) {
        for (int i = 0; i < rsize; i++)
            wr[i] = rall[3 * i];
        rg = mpir_group_new(rsize, wr);
    }
    free(wr);
    free(lall);
    free(rall);
    if (rc != MPI_SUCCESS || lrc != MPI_SUCCESS || !rg) {
        free(ll);
        free(rl);
        mpir_group_release(rg);
        return mpir_err_comm(local_comm, rc != MPI_SUCCESS
                             ? mpir_err(rc, fn, "could not agree on a context id")
                             : mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    /* every process sees both groups, so all of them agree on this check */
    for (int i = 0; i < rsize; i++)
        if (mpir_group_find(lc->group, rg->world_ranks[i]) != MPI_UNDEFINED) {
            free(ll);
            free(rl);
            mpir_group_release(rg);
            return mpir_err_comm(local_comm, mpir_err(MPI_ERR_ARG, fn, "the local and the remote "
                                 "group overlap (world rank %d is in both)", rg->world_ranks[i]));
        }
    mpir_comm *ic = mpir_intercomm_new(lc, lc->group, rg, x);
    mpir_group_release(rg);
    if (ic && mpir_intercomm_set_lanes(ic, ll, rl) != MPI_SUCCESS) {
        mpir_comm_release(ic);
        ic = NULL;
    }
    free(ll);
    free(rl);
    if (!ic)
        return mpir_err_comm(local_comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    mpir_intercomm_set_ctx(ic, x);
    *newintercomm = ic->handle;
    return MPI_SUCCESS;
}
MPIR_WEAK(Intercomm_create)

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char fn[] = "MPI_Intercomm_merge";
    MPIR_ENTER(fn);
    mpir_comm *ic;
    int rc = get_inter(fn, intercomm, &ic);
    if (rc)
        return rc;
    if (!newintracomm)
        return mpir_err_comm(intercomm, mpir_err(MPI_ERR_ARG, fn, "newintracomm is NULL"));
    /* record: high, my next context id, who I am (key, job, world rank) and
     * my lane */
    const mpir_comm *lc = ic->local_comm;
    int apart = mpir_intercomm_apart(ic), span = apart ? 2 : 1, *lall, *rall;
    int mine[6] = { high ? 1 : 0, mpir_ctx_begin() | (cu_mt != 0), mpir_dyn_key(),
                    mpir_dyn_job_key(), mpid_world_rank(), apart ? lc->dev.ctx_hi[lc->dev.rank] : 0 };
    uint64_t id = mpir_ctx_agreement(ic, 0, ic->agree_seq++);
    rc = swap_over(ic, mine, 6, &lall, &rall);
    if (rc != MPI_SUCCESS) {
        mpir_ctx_end(-1);
        return mpir_err_comm(intercomm, mpir_err(rc, fn, "could not agree on a context id"));
    }
    const mpir_group *lg = ic->group, *rg = ic->remote_group;
    int mt, x = sample_max(lall, lg->size, rall, rg->size, 6, 1, &mt);
    if (mt)
        rc = mpir_ctx_confirm(over_max, ic, x, span, id, &x);
    mpir_ctx_end(rc == MPI_SUCCESS ? x + 2 * span : -1);
    if (rc != MPI_SUCCESS) {
        free(lall);
        free(rall);
        return mpir_err_comm(intercomm, mpir_err(rc, fn, "could not agree on a context id"));
    }
    /* The group that passed high = false comes first (MPI-3.1 6.6.2); each
     * group's leader speaks for it. When both passed the same value the
     * order is ours to choose, by the leaders' records, which both groups
     * see alike (their world ranks differ where one numbers a process by a
     * routing slot): in one job the lower world rank first, across jobs
     * the lower random key, and one process's two members by lane. */
    const int *L = lall, *R = rall;
    int local_first = L[0] != R[0] ? !L[0]
                      : L[3] == R[3] && L[4] != R[4] ? L[4] < R[4]
                      : L[2] != R[2] ? L[2] < R[2] : L[5] < R[5];
    free(lall);
    free(rall);
    const mpir_group *a = local_first ? lg : rg, *b = local_first ? rg : lg;
    int *wr = malloc((size_t)(a->size + b->size) * sizeof(int));
    mpir_group *g = NULL;
    if (wr) {
        memcpy(wr, a->world_ranks, (size_t)a->size * sizeof(int));
        memcpy(wr + a->size, b->world_ranks, (size_t)b->size * sizeof(int));
        g = mpir_group_new(a->size + b->size, wr);
        free(wr);
    }
    mpir_comm *nc = g ? mpir_comm_new(ic, g, x, 0) : NULL;
    mpir_group_release(g);
    if (!nc)
        return mpir_err_comm(intercomm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    if (apart) {   /* each member keeps its lane: x or x + 2 */
        const unsigned char *la = local_first ? lc->dev.ctx_hi : ic->dev.ctx_hi;
        const unsigned char *lb = local_first ? ic->dev.ctx_hi : lc->dev.ctx_hi;
        nc->dev.ctx_hi = malloc((size_t)(a->size + b->size));
        if (!nc->dev.ctx_hi) {
            mpir_comm_release(nc);
            return mpir_err_comm(intercomm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
        }
        memcpy(nc->dev.ctx_hi, la, (size_t)a->size);
        memcpy(nc->dev.ctx_hi + a->size, lb, (size_t)b->size);
        mpir_comm_set_ctx(nc, x);
    }
    *newintracomm = nc->handle;
    return MPI_SUCCESS;
}
MPIR_WEAK(Intercomm_merge)
