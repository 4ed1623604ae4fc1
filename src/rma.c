/*
 * rma.c — the one-sided communication calls: Put, Get, Accumulate,
 * Get_accumulate, Fetch_and_op, Compare_and_swap and their request forms.
 * Every argument is checked here, at the origin — the epoch (MPI_ERR_RMA_SYNC),
 * the target range against the size every rank announced at creation
 * (MPI_ERR_RMA_RANGE), the op and the element types — before the device
 * moves anything; the target checks ranges again (dynamic windows only there).
 */
#include "src/pt2pt.h"
#include "src/win.h"
#include "src/util/op.h"

enum { NEED_REQ = 1 };

/* Bytes [lo, hi) that count elements of dt starting at disp touch. */
static void span(const cu_dtype *dt, size_t count, long long disp, long long *lo, long long *hi)
{
    long long last = (long long)(count - 1) * dt->extent;
    *lo = disp + dt->true_lb + (last < 0 ? last : 0);
    *hi = disp + dt->true_lb + (last > 0 ? last : 0) + dt->true_extent;
}

static int op_index(MPI_Op op)
{
    unsigned h = (unsigned)op;
    if ((int)(h >> 24) != CLUMPI_KIND_OP)
        return -1;
    int i = (int)(h & 0xffffff);
    return i >= 1 && i < CU_OP_COUNT ? i : 0;   /* 0: a user op */
}

static int rma_op(const char *fn, int kind, const void *obuf, int ocount, MPI_Datatype otype,
                  void *rbuf, int rcount, MPI_Datatype rtype, const void *cbuf, int target,
                  MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                  int flags, MPI_Request *request)
{
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc;
    cu_dtype *odt = NULL, *rdt = NULL, *tdt = NULL;
    int n = w->comm->dev.size;
    if ((flags & NEED_REQ) && !request)
        return mpir_err_win(w, mpir_err(MPI_ERR_ARG, fn, "request is NULL"));
    if (target != MPI_PROC_NULL && (target < 0 || target >= n))
        return mpir_err_win(w, mpir_err(MPI_ERR_RANK, fn, "target_rank %d is not in the window "
                                        "(size %d)", target, n));
    int opi = 0;
    int acc = kind == MPID_RMA_ACC || kind == MPID_RMA_GACC || kind == MPID_RMA_FOP;
    if (acc) {
        opi = op_index(op);
        if (opi <= 0)
            return mpir_err_win(w, mpir_err(MPI_ERR_OP, fn, "one-sided accumulates take "
                                            "predefined ops only (op=0x%x)", (unsigned)op));
    }
    int no_op = opi == CU_OP_NO_OP;
    int odata = kind != MPID_RMA_GET && !(no_op && kind != MPID_RMA_ACC);
    if (odata || kind == MPID_RMA_GET) {
        if ((rc = mpir_check_count(fn, "origin_count", ocount)) ||
            (rc = mpir_check_dtype(fn, "origin_datatype", otype, &odt)))
            return mpir_err_win(w, rc);
    }
    if (kind == MPID_RMA_GACC || kind == MPID_RMA_FOP || kind == MPID_RMA_CAS) {
        if ((rc = mpir_check_count(fn, "result_count", rcount)) ||
            (rc = mpir_check_dtype(fn, "result_datatype", rtype, &rdt)))
            return mpir_err_win(w, rc);
    }
    if ((rc = mpir_check_count(fn, "target_count", tcount)) ||
        (rc = mpir_check_dtype(fn, "target_datatype", ttype, &tdt)))
        return mpir_err_win(w, rc);
    if (kind == MPID_RMA_GET) {   /* the origin buffer receives */
        rdt = odt;
        rcount = ocount;
        rbuf = (void *)obuf;
        odt = NULL;
    }
    size_t tbytes = tdt->size * (size_t)tcount;
    if (odt && odt->size * (size_t)ocount != tbytes)
        return mpir_err_win(w, mpir_err(MPI_ERR_TYPE, fn, "origin data (%zu bytes) and target "
                                        "data (%zu bytes) differ", odt->size * (size_t)ocount,
                                        tbytes));
    if (rdt && rdt->size * (size_t)rcount != tbytes)
        return mpir_err_win(w, mpir_err(MPI_ERR_TYPE, fn, "result buffer (%zu bytes) and target "
                                        "data (%zu bytes) differ", rdt->size * (size_t)rcount,
                                        tbytes));
    int basic = 0;
    if (acc || kind == MPID_RMA_CAS) {
        basic = tdt->basic;
        if (!basic || (odt && odt->basic != basic) || (rdt && rdt->basic != basic))
            return mpir_err_win(w, mpir_err(MPI_ERR_TYPE, fn, "accumulate needs origin, result "
                                            "and target types made of one same predefined type"));
        if (kind == MPID_RMA_CAS ? !cu_op_valid(CU_OP_BAND, basic)
                                 : !cu_op_valid_accumulate(opi, basic))
            return mpir_err_win(w, mpir_err(MPI_ERR_OP, fn, "%s is not defined on %s",
                                            kind == MPID_RMA_CAS ? "compare-and-swap"
                                                                 : cu_op_name(opi),
                                            cu_op_type_name(basic)));
    }
    if (target == MPI_PROC_NULL || tbytes == 0) {
        if (flags & NEED_REQ) {
            mpid_request *r = mpid_rma_request_new();
            if (!r)
                return mpir_err_win(w, mpir_err(MPI_ERR_NO_MEM, fn, "out of requests"));
            r->done = 1;
            return mpir_req_handle(fn, r, w->comm->handle, request);
        }
        return MPI_SUCCESS;
    }
    if (!mpir_win_can_access(w, target))
        return mpir_err_win(w, mpir_err(MPI_ERR_RMA_SYNC, fn, "no access epoch is open on "
                                        "target %d (Win_fence, Win_start or Win_lock first)",
                                        target));
    if ((flags & NEED_REQ) && !w->lock_all && !w->locks[target])
        return mpir_err_win(w, mpir_err(MPI_ERR_RMA_SYNC, fn, "request-based operations need "
                                        "a passive-target epoch (Win_lock or Win_lock_all)"));
    const mpid_win_peer *p = &w->dev.peers[target];
    long long disp = (long long)tdisp * p->disp_unit;
    if (!w->dev.dynamic) {
        long long lo, hi;
        span(tdt, (size_t)tcount, disp, &lo, &hi);
        if (lo < 0 || hi > (long long)p->size)
            return mpir_err_win(w, mpir_err(MPI_ERR_RMA_RANGE, fn, "target bytes [%lld, %lld) "
                                            "fall outside rank %d's window of %llu bytes",
                                            lo, hi, target, (unsigned long long)p->size));
    }
    if (kind == MPID_RMA_CAS && !cbuf)
        return mpir_err_win(w, mpir_err(MPI_ERR_BUFFER, fn, "compare_addr is NULL"));
    mpid_rma_args a = {
        .kind = kind, .target = target,
        .obuf = obuf, .ocount = (size_t)ocount, .odt = odt,
        .rbuf = rbuf, .rcount = (size_t)rcount, .rdt = rdt, .cbuf = cbuf,
        .tdisp = (uint64_t)disp, .tcount = (size_t)tcount, .tdt = tdt,
        .op = opi, .basic = basic,
    };
    if (no_op && kind != MPID_RMA_ACC) {
        /* Nothing to combine: a fetch (atomic with other accumulates). */
        a.obuf = NULL;
        a.odt = NULL;
    }
    mpid_request *r = NULL;
    if (flags & NEED_REQ) {
        r = mpid_rma_request_new();
        if (!r)
            return mpir_err_win(w, mpir_err(MPI_ERR_NO_MEM, fn, "out of requests"));
        mpid_status_proc_null(&r->status);
        a.req = r;
    }
    rc = mpid_rma_issue(&w->dev, &a);
    if (rc != MPI_SUCCESS) {
        if (r) {
            r->done = 1;
            mpid_request_free(r);
        }
        return mpir_err_win(w, mpir_err(rc, fn, "the operation on target %d failed", target));
    }
    if (r)
        return mpir_req_handle(fn, r, w->comm->handle, request);
    return MPI_SUCCESS;
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    return rma_op("MPI_Put", MPID_RMA_PUT, origin_addr, origin_count, origin_datatype, NULL, 0,
                  MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count,
                  target_datatype, MPI_OP_NULL, win, 0, NULL);
}
MPIR_WEAK(Put)

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    return rma_op("MPI_Get", MPID_RMA_GET, origin_addr, origin_count, origin_datatype, NULL, 0,
                  MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count,
                  target_datatype, MPI_OP_NULL, win, 0, NULL);
}
MPIR_WEAK(Get)

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return rma_op("MPI_Accumulate", MPID_RMA_ACC, origin_addr, origin_count, origin_datatype,
                  NULL, 0, MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count,
                  target_datatype, op, win, 0, NULL);
}
MPIR_WEAK(Accumulate)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return rma_op("MPI_Get_accumulate", MPID_RMA_GACC, origin_addr, origin_count,
                  origin_datatype, result_addr, result_count, result_datatype, NULL,
                  target_rank, target_disp, target_count, target_datatype, op, win, 0, NULL);
}
MPIR_WEAK(Get_accumulate)

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    return rma_op("MPI_Fetch_and_op", MPID_RMA_FOP, origin_addr, 1, datatype, result_addr, 1,
                  datatype, NULL, target_rank, target_disp, 1, datatype, op, win, 0, NULL);
}
MPIR_WEAK(Fetch_and_op)

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win)
{
    return rma_op("MPI_Compare_and_swap", MPID_RMA_CAS, origin_addr, 1, datatype, result_addr,
                  1, datatype, compare_addr, target_rank, target_disp, 1, datatype, MPI_OP_NULL,
                  win, 0, NULL);
}
MPIR_WEAK(Compare_and_swap)

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return rma_op("MPI_Rput", MPID_RMA_PUT, origin_addr, origin_count, origin_datatype, NULL, 0,
                  MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count,
                  target_datatype, MPI_OP_NULL, win, NEED_REQ, request);
}
MPIR_WEAK(Rput)

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return rma_op("MPI_Rget", MPID_RMA_GET, origin_addr, origin_count, origin_datatype, NULL, 0,
                  MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count,
                  target_datatype, MPI_OP_NULL, win, NEED_REQ, request);
}
MPIR_WEAK(Rget)

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return rma_op("MPI_Raccumulate", MPID_RMA_ACC, origin_addr, origin_count, origin_datatype,
                  NULL, 0, MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count,
                  target_datatype, op, win, NEED_REQ, request);
}
MPIR_WEAK(Raccumulate)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, int result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    return rma_op("MPI_Rget_accumulate", MPID_RMA_GACC, origin_addr, origin_count,
                  origin_datatype, result_addr, result_count, result_datatype, NULL,
                  target_rank, target_disp, target_count, target_datatype, op, win, NEED_REQ,
                  request);
}
MPIR_WEAK(Rget_accumulate)
