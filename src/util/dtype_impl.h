/*
 * dtype_impl.h — the datatype engine's private representation, shared by
 * dtype.c (constructors, pack/unpack) and dtype_builtin.c (predefined types).
 * Nothing outside src/util/dtype*.c includes it.
 *
 * One element of a type is described by a tree of nodes:
 *   LEAF    a flat list of memory blocks (offset, length) in stream order,
 *           adjacent blocks merged. Used for every type with few blocks and
 *           for indexed types over contiguous children.
 *   REPEAT  `n` copies of a child at off + i*stride: vectors and contiguous
 *           runs of non-flat children, so a huge vector costs one node.
 *   LIST    `n` children at displacements disp[i]: structs and indexed types
 *           whose children are not flat.
 * Every node knows its packed size, so a stream offset is found by division
 * (REPEAT) or binary search over prefix sums (LEAF, LIST).
 */
#ifndef CU_DTYPE_IMPL_H
#define CU_DTYPE_IMPL_H

#include "src/util/dtype.h"

enum { CU_NODE_LEAF = 0, CU_NODE_REPEAT, CU_NODE_LIST };

typedef struct cu_node {
    int        kind;
    int        refcount;    /* shared between types; < 0: static, never freed */
    size_t     size;        /* packed bytes of one instance */
    size_t     nblk;        /* memory blocks of one instance if flattened (saturating) */
    size_t     n;           /* LEAF: blocks; REPEAT: copies; LIST: children */
    ptrdiff_t  off;         /* REPEAT: offset of the first copy */
    ptrdiff_t  stride;      /* REPEAT: bytes between copies */
    struct cu_node  *child; /* REPEAT */
    ptrdiff_t       *disp;  /* LEAF: block offsets; LIST: child displacements */
    size_t          *len;   /* LEAF: block lengths */
    size_t          *pre;   /* LEAF, LIST: stream bytes before entry i, [n+1] */
    struct cu_node **kids;  /* LIST */
} cu_node;

#define CU_DTYPE_NAME_MAX 128   /* = MPI_MAX_OBJECT_NAME */

struct cu_dtype_priv {
    cu_node  *root;          /* one element */
    long long nelem;         /* basic elements in one element */
    size_t    align;         /* strictest alignment of the basic parts */
    int       sticky;        /* bounds were set explicitly (resized): a
                                struct containing it is not padded */
    int       index;         /* predefined: index in mpi.h's table */
    int       pair;          /* predefined pair type (MPI_FLOAT_INT ...) */
    /* The element stream as runs of child elements, in typemap order: what
     * cu_dtype_count_elements walks for partial elements. */
    size_t    nsc;
    cu_dtype **sc_type;
    size_t   *sc_copies;
    /* Constructor record (MPI_Type_get_contents); the engine keeps it opaque. */
    int        combiner;
    int        ni, na, nd;
    int       *ints;
    ptrdiff_t *aints;
    cu_dtype **types;
    char       name[CU_DTYPE_NAME_MAX];
};

/* Engine internals used by dtype_builtin.c. */
cu_node *cu_node_leaf(size_t n, const ptrdiff_t *disp, const size_t *len);
void     cu_node_release(cu_node *nd);

#endif
