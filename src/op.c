/*
 * op.c — reduction operation objects: the predefined ops at their fixed
 * handles, MPI_Op_create / Op_free / Op_commutative, MPI_Reduce_local, and
 * the check every reduction entry point makes of an (op, datatype) pair.
 */
#include <stdlib.h>
#include "src/core.h"
#include "coll/algos.h"
#include "src/util/op.h"

typedef struct mpir_op {
    int                builtin;   /* CU_OP_* index, or 0 for user ops */
    int                commute;
    MPI_User_function *fn;
    /* predefined: cu_op_valid(builtin, t) for each predefined element type
     * t, computed once (a reduction's check is one load) */
    unsigned char      valid[CU_DT_BUILTIN_COUNT];
} mpir_op;

static mpir_op predefined[CLUMPI_OP_BUILTIN_COUNT];

/* The handle of each predefined op carries the kernels' index of it (CU_OP_*
 * of src/util/op.h, which numbers them without mpi.h), so nothing is
 * translated on the way down. */
#define SAME_OP(x) _Static_assert(MPI_##x == CLUMPI_HANDLE(CLUMPI_KIND_OP, CU_OP_##x), \
                                  "MPI_" #x " != CU_OP_" #x);
SAME_OP(MAX) SAME_OP(MIN) SAME_OP(SUM) SAME_OP(PROD) SAME_OP(LAND)
SAME_OP(BAND) SAME_OP(LOR) SAME_OP(BOR) SAME_OP(LXOR) SAME_OP(BXOR) SAME_OP(MINLOC)
SAME_OP(MAXLOC) SAME_OP(REPLACE) SAME_OP(NO_OP)
#undef SAME_OP
_Static_assert(MPI_OP_NULL == CLUMPI_HANDLE(CLUMPI_KIND_OP, CU_OP_NULL),
               "MPI_OP_NULL != CU_OP_NULL");
_Static_assert(CLUMPI_OP_BUILTIN_COUNT == CU_OP_COUNT, "predefined op counts differ");

int mpir_op_init(void)
{
    for (int i = 1; i < CLUMPI_OP_BUILTIN_COUNT; i++) {
        predefined[i].builtin = i;
        predefined[i].commute = 1;   /* every predefined op is commutative */
        predefined[i].fn = NULL;
        for (int t = 0; t < CU_DT_BUILTIN_COUNT; t++)
            predefined[i].valid[t] = (unsigned char)cu_op_valid(i, t);
        mpir_handle_set(&mpir_ops, i, &predefined[i]);
    }
    return mpir_handle_get(&mpir_ops, MPI_NO_OP) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void mpir_op_finalize(void)
{
    for (int i = CLUMPI_OP_BUILTIN_COUNT; i < mpir_ops.cap; i++)
        if (mpir_ops.obj[i]) {
            free(mpir_ops.obj[i]);
            mpir_ops.obj[i] = NULL;
        }
    for (int i = 1; i < CLUMPI_OP_BUILTIN_COUNT && i < mpir_ops.cap; i++)
        mpir_ops.obj[i] = NULL;
    free(mpir_ops.obj);
    mpir_ops.obj = NULL;
    mpir_ops.cap = 0;
    mpir_ops.nfree_hint = 1;
}

static mpir_op *op_get(MPI_Op op)
{
    return (mpir_op *)mpir_handle_get(&mpir_ops, op);
}

int mpir_op_resolve(const char *func, MPI_Op op, MPI_Datatype type, const cu_dtype *dt,
                    coll_op *out)
{
    mpir_op *o = op_get(op);
    if (!o)
        return mpir_err(MPI_ERR_OP, func, op == MPI_OP_NULL ? "op is MPI_OP_NULL"
                                                            : "invalid op (op=0x%x)",
                        (unsigned)op);
    out->builtin = o->builtin;
    out->commute = o->commute;
    out->user_fn = o->fn;
    out->dt_handle = type;
    if (!o->builtin)
        return MPI_SUCCESS;
    if (dt->basic >= 0 && dt->basic < CU_DT_BUILTIN_COUNT && o->valid[dt->basic])
        return MPI_SUCCESS;
    if (o->builtin == CU_OP_REPLACE || o->builtin == CU_OP_NO_OP)
        return mpir_err(MPI_ERR_OP, func, "%s is only for one-sided accumulate operations, "
                        "not for reductions", cu_op_name(o->builtin));
    if (dt->builtin)
        return mpir_err(MPI_ERR_OP, func, "%s is not defined for datatype %s",
                        cu_op_name(o->builtin), cu_dtype_name(dt));
    if (dt->basic)
        return mpir_err(MPI_ERR_OP, func, "%s is not defined for datatype %s (a derived "
                        "type of %s elements)", cu_op_name(o->builtin), cu_dtype_name(dt),
                        cu_op_type_name(dt->basic));
    return mpir_err(MPI_ERR_OP, func, "%s is not defined for datatype %s: predefined ops "
                    "need a type whose elements are all one predefined type",
                    cu_op_name(o->builtin), cu_dtype_name(dt));
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    static const char fn[] = "MPI_Op_create";
    MPIR_ENTER(fn);
    if (!user_fn)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "user_fn is NULL"));
    if (!op)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "op is NULL"));
    mpir_op *o = malloc(sizeof *o);
    if (!o)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    o->builtin = 0;
    o->commute = commute != 0;
    o->fn = user_fn;
    /* User ops never take the predefined slots, even after a free. */
    if (mpir_ops.nfree_hint < CLUMPI_OP_BUILTIN_COUNT)
        mpir_ops.nfree_hint = CLUMPI_OP_BUILTIN_COUNT;
    int h = mpir_handle_new(&mpir_ops, o);
    if (h == MPI_OP_NULL) {
        free(o);
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    *op = h;
    return MPI_SUCCESS;
}
MPIR_WEAK(Op_create)

int PMPI_Op_free(MPI_Op *op)
{
    static const char fn[] = "MPI_Op_free";
    MPIR_ENTER(fn);
    if (!op)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "op is NULL"));
    mpir_op *o = op_get(*op);
    if (!o)
        return mpir_err_world(mpir_err(MPI_ERR_OP, fn, "invalid op (op=0x%x)", (unsigned)*op));
    if (o->builtin)
        return mpir_err_world(mpir_err(MPI_ERR_OP, fn, "cannot free predefined op %s",
                                       cu_op_name(o->builtin)));
    mpir_handle_free(&mpir_ops, *op);
    if (mpir_ops.nfree_hint < CLUMPI_OP_BUILTIN_COUNT)
        mpir_ops.nfree_hint = CLUMPI_OP_BUILTIN_COUNT;
    free(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Op_free)

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char fn[] = "MPI_Op_commutative";
    MPIR_ENTER(fn);
    mpir_op *o = op_get(op);
    if (!o)
        return mpir_err_world(mpir_err(MPI_ERR_OP, fn, "invalid op (op=0x%x)", (unsigned)op));
    if (!commute)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "commute is NULL"));
    *commute = o->commute;
    return MPI_SUCCESS;
}
MPIR_WEAK(Op_commutative)

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    static const char fn[] = "MPI_Reduce_local";
    MPIR_ENTER(fn);
    cu_dtype *dt;
    coll_op cop;
    int rc = mpir_check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_dtype(fn, "datatype", datatype, &dt);
    if (rc == MPI_SUCCESS)
        rc = mpir_op_resolve(fn, op, datatype, dt, &cop);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_buf(fn, "inbuf", inbuf, count, dt);
    if (rc == MPI_SUCCESS)
        rc = mpir_check_buf(fn, "inoutbuf", inoutbuf, count, dt);
    if (rc == MPI_SUCCESS && (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
        rc = mpir_err(MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed here");
    if (rc == MPI_SUCCESS && inbuf == inoutbuf && count > 0 && dt->size > 0)
        rc = mpir_err(MPI_ERR_BUFFER, fn, "inbuf and inoutbuf are the same buffer");
    if (rc != MPI_SUCCESS)
        return mpir_err_world(rc);
    coll_op_apply(&cop, inbuf, inoutbuf, (size_t)count, dt);
    return MPI_SUCCESS;
}
MPIR_WEAK(Reduce_local)
