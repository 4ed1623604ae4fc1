/*
 * comm_idup.c — MPI_Comm_idup, for intra- and intercommunicators.
 *
 * The duplicate exists from the call (handle, attributes, topology, info, as
 * MPI-3.1 6.4.2 asks: as if MPI_Comm_dup ran then); only its context id is
 * agreed later, by a request that progress polls. The blocking creations
 * take the maximum of every member's next id at once; here other
 * communicators may be made between sampling the counter and learning the
 * maximum, so the id found may already be taken. Hence rounds, each a
 * nonblocking "maximum" over all members (over both groups of an
 * intercommunicator) of a record {next id, refused}:
 *   round 1 proposes the maximum m; each process refuses m when a
 *   communicator of its own (or another pending idup) holds it, else it
 *   reserves it; every process moves its counter past m;
 *   the next round's maximum of `refused` says whether everyone took m; if
 *   someone refused, its maximum of the counters is the next proposal.
 * Communicators made meanwhile start above m on every process that has seen
 * it, and the ones made before are caught by the refusals. An
 * intercommunicator's duplicate takes m and m+2, or m .. m+6 when it has
 * lanes (core.h); then a process may be held twice, so the reservations
 * carry the agreement's identity (mpir_ctx_agreement) and its two threads
 * never refuse each other.
 *
 * A round: the members send their records to rank 0 of their group, which
 * folds them, swaps with the other group's rank 0 (intercommunicators), and
 * sends the result back. Tags come from a per-communicator count of idups,
 * in a range of their own below the nonblocking collectives' tags.
 */
#include <stdlib.h>
#include "src/core.h"
#include "src/pt2pt.h"

#define IDUP_TAG_FIRST (-(1 << 26))
#define IDUP_SEQ_MASK  0xffffff

enum { ST_GATHER, ST_SWAP, ST_SEND, ST_RESULT, ST_DONE };

typedef struct idup_op {
    mpir_comm    *nc;       /* the duplicate; NULL: it could not be made here */
    mpid_comm     local;    /* my group: the parent's view, or its local_comm's */
    mpid_comm     inter;    /* intercommunicator parent: the view between the groups */
    int           is_inter;
    mpir_group   *g, *rg;   /* retained: their world ranks back the views */
    int           tag, state;
    int           mine[2];  /* this round's record: next id, refused */
    int           acc[2];   /* the maximum (at rank 0: folded so far) */
    int           other[2]; /* the other group's maximum */
    int          *in;       /* rank 0: the members' records */
    mpid_request **reqs;    /* [local.size + 1] */
    int           nreq;
    int           proposal; /* the id under test, or -1 */
    int           apart;    /* the parent's members have lanes */
    int           span;     /* ids the duplicate takes from the proposal */
    int           held;     /* of them, reserved here */
    uint64_t      id;       /* the agreement's identity (0: anonymous) */
    int           err;
} idup_op;

static const cu_dtype *dt_int(void)
{
    return cu_dtype_builtin(MPI_INT & 0xffffff);
}

static int post_recv(idup_op *op, int *buf, int peer, const mpid_comm *view)
{
    int rc = mpid_irecv(buf, 2, dt_int(), peer, op->tag, view, MPID_CTX_COLL,
                        &op->reqs[op->nreq]);
    op->nreq += rc == MPI_SUCCESS;
    return rc;
}

static int post_send(idup_op *op, const int *buf, int peer, const mpid_comm *view)
{
    int rc = mpid_isend(buf, 2, dt_int(), peer, op->tag, view, MPID_CTX_COLL,
                        MPID_SEND_STANDARD, &op->reqs[op->nreq]);
    op->nreq += rc == MPI_SUCCESS;
    return rc;
}

/* Nonzero once every posted request has completed (then they are freed);
 * the first error goes to op->err. */
static int reqs_done(idup_op *op)
{
    for (int i = 0; i < op->nreq; i++)
        if (!op->reqs[i]->done)
            return 0;
    for (int i = 0; i < op->nreq; i++) {
        if (op->err == MPI_SUCCESS)
            op->err = op->reqs[i]->status.MPI_ERROR;
        mpid_request_free(op->reqs[i]);
    }
    op->nreq = 0;
    return 1;
}

static void start_round(idup_op *op, int refused)
{
    op->mine[0] = mpir_ctx_next();
    op->mine[1] = refused;
    int rc = MPI_SUCCESS;
    if (op->local.rank == 0) {
        for (int r = 1; r < op->local.size && rc == MPI_SUCCESS; r++)
            rc = post_recv(op, op->in + 2 * r, r, &op->local);
        op->state = ST_GATHER;
    } else {
        rc = post_send(op, op->mine, 0, &op->local);
        if (rc == MPI_SUCCESS)
            rc = post_recv(op, op->acc, 0, &op->local);
        op->state = ST_RESULT;
    }
    if (op->err == MPI_SUCCESS)
        op->err = rc;
}

/* Gives up the ids this process reserved for the proposal. */
static void unreserve(idup_op *op)
{
    while (op->held > 0)
        mpir_ctx_unreserve(op->proposal + 2 * --op->held);
}

/* Every process of the parent has this round's maximum in op->acc. */
static void round_done(idup_op *op)
{
    if (op->proposal >= 0 && op->acc[1] == 0) {
        op->state = ST_DONE;   /* everyone took the proposal */
        return;
    }
    unreserve(op);
    int m = op->proposal = op->acc[0], last = m + 2 * (op->span - 1);
    /* a blocking agreement under way here may end on any id from its sample */
    int busy = mpir_ctx_inflight();
    int refused = busy >= 0 && last + 2 >= busy;
    for (int k = 0; k < op->span && !refused; k++)
        refused = mpir_ctx_taken_by_other(m + 2 * k, op->id);
    while (!refused && op->held < op->span)
        if (mpir_ctx_reserve_as(m + 2 * op->held++, op->id) != MPI_SUCCESS)
            refused = 1;
    mpir_ctx_accept(last);
    start_round(op, refused);
}

/* One step of the state machine; nonzero when it moved (2: a round ended). */
static int advance(idup_op *op)
{
    switch (op->state) {
    case ST_GATHER:
        if (!reqs_done(op))
            return 0;
        op->acc[0] = op->mine[0];
        op->acc[1] = op->mine[1];
        for (int r = 1; r < op->local.size; r++)
            mpir_ctx_fold_max(op->in + 2 * r, 1, 2, op->acc);
        op->state = ST_SWAP;
        if (op->is_inter) {
            int rc = post_recv(op, op->other, 0, &op->inter);
            if (rc == MPI_SUCCESS)
                rc = post_send(op, op->acc, 0, &op->inter);
            if (op->err == MPI_SUCCESS)
                op->err = rc;
            return 1;
        }
        /* an intracommunicator has nothing to swap */
        /* fall through */
    case ST_SWAP:
        if (!reqs_done(op))
            return 0;
        if (op->is_inter)
            mpir_ctx_fold_max(op->other, 1, 2, op->acc);
        for (int r = 1; r < op->local.size; r++) {
            int rc = post_send(op, op->acc, r, &op->local);
            if (op->err == MPI_SUCCESS)
                op->err = rc;
        }
        op->state = ST_SEND;
        return 1;
    case ST_SEND:
    case ST_RESULT:
        if (!reqs_done(op))
            return 0;
        round_done(op);
        return 2;
    default:
        return 0;
    }
}

static void op_free(idup_op *op)
{
    mpir_group_release(op->g);
    mpir_group_release(op->rg);
    free(op->in);
    free(op->reqs);
    free(op);
}

static int idup_poll(mpid_request *req)
{
    idup_op *op = req->user;
    int moved = 0;
    /* one round per poll at most: a refused round on a parent of one
     * process ends at once, and the agreement it waits for needs the lock */
    for (int a = 1; a != 2 && op->state != ST_DONE && op->err == MPI_SUCCESS;)
        if ((a = advance(op)) != 0)
            moved = 1;
        else
            break;
    if (op->err != MPI_SUCCESS && op->nreq && !reqs_done(op))
        return moved;   /* a failed round: let what is posted finish */
    if (op->state != ST_DONE && op->err == MPI_SUCCESS)
        return moved;
    unreserve(op);
    if (op->nc && op->err == MPI_SUCCESS) {
        if (op->is_inter)
            mpir_intercomm_set_ctx(op->nc, op->proposal);
        else
            mpir_comm_set_ctx(op->nc, op->proposal);
    }
    mpir_status_empty(&req->status);
    req->status.MPI_ERROR = op->err;
    req->user = NULL;
    int orphan = !op->nc;
    op_free(op);
    req->done = 1;
    if (orphan)
        mpid_request_free(req);   /* nobody waits for it */
    return 1;
}

/* The agreement over c for nc (NULL: take part only); *out is its request. */
static int idup_start(mpir_comm *c, mpir_comm *nc, mpid_request **out)
{
    idup_op *op = calloc(1, sizeof *op);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->nc = nc;
    op->is_inter = c->is_inter;
    op->local = c->is_inter ? c->local_comm->dev : c->dev;
    op->inter = c->dev;
    op->g = c->group;
    mpir_group_retain(op->g);
    if (c->is_inter) {
        op->rg = c->remote_group;
        mpir_group_retain(op->rg);
    }
    op->apart = c->is_inter ? mpir_intercomm_apart(c)
                            : (c->dev.remote_context_id & MPID_CTX_BY_RANK) != 0;
    op->span = !c->is_inter ? 1 + op->apart : op->apart ? MPIR_LANES_SPAN : 2;
    op->id = op->apart ? mpir_ctx_agreement(c, 1, c->idup_seq) : 0;
    op->tag = IDUP_TAG_FIRST - (int)(c->idup_seq++ & IDUP_SEQ_MASK);
    op->proposal = -1;
    op->in = malloc((size_t)op->local.size * 2 * sizeof(int));
    op->reqs = malloc((size_t)(op->local.size + 1) * sizeof *op->reqs);
    mpid_request *r = op->in && op->reqs ? mpid_request_new_other() : NULL;
    if (!r) {
        op_free(op);
        return MPI_ERR_NO_MEM;
    }
    r->user = op;
    r->mpir_kind = MPIR_REQ_NBC;   /* Request_free and Cancel refuse it */
    start_round(op, 0);
    r->poll = idup_poll;
    idup_poll(r);
    *out = r;
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    static const char fn[] = "MPI_Comm_idup";
    MPIR_ENTER(fn);
    mpir_comm *c;
    int rc = mpir_comm_dup_checks(fn, comm, 0, MPI_INFO_NULL, newcomm, &c);
    if (rc)
        return rc;
    if (!request)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "request is NULL"));
    *request = MPI_REQUEST_NULL;
    mpir_comm *nc = c->is_inter
                        ? mpir_intercomm_new(c, c->group, c->remote_group, 0)
                        : mpir_comm_new(c, c->group, 0, 0);
    if (nc && (c->is_inter ? mpir_intercomm_set_lanes(nc, c->local_comm->dev.ctx_hi,
                                                      c->dev.ctx_hi)
                           : mpir_comm_sides_of(c, c->group, &nc->dev.ctx_hi)) != MPI_SUCCESS) {
        mpir_comm_release(nc);
        nc = NULL;
    }
    int prc = nc ? mpir_comm_dup_props(fn, c, nc, c->info)
                 : mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    if (prc != MPI_SUCCESS)
        nc = NULL;   /* released; still take part, so the others complete */
    else {
        nc->dev.context_id = nc->dev.remote_context_id = MPIR_CTX_PENDING;
        if (nc->is_inter)
            nc->local_comm->dev.context_id = nc->local_comm->dev.remote_context_id =
                MPIR_CTX_PENDING;
    }
    mpid_request *r;
    rc = idup_start(c, nc, &r);
    if (rc != MPI_SUCCESS || prc != MPI_SUCCESS) {
        if (nc) {
            mpir_comm_attrs_free(nc);
            mpir_comm_release(nc);
        }
        return mpir_err_comm(comm, prc != MPI_SUCCESS ? prc
                                   : mpir_err(rc, fn, "could not start the agreement"));
    }
    *newcomm = nc->handle;
    return mpir_req_handle(fn, r, comm, request);
}
MPIR_WEAK(Comm_idup)
