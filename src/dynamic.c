/*
 * dynamic.c — the intercommunicator between a group of this job and a
 * group of another (MPI-3.1 chapter 10), built once the two roots hold a
 * connected stream socket: MPI_Comm_accept/connect (port.c) and
 * MPI_Comm_join come here; and MPI_Comm_disconnect.
 *
 * Handshake: each group allgathers a record per process (its next free
 * routing slot, its next context id, its network address), the roots swap
 * headers and their groups' tables over the socket, and each root
 * broadcasts the outcome and the other group's table. The largest slot
 * proposed in a group is where the remote processes go, in remote rank
 * order, in every member's routing table; the other group learns that
 * base, and each of its processes puts base + its rank on the packets it
 * sends us. Contexts follow intercomm.c: the largest next id X of both
 * groups is the intercommunicator's, X+2 its local intracommunicator's.
 * The socket only carries the handshake; traffic goes over the network
 * channel (mpid/dynpeer.c).
 *
 * Under MPI_THREAD_MULTIPLE (any member's sample carries the flag bit 1)
 * other threads make communicators and connect meanwhile, so the agreed
 * ids and slots are confirmed in rounds (confirm()), as comm.c's are, over
 * both groups. A process may be on both sides (one thread accepts, another
 * connects), so the agreement has an identity, the larger of the roots'
 * random ids, and its own reservations never refuse it; the two sides are
 * told apart by the roots' ids (side 0: the smaller) and given disjoint
 * parts: one slot range of both groups' sizes, side 1's table first, and
 * contexts of their own (mpir_intercomm_set_sides): side 0 receives on X
 * and side 1 on X+2, each sending with the other's, and their local
 * communicators take X+4 and X+6. So the two intercommunicators of a
 * process on both sides match nothing of each other's, and its two
 * incarnations reach each other through two slots of their own.
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
#define REC_INTS  (3 + MPID_DYN_ADDR_MAX / 4) /* slot, context, address bytes, address */
#define HDR_INTS  8   /* magic, error class, size, base, context, MULTIPLE, agreement id (2) */

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

int mpir_dyn_node_color(void)
{
    unsigned h = 2166136261u;
    for (const char *s = mpid_job_id(); *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    h = (h ^ (unsigned)mpid_node_of(mpid_world_rank())) * 16777619u;
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

/* The largest value of column col of rows records. */
static int col_max(const int *t, int rows, int col)
{
    int m = 0;
    for (int r = 0; r < rows; r++)
        if (t[r * REC_INTS + col] > m)
            m = t[r * REC_INTS + col];
    return m;
}

/* The largest context sample of rows records, without the flag bit, and
 * whether any carried it (*mt). */
static int ctx_max(const int *t, int rows, int *mt)
{
    int m = 0;
    *mt = 0;
    for (int r = 0; r < rows; r++) {
        int v = t[r * REC_INTS + 1];
        *mt |= v & 1;
        if ((v & ~1) > m)
            m = v & ~1;
    }
    return m;
}

/* Slot ranges held by agreements between their proposal and their routes. */
typedef struct slot_hold { int lo, n; uint64_t owner; } slot_hold;
static slot_hold *holds;
static int nholds, capholds;

/* The next slot no route and no hold uses. */
static int slot_next(void)
{
    int m = mpid_dyn_next();
    for (int i = 0; i < nholds; i++)
        if (holds[i].lo + holds[i].n > m)
            m = holds[i].lo + holds[i].n;
    return m;
}

/* Whether slots lo .. lo+n-1 are routed, or held by another agreement. */
static int slots_busy(int lo, int n, uint64_t owner)
{
    if (lo < mpid_dyn_next())
        return 1;
    for (int i = 0; i < nholds; i++)
        if (holds[i].owner != owner && lo < holds[i].lo + holds[i].n && holds[i].lo < lo + n)
            return 1;
    return 0;
}

/* Holds slots lo .. lo+n-1 for agreement owner; MPI_ERR_NO_MEM if not. */
static int slots_hold(int lo, int n, uint64_t owner)
{
    if (nholds == capholds) {
        int c = capholds ? 2 * capholds : 4;
        slot_hold *h = realloc(holds, (size_t)c * sizeof *h);
        if (!h)
            return MPI_ERR_NO_MEM;
        holds = h;
        capholds = c;
    }
    holds[nholds++] = (slot_hold){ lo, n, owner };
    return MPI_SUCCESS;
}

/* Drops one hold of owner's from lo. */
static void slots_release(int lo, uint64_t owner)
{
    for (int i = 0; i < nholds; i++)
        if (holds[i].lo == lo && holds[i].owner == owner) {
            holds[i] = holds[--nholds];
            return;
        }
}

/* A confirmation under way: the agreement, and my part of it. */
typedef struct agreement {
    const char *fn;
    mpir_comm *c;
    int root, fd, errclass;
    long long deadline;
    uint64_t id;
    int total;           /* slots of both groups */
} agreement;

/* One exchange of a round over both groups: mine = {refused, next id,
 * next slot}; *out = {error class, any refused, largest id, largest slot}
 * alike at every member of both groups. */
static int round_swap(const agreement *a, const int *mine, int *out)
{
    int lsize = a->c->group->size;
    int *all = malloc((size_t)lsize * 3 * sizeof(int));
    int rc = all ? coll_allgather(mine, 3, dt_int(), all, 3, dt_int(), &a->c->dev)
                 : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(all);
        return mpir_err(rc, a->fn, "the group could not confirm its context id");
    }
    out[0] = out[1] = out[2] = out[3] = 0;
    for (int i = 0; i < lsize; i++)
        for (int j = 0; j < 3; j++)
            out[j + 1] = all[i * 3 + j] > out[j + 1] ? all[i * 3 + j] : out[j + 1];
    free(all);
    if (a->c->dev.rank == a->root) {
        int theirs[3];
        if (mpir_sock_swap(a->fd, &out[1], sizeof theirs, theirs, sizeof theirs,
                           a->deadline) != 0)
            out[0] = MPI_ERR_OTHER;
        for (int j = 0; j < 3 && !out[0]; j++)
            out[j + 1] = theirs[j] > out[j + 1] ? theirs[j] : out[j + 1];
    }
    rc = coll_bcast(out, 4, dt_int(), a->root, &a->c->dev);
    if (rc == MPI_SUCCESS && out[0])
        rc = mpir_err(a->errclass, a->fn, "the connection broke while confirming the "
                      "context id");
    else if (rc != MPI_SUCCESS)
        rc = mpir_err(rc, a->fn, "the group could not confirm its context id");
    return rc;
}

/* Gives up what a round held: the first `held` of ids x, x+2, ..., and
 * slots from s when sheld. */
static void release(const agreement *a, int x, int s, int held, int sheld)
{
    while (held > 0)
        mpir_ctx_unreserve(x + 2 * --held);
    if (sheld)
        slots_release(s, a->id);
}

/* Rounds from ids *x and slot *s until no member of either group refuses
 * them: each member refuses what is taken, or held by another agreement,
 * and holds the rest. On success the holds stay until release(); an error
 * code naming fn otherwise. */
static int confirm(const agreement *a, int *x, int *s)
{
    for (;;) {
        int refused = slots_busy(*s, a->total, a->id), held = 0, sheld = 0;
        for (int k = 0; k < MPIR_SIDES_SPAN && !refused; k++)
            refused = mpir_ctx_taken_by_other(*x + 2 * k, a->id);
        while (!refused && held < MPIR_SIDES_SPAN)
            if (mpir_ctx_reserve_as(*x + 2 * held++, a->id) != MPI_SUCCESS)
                refused = 1;
        if (!refused)
            refused = !(sheld = slots_hold(*s, a->total, a->id) == MPI_SUCCESS);
        mpir_ctx_accept(*x + 2 * (MPIR_SIDES_SPAN - 1));
        int next = slot_next(), out[4];
        int mine[3] = { refused, mpir_ctx_next(), next > *s + a->total ? next : *s + a->total };
        int rc = round_swap(a, mine, out);
        if (rc != MPI_SUCCESS || out[1])
            release(a, *x, *s, held, sheld);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!out[1])
            return MPI_SUCCESS;
        *x = out[2];
        *s = out[3];
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
    int hdr[HDR_INTS] = { DYN_MAGIC, err, lsize, col_max(lt, lsize, 0), x, mt,
                          random_half(), random_half() | 1 };
    *rt = NULL;
    for (int i = 0; !err && i < lsize; i++)
        if (lt[i * REC_INTS + 2] <= 0)
            hdr[1] = err = mpir_err(-lt[i * REC_INTS + 2], fn, "process %d of the group "
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

/* Routes every remote process and makes the intercommunicator, at every
 * member alike: its sides receive apart when side >= 0 (mine). */
static int build(const char *fn, mpir_comm *c, const int *res, const int *rt, int side,
                 mpir_comm **out)
{
    int rsize = res[1], base = res[2], rbase = res[3], x = res[4], rc = MPI_SUCCESS;
    int *wr = malloc((size_t)rsize * sizeof(int));
    if (!wr)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    for (int j = 0; j < rsize && rc == MPI_SUCCESS; j++) {
        wr[j] = base + j;
        rc = mpid_dyn_add(base + j, &rt[j * REC_INTS + 3], (size_t)rt[j * REC_INTS + 2],
                          rbase + c->dev.rank);
        if (rc != MPI_SUCCESS)
            rc = mpir_err(rc, fn, "cannot route to process %d of the other group", j);
    }
    mpid_dyn_skip(base + rsize);
    mpir_group *rg = rc == MPI_SUCCESS ? mpir_group_new(rsize, wr) : NULL;
    free(wr);
    if (rc != MPI_SUCCESS)
        return rc;
    mpir_comm *ic = rg ? mpir_intercomm_new(c, c->group, rg, x) : NULL;
    mpir_group_release(rg);
    if (!ic)
        return mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    if (side >= 0)
        mpir_intercomm_set_sides(ic, x, side);
    *out = ic;
    return MPI_SUCCESS;
}

/* res: error class, remote size, my group's base slot, the other's,
 * context, MULTIPLE, agreement id (2), my side */
#define RES_INTS 9

int mpir_dyn_connect(const char *fn, mpir_comm *c, int root, int fd, int root_err,
                     int errclass, long long deadline_ns, mpir_comm **out)
{
    int lsize = c->group->size, me = c->dev.rank;
    int rec[REC_INTS] = { 0 };
    *out = NULL;
    rec[0] = slot_next();
    rec[1] = mpir_ctx_begin() | (cu_mt != 0);
    size_t alen = MPID_DYN_ADDR_MAX;
    int arc = mpid_dyn_addr(&rec[3], &alen);
    rec[2] = arc ? -arc : (int)alen;
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
            res[2] = hdr[3];
            res[3] = rhdr[3];
            res[4] = rhdr[4] > hdr[4] ? rhdr[4] : hdr[4];
            res[5] = hdr[5] | rhdr[5];
            res[6] = rhdr[6] > hdr[6] ? rhdr[6] : hdr[6];
            res[7] = rhdr[7] > hdr[7] ? rhdr[7] : hdr[7];
            res[8] = hdr[6] > rhdr[6] || (hdr[6] == rhdr[6] && hdr[7] > rhdr[7]);
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
    free(lt);
    if (rc == MPI_SUCCESS && res[0] != MPI_SUCCESS)
        rc = me == root ? res[0] : mpir_err(res[0] & 0xff, fn, "the root (rank %d) could not "
                                            "connect the groups", root);
    else if (rc != MPI_SUCCESS)
        rc = mpir_err(rc, fn, "the root could not share the other group's addresses");
    agreement a = { fn, c, root, fd, errclass, deadline_ns,
                    (uint64_t)res[6] << 32 | (uint32_t)res[7], lsize + res[1] };
    int x = res[4], s = res[2] > res[3] ? res[2] : res[3];
    if (rc == MPI_SUCCESS && res[5]) {
        rc = confirm(&a, &x, &s);
        res[4] = x;
        res[2] = res[8] ? s + lsize : s;       /* side 1's table first */
        res[3] = res[8] ? s : s + res[1];
    }
    if (rc != MPI_SUCCESS) {
        free(rt);
        mpir_ctx_end(-1);
        return rc;
    }
    mpir_ctx_end(res[5] ? x + 2 * (MPIR_SIDES_SPAN - 1) : x + 2);
    rc = build(fn, c, res, rt, res[5] ? res[8] : -1, out);
    if (res[5])   /* the communicator and the routes show them now */
        release(&a, x, s, MPIR_SIDES_SPAN, 1);
    free(rt);
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

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_disconnect";
    MPIR_ENTER(fn);
    mpir_comm *c;
    int rc = mpir_comm_free_checks(fn, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    /* What we sent is out of the device, then everyone has come this far:
     * every message before the barrier has arrived. */
    for (int i = 0; i < c->dev.size; i++)
        mpid_dyn_drain(c->dev.world_ranks[i]);
    rc = PMPI_Barrier(*comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return PMPI_Comm_free(comm);
}
MPIR_WEAK(Comm_disconnect)
