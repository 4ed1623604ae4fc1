/*
 * pvar_session.c — MPI_T performance experiment sessions and their
 * handles. Each handle keeps its own view of a device counter, so sessions
 * (and handles) are independent:
 *  - COUNTER: acc + (cur - base while started): the growth while started
 *    since the handle's last reset or write;
 *  - LEVEL: the current level (continuous, read-only);
 *  - HIGHWATERMARK: the largest level while started since the last reset.
 *    The device keeps one mark (mpid_counters); a handle's start or reset
 *    first folds the mark into every started handle of that variable, then
 *    rebases it to the current level, so each handle's value is
 *    max(its own, the device's mark while started).
 */
#include <stdlib.h>
#include "src/mpit/mpit.h"

struct clumpi_T_pvar {
    struct clumpi_T_pvar *next;          /* in its session */
    int idx;
    int started;
    unsigned long long acc, base;       /* COUNTER */
    unsigned long long max;             /* HIGHWATERMARK */
};

struct clumpi_T_session {
    struct clumpi_T_session *next;
    struct clumpi_T_pvar *handles;
};

static struct clumpi_T_session *sessions;
static int nsessions, nhandles;

static int live_session(MPI_T_pvar_session s)
{
    for (struct clumpi_T_session *x = sessions; x; x = x->next)
        if (x == s)
            return 1;
    return 0;
}

static int in_session(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (struct clumpi_T_pvar *x = s->handles; x; x = x->next)
        if (x == h)
            return 1;
    return 0;
}

static const mpir_t_pvar_def *def_of(const struct clumpi_T_pvar *h)
{
    return &mpir_t_pvars[h->idx];
}

/* Every started handle of variable idx takes in the device's mark. */
static void fold_marks(int idx)
{
    unsigned long long mark = *mpir_t_pvars[idx].mark;
    for (struct clumpi_T_session *s = sessions; s; s = s->next)
        for (struct clumpi_T_pvar *h = s->handles; h; h = h->next)
            if (h->idx == idx && h->started && mark > h->max)
                h->max = mark;
}

/* A new high-water interval starts now for handle h. */
static void mark_rebase(struct clumpi_T_pvar *h)
{
    const mpir_t_pvar_def *d = def_of(h);
    fold_marks(h->idx);
    *d->mark = *d->src;
}

static unsigned long long value(const struct clumpi_T_pvar *h)
{
    const mpir_t_pvar_def *d = def_of(h);
    switch (d->var_class) {
    case MPI_T_PVAR_CLASS_COUNTER:
        return h->acc + (h->started ? *d->src - h->base : 0);
    case MPI_T_PVAR_CLASS_HIGHWATERMARK:
        return h->started && *d->mark > h->max ? *d->mark : h->max;
    default:
        return *d->src;
    }
}

/* Sets what handle h reads from now on (a reset sets the starting value). */
static void set_value(struct clumpi_T_pvar *h, unsigned long long v)
{
    const mpir_t_pvar_def *d = def_of(h);
    if (d->var_class == MPI_T_PVAR_CLASS_COUNTER) {
        h->acc = v;
        h->base = *d->src;
    } else if (d->var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK) {
        if (h->started)
            mark_rebase(h);
        h->max = v;
    }
}

static void start(struct clumpi_T_pvar *h)
{
    if (h->started)
        return;
    const mpir_t_pvar_def *d = def_of(h);
    if (d->var_class == MPI_T_PVAR_CLASS_COUNTER)
        h->base = *d->src;
    else if (d->var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK) {
        mark_rebase(h);
        if (*d->src > h->max)
            h->max = *d->src;
    }
    h->started = 1;
}

static void stop(struct clumpi_T_pvar *h)
{
    if (!h->started)
        return;
    if (def_of(h)->var_class == MPI_T_PVAR_CLASS_COUNTER)
        h->acc = value(h);   /* the growth so far */
    else
        h->max = value(h);   /* the mark so far */
    h->started = 0;
}

/* The starting value of h: 0 for counters, the current level otherwise. */
static unsigned long long start_value(const struct clumpi_T_pvar *h)
{
    const mpir_t_pvar_def *d = def_of(h);
    return d->var_class == MPI_T_PVAR_CLASS_COUNTER ? 0 : *d->src;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    static const char fn[] = "MPI_T_pvar_session_create";
    MPIR_T_ENTER(fn);
    if (!session)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "session is NULL");
    if (nsessions >= MPIR_T_MAX_SESSIONS)
        return mpir_t_err(MPI_T_ERR_OUT_OF_SESSIONS, fn, "%d sessions are live", nsessions);
    struct clumpi_T_session *s = calloc(1, sizeof *s);
    if (!s)
        return mpir_t_err(MPI_T_ERR_MEMORY, fn, "out of memory");
    s->next = sessions;
    sessions = s;
    nsessions++;
    *session = s;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_session_create)

static void session_free(struct clumpi_T_session *s)
{
    while (s->handles) {
        struct clumpi_T_pvar *h = s->handles;
        s->handles = h->next;
        free(h);
        nhandles--;
    }
    for (struct clumpi_T_session **p = &sessions; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    free(s);
    nsessions--;
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    static const char fn[] = "MPI_T_pvar_session_free";
    MPIR_T_ENTER(fn);
    if (!session)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "session is NULL");
    if (!live_session(*session))
        return mpir_t_err(MPI_T_ERR_INVALID_SESSION, fn, "*session is not a live session");
    session_free(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    static const char fn[] = "MPI_T_pvar_handle_alloc";
    MPIR_T_ENTER(fn);
    (void)obj_handle;   /* every variable binds to no object */
    if (!live_session(session))
        return mpir_t_err(MPI_T_ERR_INVALID_SESSION, fn, "session is not a live session");
    if (pvar_index < 0 || pvar_index >= mpir_t_pvar_count())
        return mpir_t_err(MPI_T_ERR_INVALID_INDEX, fn, "pvar_index %d is not in 0..%d",
                          pvar_index, mpir_t_pvar_count() - 1);
    if (!handle || !count)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "%s is NULL", handle ? "count" : "handle");
    if (nhandles >= MPIR_T_MAX_HANDLES)
        return mpir_t_err(MPI_T_ERR_OUT_OF_HANDLES, fn,
                          "%d performance variable handles are live", nhandles);
    struct clumpi_T_pvar *h = calloc(1, sizeof *h);
    if (!h)
        return mpir_t_err(MPI_T_ERR_MEMORY, fn, "out of memory");
    h->idx = pvar_index;
    h->max = start_value(h);
    h->started = mpir_t_pvars[pvar_index].continuous;
    h->next = session->handles;
    session->handles = h;
    nhandles++;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_handle_alloc)

/* Checks session and handle (ALL_HANDLES only where `all` allows it). */
static int check(const char *fn, MPI_T_pvar_session session, MPI_T_pvar_handle handle, int all)
{
    if (!live_session(session))
        return mpir_t_err(MPI_T_ERR_INVALID_SESSION, fn, "session is not a live session");
    if (handle == MPI_T_PVAR_ALL_HANDLES ? !all : !in_session(session, handle))
        return mpir_t_err(MPI_T_ERR_INVALID_HANDLE, fn, "handle is not a handle of session");
    return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    static const char fn[] = "MPI_T_pvar_handle_free";
    MPIR_T_ENTER(fn);
    if (!handle)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "handle is NULL");
    int rc = check(fn, session, *handle, 0);
    if (rc)
        return rc;
    for (struct clumpi_T_pvar **p = &session->handles; *p; p = &(*p)->next)
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    free(*handle);
    nhandles--;
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_handle_free)

/* Start (on) or stop one handle, or every non-continuous one of session. */
static int start_stop(const char *fn, MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                      int on)
{
    MPIR_T_ENTER(fn);
    int rc = check(fn, session, handle, 1);
    if (rc)
        return rc;
    if (handle != MPI_T_PVAR_ALL_HANDLES) {
        if (def_of(handle)->continuous)
            return mpir_t_err(MPI_T_ERR_PVAR_NO_STARTSTOP, fn, "%s is continuous",
                              def_of(handle)->name);
        on ? start(handle) : stop(handle);
        return MPI_SUCCESS;
    }
    for (struct clumpi_T_pvar *h = session->handles; h; h = h->next)
        if (!def_of(h)->continuous)
            on ? start(h) : stop(h);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return start_stop("MPI_T_pvar_start", session, handle, 1);
}
MPIR_WEAK(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return start_stop("MPI_T_pvar_stop", session, handle, 0);
}
MPIR_WEAK(T_pvar_stop)

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    static const char fn[] = "MPI_T_pvar_read";
    MPIR_T_ENTER(fn);
    int rc = check(fn, session, handle, 0);
    if (rc)
        return rc;
    if (!buf)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "buf is NULL");
    *(unsigned long long *)buf = value(handle);
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_read)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    static const char fn[] = "MPI_T_pvar_write";
    MPIR_T_ENTER(fn);
    int rc = check(fn, session, handle, 0);
    if (rc)
        return rc;
    if (def_of(handle)->readonly)
        return mpir_t_err(MPI_T_ERR_PVAR_NO_WRITE, fn, "%s is read-only", def_of(handle)->name);
    if (!buf)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "buf is NULL");
    set_value(handle, *(const unsigned long long *)buf);
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_write)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    static const char fn[] = "MPI_T_pvar_reset";
    MPIR_T_ENTER(fn);
    int rc = check(fn, session, handle, 1);
    if (rc)
        return rc;
    if (handle != MPI_T_PVAR_ALL_HANDLES) {
        if (def_of(handle)->readonly)
            return mpir_t_err(MPI_T_ERR_PVAR_NO_WRITE, fn, "%s is read-only",
                              def_of(handle)->name);
        set_value(handle, start_value(handle));
        return MPI_SUCCESS;
    }
    for (struct clumpi_T_pvar *h = session->handles; h; h = h->next)
        if (!def_of(h)->readonly)
            set_value(h, start_value(h));
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_reset)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    static const char fn[] = "MPI_T_pvar_readreset";
    MPIR_T_ENTER(fn);
    int rc = check(fn, session, handle, 0);
    if (rc)
        return rc;
    const mpir_t_pvar_def *d = def_of(handle);
    if (d->readonly)
        return mpir_t_err(MPI_T_ERR_PVAR_NO_WRITE, fn, "%s is read-only", d->name);
    if (!d->atomic)
        return mpir_t_err(MPI_T_ERR_PVAR_NO_ATOMIC, fn, "%s cannot be read and reset atomically",
                          d->name);
    if (!buf)
        return mpir_t_err(MPI_T_ERR_INVALID, fn, "buf is NULL");
    *(unsigned long long *)buf = value(handle);
    set_value(handle, start_value(handle));
    return MPI_SUCCESS;
}
MPIR_WEAK(T_pvar_readreset)

void mpir_t_pvar_finalize(void)
{
    while (sessions)
        session_free(sessions);
}
