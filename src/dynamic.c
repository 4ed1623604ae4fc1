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
#define HDR_INTS  5                           /* magic, error class, size, base, context */

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

/* At the root: swaps the header and the tables with the other root.
 * Returns MPI_SUCCESS with *rt (malloc'd, rhdr[2] records) or an error
 * class; a class of ours goes to the other side in the header too. */
static int root_swap(const char *fn, int fd, int err, int errclass, long long deadline,
                     const int *lt, int lsize, int *rhdr, int **rt)
{
    int hdr[HDR_INTS] = { DYN_MAGIC, err, lsize, col_max(lt, lsize, 0), col_max(lt, lsize, 1) };
    *rt = NULL;
    for (int i = 0; !err && i < lsize; i++)
        if (lt[i * REC_INTS + 2] <= 0)
            hdr[1] = err = mpir_err(-lt[i * REC_INTS + 2], fn, "process %d of the group "
                                    "could not open a network endpoint for other jobs", i);
    hdr[1] &= 0xff;
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
 * member alike. */
static int build(const char *fn, mpir_comm *c, const int *res, const int *rt, mpir_comm **out)
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
    *out = ic;
    return MPI_SUCCESS;
}

int mpir_dyn_connect(const char *fn, mpir_comm *c, int root, int fd, int root_err,
                     int errclass, long long deadline_ns, mpir_comm **out)
{
    int lsize = c->group->size, me = c->dev.rank;
    int rec[REC_INTS] = { 0 };
    *out = NULL;
    rec[0] = mpid_dyn_next();
    rec[1] = mpir_ctx_begin();
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
    /* res: error class, remote size, my group's base slot, the other's, context */
    int res[5] = { 0, 0, 0, 0, 0 };
    if (me == root) {
        int rhdr[HDR_INTS];
        int err = root_swap(fn, fd, root_err, errclass, deadline_ns, lt, lsize, rhdr, &rt);
        if (err == MPI_SUCCESS) {
            int x = col_max(lt, lsize, 1);
            res[1] = rhdr[2];
            res[2] = col_max(lt, lsize, 0);
            res[3] = rhdr[3];
            res[4] = rhdr[4] > x ? rhdr[4] : x;
        }
        res[0] = err;
    }
    rc = coll_bcast(res, 5, dt_int(), root, &c->dev);
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
    if (rc != MPI_SUCCESS) {
        free(rt);
        mpir_ctx_end(-1);
        return rc;
    }
    mpir_ctx_end(res[4] + 2);
    rc = build(fn, c, res, rt, out);
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
