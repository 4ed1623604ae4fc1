/*
 * core.h — hooks between the MPI layer's core files (init, errors, error
 * handlers, groups, communicators, attributes, info, topologies). Nothing
 * outside those files needs it; the shared contract stays in mpir.h.
 */
#ifndef MPIR_CORE_H
#define MPIR_CORE_H

#include "src/mpir.h"

/* ---- errors.c ---------------------------------------------------------------- */
/* MPI_LASTUSEDCODE: the highest error class or user-added code in use. */
extern int mpir_lastusedcode;
/* Resets the error-string tables added by the user (MPI_Finalize). */
void mpir_errors_finalize(void);

/* ---- errhandler.c ------------------------------------------------------------ */
void mpir_errhandler_init(void);
void mpir_errhandler_finalize(void);
void mpir_errhandler_retain(MPI_Errhandler e);
void mpir_errhandler_release(MPI_Errhandler e);
/* Calls handler h for an error on a non-communicator object (a window). */
int  mpir_err_handler_call(int obj, MPI_Errhandler h, int code);

/* ---- group.c ----------------------------------------------------------------- */
void mpir_group_init(void);      /* MPI_GROUP_EMPTY */
void mpir_group_finalize(void);
void mpir_group_retain(mpir_group *g);
/* The group object behind a handle, or NULL. */
static inline mpir_group *mpir_group_get(MPI_Group g)
{
    return (mpir_group *)mpir_handle_get(&mpir_groups, g);
}
/* Rank of world rank w in g, or MPI_UNDEFINED. Linear: groups are small and
 * this runs at group creation, not per message. */
int mpir_group_find(const mpir_group *g, int w);

/* ---- comm.c ------------------------------------------------------------------ */
int  mpir_comm_init(void);       /* COMM_WORLD and COMM_SELF */
void mpir_comm_finalize(void);   /* frees every communicator left */
/* Frees topology, info, error handler reference, group and handle; the
 * attributes must be gone already (mpir_comm_attrs_free or _drop). */
void mpir_comm_release(mpir_comm *c);
/* Comm_split without the argument checks: Cart_sub uses it. On an
 * intercommunicator, the inter form (mpir_intercomm_split). */
int  mpir_comm_split(mpir_comm *parent, int color, int key, mpir_comm **out);
/* A communicator object over g (retained) with context ctx and parent's
 * error handler; internal: no handle (an intercommunicator's local_comm). */
mpir_comm *mpir_comm_new(const mpir_comm *parent, mpir_group *g, int ctx, int internal);
/* A process may be in an intracommunicator twice (Intercomm_merge of an
 * intercommunicator with lanes: intercomm.c), as two members that receive
 * on contexts of their own: x and x + 2 from the agreed x, by a table of
 * the members' lanes (mpid_comm.ctx_hi).
 * mpir_comm_sides_of: *out, the table of g's members (parent's members)
 * as they are in parent, the k-th time g holds a world rank standing for
 * parent's k-th member of that world rank; NULL when parent's all share
 * one context; MPI_ERR_NO_MEM. mpir_comm_set_ctx: c's contexts from x, by
 * its table (which c owns) when it has one; such a communicator counts as
 * foreign (mpid_comm.foreign), since its members see the process held
 * twice under different world ranks (one a routing slot) or the same. */
int  mpir_comm_sides_of(const mpir_comm *parent, const mpir_group *g, unsigned char **out);
void mpir_comm_set_ctx(mpir_comm *c, int x);
/* What Comm_dup and Comm_idup check: comm valid (*c), newcomm not NULL,
 * and with use_info a valid info; errors reported on comm. */
int  mpir_comm_dup_checks(const char *fn, MPI_Comm comm, int use_info, MPI_Info info,
                          MPI_Comm *newcomm, mpir_comm **c);
/* What Comm_free and Comm_disconnect check: comm not NULL, a valid
 * communicator other than COMM_WORLD and COMM_SELF, its idup complete
 * (*out); errors reported, naming fn. */
int  mpir_comm_free_checks(const char *fn, MPI_Comm *comm, mpir_comm **out);
/* Gives nc, a duplicate of c, c's attributes (copy callbacks run), topology
 * and the hints info. On failure nc is released and the code (naming fn)
 * returned. */
int  mpir_comm_dup_props(const char *fn, mpir_comm *c, mpir_comm *nc, MPI_Info info);
/* Context ids: this process's next free id, and moving it past ctx (every
 * process does so for every id it accepts). A blocking agreement samples
 * the counter with mpir_ctx_begin and ends, on every path, with
 * mpir_ctx_end (ctx < 0: nothing accepted); mpir_ctx_inflight is the sample
 * of the one under way, or -1. */
int  mpir_ctx_next(void);
void mpir_ctx_accept(int ctx);
int  mpir_ctx_begin(void);
void mpir_ctx_end(int ctx);
int  mpir_ctx_inflight(void);   /* the lowest sample under way, or -1 */
/* Ids proposed to an agreement and held until it ends (so that concurrent
 * ones refuse them); mpir_ctx_taken: a communicator of mine (or the local
 * one of an intercommunicator) has ctx, or it is reserved. */
int  mpir_ctx_reserve(int ctx);
void mpir_ctx_unreserve(int ctx);
int  mpir_ctx_taken(int ctx);
/* The same for an agreement with an identity (nonzero, the same at every
 * member, as dynamic.c's): its own reservations, made by another thread of
 * this process on the agreement's other side, do not count as taken. */
int  mpir_ctx_reserve_as(int ctx, uint64_t agreement);
int  mpir_ctx_taken_by_other(int ctx, uint64_t agreement);
/* Under MPI_THREAD_MULTIPLE (when any member's sample carried the flag
 * bit 1) a blocking agreement's maximum m may be taken here by a
 * concurrent one: rounds of maxfn (the maximum of each of the n ints over
 * every member) until no member refuses the ids m .. m + 2 * (span - 1);
 * the id all took goes to *ctx (see comm.c). agreement: its identity
 * (mpir_ctx_reserve_as), or 0. */
typedef int mpir_ctx_maxfn(void *arg, const int *mine, int n, int *max);
int  mpir_ctx_confirm(mpir_ctx_maxfn *maxfn, void *arg, int m, int span, uint64_t agreement,
                      int *ctx);
/* The identity of agreement number seq of kind (0: blocking, 1: idup,
 * 2: Comm_create_group, seq its tag) over
 * c: the same at every member of c, also at the two objects of a process
 * on both sides of an intercommunicator, and apart from every other
 * agreement a process takes part in meanwhile (dynamic.c's: bit 63 clear). */
uint64_t mpir_ctx_agreement(const mpir_comm *c, unsigned kind, unsigned seq);
/* Folds into max[0..n) the largest of each column of a table of rows
 * records of n ints (max starts at the caller's values). */
void mpir_ctx_fold_max(const int *table, int rows, int n, int *max);
/* The largest context sample in column col of a table of rows records of
 * n ints, at least m; *mt |= the flag bit of any of them (MULTIPLE). */
int  mpir_ctx_sample_max(const int *table, int rows, int n, int col, int m, int *mt);
/* The context of a duplicate whose MPI_Comm_idup has not completed: odd,
 * so never an agreed id. */
#define MPIR_CTX_PENDING 0xffffffffu
/* The group of the rows of table (rows records of stride ints: color, key,
 * ...) whose color is color, ordered by key and then row; row i stands for
 * from's rank i. With lanes (from's, by rank), *lanes_out gets the group's
 * (malloc'd). NULL when memory runs out. */
mpir_group *mpir_group_of_color(const int *table, int rows, int stride, int color,
                                const mpir_group *from, const unsigned char *lanes,
                                unsigned char **lanes_out);

/* ---- intercomm.c ------------------------------------------------------------- */
/* Comm_split on an intercommunicator (MPI-3.1 6.4.2): collective over both
 * groups; *out is the intercommunicator of my color's local and remote
 * members, or NULL when color is MPI_UNDEFINED or either side is empty. */
int  mpir_intercomm_split(mpir_comm *ic, int color, int key, mpir_comm **out);
/* An intercommunicator object over local and remote (both retained) with
 * context ctx, its local intracommunicator on ctx+2 and parent's error
 * handler; NULL when memory runs out. */
mpir_comm *mpir_intercomm_new(const mpir_comm *parent, mpir_group *local, mpir_group *remote,
                              int ctx);
/* A process may be twice among an intercommunicator's members: on both
 * sides (MPI_Comm_accept in one thread, MPI_Comm_connect in another), or
 * twice in one group (a group made from such an intercommunicator's
 * merge). Each member then has a lane, 0 or 1, the two of one process
 * different ones: a member on lane l receives on x + 2l and in its local
 * intracommunicator on x + 4 + 2l, and a send carries its destination's.
 * The lanes are two tables, local_comm->dev.ctx_hi for the local group and
 * dev.ctx_hi for the remote one, both or neither (then x and x + 2).
 * mpir_intercomm_apart: ic has lanes. mpir_intercomm_set_lanes: gives ic
 * copies of the tables (NULL: none); MPI_ERR_NO_MEM. mpir_intercomm_set_ctx:
 * ic's contexts from x, by its lanes. MPIR_LANES_SPAN: the ids an
 * intercommunicator with lanes takes. */
#define MPIR_LANES_SPAN 4
static inline int mpir_intercomm_apart(const mpir_comm *ic)
{
    return ic->local_comm->dev.ctx_hi != NULL;
}
int  mpir_intercomm_set_lanes(mpir_comm *ic, const unsigned char *local,
                              const unsigned char *remote);
void mpir_intercomm_set_ctx(mpir_comm *ic, int x);

/* ---- attr.c ------------------------------------------------------------------ */
void mpir_attr_init(int universe_size, int appnum);
void mpir_attr_finalize(void);
/* Runs the copy callbacks of old's attributes onto newc (Comm_dup). */
int  mpir_comm_attrs_copy(mpir_comm *old, mpir_comm *newc);
/* Runs the delete callbacks and empties the list (Comm_free, Finalize). */
int  mpir_comm_attrs_free(mpir_comm *c);
/* Forgets the attributes without callbacks (communicators left at Finalize). */
void mpir_comm_attrs_drop(mpir_comm *c);

/* ---- info.c ------------------------------------------------------------------ */
void mpir_info_init(int *argc, char ***argv);   /* MPI_INFO_ENV */
void mpir_info_finalize(void);
/* A new handle holding a copy of info (MPI_INFO_NULL stays NULL). */
int  mpir_info_dup(MPI_Info info, MPI_Info *out);
void mpir_info_release(MPI_Info info);

/* ---- topo.c ------------------------------------------------------------------ */
mpir_topo *mpir_topo_dup(const mpir_topo *t);   /* NULL in, NULL out */
void       mpir_topo_free(mpir_topo *t);

#endif
