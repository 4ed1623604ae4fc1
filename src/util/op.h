/*
 * op.h — kernels of the predefined reduction operations (MPI-3.1 §5.9.2) on
 * the predefined element types. A leaf utility with its own numbering, so
 * the NI agent links it without the MPI layer.
 *
 * Ops are the CU_OP_* below, types the CU_DT_* of dtype.h (the `basic`
 * field of a cu_dtype); src/op.c and src/datatype.c check at compile time
 * that mpi.h numbers its predefined handles the same way.
 *
 * Every kernel computes inout[i] = in[i] op inout[i] for n elements. in and
 * inout must not overlap (they are declared restrict so loops vectorize).
 */
#ifndef CU_OP_H
#define CU_OP_H

#include <stddef.h>

enum {
    CU_OP_NULL = 0,
    CU_OP_MAX, CU_OP_MIN, CU_OP_SUM, CU_OP_PROD,
    CU_OP_LAND, CU_OP_BAND, CU_OP_LOR, CU_OP_BOR, CU_OP_LXOR, CU_OP_BXOR,
    CU_OP_MINLOC, CU_OP_MAXLOC, CU_OP_REPLACE, CU_OP_NO_OP,
    CU_OP_COUNT
};

typedef void cu_op_kernel(const void *in, void *inout, size_t n);

/* Nonzero when op is defined on the predefined type `basic` for a reduction
 * (MPI-3.1 §5.9.2 groups: C integer, floating point, complex, logical, byte,
 * multi-language types; MINLOC/MAXLOC on the pair types). MPI_REPLACE and
 * MPI_NO_OP are accumulate-only: see cu_op_valid_accumulate. */
int cu_op_valid(int op, int basic);
/* As cu_op_valid, plus MPI_REPLACE and MPI_NO_OP on every predefined type
 * (one-sided accumulate, and the NI agent's remote operations). */
int cu_op_valid_accumulate(int op, int basic);

/* The kernel of op on elements laid out as C lays out the type (pair types
 * as their C structs, padding included), or NULL when op is not defined on
 * it. MPI_REPLACE and MPI_NO_OP have kernels for every predefined type. */
cu_op_kernel *cu_op_kernel_get(int op, int basic);

/* The same on the packed byte stream of the datatype engine: identical for
 * all types but the pair types, whose packed elements are the value
 * followed directly by the int (no padding). */
cu_op_kernel *cu_op_kernel_packed(int op, int basic);

/* Bytes of one element: in memory (the C type's size, the pair struct's
 * sizeof) and in the packed stream. 0 for an unknown index. */
size_t cu_op_elem_size(int basic);
size_t cu_op_packed_size(int basic);

/* Applies op to n elements of basic in C layout. Returns 0, or -1 when op is
 * not defined on the type (nothing is written). */
int cu_op_reduce(int op, int basic, const void *in, void *inout, size_t n);

/* Names for messages: "MPI_SUM", and the type's MPI name ("MPI_DOUBLE"). */
const char *cu_op_name(int op);
const char *cu_op_type_name(int basic);

#endif
