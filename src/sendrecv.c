/*
 * sendrecv.c — MPI_Sendrecv and MPI_Sendrecv_replace. The receive is posted
 * before the send so that head-to-head exchanges of any size progress.
 */
#include <stdlib.h>
#include "src/pt2pt.h"

typedef struct { mpid_request *a, *b; } pair;
static int pair_done(void *arg)
{
    pair *p = arg;
    return p->a->done && p->b->done;
}

static int exchange(const char *fn, MPI_Comm comm, mpir_comm *c,
                    const void *sbuf, size_t scount, const cu_dtype *sdt, int dest, int stag,
                    void *rbuf, size_t rcount, const cu_dtype *rdt, int source, int rtag,
                    MPI_Status *status)
{
    mpid_request *rr, *sr;
    int rc = mpid_irecv(rbuf, rcount, rdt, source, rtag, &c->dev, MPID_CTX_PT2PT, &rr);
    if (rc != MPI_SUCCESS)
        return mpir_err_comm(comm, mpir_err(rc, fn, "cannot post the receive"));
    rc = mpid_isend(sbuf, scount, sdt, dest, stag, &c->dev, MPID_CTX_PT2PT,
                    MPID_SEND_STANDARD, &sr);
    if (rc != MPI_SUCCESS) {
        mpid_cancel(rr);
        mpid_request_free(rr);
        return mpir_err_comm(comm, mpir_err(rc, fn, "cannot send to rank %d", dest));
    }
    pair p = { rr, sr };
    if (!pair_done(&p))
        mpid_progress_until(pair_done, &p);
    if (status)
        *status = rr->status;
    rc = mpir_req_error(fn, sr);
    if (!rc)
        rc = mpir_req_error(fn, rr);
    mpid_request_free(rr);
    mpid_request_free(sr);
    return rc ? mpir_err_comm(comm, rc) : MPI_SUCCESS;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    static const char fn[] = "MPI_Sendrecv";
    MPIR_ENTER("MPI_Sendrecv");
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *sdt, *rdt;
    int rc;
    if ((rc = mpir_check_count(fn, "sendcount", sendcount)) ||
        (rc = mpir_check_dtype(fn, "sendtype", sendtype, &sdt)) ||
        (rc = mpir_check_buf(fn, "sendbuf", sendbuf, sendcount, sdt)) ||
        (rc = mpir_check_tag(fn, "sendtag", sendtag, 0)) ||
        (rc = mpir_check_rank(fn, "dest", c, dest, 0)) ||
        (rc = mpir_check_count(fn, "recvcount", recvcount)) ||
        (rc = mpir_check_dtype(fn, "recvtype", recvtype, &rdt)) ||
        (rc = mpir_check_buf(fn, "recvbuf", recvbuf, recvcount, rdt)) ||
        (rc = mpir_check_tag(fn, "recvtag", recvtag, 1)) ||
        (rc = mpir_check_rank(fn, "source", c, source, 1)))
        return mpir_err_comm(comm, rc);
    return exchange(fn, comm, c, sendbuf, (size_t)sendcount, sdt, dest, sendtag,
                    recvbuf, (size_t)recvcount, rdt, source, recvtag, status);
}
MPIR_WEAK(Sendrecv)

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                          int sendtag, int source, int recvtag, MPI_Comm comm,
                          MPI_Status *status)
{
    static const char fn[] = "MPI_Sendrecv_replace";
    MPIR_ENTER("MPI_Sendrecv_replace");
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    cu_dtype *dt;
    int rc;
    if ((rc = mpir_check_count(fn, "count", count)) ||
        (rc = mpir_check_dtype(fn, "datatype", datatype, &dt)) ||
        (rc = mpir_check_buf(fn, "buf", buf, count, dt)) ||
        (rc = mpir_check_tag(fn, "sendtag", sendtag, 0)) ||
        (rc = mpir_check_rank(fn, "dest", c, dest, 0)) ||
        (rc = mpir_check_tag(fn, "recvtag", recvtag, 1)) ||
        (rc = mpir_check_rank(fn, "source", c, source, 1)))
        return mpir_err_comm(comm, rc);
    /* The outgoing data is packed aside so the receive can land in buf. */
    size_t bytes = cu_dtype_bytes(dt, (size_t)count);
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn,
                                            "cannot allocate %zu bytes", bytes));
    if (bytes)
        cu_dtype_pack(buf, (size_t)count, dt, 0, tmp, bytes);
    const cu_dtype *byte = mpir_dtype_get(MPI_BYTE);
    rc = exchange(fn, comm, c, tmp, bytes, byte, dest, sendtag, buf, (size_t)count, dt,
                  source, recvtag, status);
    free(tmp);
    return rc;
}
MPIR_WEAK(Sendrecv_replace)
