/*
 * win.h — the window object of the MPI layer and the hooks between its
 * one-sided files: win.c (creation, attributes, names, error handlers),
 * rma.c (the communication calls) and win_sync.c (epochs). The device part
 * (mpid_win, mpid/rma.h) is embedded; the epoch state lives here.
 */
#ifndef MPIR_WIN_H
#define MPIR_WIN_H

#include "src/mpir.h"
#include "mpid/rma.h"

/* The hints in force (win_info.c): the program's promises, defaults when
 * it made none. */
typedef struct mpir_win_hints {
    int no_locks;
    int acc_order;        /* accumulate_ordering: bits rar, raw, war, waw; 0 "none" */
    int acc_same_op;      /* accumulate_ops: 1 same_op, 0 same_op_no_op */
    int same_size, same_disp_unit;
} mpir_win_hints;

typedef struct mpir_win {
    mpid_win    dev;
    int         handle;
    mpir_comm  *comm;         /* private duplicate of the creating communicator */
    int         flavor;       /* MPI_WIN_FLAVOR_* */
    int         model;        /* MPI_WIN_SEPARATE or MPI_WIN_UNIFIED */
    int         disp_unit;    /* attribute values (the standard hands out pointers) */
    MPI_Aint    size;
    void       *base;
    MPI_Errhandler errhandler;
    char        name[MPI_MAX_OBJECT_NAME];
    mpir_win_hints hints;
    mpir_attr  *attrs;        /* user attributes (attr.c) */
    void       *alloc;        /* Win_allocate memory outside a segment */
    /* epochs (win_sync.c) */
    int         fence;        /* a fence opened an access/exposure epoch */
    unsigned char *locks;     /* [size]: lock type held on each target, 0 none */
    int         nlocks;
    int         lock_all;
    int        *start;        /* access group of Win_start (window ranks), or NULL */
    int         nstart;
    int        *post;         /* exposure group of Win_post, or NULL */
    int         npost;
    mpid_request **post_done; /* [npost] receives of the origins' completion */
} mpir_win;

static inline mpir_win *mpir_win_get(MPI_Win w)
{
    return (mpir_win *)mpir_handle_get(&mpir_wins, w);
}

/* Reports code through the window's error handler (win.c). */
int mpir_err_win(mpir_win *w, int code);

/* Entry-point prologue for window calls. */
#define MPIR_GET_WIN(fn, handle, wptr)                                       \
    do {                                                                     \
        (wptr) = mpir_win_get(handle);                                       \
        if (!(wptr))                                                         \
            return mpir_err_world(mpir_err(MPI_ERR_WIN, fn,                  \
                                   "invalid window (win=0x%x)",              \
                                   (unsigned)(handle)));                     \
    } while (0)

/* User attributes (attr.c): the value of a user keyval (the predefined
 * keys are win.c's), and deleting them all at Win_free (the first failing
 * delete callback's code). */
int mpir_win_attr_get(const char *fn, mpir_win *w, int keyval, void *attribute_val, int *flag);
int mpir_win_attrs_free(mpir_win *w);

/* Hints (win_info.c): the defaults; and the predefined keys of info read
 * into *h (creation != 0: the creation-only keys too). Unknown keys and
 * values are ignored; an invalid info handle is an MPI_ERR_INFO code
 * naming fn (MPI_INFO_NULL: no hints). */
void mpir_win_hints_default(mpir_win_hints *h);
int  mpir_win_hints_read(const char *fn, mpir_win_hints *h, MPI_Info info, int creation);

/* Access to target allowed by the current epochs (win_sync.c). */
int mpir_win_can_access(const mpir_win *w, int target);

/* Tags of the window's private communicator (PSCW handshakes). */
enum { MPIR_WIN_TAG_POST = 1, MPIR_WIN_TAG_DONE = 2 };

#endif
