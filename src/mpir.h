/*
 * mpir.h — internals of the MPI layer (src/): handle tables, error reporting,
 * argument checks and the objects behind MPI handles. Every file in src/ includes
 * it; nothing below src/ does.
 *
 * Profiling interface: each entry point is defined as PMPI_x; MPIR_WEAK
 * makes MPI_x its weak alias for programs and tools, and mpir_x its hidden
 * alias for the library itself. The library calls mpir_x, never MPI_x or
 * PMPI_x: a tool that interposes on MPI_x (or PMPI_x) sees only the user's
 * calls, as MPI-3.1 section 14.2 expects, and a call between the library's
 * files binds directly instead of through the PLT (test/exports.sh).
 */
#ifndef MPIR_H
#define MPIR_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "mpid/mpid.h"
#include "src/util/dtype.h"
#include "src/thread.h"

#define MPIR_WEAK(name)                                                      \
    _Pragma(MPIR_STR(weak MPI_##name = PMPI_##name))                         \
    extern __typeof(PMPI_##name) mpir_##name                                 \
        __attribute__((alias(MPIR_STR(PMPI_##name)), visibility("hidden")));
#define MPIR_STR(x) #x
/* Declares mpir_x, the hidden alias of PMPI_x, for the files that call it. */
#define MPIR_INTERNAL(name) \
    extern __typeof(PMPI_##name) mpir_##name __attribute__((visibility("hidden")))

MPIR_INTERNAL(Allgather);
MPIR_INTERNAL(Barrier);
MPIR_INTERNAL(Bcast);
MPIR_INTERNAL(Cart_shift);
MPIR_INTERNAL(Cartdim_get);
MPIR_INTERNAL(Comm_create_errhandler);
MPIR_INTERNAL(Comm_create_keyval);
MPIR_INTERNAL(Comm_dup);
MPIR_INTERNAL(Comm_free);
MPIR_INTERNAL(Comm_get_attr);
MPIR_INTERNAL(Comm_group);
MPIR_INTERNAL(Comm_rank);
MPIR_INTERNAL(Comm_set_attr);
MPIR_INTERNAL(Dist_graph_neighbors);
MPIR_INTERNAL(Dist_graph_neighbors_count);
MPIR_INTERNAL(Error_string);
MPIR_INTERNAL(Fetch_and_op);
MPIR_INTERNAL(Graph_neighbors);
MPIR_INTERNAL(Graph_neighbors_count);
MPIR_INTERNAL(Group_compare);
MPIR_INTERNAL(Info_create);
MPIR_INTERNAL(Info_free);
MPIR_INTERNAL(Info_get);
MPIR_INTERNAL(Info_set);
MPIR_INTERNAL(Topo_test);
MPIR_INTERNAL(Win_allocate);
MPIR_INTERNAL(Win_flush);
MPIR_INTERNAL(Win_free);
MPIR_INTERNAL(Win_lock_all);
MPIR_INTERNAL(Win_unlock_all);

/* Entry points test their arguments inline (MPIR_LIKELY) and build error
 * messages in MPIR_COLD functions, kept off the fast path. */
#define MPIR_LIKELY(x)   __builtin_expect(!!(x), 1)
#define MPIR_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MPIR_COLD        __attribute__((cold, noinline))

/* ---- handle tables (handle.c) -------------------------------------------
 * One table per kind; index 0 is the null handle, predefined objects take
 * the first indices. Lookups are a bounds check and a load. */
typedef struct mpir_table {
    int     kind;
    void  **obj;      /* obj[index] or NULL when free */
    int     cap;
    int     nfree_hint;
} mpir_table;

extern mpir_table mpir_comms, mpir_groups, mpir_dtypes, mpir_ops, mpir_requests,
                  mpir_errhandlers, mpir_infos, mpir_messages, mpir_wins;

/* Stores obj at a fixed index (predefined objects). */
void  mpir_handle_set(mpir_table *t, int index, void *obj);
/* Stores obj at a free index (the first from the table's hint on, past the
 * predefined ones); returns the handle, or the null handle when memory runs
 * out. */
int   mpir_handle_new(mpir_table *t, void *obj);
void  mpir_handle_free(mpir_table *t, int handle);
static inline void *mpir_handle_get(const mpir_table *t, int handle)
{
    unsigned h = (unsigned)handle;
    unsigned idx = h & 0xffffffu;
    if ((int)(h >> 24) != t->kind || idx == 0 || idx >= (unsigned)t->cap)
        return NULL;
    return t->obj[idx];
}

/* ---- errors (errors.c, errhandler.c) -------------------------------------
 * An error code is its class in the low 8 bits plus a slot in a ring of
 * recent messages above, so MPI_Error_string can name the function and the
 * argument that failed while MPI_Error_class stays a mask. */
int  mpir_err(int errclass, const char *func, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Hand an error to the communicator's error handler: with
 * MPI_ERRORS_ARE_FATAL it prints the message and aborts the job; with
 * MPI_ERRORS_RETURN (or a user handler, once called) it returns code. */
int  mpir_err_comm(MPI_Comm comm, int code);
/* For errors not tied to a communicator: MPI_COMM_WORLD's handler. */
int  mpir_err_world(int code);
/* Called by every entry point when the library is not initialized (or has
 * been finalized): prints one line naming the function and returns an error. */
int  mpir_err_not_active(const char *func) MPIR_COLD;
/* An invalid communicator handle, reported on MPI_COMM_WORLD. */
int  mpir_err_bad_comm(const char *func, MPI_Comm handle) MPIR_COLD;

/* ---- library state (init.c) --------------------------------------------- */
enum { MPIR_STATE_PRE = 0, MPIR_STATE_ACTIVE, MPIR_STATE_POST };
extern int mpir_state;
static inline int mpir_active(void) { return mpir_state == MPIR_STATE_ACTIVE; }

/* ---- groups (group.c) --------------------------------------------------- */
typedef struct mpir_group {
    int  size;
    int  rank;           /* my rank in the group, or MPI_UNDEFINED */
    int *world_ranks;    /* [size] */
    int  refcount;
    int  handle;
} mpir_group;

mpir_group *mpir_group_new(int size, const int *world_ranks);  /* refcount 1 */
void        mpir_group_release(mpir_group *g);

/* ---- communicators (comm.c) --------------------------------------------- */
typedef struct mpir_attr mpir_attr;   /* attribute list entry (attr.c) */
typedef struct mpir_topo mpir_topo;   /* Cartesian / graph data (topo.c) */

/* An intercommunicator (is_inter) joins two disjoint groups: group is the
 * local one, remote_group the other. Its dev is the device's view for
 * traffic between the groups: the contexts the groups agreed on, rank = my
 * rank in the local group, size and world_ranks = the REMOTE group's, so
 * point-to-point ranks name remote processes. local_comm is an internal
 * intracommunicator over the local group (own context, no handle) for the
 * collectives and the context agreements. */
typedef struct mpir_comm {
    mpid_comm   dev;         /* context, rank, size, rank map: for the device */
    mpir_group *group;       /* the (local) group */
    int         handle;
    int         errhandler;  /* MPI_Errhandler */
    int         refcount;
    char        name[MPI_MAX_OBJECT_NAME];
    mpir_attr  *attrs;
    mpir_topo  *topo;
    int         info;        /* MPI_Info hints, or MPI_INFO_NULL */
    int         is_inter;      /* nonzero for an intercommunicator */
    mpir_group *remote_group;  /* intercommunicator: the remote group (retained); else NULL */
    struct mpir_comm *local_comm; /* intercommunicator: internal intracommunicator over
                                   * the local group; else NULL */
    unsigned    idup_seq;      /* MPI_Comm_idup calls on it so far (their tags) */
    unsigned    agree_seq;     /* blocking agreements over it so far (their identity) */
} mpir_comm;

static inline mpir_comm *mpir_comm_get(MPI_Comm c)
{
    return (mpir_comm *)mpir_handle_get(&mpir_comms, c);
}

/* Builds a new communicator over group (which it retains) with a fresh
 * context id agreed on parent's collective context. Collective over parent;
 * ranks not in group pass group == NULL and get *out == NULL. */
int mpir_comm_create_from_group(mpir_comm *parent, mpir_group *group, mpir_comm **out);

/* ---- datatypes (datatype.c) --------------------------------------------- */
static inline cu_dtype *mpir_dtype_get(MPI_Datatype t)
{
    return (cu_dtype *)mpir_handle_get(&mpir_dtypes, t);
}

/* d can carry data: a type (not NULL for MPI_DATATYPE_NULL or a bad
 * handle), predefined or committed. */
static inline int mpir_dtype_usable(const cu_dtype *d)
{
    return d != NULL && (d->builtin | d->committed);
}

/* The fast test of a buffer argument triple: d usable, count >= 0, and a
 * NULL buffer only where no byte is at address 0 (no data, or absolute
 * addresses). */
static inline int mpir_buf_args_ok(const cu_dtype *d, int count, const void *buf)
{
    return mpir_dtype_usable(d) && count >= 0 &&
           (buf != NULL || count == 0 || d->size == 0 || d->true_lb != 0);
}

/* Set up and tear down the predefined datatypes (datatype.c), called by
 * MPI_Init / MPI_Finalize. */
int  mpir_dtype_init(void);
void mpir_dtype_finalize(void);

/* ---- reduction ops (op.c) ------------------------------------------------
 * The predefined ops at their fixed handles (set up by MPI_Init, dropped by
 * MPI_Finalize) and user ops. mpir_op_resolve checks op and its pairing with
 * the datatype (MPI_ERR_OP with a message naming both) and fills the
 * collectives' view of the op. */
struct coll_op;
int  mpir_op_init(void);
void mpir_op_finalize(void);
int  mpir_op_resolve(const char *func, MPI_Op op, MPI_Datatype type, const cu_dtype *dt,
                     struct coll_op *out);

/* Datatype attributes live with the other attributes (attr.c); the datatype
 * code calls these when a type is duplicated or freed. */
int  mpir_type_attrs_copy(MPI_Datatype oldtype, MPI_Datatype newtype);
int  mpir_type_attrs_free(MPI_Datatype type);

/* Point-to-point layer hooks (src/ pt2pt files): MPI_Finalize calls this
 * first, to complete buffered sends and free what the layer holds. */
int  mpir_pt2pt_finalize(void);

/* ---- argument checks ----------------------------------------------------
 * Each returns MPI_SUCCESS or an error code whose message names func and the
 * argument; the caller passes the code to mpir_err_comm(). */
int mpir_check_count(const char *func, const char *arg, int count);
int mpir_check_dtype(const char *func, const char *arg, MPI_Datatype t, cu_dtype **out);
int mpir_check_buf(const char *func, const char *arg, const void *buf, int count, const cu_dtype *dt);
int mpir_check_tag(const char *func, const char *arg, int tag, int allow_any);
int mpir_check_rank(const char *func, const char *arg, const mpir_comm *c, int rank,
                    int allow_any_source);
/* MPI_ERR_COMM when c is an intercommunicator (for the operations MPI-3.1
 * defines on intracommunicators only). */
int mpir_check_intra(const char *func, const mpir_comm *c);

/* Entry-point prologue: library active, communicator valid. MPIR_ENTER
 * also holds the library lock until the entry point returns (a guard
 * variable left by scope exit; thread.h), once MPI_THREAD_MULTIPLE was
 * granted; it opens the function body, once per function. */
#define MPIR_ENTER(fn)                                                       \
    MPIR_CS_GUARD;                                                           \
    do { if (MPIR_UNLIKELY(!mpir_active())) return mpir_err_not_active(fn); } while (0)
#define MPIR_GET_COMM(fn, handle, cptr)                                      \
    do {                                                                     \
        (cptr) = mpir_comm_get(handle);                                      \
        if (MPIR_UNLIKELY(!(cptr)))                                          \
            return mpir_err_bad_comm(fn, handle);                            \
    } while (0)

#define MPIR_TAG_UB 0x7fffffff

/* Tag of the leaders' exchange when the two groups of an intercommunicator
 * agree on a new communicator (intercomm.c), on the intercommunicator's
 * collective context; apart from the collectives' tags (coll/coll_impl.h,
 * coll/sched.h) and the device's (mpid.h). */
#define MPIR_TAG_INTER_AGREE (-56)

/* Tag of MPI_Comm_disconnect's agreement on a lost process among the
 * members of this job in an intracommunicator that holds others
 * (dynamic.c), on its collective context. */
#define MPIR_TAG_DISCONNECT_AGREE (-57)

#endif
