/*
 * dtype.h — the datatype engine: how a (buffer, count, datatype) triple maps to
 * a stream of packed bytes. Every layer uses it: the MPI layer builds types,
 * the device packs and unpacks, channels turn types into iovecs for
 * single-copy transfers, the reduction kernels walk elements.
 *
 * Offsets are positions in the packed byte stream of `count` elements, so a
 * transfer can be cut into fragments anywhere (pipelining, partial reads).
 */
#ifndef CU_DTYPE_H
#define CU_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* The predefined element types, numbered as the MPI layer numbers its
 * predefined datatype handles (src/datatype.c checks the two agree at
 * compile time, so no translation is needed between them). */
enum {
    CU_DT_NULL = 0, CU_DT_CHAR, CU_DT_SIGNED_CHAR, CU_DT_UNSIGNED_CHAR, CU_DT_BYTE, CU_DT_SHORT,
    CU_DT_UNSIGNED_SHORT, CU_DT_INT, CU_DT_UNSIGNED, CU_DT_LONG, CU_DT_UNSIGNED_LONG,
    CU_DT_LONG_LONG_INT, CU_DT_UNSIGNED_LONG_LONG, CU_DT_FLOAT, CU_DT_DOUBLE, CU_DT_LONG_DOUBLE,
    CU_DT_WCHAR, CU_DT_C_BOOL, CU_DT_INT8_T, CU_DT_INT16_T, CU_DT_INT32_T, CU_DT_INT64_T,
    CU_DT_UINT8_T, CU_DT_UINT16_T, CU_DT_UINT32_T, CU_DT_UINT64_T, CU_DT_AINT, CU_DT_COUNT,
    CU_DT_OFFSET, CU_DT_C_FLOAT_COMPLEX, CU_DT_C_DOUBLE_COMPLEX, CU_DT_C_LONG_DOUBLE_COMPLEX,
    CU_DT_PACKED, CU_DT_FLOAT_INT, CU_DT_DOUBLE_INT, CU_DT_LONG_INT, CU_DT_2INT,
    CU_DT_SHORT_INT, CU_DT_LONG_DOUBLE_INT,
    /* Fortran's (MPI-3.1 3.2.2, 17.2.5): the default kinds as gfortran lays
     * them out, then the optional sized ones */
    CU_DT_CHARACTER, CU_DT_LOGICAL, CU_DT_INTEGER, CU_DT_REAL, CU_DT_DOUBLE_PRECISION, CU_DT_COMPLEX, CU_DT_DOUBLE_COMPLEX,
    CU_DT_2INTEGER, CU_DT_2REAL, CU_DT_2DOUBLE_PRECISION, CU_DT_INTEGER1, CU_DT_INTEGER2, CU_DT_INTEGER4,
    CU_DT_INTEGER8, CU_DT_REAL4, CU_DT_REAL8, CU_DT_COMPLEX8, CU_DT_COMPLEX16, CU_DT_BUILTIN_COUNT
};

/* The C types of the multi-language types MPI_AINT, MPI_COUNT, MPI_OFFSET
 * (src/datatype.c checks them against MPI_Aint, MPI_Count, MPI_Offset). */
typedef intptr_t  cu_aint;
typedef long long cu_count;
typedef long long cu_offset;

typedef struct cu_dtype cu_dtype;

/* The leading fields are public so that fast paths can read them inline;
 * the engine's representation follows them (see dtype.c). */
struct cu_dtype {
    size_t    size;        /* bytes of data in one element */
    ptrdiff_t lb;          /* MPI lower bound */
    ptrdiff_t extent;      /* MPI extent (ub - lb) */
    ptrdiff_t true_lb;     /* first byte touched, relative to the buffer */
    ptrdiff_t true_extent; /* span of bytes touched by one element */
    int       contig;      /* nonzero: `count` elements are one block of
                              count*size bytes starting at buf + true_lb */
    int       builtin;     /* nonzero for predefined types (never freed) */
    int       basic;       /* index of the predefined element type when the
                              type is made of one basic type only, else 0 */
    int       committed;
    int       refcount;    /* derived types: freed when it drops to zero */
    /* ---- engine-private representation follows ---- */
    struct cu_dtype_priv *priv;
};

/* The predefined type of index i (CU_DT_CHAR .. CU_DT_BUILTIN_COUNT-1). */
const cu_dtype *cu_dtype_builtin(int index);

/* Hot-path helpers (static inline: called for every message). */
static inline size_t cu_dtype_bytes(const cu_dtype *dt, size_t count)
{
    return dt->size * count;
}
static inline int cu_dtype_is_contig(const cu_dtype *dt)
{
    return dt->contig;
}

/* Pack bytes [offset, offset+len) of the packed stream of (buf, count, dt)
 * into out. Returns the number of bytes packed (less than len only at the
 * end of the stream). */
size_t cu_dtype_pack(const void *buf, size_t count, const cu_dtype *dt,
                     size_t offset, void *out, size_t len);

/* Unpack len bytes of packed stream, starting at stream position offset,
 * from in into (buf, count, dt). Returns bytes consumed. */
size_t cu_dtype_unpack(void *buf, size_t count, const cu_dtype *dt,
                       size_t offset, const void *in, size_t len);

/* Describe packed bytes [offset, offset+maxlen) of (buf, count, dt) as at most
 * maxiov contiguous memory segments. Returns the number of segments written
 * and sets *len to the packed bytes they cover (which may be less than maxlen
 * when maxiov runs out). Adjacent segments are merged. */
int cu_dtype_to_iov(const void *buf, size_t count, const cu_dtype *dt,
                    size_t offset, size_t maxlen,
                    struct iovec *iov, int maxiov, size_t *len);

/* Contiguous memory segments of (count, dt), an upper bound (segments that
 * happen to touch across elements are counted apart), saturating; O(1).
 * Lets protocols pick single-copy or packing from the average segment size
 * without walking the type. */
size_t cu_dtype_blocks(const cu_dtype *dt, size_t count);

/* Number of basic elements in `bytes` packed bytes (MPI_Get_elements), or
 * -1 when bytes does not end on an element boundary. */
long long cu_dtype_count_elements(const cu_dtype *dt, size_t bytes);

/* The inverse, for MPI_Status_set_elements: packed bytes taken by the first
 * `elements` basic elements of a stream of dt (elements >= 0). */
size_t cu_dtype_elements_bytes(const cu_dtype *dt, long long elements);

/* The "external32" representation (MPI-3.1 13.5.2; dtype_external.c):
 * bytes of one element of dt, and whole streams of count elements packed
 * to or unpacked from it. Pack and unpack return 0, -1 when memory runs
 * out, -2 when a value does not fit its destination (an MPI_LONG beyond 32
 * bits, say); unpack then leaves buf untouched. */
size_t cu_dtype_external32_size(const cu_dtype *dt);
int    cu_dtype_pack_external32(const void *buf, size_t count, const cu_dtype *dt, void *out);
int    cu_dtype_unpack_external32(const void *in, void *buf, size_t count, const cu_dtype *dt);

/* Reference counting. Predefined types are static and ignore both calls.
 * A request that keeps a type past the call that passed it retains it (the
 * user may MPI_Type_free it meanwhile) and releases it on completion. const
 * because the device holds `const cu_dtype *`: the count is not part of the
 * type's value. */
void cu_dtype_retain(const cu_dtype *dt);
void cu_dtype_release(const cu_dtype *dt);  /* frees derived types at refcount 0 */

/* ---- constructors (used by src/datatype.c) ------------------------------
 * MPI semantics for bounds, extents and typemap order; arguments are already
 * checked (counts and block lengths >= 0). Each returns a new uncommitted
 * type with refcount 1 that holds its children, or NULL when memory runs out.
 * Displacements are in bytes. */
cu_dtype *cu_dtype_contiguous(size_t count, const cu_dtype *old);
cu_dtype *cu_dtype_hvector(size_t count, size_t blocklen, ptrdiff_t stride,
                           const cu_dtype *old);
/* blocklens == NULL: every block has blocklen elements (indexed_block). */
cu_dtype *cu_dtype_hindexed(size_t count, const int *blocklens, size_t blocklen,
                            const ptrdiff_t *disps, const cu_dtype *old);
cu_dtype *cu_dtype_struct(size_t count, const int *blocklens,
                          const ptrdiff_t *disps, const cu_dtype *const *types);
cu_dtype *cu_dtype_resized(const cu_dtype *old, ptrdiff_t lb, ptrdiff_t extent);
cu_dtype *cu_dtype_dup(const cu_dtype *old);
/* order_c: nonzero for C (row-major) order, 0 for Fortran order. Sizes > 0,
 * 0 <= subsizes, starts + subsizes <= sizes (checked by the caller). */
cu_dtype *cu_dtype_subarray(int ndims, const int *sizes, const int *subsizes,
                            const int *starts, int order_c, const cu_dtype *old);
/* The distributed array of MPI-3.1 4.1.4 as the standard constructs it:
 * per dimension, blocks of dargs[d] elements dealt round-robin over
 * psizes[d] processes, this process at grid coordinate coords[d]; lb 0 and
 * the extent of the whole gsizes array. Arguments checked by the caller
 * (positive sizes, coords[d] < psizes[d]); ndims > 0. */
cu_dtype *cu_dtype_darray(int ndims, const int *gsizes, const int *dargs, const int *psizes,
                          const int *coords, int order_c, const cu_dtype *old);

/* Constructor record for MPI_Type_get_envelope/get_contents. The engine
 * stores it without interpreting it and holds the types. Returns -1 on ENOMEM. */
int  cu_dtype_set_contents(cu_dtype *dt, int combiner, int ni, const int *ints,
                           int na, const ptrdiff_t *aints, int nd,
                           const cu_dtype *const *types);
/* combiner 0 for predefined types (MPI_COMBINER_NAMED is the caller's). */
void cu_dtype_get_contents(const cu_dtype *dt, int *combiner, int *ni,
                           const int **ints, int *na, const ptrdiff_t **aints,
                           int *nd, cu_dtype *const **types);

/* Names: predefined types start with their MPI names ("MPI_INT"). */
const char *cu_dtype_name(const cu_dtype *dt);
void        cu_dtype_set_name(cu_dtype *dt, const char *name);  /* truncates */

/* Index in mpi.h's table of a predefined type, 0 for derived types. */
int cu_dtype_builtin_index(const cu_dtype *dt);

#endif
