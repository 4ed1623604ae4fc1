/*
 * coll_util.c — point-to-point helpers shared by the algorithms in coll/.
 */
#include <stdlib.h>
#include <string.h>
#include "coll/coll_impl.h"
#include "src/util/param.h"

const cu_dtype *coll_byte(void)
{
    return cu_dtype_builtin(CU_DT_BYTE);
}

int coll_waitall(int n, mpid_request **reqs)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        int r = mpid_wait(reqs[i]);
        if (r == MPI_SUCCESS)
            r = reqs[i]->status.MPI_ERROR;
        if (rc == MPI_SUCCESS)
            rc = r;
        mpid_request_free(reqs[i]);
        reqs[i] = NULL;
    }
    return rc;
}

mpid_request **coll_reqs_get(mpid_request **local, int n)
{
    if (n > COLL_REQS_LOCAL)
        return calloc((size_t)n, sizeof *local);
    memset(local, 0, (size_t)n * sizeof *local);
    return local;
}

void coll_reqs_put(mpid_request **reqs, mpid_request **local)
{
    if (reqs != local)
        free(reqs);
}

int coll_sendrecv_start(const void *sbuf, size_t scount, const cu_dtype *sdt, int dst,
                        void *rbuf, size_t rcount, const cu_dtype *rdt, int src,
                        int tag, const mpid_comm *comm, mpid_request *r[2])
{
    r[0] = r[1] = NULL;
    /* Receive first so a message that arrives early matches a posted
     * receive rather than going through the unexpected queue. */
    int rc = mpid_irecv(rbuf, rcount, rdt, src, tag, comm, MPID_CTX_COLL, &r[0]);
    if (rc == MPI_SUCCESS)   /* no request for a message that goes at once */
        rc = mpid_send(sbuf, scount, sdt, dst, tag, comm, MPID_CTX_COLL, MPID_SEND_STANDARD, &r[1]);
    return rc;
}

int coll_sendrecv(const void *sbuf, size_t scount, const cu_dtype *sdt, int dst,
                  void *rbuf, size_t rcount, const cu_dtype *rdt, int src,
                  int tag, const mpid_comm *comm)
{
    mpid_request *r[2];
    int rc = coll_sendrecv_start(sbuf, scount, sdt, dst, rbuf, rcount, rdt, src, tag, comm, r);
    int rc2 = coll_waitall(2, r);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int coll_copy(const void *sbuf, size_t scount, const cu_dtype *sdt,
              void *rbuf, size_t rcount, const cu_dtype *rdt)
{
    size_t bytes = cu_dtype_bytes(sdt, scount);
    size_t rbytes = cu_dtype_bytes(rdt, rcount);
    if (rbytes < bytes)
        return MPI_ERR_TRUNCATE;
    if (bytes == 0)
        return MPI_SUCCESS;
    if (cu_dtype_is_contig(sdt) && cu_dtype_is_contig(rdt)) {
        memmove((char *)rbuf + rdt->true_lb, (const char *)sbuf + sdt->true_lb, bytes);
        return MPI_SUCCESS;
    }
    /* Through a bounded bounce buffer, so a huge non-contiguous block does
     * not need a whole-message copy. */
    size_t chunk = bytes < 65536 ? bytes : 65536;
    char *tmp = malloc(chunk);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    for (size_t off = 0; off < bytes;) {
        size_t n = cu_dtype_pack(sbuf, scount, sdt, off, tmp, chunk);
        if (n == 0)
            break;
        cu_dtype_unpack(rbuf, rcount, rdt, off, tmp, n);
        off += n;
    }
    free(tmp);
    return MPI_SUCCESS;
}

int coll_send(const void *buf, size_t count, const cu_dtype *dt, int dst, int tag,
              const mpid_comm *comm)
{
    mpid_request *r = NULL;
    int rc = mpid_send(buf, count, dt, dst, tag, comm, MPID_CTX_COLL, MPID_SEND_STANDARD, &r);
    int rc2 = coll_waitall(1, &r);   /* r is NULL when the message went at once */
    return rc != MPI_SUCCESS ? rc : rc2;
}

int coll_recv(void *buf, size_t count, const cu_dtype *dt, int src, int tag,
              const mpid_comm *comm)
{
    mpid_request *r = NULL;
    int rc = mpid_irecv(buf, count, dt, src, tag, comm, MPID_CTX_COLL, &r);
    int rc2 = coll_waitall(1, &r);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int coll_bytes_get(coll_bytes *b, const void *buf, size_t count, const cu_dtype *dt, int pack)
{
    b->n = cu_dtype_bytes(dt, count);
    b->tmp = NULL;
    if (cu_dtype_is_contig(dt) || b->n == 0) {
        b->p = (char *)buf + dt->true_lb;
        return MPI_SUCCESS;
    }
    if (!(b->tmp = malloc(b->n)))
        return MPI_ERR_NO_MEM;
    b->p = b->tmp;
    if (pack)
        cu_dtype_pack(buf, count, dt, 0, b->tmp, b->n);
    return MPI_SUCCESS;
}

void coll_bytes_put(coll_bytes *b, void *buf, size_t count, const cu_dtype *dt, int unpack)
{
    if (!b->tmp)
        return;
    if (unpack)
        cu_dtype_unpack(buf, count, dt, 0, b->tmp, b->n);
    free(b->tmp);
    b->tmp = NULL;
}

/* Cached until a parameter is written (MPI_T). Every rank cuts messages
 * the same way as long as the value is the same everywhere (ALL_EQ), as
 * the receivers' segments must match. */
static long param_at_least(cu_param_cache *c, const char *name, long min)
{
    long v = cu_param_cached(c, name);
    return v < min ? min : v;
}

size_t coll_param_segsize(void)
{
    static cu_param_cache c;
    return (size_t)param_at_least(&c, "COLL_SEGSIZE", 1);
}

int coll_param_knomial_k(void)
{
    static cu_param_cache c;
    return (int)param_at_least(&c, "COLL_KNOMIAL_K", 2);
}

int coll_param_alltoall_window(void)
{
    static cu_param_cache c;
    return (int)param_at_least(&c, "COLL_ALLTOALL_WINDOW", 1);
}

int coll_alltoall_inplace(coll_alltoall_fn *fn, void *rbuf, size_t rcount,
                          const cu_dtype *rdt, const mpid_comm *comm)
{
    size_t blk = cu_dtype_bytes(rdt, rcount), n = blk * (size_t)comm->size;
    char *tmp = malloc(n + 1);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    cu_dtype_pack(rbuf, rcount * (size_t)comm->size, rdt, 0, tmp, n);
    int rc = fn(tmp, blk, coll_byte(), rbuf, rcount, rdt, comm);
    free(tmp);
    return rc;
}

int coll_subtree_open(coll_subtree *t, const void *sbuf, size_t scount, const cu_dtype *sdt,
                      void *rbuf, size_t rcount, const cu_dtype *rdt, size_t blk, int root,
                      const mpid_comm *comm)
{
    t->blocks = NULL;
    if (comm->size == 1)
        return sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE
                   ? MPI_SUCCESS
                   : coll_copy(sbuf, scount, sdt, rbuf, rcount, rdt);
    if (blk == 0)
        return MPI_SUCCESS;
    t->p = comm->size;
    t->rel = (comm->rank - root + t->p) % t->p;
    t->top = coll_binomial_top(t->rel, t->p);
    t->blk = blk;
    t->blocks = malloc((size_t)coll_binomial_span(t->rel, t->top, t->p) * blk);
    return t->blocks ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}
