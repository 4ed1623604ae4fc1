/*
 * dynamic.c — the intercommunicator between a group of this job and a
 * group of another (MPI-3.1 chapter 10), built once the two roots hold a
 * connected stream socket: MPI_Comm_accept/connect (port.c) and
 * MPI_Comm_join come here; and MPI_Comm_disconnect.
 *
 * Handshake: each group allgathers a record per process (its next context
 * id, its network address), the roots swap headers and their groups'
 * tables over the socket, and each root broadcasts the outcome and the
 * other group's table. Contexts follow intercomm.c: the largest next id X
 * of both groups is the intercommunicator's, X+2 its local
 * intracommunicator's. Then every process numbers the remote processes in
 * its own routing table (mpid/dynpeer.c: the slot a process already has
 * there, or a free one), the groups swap these numbers through their
 * roots, and each process puts on its packets to a remote process the
 * number that process gave it. The socket only carries the handshake;
 * traffic goes over the network channel.
 *
 * Under MPI_THREAD_MULTIPLE (any member's sample carries the flag bit 1)
 * other threads make communicators and connect meanwhile, so the agreed
 * ids are confirmed in rounds (confirm()), as comm.c's are, over both
 * groups. A process may be on both sides (one thread accepts, another
 * connects), or twice in one group (a group made from such a connection's
 * merge), so the agreement has an identity, the larger of the roots'
 * random ids, and its own reservations never refuse it. A process held
 * twice is found by its address in the records, and its two members get
 * lanes of their own (core.h; lanes_by_address: in the order of the sides,
 * side 0 the group whose root's id is the smaller): lane 0 receives on X
 * and lane 1 on X+2, each sent to with its own, and their local
 * communicators take X+4 and X+6. So the two intercommunicators of such a
 * process match nothing of each other's, and its two incarnations on both
 * sides reach each other through two slots of their own (a process in both
 * groups is never given a shared slot).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include "src/core.h"
#include "src/dynamic.h"
#include "coll/coll.h"
#include "src/util/clock.h"

#define DYN_MAGIC 0x434c4459                 /* "CLDY" */
#define REC_INTS  (2 + MPID_DYN_ADDR_MAX / 4) /* context, address bytes, address */
#define HDR_INTS  7   /* magic, error class, size, context, MULTIPLE, agreement id (2) */

static const cu_dtype *dt_int(void)
{
    return cu_dtype_builtin(MPI_INT & 0xffffff);
}

int mpir_group_foreign(const mpir_group *g)
{
    int ws = mpid_world_size();
    for (int i = 0; i < g->size; i++)
        if (g->world_ranks[i] >= ws)
            return 1;
    return 0;
}

int mpir_dyn_ctx_holds(uint32_t ctx, int slot)
{
    for (int i = 1; i < mpir_comms.cap; i++) {
        const mpir_comm *c = mpir_comms.obj[i];
        if (c && c->dev.context_id != ctx)
            c = c->local_comm && c->local_comm->dev.context_id == ctx ? c->local_comm : NULL;
        for (int j = 0; c && j < c->dev.size; j++)
            if (c->dev.world_ranks[j] == slot)
                return 1;
    }
    return 0;
}

/* FNV-1a of the job id. */
static unsigned job_hash(void)
{
    unsigned h = 2166136261u;
    for (const char *s = mpid_job_id(); *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

int mpir_dyn_job_key(void)
{
    return (int)(job_hash() & 0x7fffffff);
}

int mpir_dyn_node_color(void)
{
    unsigned h = (job_hash() ^ (unsigned)mpid_node_of(mpid_world_rank())) * 16777619u;
    return (int)(h & 0x7fffffff);
}

int mpir_dyn_key(void)
{
    static int key = -1;
    if (key < 0) {
        unsigned v = 0;
        if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
            v = (unsigned)cu_now_ns() ^ ((unsigned)getpid() << 16);
        key = (int)(v & 0x7fffffffu);
    }
    return key;
}

int mpir_sock_swap(int fd, const void *out, size_t olen, void *in, size_t ilen,
                   long long deadline_ns)
{
    const char *o = out;
    char *i = in;
    while (olen || ilen) {
        struct pollfd p = { .fd = fd, .events = (short)((olen ? POLLOUT : 0) | (ilen ? POLLIN : 0)) };
        int n = mpir_poll(&p, 1, 1);
        if (n < 0 && errno != EINTR)
            return -errno;
        if (n > 0 && (p.revents & POLLOUT) && olen) {
            ssize_t k = send(fd, o, olen, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (k < 0 && errno != EAGAIN && errno != EINTR)
                return -errno;
            if (k > 0) {
                o += k;
                olen -= (size_t)k;
            }
        }
        if (n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) && ilen) {
            ssize_t k = recv(fd, i, ilen, MSG_DONTWAIT);
            if (k == 0)
                return -ECONNRESET;
            if (k < 0 && errno != EAGAIN && errno != EINTR)
                return -errno;
            if (k > 0) {
                i += k;
                ilen -= (size_t)k;
            }
        } else if (n > 0 && (p.revents & (POLLHUP | POLLERR)) && olen)
            return -ECONNRESET;
        if (deadline_ns > 0 && cu_now_ns() > deadline_ns)
            return -ETIMEDOUT;
        mpid_progress();   /* our own peers may wait for us meanwhile */
    }
    return 0;
}

/* The largest context sample of rows records, without the flag bit, and
 * whether any carried it (*mt). */
static int ctx_max(const int *t, int rows, int *mt)
{
    int m = 0;
    *mt = 0;
    for (int r = 0; r < rows; r++) {
        int v = t[r * REC_INTS];
        *mt |= v & 1;
        if ((v & ~1) > m)
            m = v & ~1;
    }
    return m;
}

/* A confirmation under way: the agreement, and my part of it. */
typedef struct agreement {
    const char *fn;
    mpir_comm *c;
    int root, fd, errclass;
    long long deadline;
    uint64_t id;
} agreement;

/* One exchange of a round over both groups: mine = {refused, next id};
 * *out = {error class, any refused, largest id} alike at every member of
 * both groups. */
static int round_swap(const agreement *a, const int *mine, int *out)
{
    int lsize = a->c->group->size;
    int *all = malloc((size_t)lsize * 2 * sizeof(int));
    int rc = all ? coll_allgather(mine, 2, dt_int(), all, 2, dt_int(), &a->c->dev)
                 : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(all);
        return mpir_err(rc, a->fn, "the group could not confirm its context id");
    }
    out[0] = out[1] = out[2] = 0;
    for (int i = 0; i < lsize; i++)
        for (int j = 0; j < 2; j++)
            out[j + 1] = all[i * 2 + j] > out[j + 1] ? all[i * 2 + j] : out[j + 1];
    free(all);
    if (a->c->dev.rank == a->root) {
        int theirs[2];
        if (mpir_sock_swap(a->fd, &out[1], sizeof theirs, theirs, sizeof theirs,
                           a->deadline) != 0)
            out[0] = MPI_ERR_OTHER;
        for (int j = 0; j < 2 && !out[0]; j++)
            out[j + 1] = theirs[j] > out[j + 1] ? theirs[j] : out[j + 1];
    }
    rc = coll_bcast(out, 3, dt_int(), a->root, &a->c->dev);
    if (rc == MPI_SUCCESS && out[0])
        rc = mpir_err(a->errclass, a->fn, "the connection broke while confirming the "
                      "context id");
    else if (rc != MPI_SUCCESS)
        rc = mpir_err(rc, a->fn, "the group could not confirm its context id");
    return rc;
}

/* Gives up what a round held: the first `held` of ids x, x+2, .... */
static void release(int x, int held)
{
    while (held > 0)
        mpir_ctx_unreserve(x + 2 * --held);
}

/* Rounds from ids *x until no member of either group refuses them: each
 * member refuses what is taken, or held by another agreement, and holds
 * the rest. On success the holds stay until release(); an error code
 * naming fn otherwise. */
static int confirm(const agreement *a, int *x)
{
    for (;;) {
        int refused = 0, held = 0;
        for (int k = 0; k < MPIR_LANES_SPAN && !refused; k++)
            refused = mpir_ctx_taken_by_other(*x + 2 * k, a->id);
        while (!refused && held < MPIR_LANES_SPAN)
            if (mpir_ctx_reserve_as(*x + 2 * held++, a->id) != MPI_SUCCESS)
                refused = 1;
        mpir_ctx_accept(*x + 2 * (MPIR_LANES_SPAN - 1));
        int out[3], mine[2] = { refused, mpir_ctx_next() };
        int rc = round_swap(a, mine, out);
        if (rc != MPI_SUCCESS || out[1])
            release(*x, held);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!out[1])
            return MPI_SUCCESS;
        *x = out[2];
    }
}

/* A random agreement id half: 31 bits. */
static int random_half(void)
{
    unsigned v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = (unsigned)cu_now_ns() ^ ((unsigned)getpid() << 16);
    return (int)(v & 0x7fffffffu);
}

/* At the root: swaps the header and the tables with the other root.
 * Returns MPI_SUCCESS with *rt (malloc'd, rhdr[2] records) or an error
 * class; a class of ours goes to the other side in the header too. */
static int root_swap(const char *fn, int fd, int err, int errclass, long long deadline,
                     const int *lt, int lsize, int *hdr_out, int *rhdr, int **rt)
{
    int mt, x = ctx_max(lt, lsize, &mt);
    int hdr[HDR_INTS] = { DYN_MAGIC, err, lsize, x, mt, random_half(), random_half() | 1 };
    *rt = NULL;
    for (int i = 0; !err && i < lsize; i++)
        if (lt[i * REC_INTS + 1] <= 0)
            hdr[1] = err = mpir_err(-lt[i * REC_INTS + 1], fn, "process %d of the group "
                                    "could not open a network endpoint for other jobs", i);
    hdr[1] &= 0xff;
    memcpy(hdr_out, hdr, sizeof hdr);
    if (fd < 0)
        return err;   /* no connection to tell */
    int rc = mpir_sock_swap(fd, hdr, sizeof hdr, rhdr, HDR_INTS * sizeof(int), deadline);
    if (rc)
        return err ? err : mpir_err(errclass, fn, "the other side of the connection %s",
                                    rc == -ETIMEDOUT ? "did not answer in time"
                                                     : "closed it or failed");
    if (err)
        return err;
    if (rhdr[0] != DYN_MAGIC || rhdr[2] <= 0 || rhdr[2] > (1 << 24))
        return mpir_err(errclass, fn, "the other side of the connection is not an MPI "
                        "process in a matching call");
    if (rhdr[1])
        return mpir_err(rhdr[1] & 0xff, fn, "the other group failed to connect");
    *rt = malloc((size_t)rhdr[2] * REC_INTS * sizeof(int));
    if (!*rt)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    rc = mpir_sock_swap(fd, lt, (size_t)lsize * REC_INTS * sizeof(int), *rt,
                        (size_t)rhdr[2] * REC_INTS * sizeof(int), deadline);
    if (rc)
        return mpir_err(errclass, fn, "the connection broke during the handshake");
    return MPI_SUCCESS;
}

/* Gives up the references mine[0 .. n-1] hold (entries < 0 hold none). */
static void slots_drop(const int *mine, int n)
{
    for (int j = 0; j < n; j++)
        if (mine[j] >= 0)
            mpid_dyn_unref(mine[j]);
}

/* Whether every member of a's group says ok (each one's flag gathered). */
static int all_ok(const agreement *a, int ok, int *rc)
{
    int lsize = a->c->group->size, tmp;
    int *all = malloc((size_t)lsize * sizeof(int));
    *rc = coll_allgather(&ok, 1, dt_int(), all ? all : &tmp, all ? 1 : 0, dt_int(),
                         &a->c->dev);
    for (int i = 0; all && i < lsize; i++)
        ok &= all[i];
    free(all);
    return ok && all && *rc == MPI_SUCCESS;
}

/* How many of the n records of t have the address of record r. */
static int count_in(const int *t, int n, const int *r)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += t[i * REC_INTS + 1] == r[1] && !memcmp(&t[i * REC_INTS + 2], &r[2], (size_t)r[1]);
    return k;
}

static int in_table(const int *t, int n, const int *r)
{
    return count_in(t, n, r) > 0;
}

/* The lanes (core.h) of both groups' members into ll (my group's rows) and
 * rl: a process's occurrences take lanes 0, 1 in the order side 0's group,
 * then side 1's (mine is side), so every member of both groups finds the
 * same; *apart: some lane is 1. An error code naming fn when a process
 * would be in the intercommunicator three times. */
static int lanes_by_address(const char *fn, const int *lt, int lsize, const int *rt, int rsize,
                            int side, unsigned char *ll, unsigned char *rl, int *apart)
{
    const int *t[2] = { side ? rt : lt, side ? lt : rt };
    int n[2] = { side ? rsize : lsize, side ? lsize : rsize };
    unsigned char *out[2] = { side ? rl : ll, side ? ll : rl };
    *apart = 0;
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < n[g]; i++) {
            const int *r = &t[g][i * REC_INTS];
            int k = count_in(t[g], i, r) + (g ? count_in(t[0], n[0], r) : 0);
            if (k > 1)
                return mpir_err(MPI_ERR_UNSUPPORTED_OPERATION, fn, "a process would be in the "
                                "intercommunicator three times (process %d of the %s group)", i,
                                g == side ? "local" : "remote");
            out[g][i] = (unsigned char)k;
            *apart |= k;
        }
    return MPI_SUCCESS;
}

/* Every member numbers the rsize remote processes (rt) itself: (*mine)[j],
 * the slot it routes remote process j by (the one it has for that process
 * already, or a free one; a reference each; a process in both groups (lt,
 * the local one) gets a slot of its own on each side, which tells the two
 * intercommunicators of one context apart); then the groups swap their
 * numbers, and (*ids)[j] is the slot remote process j gave me, which my
 * packets to it carry. At every member alike: MPI_SUCCESS with *mine and
 * *ids malloc'd, or an error code naming fn with no reference held. */
static int slots_swap(const agreement *a, const int *lt, const int *rt, int rsize, int **mine,
                      int **ids)
{
    const char *fn = a->fn;
    int lsize = a->c->group->size, me = a->c->dev.rank, rc = MPI_SUCCESS, crc;
    size_t cells = (size_t)lsize * (size_t)rsize;
    int *m = *mine = malloc((size_t)rsize * sizeof(int)), *all = malloc(cells * sizeof(int));
    int *theirs = malloc(cells * sizeof(int));
    *ids = malloc((size_t)rsize * sizeof(int));
    for (int j = 0; m && j < rsize; j++) {
        m[j] = -1;
        if (rc == MPI_SUCCESS)
            rc = mpid_dyn_acquire(&rt[j * REC_INTS + 2], (size_t)rt[j * REC_INTS + 1],
                                  !in_table(lt, lsize, &rt[j * REC_INTS]), &m[j]);
    }
    int ok = all_ok(a, m && all && theirs && *ids && rc == MPI_SUCCESS, &crc);
    if (ok)
        crc = coll_allgather(m, (size_t)rsize, dt_int(), all, (size_t)rsize, dt_int(),
                             &a->c->dev);
    int out[2] = { ok ? crc : MPI_ERR_NO_MEM, 0 };   /* error class, the other group's */
    if (me == a->root) {
        int hdr[2] = { DYN_MAGIC, out[0] }, rhdr[2];
        if (mpir_sock_swap(a->fd, hdr, sizeof hdr, rhdr, sizeof rhdr, a->deadline) != 0 ||
            rhdr[0] != DYN_MAGIC)
            out[1] = a->errclass;
        else if (rhdr[1])
            out[1] = rhdr[1];
        else if (!out[0] && mpir_sock_swap(a->fd, all, cells * sizeof(int), theirs,
                                           cells * sizeof(int), a->deadline) != 0)
            out[1] = a->errclass;
    }
    int brc = coll_bcast(out, 2, dt_int(), a->root, &a->c->dev);
    if (brc == MPI_SUCCESS && !out[0] && !out[1])
        brc = coll_bcast(theirs, cells, dt_int(), a->root, &a->c->dev);
    ok = brc == MPI_SUCCESS && !out[0] && !out[1];
    for (int j = 0; ok && j < rsize; j++)   /* theirs: rsize rows of lsize */
        (*ids)[j] = theirs[j * lsize + me];
    free(all);
    free(theirs);
    if (ok)
        return MPI_SUCCESS;
    slots_drop(m, m ? rsize : 0);
    free(*mine);
    free(*ids);
    *mine = *ids = NULL;
    if (rc != MPI_SUCCESS)
        return mpir_err(rc, fn, "no routing slot is free for the other group's processes");
    if (brc != MPI_SUCCESS || crc != MPI_SUCCESS)
        return mpir_err(brc ? brc : crc, fn, "the group could not share its routing slots");
    if (out[0])
        return mpir_err(out[0], fn, "a process of the group has no routing slot free for "
                        "the other group's processes");
    return mpir_err(out[1] & 0xff, fn, "the other group could not route to this one");
}

/* Routes every remote process by the slots mine[] (their ids[] for us) and
 * makes the intercommunicator of context x, at every member alike, with
 * the lanes ll, rl (NULL: none). The slots' handshake references go. */
static int build(const char *fn, mpir_comm *c, int rsize, const int *rt, const int *mine,
                 const int *ids, int x, const unsigned char *ll, const unsigned char *rl,
                 mpir_comm **out)
{
    int rc = MPI_SUCCESS;
    for (int j = 0; j < rsize && rc == MPI_SUCCESS; j++) {
        rc = mpid_dyn_add(mine[j], &rt[j * REC_INTS + 2], (size_t)rt[j * REC_INTS + 1], ids[j]);
        if (rc != MPI_SUCCESS)
            rc = mpir_err(rc, fn, "cannot route to process %d of the other group", j);
    }
    mpir_group *rg = rc == MPI_SUCCESS ? mpir_group_new(rsize, mine) : NULL;
    slots_drop(mine, rsize);   /* the group holds them now */
    if (rc != MPI_SUCCESS)
        return rc;
    mpir_comm *ic = rg ? mpir_intercomm_new(c, c->group, rg, x) : NULL;
    mpir_group_release(rg);
    if (ic && mpir_intercomm_set_lanes(ic, ll, rl) != MPI_SUCCESS) {
        mpir_comm_release(ic);
        ic = NULL;
    }
    if (!ic)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    mpir_intercomm_set_ctx(ic, x);
    *out = ic;
    return MPI_SUCCESS;
}

/* res: error class, remote size, context, MULTIPLE, agreement id (2), my side */
#define RES_INTS 7

int mpir_dyn_connect(const char *fn, mpir_comm *c, int root, int fd, int root_err,
                     int errclass, long long deadline_ns, mpir_comm **out)
{
    int lsize = c->group->size, me = c->dev.rank;
    int rec[REC_INTS] = { 0 };
    *out = NULL;
    rec[0] = mpir_ctx_begin() | (cu_mt != 0);
    size_t alen = MPID_DYN_ADDR_MAX;
    int arc = mpid_dyn_addr(&rec[2], &alen);
    rec[1] = arc ? -arc : (int)alen;
    int *lt = malloc((size_t)lsize * REC_INTS * sizeof(int)), *rt = NULL;
    int rc = lt ? coll_allgather(rec, REC_INTS, dt_int(), lt, REC_INTS, dt_int(), &c->dev)
                : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {   /* the others cannot be told: as a failed collective */
        free(lt);
        mpir_ctx_end(-1);
        return mpir_err(rc, fn, "the group could not gather its addresses");
    }
    int res[RES_INTS] = { 0 };
    if (me == root) {
        int hdr[HDR_INTS], rhdr[HDR_INTS];
        int err = root_swap(fn, fd, root_err, errclass, deadline_ns, lt, lsize, hdr, rhdr, &rt);
        if (err == MPI_SUCCESS) {
            res[1] = rhdr[2];
            res[2] = rhdr[3] > hdr[3] ? rhdr[3] : hdr[3];
            res[3] = hdr[4] | rhdr[4];
            res[4] = rhdr[5] > hdr[5] ? rhdr[5] : hdr[5];
            res[5] = rhdr[6] > hdr[6] ? rhdr[6] : hdr[6];
            res[6] = hdr[5] > rhdr[5] || (hdr[5] == rhdr[5] && hdr[6] > rhdr[6]);
        }
        res[0] = err;
    }
    rc = coll_bcast(res, RES_INTS, dt_int(), root, &c->dev);
    if (rc == MPI_SUCCESS && res[0] == MPI_SUCCESS) {
        if (me != root && !(rt = malloc((size_t)res[1] * REC_INTS * sizeof(int))))
            rc = MPI_ERR_NO_MEM;   /* still takes part in the broadcast */
        int tmp, brc = coll_bcast(rt ? rt : &tmp, rt ? (size_t)res[1] * REC_INTS : 0, dt_int(),
                                  root, &c->dev);
        if (rc == MPI_SUCCESS)
            rc = brc;
    }
    if (rc == MPI_SUCCESS && res[0] != MPI_SUCCESS)
        rc = me == root ? res[0] : mpir_err(res[0] & 0xff, fn, "the root (rank %d) could not "
                                            "connect the groups", root);
    else if (rc != MPI_SUCCESS)
        rc = mpir_err(rc, fn, "the root could not share the other group's addresses");
    agreement a = { fn, c, root, fd, errclass, deadline_ns,
                    (uint64_t)res[4] << 32 | (uint32_t)res[5] };
    int x = res[2], rsize = res[1], apart = 0;
    unsigned char *ll = NULL;   /* my group's lanes, then the other's */
    if (rc == MPI_SUCCESS && !(ll = malloc((size_t)(lsize + rsize))))
        rc = mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    if (rc == MPI_SUCCESS)
        rc = lanes_by_address(fn, lt, lsize, rt, rsize, res[6], ll, ll + lsize, &apart);
    if (rc == MPI_SUCCESS && res[3])
        rc = confirm(&a, &x);
    int *mine = NULL, *ids = NULL;
    if (rc == MPI_SUCCESS) {
        rc = slots_swap(&a, lt, rt, rsize, &mine, &ids);
        if (rc != MPI_SUCCESS && res[3])
            release(x, MPIR_LANES_SPAN);
    }
    free(lt);
    if (rc != MPI_SUCCESS) {
        free(rt);
        free(ll);
        mpir_ctx_end(-1);
        return rc;
    }
    mpir_ctx_end(res[3] || apart ? x + 2 * (MPIR_LANES_SPAN - 1) : x + 2);
    rc = build(fn, c, rsize, rt, mine, ids, x, apart ? ll : NULL, apart ? ll + lsize : NULL,
               out);
    free(ll);
    if (res[3])   /* the communicator shows them now */
        release(x, MPIR_LANES_SPAN);
    free(rt);
    free(mine);
    free(ids);
    return rc;
}

/* ---- entry points ---------------------------------------------------------- */

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char fn[] = "MPI_Comm_join";
    MPIR_ENTER(fn);
    if (!intercomm)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "intercomm is NULL"));
    *intercomm = MPI_COMM_NULL;
    int type = 0;
    socklen_t tl = sizeof type;
    if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_STREAM)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "fd %d is not a connected stream "
                                       "socket", fd));
    mpir_comm *self = mpir_comm_get(MPI_COMM_SELF), *ic;
    int rc = mpir_dyn_connect(fn, self, 0, fd, MPI_SUCCESS, MPI_ERR_OTHER, 0, &ic);
    if (rc != MPI_SUCCESS)
        return mpir_err_world(rc);
    *intercomm = ic->handle;
    return MPI_SUCCESS;
}
MPIR_WEAK(Comm_join)

/* *v |= the same of every member of this job in the intracommunicator c,
 * found among them alone (ranked in c's order, on c's collective context):
 * members of other jobs, lost or not, take no part. */
static int own_job_or(const mpir_comm *c, int *v)
{
    int ws = mpid_world_size(), n = 0, me = -1;
    int *wr = malloc(sizeof *wr * (size_t)c->dev.size), *seen = NULL;
    if (!wr)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < c->dev.size; i++)
        if (c->dev.world_ranks[i] < ws) {
            if (i == c->dev.rank)
                me = n;
            wr[n++] = c->dev.world_ranks[i];
        }
    int rc = MPI_SUCCESS;
    mpir_group *g = NULL;
    mpid_comm sub = { .context_id = c->dev.context_id, .rank = me, .size = n,
                      .world_ranks = wr, .remote_context_id = c->dev.remote_context_id };
    /* me < 0: this process holds c twice and this is its other job's side;
     * its own side takes part for it */
    if (me < 0 || n == 1)
        goto out;
    if (!(g = mpir_group_new(n, wr)) || !(seen = malloc(sizeof *seen * (size_t)n))) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    g->rank = me;
    if ((rc = mpir_comm_sides_of(c, g, &sub.ctx_hi)) != MPI_SUCCESS)
        goto out;
    rc = coll_allgather_tag(v, 1, dt_int(), seen, 1, dt_int(), &sub, MPIR_TAG_DISCONNECT_AGREE);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        *v |= seen[i];
out:
    free(sub.ctx_hi);
    free(seen);
    if (g)
        mpir_group_release(g);
    free(wr);
    return rc;
}

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_disconnect";
    MPIR_ENTER(fn);
    mpir_comm *c;
    int rc = mpir_comm_free_checks(fn, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    /* What we sent is out of the device, then everyone has come this far:
     * every message before the barrier has arrived. A process that is
     * gone (mpid_dyn_lost) has nothing more to receive and would never
     * come: then there is no barrier. This job's members agree on that
     * first (the local group of an intercommunicator; in an
     * intracommunicator, the members of this job), since a member that has
     * not talked to the lost process yet would wait in the barrier for
     * those that skip it. A lost process's job is ended by its mpirun. */
    int lost = 0;
    for (int i = 0; i < c->dev.size; i++) {
        mpid_dyn_drain(c->dev.world_ranks[i]);
        lost |= mpid_dyn_lost(c->dev.world_ranks[i]);
    }
    if (c->local_comm && c->dev.foreign) {
        int n = c->local_comm->dev.size, *seen = malloc(sizeof *seen * (size_t)n);
        if (!seen)
            return mpir_err_comm(*comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
        rc = coll_allgather(&lost, 1, dt_int(), seen, 1, dt_int(), &c->local_comm->dev);
        for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
            lost |= seen[i];
        free(seen);
        if (rc != MPI_SUCCESS)
            return mpir_err_comm(*comm, rc);
    } else if (c->dev.foreign && (rc = own_job_or(c, &lost)) != MPI_SUCCESS) {
        return mpir_err_comm(*comm, mpir_err(rc, fn, "the members of this job could not "
                                             "agree on whether a process is lost"));
    }
    if (!lost && (rc = mpir_Barrier(*comm)) != MPI_SUCCESS)
        return rc;
    return mpir_Comm_free(comm);
}
MPIR_WEAK(Comm_disconnect)
