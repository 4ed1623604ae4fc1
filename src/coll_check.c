/*
 * coll_check.c — argument checks of the collectives (see coll_check.h):
 * everything detectable locally — communicator-relative root, counts,
 * types, buffers, MPI_IN_PLACE misuse and send/receive buffer aliasing,
 * size mismatches of this rank's own blocks, (op, type) pairs.
 *
 * On an intercommunicator (MPI-3.1 5.2.2) the arrays of per-rank counts
 * and displacements have one entry per remote rank (dev.size), except
 * Reduce_scatter's recvcounts (one per local rank); a root is MPI_ROOT,
 * MPI_PROC_NULL or a remote rank, and only the arguments significant in
 * that role are checked (none at MPI_PROC_NULL); no rank has a block of
 * its own to compare, and MPI_IN_PLACE is refused.
 */
#include <limits.h>
#include "src/coll_check.h"

int mpir_coll_chk_error(const char *fn, const char *cname, int count, const char *tname,
                        MPI_Datatype t, const char *bname, const void *buf, cu_dtype **dt)
{
    int rc = mpir_check_count(fn, cname, count);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, tname, t, dt);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_buf(fn, bname, buf, count, *dt);
    return rc;
}
#define chk mpir_coll_chk

static int chk_root(const char *fn, const mpir_comm *c, int root)
{
    if (c->is_inter && root != MPI_ROOT && root != MPI_PROC_NULL &&
        (root < 0 || root >= c->dev.size))
        return mpir_err(MPI_ERR_ROOT, fn, "invalid root %d on an intercommunicator (MPI_ROOT, "
                        "MPI_PROC_NULL or a rank of the remote group of size %d)", root,
                        c->dev.size);
    if (!c->is_inter && (root < 0 || root >= c->dev.size))
        return mpir_err(MPI_ERR_ROOT, fn, "invalid root %d (comm size %d)", root, c->dev.size);
    return MPI_SUCCESS;
}

/* MPI_IN_PLACE has no meaning on an intercommunicator: the data a rank
 * sends never lands in its own receive buffer. */
static int chk_inter_inplace(const char *fn, const mpir_comm *c, const char *arg,
                             const void *buf)
{
    if (c->is_inter && buf == MPI_IN_PLACE)
        return mpir_err(MPI_ERR_BUFFER, fn, "%s is MPI_IN_PLACE, which an intercommunicator "
                        "does not allow", arg);
    return MPI_SUCCESS;
}

/* An intercommunicator's rank that passed MPI_PROC_NULL as root takes no
 * part: none of its other arguments is significant. */
static inline int idle_root(const mpir_comm *c, int root)
{
    return c->is_inter && root == MPI_PROC_NULL;
}

/* sendbuf and recvbuf must not be the same memory where MPI_IN_PLACE is
 * the way to say so */
static int chk_alias(const char *fn, const void *s, size_t sbytes, const void *r, size_t rbytes)
{
    if (s && s == r && sbytes && rbytes)
        return mpir_err(MPI_ERR_BUFFER, fn, "sendbuf and recvbuf are the same buffer "
                        "(use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

/* this rank's own block: what it sends must be what it receives */
static int chk_match(const char *fn, size_t sbytes, size_t rbytes, const char *what)
{
    if (sbytes != rbytes)
        return mpir_err(sbytes > rbytes ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT, fn,
                        "send size %zu bytes differs from receive size %zu bytes%s", sbytes,
                        rbytes, what);
    return MPI_SUCCESS;
}

int mpir_coll_chk_counts(const char *fn, const char *cname, const int *counts,
                         const char *dname, const int *displs, int n)
{
    if (n > 0 && !counts)
        return mpir_err(MPI_ERR_ARG, fn, "%s is NULL", cname);
    if (n > 0 && !displs)
        return mpir_err(MPI_ERR_ARG, fn, "%s is NULL", dname);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return mpir_err(MPI_ERR_COUNT, fn, "invalid %s[%d] = %d (must be >= 0)", cname, i,
                            counts[i]);
    return MPI_SUCCESS;
}
#define chk_counts mpir_coll_chk_counts

static inline size_t nbytes(const cu_dtype *dt, int count)
{
    return cu_dtype_bytes(dt, (size_t)count);
}

int mpir_check_bcast(const char *fn, const mpir_comm *c, void *buffer, int count,
                     MPI_Datatype datatype, int root, cu_dtype **dt)
{
    *dt = NULL;
    int rc = chk_root(fn, c, root);
    if (rc != MPI_SUCCESS || idle_root(c, root))
        return rc;
    rc = chk(fn, "count", count, "datatype", datatype, "buffer", buffer, dt);
    if (rc == MPI_SUCCESS && buffer == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "buffer is MPI_IN_PLACE");
    return rc;
}

/* Gather and scatter, plain and v, are mirror images: every rank's own
 * block ("one": gather's send side, scatter's receive side) and the root's
 * p blocks ("many"). vform: many_counts and displs instead of many_count. */
typedef struct rooted_names {
    const char *one_c, *one_t, *one_b, *many_c, *many_cs, *many_t, *many_b;
} rooted_names;
static const rooted_names gather_names = { "sendcount", "sendtype", "sendbuf", "recvcount",
                                           "recvcounts", "recvtype", "recvbuf" };
static const rooted_names scatter_names = { "recvcount", "recvtype", "recvbuf", "sendcount",
                                            "sendcounts", "sendtype", "sendbuf" };

/* Inlined into each of the four: their constant names and forms fold away
 * and fifteen arguments are not passed (a third of a small scatter's
 * checks). */
static inline __attribute__((always_inline)) int
check_rooted(const char *fn, const mpir_comm *c, const rooted_names *nm, int gather, int vform,
             const void *one, int one_count, MPI_Datatype one_type, const void *many,
             int many_count, const int *many_counts, const int *displs, MPI_Datatype many_type,
             int root, cu_dtype **one_dt, cu_dtype **many_dt)
{
    int me = c->dev.rank;
    /* The usual case of the plain forms by inline tests, each a condition
     * under which the checks below pass: an intracommunicator, a valid
     * root, this rank's own block usable and, at the root, the p blocks
     * usable, of the own block's size and not the same buffer. Anything
     * else goes through those checks, which name the bad argument. */
    if (!vform && !c->is_inter && root >= 0 && root < c->dev.size && one != MPI_IN_PLACE) {
        cu_dtype *od = mpir_dtype_get(one_type), *md;
        if (MPIR_LIKELY(mpir_buf_args_ok(od, one_count, one))) {
            if (me != root) {
                *one_dt = od;
                *many_dt = NULL;
                return MPI_SUCCESS;
            }
            md = mpir_dtype_get(many_type);
            if (many != MPI_IN_PLACE && mpir_buf_args_ok(md, many_count, many)) {
                size_t ob = nbytes(od, one_count), mb = nbytes(md, many_count);
                if (ob == mb && (one != many || ob == 0)) {
                    *one_dt = od;
                    *many_dt = md;
                    return MPI_SUCCESS;
                }
            }
        }
    }
    *one_dt = *many_dt = NULL;
    int rc = chk_root(fn, c, root);
    int isroot = c->is_inter ? root == MPI_ROOT : me == root;
    if (rc != MPI_SUCCESS || idle_root(c, root))
        return rc;
    /* every rank's own block, but an intercommunicator's root has none */
    if (!(c->is_inter && isroot)) {
        rc = chk_inter_inplace(fn, c, nm->one_b, one);
        if (rc == MPI_SUCCESS && one == MPI_IN_PLACE && !isroot)
            rc = mpir_err(MPI_ERR_BUFFER, fn, "%s is MPI_IN_PLACE on a rank other than the "
                          "root", nm->one_b);
        if (rc == MPI_SUCCESS && one != MPI_IN_PLACE)
            rc = chk(fn, nm->one_c, one_count, nm->one_t, one_type, nm->one_b, one, one_dt);
    }
    if (rc != MPI_SUCCESS || !isroot)
        return rc;
    if (vform) {
        rc = chk_counts(fn, nm->many_cs, many_counts, "displs", displs, c->dev.size);
        if (rc == MPI_SUCCESS)
            rc = mpir_check_dtype(fn, nm->many_t, many_type, many_dt);
    } else {
        rc = chk(fn, nm->many_c, many_count, nm->many_t, many_type, nm->many_b, many, many_dt);
    }
    if (rc == MPI_SUCCESS && many == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "%s is MPI_IN_PLACE", nm->many_b);
    if (rc != MPI_SUCCESS || !*one_dt)
        return rc;
    size_t ob = nbytes(*one_dt, one_count);
    size_t mb = nbytes(*many_dt, vform ? many_counts[me] : many_count);
    rc = chk_match(fn, gather ? ob : mb, gather ? mb : ob, " at the root");
    if (rc == MPI_SUCCESS && !vform)
        rc = chk_alias(fn, one, ob, many, mb);
    if (rc == MPI_SUCCESS && vform &&
        one == (const char *)many + (ptrdiff_t)displs[me] * (*many_dt)->extent)
        rc = chk_alias(fn, one, ob, one, mb);
    return rc;
}

int mpir_check_gather(const char *fn, const mpir_comm *c, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, cu_dtype **sdt, cu_dtype **rdt)
{
    return check_rooted(fn, c, &gather_names, 1, 0, sendbuf, sendcount, sendtype, recvbuf,
                        recvcount, NULL, NULL, recvtype, root, sdt, rdt);
}

int mpir_check_gatherv(const char *fn, const mpir_comm *c, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int displs[], MPI_Datatype recvtype, int root, cu_dtype **sdt,
                       cu_dtype **rdt)
{
    return check_rooted(fn, c, &gather_names, 1, 1, sendbuf, sendcount, sendtype, recvbuf, 0,
                        recvcounts, displs, recvtype, root, sdt, rdt);
}

int mpir_check_scatter(const char *fn, const mpir_comm *c, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, cu_dtype **sdt, cu_dtype **rdt)
{
    return check_rooted(fn, c, &scatter_names, 0, 0, recvbuf, recvcount, recvtype, sendbuf,
                        sendcount, NULL, NULL, sendtype, root, rdt, sdt);
}

int mpir_check_scatterv(const char *fn, const mpir_comm *c, const void *sendbuf,
                        const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                        cu_dtype **sdt, cu_dtype **rdt)
{
    return check_rooted(fn, c, &scatter_names, 0, 1, recvbuf, recvcount, recvtype, sendbuf, 0,
                        sendcounts, displs, sendtype, root, rdt, sdt);
}

/* Allgather and Alltoall check alike: one block per rank on both sides;
 * what differs is only how a size mismatch is worded. */
static int check_blocks(const char *fn, const mpir_comm *c, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, cu_dtype **sdt, cu_dtype **rdt,
                        const char *what)
{
    *sdt = *rdt = NULL;
    int rc = chk_inter_inplace(fn, c, "sendbuf", sendbuf);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = chk(fn, "sendcount", sendcount, "sendtype", sendtype, "sendbuf", sendbuf, sdt);
    if (rc == MPI_SUCCESS)
        rc = chk(fn, "recvcount", recvcount, "recvtype", recvtype, "recvbuf", recvbuf, rdt);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && *sdt && !c->is_inter)
        rc = chk_match(fn, nbytes(*sdt, sendcount), nbytes(*rdt, recvcount), what);
    if (rc == MPI_SUCCESS && *sdt)
        rc = chk_alias(fn, sendbuf, nbytes(*sdt, sendcount), recvbuf, nbytes(*rdt, recvcount));
    return rc;
}

int mpir_check_allgather(const char *fn, const mpir_comm *c, const void *sendbuf,
                         int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, cu_dtype **sdt, cu_dtype **rdt)
{
    return check_blocks(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, sdt,
                        rdt, "");
}

int mpir_check_allgatherv(const char *fn, const mpir_comm *c, const void *sendbuf,
                          int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          cu_dtype **sdt, cu_dtype **rdt)
{
    *sdt = *rdt = NULL;
    int me = c->dev.rank, rc = chk_inter_inplace(fn, c, "sendbuf", sendbuf);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = chk(fn, "sendcount", sendcount, "sendtype", sendtype, "sendbuf", sendbuf, sdt);
    if (rc == MPI_SUCCESS)
        rc = chk_counts(fn, "recvcounts", recvcounts, "displs", displs, c->dev.size);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, "recvtype", recvtype, rdt);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && *sdt && c->is_inter) {
        size_t rb = 0;
        for (int i = 0; i < c->dev.size; i++)
            rb += nbytes(*rdt, recvcounts[i]);
        return chk_alias(fn, sendbuf, nbytes(*sdt, sendcount), recvbuf, rb);
    }
    if (rc == MPI_SUCCESS && *sdt)
        rc = chk_match(fn, nbytes(*sdt, sendcount), nbytes(*rdt, recvcounts[me]), "");
    if (rc == MPI_SUCCESS && *sdt &&
        sendbuf == (const char *)recvbuf + (ptrdiff_t)displs[me] * (*rdt)->extent)
        rc = chk_alias(fn, sendbuf, nbytes(*sdt, sendcount), sendbuf,
                       nbytes(*rdt, recvcounts[me]));
    return rc;
}

int mpir_check_alltoall(const char *fn, const mpir_comm *c, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, cu_dtype **sdt, cu_dtype **rdt)
{
    return check_blocks(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, sdt,
                        rdt, " per block");
}

int mpir_check_alltoallv(const char *fn, const mpir_comm *c, const void *sendbuf,
                         const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[],
                         MPI_Datatype recvtype, cu_dtype **sdt, cu_dtype **rdt)
{
    *sdt = *rdt = NULL;
    int p = c->dev.size, me = c->dev.rank, rc = chk_inter_inplace(fn, c, "sendbuf", sendbuf);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
        rc = chk_counts(fn, "sendcounts", sendcounts, "sdispls", sdispls, p);
        if (rc == MPI_SUCCESS)
            rc = mpir_check_dtype(fn, "sendtype", sendtype, sdt);
    }
    if (rc == MPI_SUCCESS)
        rc = chk_counts(fn, "recvcounts", recvcounts, "rdispls", rdispls, p);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, "recvtype", recvtype, rdt);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && *sdt && !c->is_inter)
        rc = chk_match(fn, nbytes(*sdt, sendcounts[me]), nbytes(*rdt, recvcounts[me]),
                       " for this rank's own block");
    if (rc == MPI_SUCCESS && *sdt) {
        size_t sb = 0, rb = 0;
        for (int i = 0; i < p; i++) {
            sb += nbytes(*sdt, sendcounts[i]);
            rb += nbytes(*rdt, recvcounts[i]);
        }
        rc = chk_alias(fn, sendbuf, sb, recvbuf, rb);
    }
    return rc;
}

int mpir_check_alltoallw(const char *fn, const mpir_comm *c, const void *sendbuf,
                         const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                         const int rdispls[], const MPI_Datatype recvtypes[], cu_dtype **sdts,
                         cu_dtype **rdts)
{
    int p = c->dev.size, me = c->dev.rank, inplace = sendbuf == MPI_IN_PLACE;
    int rc = chk_inter_inplace(fn, c, "sendbuf", sendbuf);
    if (rc == MPI_SUCCESS && !inplace) {
        rc = chk_counts(fn, "sendcounts", sendcounts, "sdispls", sdispls, p);
        if (rc == MPI_SUCCESS && !sendtypes)
            rc = mpir_err(MPI_ERR_ARG, fn, "sendtypes is NULL");
        for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
            rc = mpir_check_dtype(fn, "sendtypes[i]", sendtypes[i], &sdts[i]);
    }
    if (rc == MPI_SUCCESS)
        rc = chk_counts(fn, "recvcounts", recvcounts, "rdispls", rdispls, p);
    if (rc == MPI_SUCCESS && !recvtypes)
        rc = mpir_err(MPI_ERR_ARG, fn, "recvtypes is NULL");
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        rc = mpir_check_dtype(fn, "recvtypes[i]", recvtypes[i], &rdts[i]);
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE");
    if (rc == MPI_SUCCESS && !inplace && !c->is_inter)
        rc = chk_match(fn, nbytes(sdts[me], sendcounts[me]), nbytes(rdts[me], recvcounts[me]),
                       " for this rank's own block");
    if (rc == MPI_SUCCESS && !inplace) {
        size_t sb = 0, rb = 0;
        for (int i = 0; i < p; i++) {
            sb += nbytes(sdts[i], sendcounts[i]);
            rb += nbytes(rdts[i], recvcounts[i]);
        }
        rc = chk_alias(fn, sendbuf, sb, recvbuf, rb);
    }
    return rc;
}

/* ---- reductions ------------------------------------------------------------
 * Shared by every reduction: count, datatype, op (with the type), and the
 * buffers significant on this rank (CHK_SEND, CHK_RECV). sendbuf may be
 * MPI_IN_PLACE where CHK_IN_PLACE (never on an intercommunicator); recvbuf
 * never. A sendbuf equal to recvbuf is the classic misuse of what
 * MPI_IN_PLACE is for: it would be read and written at once, so it is an
 * error rather than silently wrong results. */
enum { CHK_SEND = 1, CHK_RECV = 2, CHK_IN_PLACE = 4 };

/* The buffers of check_common, every rule tested and reported in order. */
static int check_bufs(const char *fn, const mpir_comm *c, const void *sendbuf,
                      const void *recvbuf, int count, size_t rcount, unsigned what,
                      const cu_dtype *dt)
{
    int rc;
    if (what & CHK_SEND) {
        if ((rc = chk_inter_inplace(fn, c, "sendbuf", sendbuf)))
            return rc;
        if (sendbuf == MPI_IN_PLACE && !(what & CHK_IN_PLACE))
            return mpir_err(MPI_ERR_BUFFER, fn,
                            "sendbuf is MPI_IN_PLACE (allowed only at the root)");
        if (sendbuf != MPI_IN_PLACE && (rc = mpir_check_buf(fn, "sendbuf", sendbuf, count, dt)))
            return rc;
    }
    if (what & CHK_RECV) {
        if (recvbuf == MPI_IN_PLACE)
            return mpir_err(MPI_ERR_BUFFER, fn, "recvbuf is MPI_IN_PLACE (pass MPI_IN_PLACE "
                            "as sendbuf for an in-place operation)");
        if ((rc = mpir_check_buf(fn, "recvbuf", recvbuf, rcount > 0, dt)))
            return rc;
        if ((what & CHK_SEND) && sendbuf == recvbuf && count > 0 && rcount > 0 && dt->size > 0)
            return mpir_err(MPI_ERR_BUFFER, fn, "sendbuf and recvbuf are the same buffer "
                            "(use MPI_IN_PLACE as sendbuf for an in-place operation)");
    }
    return MPI_SUCCESS;
}

/* Count and type, then the op with the type, then the buffers: each first
 * by one inline test of the usual case (mpir_buf_args_ok's), and only when
 * that fails by the checks that name the bad argument. */
static inline __attribute__((always_inline)) int
check_common(const char *fn, const mpir_comm *c, const void *sendbuf, const void *recvbuf,
             int count, size_t rcount, MPI_Datatype datatype, MPI_Op op, unsigned what,
             cu_dtype **dt, coll_op *cop)
{
    cu_dtype *d = mpir_dtype_get(datatype);
    int rc;
    if (MPIR_UNLIKELY(!mpir_dtype_usable(d) || count < 0)) {
        if ((rc = mpir_check_count(fn, "count", count)) ||
            (rc = mpir_check_dtype(fn, "datatype", datatype, &d)))
            return rc;
    }
    *dt = d;
    if ((rc = mpir_op_resolve(fn, op, datatype, d, cop)))
        return rc;
    int send_ok = !(what & CHK_SEND) ||
                  (sendbuf == MPI_IN_PLACE ? (what & CHK_IN_PLACE) && !c->is_inter
                                           : mpir_buf_args_ok(d, count, sendbuf));
    int recv_ok = !(what & CHK_RECV) ||
                  (recvbuf != MPI_IN_PLACE && mpir_buf_args_ok(d, rcount > 0, recvbuf) &&
                   !((what & CHK_SEND) && sendbuf == recvbuf && count > 0 && rcount > 0 &&
                     d->size > 0));
    if (MPIR_LIKELY(send_ok && recv_ok))
        return MPI_SUCCESS;
    return check_bufs(fn, c, sendbuf, recvbuf, count, rcount, what, d);
}

int mpir_check_reduce(const char *fn, const mpir_comm *c, const void *sendbuf, void *recvbuf,
                      int count, MPI_Datatype datatype, MPI_Op op, int root, cu_dtype **dt,
                      coll_op *cop)
{
    *dt = NULL;
    *cop = (coll_op){ 0 };
    int rc = chk_root(fn, c, root);
    if (rc != MPI_SUCCESS || idle_root(c, root))
        return rc;
    unsigned what = CHK_SEND;
    if (c->is_inter ? root == MPI_ROOT : c->dev.rank == root)
        what = c->is_inter ? CHK_RECV : CHK_SEND | CHK_RECV | CHK_IN_PLACE;
    return check_common(fn, c, sendbuf, recvbuf, count, (size_t)count, datatype, op, what, dt,
                        cop);
}

int mpir_check_allreduce(const char *fn, const mpir_comm *c, const void *sendbuf, void *recvbuf,
                         int count, MPI_Datatype datatype, MPI_Op op, cu_dtype **dt,
                         coll_op *cop)
{
    return check_common(fn, c, sendbuf, recvbuf, count, (size_t)count, datatype, op,
                        CHK_SEND | CHK_RECV | CHK_IN_PLACE, dt, cop);
}

/* Reduce_scatter's recvcounts name the ranks of the group the result is
 * cut among: the local group on an intercommunicator too. */
static int local_size(const mpir_comm *c)
{
    return c->is_inter ? c->group->size : c->dev.size;
}

int mpir_check_reduce_scatter(const char *fn, const mpir_comm *c, const void *sendbuf,
                              void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                              MPI_Op op, cu_dtype **dt, coll_op *cop, size_t *total)
{
    if (!recvcounts)
        return mpir_err(MPI_ERR_ARG, fn, "recvcounts is NULL");
    long long sum = 0;
    for (int i = 0; i < local_size(c); i++) {
        if (recvcounts[i] < 0)
            return mpir_err(MPI_ERR_COUNT, fn, "invalid recvcounts[%d] = %d (must be >= 0)", i,
                            recvcounts[i]);
        sum += recvcounts[i];
    }
    if (sum > INT_MAX)
        return mpir_err(MPI_ERR_COUNT, fn, "the sum of recvcounts (%lld) exceeds INT_MAX", sum);
    *total = (size_t)sum;
    return check_common(fn, c, sendbuf, recvbuf, (int)sum, (size_t)recvcounts[c->dev.rank],
                        datatype, op, CHK_SEND | CHK_RECV | CHK_IN_PLACE, dt, cop);
}

int mpir_check_reduce_scatter_block(const char *fn, const mpir_comm *c, const void *sendbuf,
                                    void *recvbuf, int recvcount, MPI_Datatype datatype,
                                    MPI_Op op, cu_dtype **dt, coll_op *cop, size_t *total)
{
    if (recvcount < 0)
        return mpir_err(MPI_ERR_COUNT, fn, "invalid recvcount %d (must be >= 0)", recvcount);
    long long sum = (long long)recvcount * local_size(c);
    if (sum > INT_MAX)
        return mpir_err(MPI_ERR_COUNT, fn, "recvcount * %s size (%lld) exceeds INT_MAX",
                        c->is_inter ? "local group" : "comm", sum);
    *total = (size_t)sum;
    return check_common(fn, c, sendbuf, recvbuf, (int)sum, (size_t)recvcount, datatype, op,
                        CHK_SEND | CHK_RECV | CHK_IN_PLACE, dt, cop);
}
