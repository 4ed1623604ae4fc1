/*
 * probe.c — MPI_Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv. A matched
 * probe takes the message out of matching into an MPI_Message, so no other
 * receive can take it before Mrecv.
 */
#include <stdlib.h>
#include "src/pt2pt.h"

static int probe_checks(const char *fn, int source, int tag, mpir_comm *c)
{
    int rc;
    if ((rc = mpir_check_tag(fn, "tag", tag, 1)) ||
        (rc = mpir_check_rank(fn, "source", c, source, 1)))
        return rc;
    return MPI_SUCCESS;
}

typedef struct {
    int source, tag;
    const mpid_comm *comm;
    MPI_Status *status;
    mpid_message **msg;
    int flag, rc;
} probe_arg;

static int probe_done(void *arg)
{
    probe_arg *p = arg;
    p->rc = mpid_iprobe(p->source, p->tag, p->comm, MPID_CTX_PT2PT, &p->flag, p->status,
                        p->msg);
    return p->flag || p->rc;
}

/* Probes once (block == 0) or until a message matches. */
static int probe(const char *fn, int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Status *status, MPI_Message *message, int want_msg, int block)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = probe_checks(fn, source, tag, c);
    if (!rc && !block && !flag)
        rc = mpir_err(MPI_ERR_ARG, fn, "flag is NULL");
    if (!rc && want_msg && !message)
        rc = mpir_err(MPI_ERR_ARG, fn, "message is NULL");
    if (rc)
        return mpir_err_comm(comm, rc);
    mpid_message *m = NULL;
    MPI_Status st;
    probe_arg p = { source, tag, &c->dev, &st, message ? &m : NULL, 0, 0 };
    if (!probe_done(&p) && block)
        mpid_progress_until(probe_done, &p);
    if (p.rc)
        return mpir_err_comm(comm, mpir_err(p.rc, fn, p.rc == MPI_ERR_OTHER
                                            ? "no message can come: the source is (or, with "
                                              "MPI_ANY_SOURCE, holds) a lost process of "
                                              "another job" : "probe failed"));
    if (flag)
        *flag = p.flag;
    if (!p.flag)
        return MPI_SUCCESS;
    if (status)
        *status = st;
    if (message) {
        if (source == MPI_PROC_NULL) {
            *message = MPI_MESSAGE_NO_PROC;
            return MPI_SUCCESS;
        }
        /* Index 1 is MPI_MESSAGE_NO_PROC: keep it from being handed out. */
        static mpir_msg no_proc;
        if (mpir_handle_get(&mpir_messages, MPI_MESSAGE_NO_PROC) != &no_proc)
            mpir_handle_set(&mpir_messages, 1, &no_proc);
        mpir_msg *mm = malloc(sizeof *mm);
        int h = mm ? mpir_handle_new(&mpir_messages, mm) : MPI_MESSAGE_NULL;
        if (h == MPI_MESSAGE_NULL) {
            /* Out of memory after the message left matching: it is lost. */
            free(mm);
            return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of message handles"));
        }
        mm->m = m;
        mm->comm = comm;
        *message = h;
    }
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPIR_ENTER("MPI_Probe");
    return probe("MPI_Probe", source, tag, comm, NULL, status, NULL, 0, 1);
}
MPIR_WEAK(Probe)

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    MPIR_ENTER("MPI_Iprobe");
    return probe("MPI_Iprobe", source, tag, comm, flag, status, NULL, 0, 0);
}
MPIR_WEAK(Iprobe)

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    MPIR_ENTER("MPI_Mprobe");
    return probe("MPI_Mprobe", source, tag, comm, NULL, status, message, 1, 1);
}
MPIR_WEAK(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    MPIR_ENTER("MPI_Improbe");
    return probe("MPI_Improbe", source, tag, comm, flag, status, message, 1, 0);
}
MPIR_WEAK(Improbe)

/* Starts the receive of a matched message; *r NULL for MPI_MESSAGE_NO_PROC. */
static int mrecv_start(const char *fn, void *buf, int count, MPI_Datatype type,
                       MPI_Message *message, mpid_request **r, MPI_Comm *comm)
{
    *r = NULL;
    *comm = MPI_COMM_WORLD;
    if (!message)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "message is NULL"));
    if (*message == MPI_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    mpir_msg *mm = mpir_handle_get(&mpir_messages, *message);
    if (!mm)
        return mpir_err_world(mpir_err(MPI_ERR_REQUEST, fn, "invalid message (message=0x%x)",
                                       (unsigned)*message));
    *comm = mm->comm;
    cu_dtype *dt;
    int rc;
    if ((rc = mpir_check_count(fn, "count", count)) ||
        (rc = mpir_check_dtype(fn, "datatype", type, &dt)) ||
        (rc = mpir_check_buf(fn, "buf", buf, count, dt)))
        return mpir_err_comm(mm->comm, rc);
    rc = mpid_imrecv(buf, (size_t)count, dt, mm->m, r);
    if (rc)
        return mpir_err_comm(mm->comm, mpir_err(rc, fn, "cannot receive the message"));
    mpir_handle_free(&mpir_messages, *message);
    free(mm);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    MPIR_ENTER("MPI_Mrecv");
    mpid_request *r;
    MPI_Comm comm;
    int rc = mrecv_start("MPI_Mrecv", buf, count, datatype, message, &r, &comm);
    if (rc)
        return rc;
    if (!r) {
        if (status)
            mpid_status_proc_null(status);
        return MPI_SUCCESS;
    }
    if (!r->done)
        mpid_wait(r);
    if (status)
        *status = r->status;
    rc = mpir_req_error("MPI_Mrecv", r);
    mpid_request_free(r);
    return rc ? mpir_err_comm(comm, rc) : MPI_SUCCESS;
}
MPIR_WEAK(Mrecv)

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    MPIR_ENTER("MPI_Imrecv");
    if (!request)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Imrecv", "request is NULL"));
    mpid_request *r;
    MPI_Comm comm;
    int rc = mrecv_start("MPI_Imrecv", buf, count, datatype, message, &r, &comm);
    if (rc)
        return rc;
    if (!r) {
        /* MPI_MESSAGE_NO_PROC: a receive from MPI_PROC_NULL, complete at once. */
        mpir_comm *c = mpir_comm_get(MPI_COMM_SELF);
        if (!c || (rc = mpid_irecv(NULL, 0, mpir_dtype_get(MPI_BYTE), MPI_PROC_NULL, 0,
                                   &c->dev, MPID_CTX_PT2PT, &r)))
            return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, "MPI_Imrecv", "out of requests"));
    }
    return mpir_req_handle("MPI_Imrecv", r, comm, request);
}
MPIR_WEAK(Imrecv)
