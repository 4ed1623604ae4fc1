/*
 * attr.c — attribute caching on communicators and datatypes.
 *
 * A keyval is an index into one table: handle = 0x64400001 + 2*index, so the
 * predefined keys of mpi.h (MPI_TAG_UB, ...) are indices 0..6 and a user
 * keyval can never equal MPI_KEYVAL_INVALID. A keyval freed by the user stays
 * in the table until the last attribute using it is deleted, as the standard
 * asks. The deprecated MPI-1 calls (MPI_Attr_put, MPI_Keyval_create, ...)
 * are the communicator calls under their old names. Communicator
 * attributes hang off mpir_comm.attrs; datatype attributes live in a side
 * list keyed by handle, since the datatype object belongs to the datatype
 * engine; window attributes hang off mpir_win.attrs (the predefined
 * MPI_WIN_BASE ... are answered by win.c).
 */
#include <stdlib.h>
#include "src/core.h"
#include "src/win.h"

struct mpir_attr {
    int        keyval;
    void      *val;
    mpir_attr *next;
};

enum { KV_COMM = 1, KV_TYPE = 2, KV_WIN = 3 };
static const char *const kv_owner[] = { "", "communicators", "datatypes", "windows" };

typedef struct kv_t {
    int   kind;       /* 0: slot free */
    int   freed;      /* freed by the user, still referenced */
    int   refs;       /* attributes using it */
    MPI_Comm_copy_attr_function   *copy;   /* the type callbacks have the */
    MPI_Comm_delete_attr_function *del;    /* same C signature */
    void *extra;
} kv_t;

#define KV_BASE   0x64400001
#define KV_NPRE   7
static kv_t *kvs;
static int nkvs;

/* Predefined attribute values: the standard hands out pointers to ints. */
static int attr_tag_ub = MPIR_TAG_UB;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;
static int attr_wtime_global = 0;
static int attr_universe;
static int attr_appnum;

static int kv_index(int keyval)
{
    unsigned d = (unsigned)keyval - KV_BASE;
    if (keyval < KV_BASE || (d & 1) || (int)(d / 2) >= nkvs)
        return -1;
    return (int)(d / 2);
}

static int *predefined_value(int idx)
{
    switch (idx) {
    case 0: return &attr_tag_ub;
    case 1: return &attr_host;
    case 2: return &attr_io;
    case 3: return &attr_wtime_global;
    case 4: return &attr_universe;
    case 5: return &mpir_lastusedcode;
    case 6: return &attr_appnum;
    }
    return NULL;
}

void mpir_attr_init(int universe_size, int appnum)
{
    attr_universe = universe_size;
    attr_appnum = appnum;
    if (!kvs) {
        kvs = calloc(16, sizeof *kvs);
        if (!kvs)
            return;
        nkvs = 16;
    }
    for (int i = 0; i < KV_NPRE; i++)
        kvs[i] = (kv_t){ .kind = KV_COMM, .refs = 1 };
}

static void kv_unref(int idx)
{
    if (idx >= KV_NPRE && --kvs[idx].refs == 0)
        kvs[idx] = (kv_t){ 0 };
}

/* Runs the delete callback of one attribute; returns its error code. */
static int run_delete(int obj, const mpir_attr *a)
{
    int idx = kv_index(a->keyval);
    int rc = MPI_SUCCESS;
    if (idx >= 0 && kvs[idx].del)
        rc = kvs[idx].del(obj, a->keyval, a->val, kvs[idx].extra);
    return rc;
}

/* Deletes every attribute of a list; the first failing callback's code is
 * returned, but all attributes are removed. */
static int free_list(int obj, mpir_attr **list)
{
    int rc = MPI_SUCCESS;
    mpir_attr *a = *list;
    *list = NULL;   /* callbacks that look at the object see it empty */
    while (a) {
        mpir_attr *next = a->next;
        int r = run_delete(obj, a);
        if (rc == MPI_SUCCESS)
            rc = r;
        kv_unref(kv_index(a->keyval));
        free(a);
        a = next;
    }
    return rc;
}

/* Copies attributes through their copy callbacks (dup of comms or types). */
static int copy_list(int oldobj, mpir_attr *src, mpir_attr **dst)
{
    mpir_attr **tail = dst;
    while (*tail)
        tail = &(*tail)->next;
    for (mpir_attr *a = src; a; a = a->next) {
        int idx = kv_index(a->keyval);
        if (idx < 0 || !kvs[idx].copy)
            continue;
        void *out = NULL;
        int flag = 0;
        int rc = kvs[idx].copy(oldobj, a->keyval, kvs[idx].extra, a->val, &out, &flag);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!flag)
            continue;
        mpir_attr *n = malloc(sizeof *n);
        if (!n)
            return MPI_ERR_NO_MEM;
        n->keyval = a->keyval;
        n->val = out;
        n->next = NULL;
        kvs[idx].refs++;
        *tail = n;
        tail = &n->next;
    }
    return MPI_SUCCESS;
}

/* ---- datatype side list ----------------------------------------------------- */
typedef struct type_attrs {
    MPI_Datatype type;
    mpir_attr   *attrs;
    struct type_attrs *next;
} type_attrs;
static type_attrs *types;

static mpir_attr **type_list(MPI_Datatype t, int create)
{
    for (type_attrs *p = types; p; p = p->next)
        if (p->type == t)
            return &p->attrs;
    if (!create)
        return NULL;
    type_attrs *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->type = t;
    p->next = types;
    types = p;
    return &p->attrs;
}

static void type_list_drop(MPI_Datatype t)
{
    for (type_attrs **pp = &types; *pp; pp = &(*pp)->next)
        if ((*pp)->type == t) {
            type_attrs *p = *pp;
            *pp = p->next;
            free(p);
            return;
        }
}

int mpir_type_attrs_copy(MPI_Datatype oldtype, MPI_Datatype newtype)
{
    mpir_attr **src = type_list(oldtype, 0);
    if (!src || !*src)
        return MPI_SUCCESS;
    mpir_attr **dst = type_list(newtype, 1);
    if (!dst)
        return MPI_ERR_NO_MEM;
    int rc = copy_list(oldtype, *src, dst);
    if (rc != MPI_SUCCESS) {
        free_list(newtype, dst);
        type_list_drop(newtype);
    }
    return rc;
}

int mpir_type_attrs_free(MPI_Datatype type)
{
    mpir_attr **l = type_list(type, 0);
    if (!l)
        return MPI_SUCCESS;
    int rc = free_list(type, l);
    type_list_drop(type);
    return rc;
}

int mpir_comm_attrs_copy(mpir_comm *old, mpir_comm *newc)
{
    int rc = copy_list(old->handle, old->attrs, &newc->attrs);
    if (rc != MPI_SUCCESS)
        free_list(newc->handle, &newc->attrs);
    return rc;
}

int mpir_comm_attrs_free(mpir_comm *c)
{
    return free_list(c->handle, &c->attrs);
}

void mpir_comm_attrs_drop(mpir_comm *c)
{
    for (mpir_attr *a = c->attrs, *n; a; a = n) {
        n = a->next;
        free(a);
    }
    c->attrs = NULL;
}

void mpir_attr_finalize(void)
{
    while (types) {
        type_attrs *p = types;
        types = p->next;
        for (mpir_attr *a = p->attrs, *n; a; a = n) {
            n = a->next;
            free(a);
        }
        free(p);
    }
    free(kvs);
    kvs = NULL;
    nkvs = 0;
}

/* ---- generic entry-point bodies ------------------------------------------------ */

static int create_keyval(int kind, MPI_Comm_copy_attr_function *copy,
                         MPI_Comm_delete_attr_function *del, int *keyval, void *extra)
{
    int i;
    for (i = KV_NPRE; i < nkvs; i++)
        if (!kvs[i].kind)
            break;
    if (i == nkvs) {
        kv_t *n = realloc(kvs, (size_t)nkvs * 2 * sizeof *n);
        if (!n)
            return MPI_ERR_NO_MEM;
        for (int j = nkvs; j < nkvs * 2; j++)
            n[j] = (kv_t){ 0 };
        kvs = n;
        nkvs *= 2;
    }
    kvs[i] = (kv_t){ kind, 0, 1, copy, del, extra };
    *keyval = KV_BASE + 2 * i;
    return MPI_SUCCESS;
}

/* The body of MPI_{Comm,Type,Win}_create_keyval. */
static int keyval_entry(const char *fn, int kind, MPI_Comm_copy_attr_function *copy,
                        MPI_Comm_delete_attr_function *del, int *keyval, void *extra)
{
    if (!keyval)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "keyval is NULL"));
    int rc = create_keyval(kind, copy, del, keyval, extra);
    return rc ? mpir_err_world(mpir_err(rc, fn, "out of memory")) : MPI_SUCCESS;
}

/* Checks a keyval handle for kind; allow_freed lets get/delete reach a
 * keyval the user freed while attributes still use it. */
static int check_keyval(const char *fn, int kind, int keyval, int allow_freed, int allow_pre)
{
    int idx = kv_index(keyval);
    if (idx < 0 || !kvs[idx].kind || (kvs[idx].freed && !allow_freed))
        return mpir_err(MPI_ERR_KEYVAL, fn, "invalid keyval (0x%x)", (unsigned)keyval);
    if (idx < KV_NPRE) {
        if (!allow_pre)
            return mpir_err(MPI_ERR_KEYVAL, fn, "keyval 0x%x is predefined and read-only",
                            (unsigned)keyval);
        if (kind != KV_COMM)
            return mpir_err(MPI_ERR_KEYVAL, fn, "keyval 0x%x is a communicator keyval",
                            (unsigned)keyval);
    } else if (kvs[idx].kind != kind) {
        return mpir_err(MPI_ERR_KEYVAL, fn, "keyval 0x%x belongs to %s", (unsigned)keyval,
                        kv_owner[kvs[idx].kind]);
    }
    return MPI_SUCCESS;
}

static int free_keyval(const char *fn, int kind, int *keyval)
{
    if (!keyval)
        return mpir_err(MPI_ERR_ARG, fn, "keyval is NULL");
    int idx = kv_index(*keyval);
    if (idx >= 0 && idx < KV_NPRE)
        return mpir_err(MPI_ERR_KEYVAL, fn, "keyval 0x%x is predefined", (unsigned)*keyval);
    int rc = check_keyval(fn, kind, *keyval, 0, 0);
    if (rc)
        return rc;
    kvs[idx].freed = 1;
    kv_unref(idx);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static mpir_attr *find_attr(mpir_attr *l, int keyval)
{
    for (; l; l = l->next)
        if (l->keyval == keyval)
            return l;
    return NULL;
}

/* *flag: keyval has a value in l, then stored at val. */
static void get_value(mpir_attr *l, int keyval, void *val, int *flag)
{
    mpir_attr *a = find_attr(l, keyval);
    *flag = a != NULL;
    if (a)
        *(void **)val = a->val;
}

static int delete_attr(int obj, mpir_attr **list, int keyval)
{
    for (mpir_attr **pp = list; *pp; pp = &(*pp)->next)
        if ((*pp)->keyval == keyval) {
            mpir_attr *a = *pp;
            int rc = run_delete(obj, a);
            if (rc != MPI_SUCCESS)
                return rc;   /* the standard: a failing callback keeps the attribute */
            *pp = a->next;
            kv_unref(kv_index(keyval));
            free(a);
            return MPI_SUCCESS;
        }
    return MPI_SUCCESS;
}

static int set_attr(int obj, mpir_attr **list, int keyval, void *val)
{
    mpir_attr *a = find_attr(*list, keyval);
    if (a) {
        /* As if MPI_*_delete_attr ran first: the old value's callback runs. */
        int rc = run_delete(obj, a);
        if (rc != MPI_SUCCESS)
            return rc;
        a->val = val;
        return MPI_SUCCESS;
    }
    a = malloc(sizeof *a);
    if (!a)
        return MPI_ERR_NO_MEM;
    a->keyval = keyval;
    a->val = val;
    a->next = *list;
    *list = a;
    kvs[kv_index(keyval)].refs++;
    return MPI_SUCCESS;
}

/* ---- communicator attributes ---------------------------------------------------- */

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    static const char fn[] = "MPI_Comm_create_keyval";
    MPIR_ENTER(fn);
    return keyval_entry(fn, KV_COMM, copy_fn, delete_fn, keyval, extra_state);
}
MPIR_WEAK(Comm_create_keyval)

int PMPI_Comm_free_keyval(int *keyval)
{
    static const char fn[] = "MPI_Comm_free_keyval";
    MPIR_ENTER(fn);
    return mpir_err_world(free_keyval(fn, KV_COMM, keyval));
}
MPIR_WEAK(Comm_free_keyval)

/* The bodies of MPI_Comm_{set,get,delete}_attr, shared with the deprecated
 * MPI_Attr_{put,get,delete}; fn names the entry point in messages. */
static int comm_set_attr(const char *fn, MPI_Comm comm, int keyval, void *attribute_val)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = check_keyval(fn, KV_COMM, keyval, 0, 0);
    if (rc)
        return mpir_err_comm(comm, rc);
    rc = set_attr(comm, &c->attrs, keyval, attribute_val);
    if (rc)
        return mpir_err_comm(comm, mpir_err(rc, fn, "the delete callback of the old value failed"
                                                    " or memory ran out (keyval 0x%x)",
                                            (unsigned)keyval));
    return MPI_SUCCESS;
}

static int comm_get_attr(const char *fn, MPI_Comm comm, int keyval, void *attribute_val,
                         int *flag)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = check_keyval(fn, KV_COMM, keyval, 1, 1);
    if (rc)
        return mpir_err_comm(comm, rc);
    if (!attribute_val || !flag)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "%s is NULL",
                                            flag ? "attribute_val" : "flag"));
    int idx = kv_index(keyval);
    if (idx < KV_NPRE) {
        /* Predefined attributes: offered on every communicator (the
         * standard requires them on MPI_COMM_WORLD; dup'ed and split
         * communicators answering too is what programs expect). */
        *(void **)attribute_val = predefined_value(idx);
        *flag = 1;
        return MPI_SUCCESS;
    }
    get_value(c->attrs, keyval, attribute_val, flag);
    return MPI_SUCCESS;
}

static int comm_delete_attr(const char *fn, MPI_Comm comm, int keyval)
{
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = check_keyval(fn, KV_COMM, keyval, 1, 0);
    if (rc)
        return mpir_err_comm(comm, rc);
    rc = delete_attr(comm, &c->attrs, keyval);
    if (rc)
        return mpir_err_comm(comm, mpir_err(rc, fn, "the delete callback of keyval 0x%x failed",
                                            (unsigned)keyval));
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *attribute_val)
{
    static const char fn[] = "MPI_Comm_set_attr";
    MPIR_ENTER(fn);
    return comm_set_attr(fn, comm, keyval, attribute_val);
}
MPIR_WEAK(Comm_set_attr)

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    static const char fn[] = "MPI_Comm_get_attr";
    MPIR_ENTER(fn);
    return comm_get_attr(fn, comm, keyval, attribute_val, flag);
}
MPIR_WEAK(Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    static const char fn[] = "MPI_Comm_delete_attr";
    MPIR_ENTER(fn);
    return comm_delete_attr(fn, comm, keyval);
}
MPIR_WEAK(Comm_delete_attr)

/* ---- deprecated communicator attribute calls (MPI-3.1 section 15.2) ----------------
 * In C they are the MPI_Comm_ calls under their MPI-1 names: same keyvals,
 * same callbacks (MPI_Copy_function is MPI_Comm_copy_attr_function). */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    static const char fn[] = "MPI_Keyval_create";
    MPIR_ENTER(fn);
    return keyval_entry(fn, KV_COMM, copy_fn, delete_fn, keyval, extra_state);
}
MPIR_WEAK(Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
    static const char fn[] = "MPI_Keyval_free";
    MPIR_ENTER(fn);
    return mpir_err_world(free_keyval(fn, KV_COMM, keyval));
}
MPIR_WEAK(Keyval_free)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    static const char fn[] = "MPI_Attr_put";
    MPIR_ENTER(fn);
    return comm_set_attr(fn, comm, keyval, attribute_val);
}
MPIR_WEAK(Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    static const char fn[] = "MPI_Attr_get";
    MPIR_ENTER(fn);
    return comm_get_attr(fn, comm, keyval, attribute_val, flag);
}
MPIR_WEAK(Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    static const char fn[] = "MPI_Attr_delete";
    MPIR_ENTER(fn);
    return comm_delete_attr(fn, comm, keyval);
}
MPIR_WEAK(Attr_delete)

/* ---- datatype attributes ---------------------------------------------------------- */

#define GET_TYPE(fn, t)                                                          \
    do {                                                                        \
        if (!mpir_dtype_get(t))                                                 \
            return mpir_err_world(mpir_err(MPI_ERR_TYPE, fn,                    \
                                           "invalid datatype (0x%x)", (unsigned)(t))); \
    } while (0)

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    static const char fn[] = "MPI_Type_create_keyval";
    MPIR_ENTER(fn);
    return keyval_entry(fn, KV_TYPE, copy_fn, delete_fn, keyval, extra_state);
}
MPIR_WEAK(Type_create_keyval)

int PMPI_Type_free_keyval(int *keyval)
{
    static const char fn[] = "MPI_Type_free_keyval";
    MPIR_ENTER(fn);
    return mpir_err_world(free_keyval(fn, KV_TYPE, keyval));
}
MPIR_WEAK(Type_free_keyval)

int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void *attribute_val)
{
    static const char fn[] = "MPI_Type_set_attr";
    MPIR_ENTER(fn);
    GET_TYPE(fn, type);
    int rc = check_keyval(fn, KV_TYPE, keyval, 0, 0);
    if (rc)
        return mpir_err_world(rc);
    mpir_attr **l = type_list(type, 1);
    rc = l ? set_attr(type, l, keyval, attribute_val) : MPI_ERR_NO_MEM;
    if (rc)
        return mpir_err_world(mpir_err(rc, fn, "the delete callback of the old value failed"
                                               " or memory ran out (keyval 0x%x)",
                                       (unsigned)keyval));
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void *attribute_val, int *flag)
{
    static const char fn[] = "MPI_Type_get_attr";
    MPIR_ENTER(fn);
    GET_TYPE(fn, type);
    int rc = check_keyval(fn, KV_TYPE, keyval, 1, 0);
    if (rc)
        return mpir_err_world(rc);
    if (!attribute_val || !flag)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "%s is NULL",
                                       flag ? "attribute_val" : "flag"));
    mpir_attr **l = type_list(type, 0);
    get_value(l ? *l : NULL, keyval, attribute_val, flag);
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
    static const char fn[] = "MPI_Type_delete_attr";
    MPIR_ENTER(fn);
    GET_TYPE(fn, type);
    int rc = check_keyval(fn, KV_TYPE, keyval, 1, 0);
    if (rc)
        return mpir_err_world(rc);
    mpir_attr **l = type_list(type, 0);
    rc = l ? delete_attr(type, l, keyval) : MPI_SUCCESS;
    if (rc)
        return mpir_err_world(mpir_err(rc, fn, "the delete callback of keyval 0x%x failed",
                                       (unsigned)keyval));
    return MPI_SUCCESS;
}
MPIR_WEAK(Type_delete_attr)

/* ---- window attributes ----------------------------------------------------------- */
/* No call copies a window, so the copy callback is kept but never runs. */
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn, int *keyval, void *extra_state)
{
    static const char fn[] = "MPI_Win_create_keyval";
    MPIR_ENTER(fn);
    return keyval_entry(fn, KV_WIN, (MPI_Comm_copy_attr_function *)copy_fn,
                        (MPI_Comm_delete_attr_function *)delete_fn, keyval, extra_state);
}
MPIR_WEAK(Win_create_keyval)

int PMPI_Win_free_keyval(int *keyval)
{
    static const char fn[] = "MPI_Win_free_keyval";
    MPIR_ENTER(fn);
    return mpir_err_world(free_keyval(fn, KV_WIN, keyval));
}
MPIR_WEAK(Win_free_keyval)

int PMPI_Win_set_attr(MPI_Win win, int keyval, void *attribute_val)
{
    static const char fn[] = "MPI_Win_set_attr";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc = check_keyval(fn, KV_WIN, keyval, 0, 0);
    if (!rc && (rc = set_attr(win, &w->attrs, keyval, attribute_val)))
        rc = mpir_err(rc, fn, "the delete callback of the old value failed or memory ran out "
                      "(keyval 0x%x)", (unsigned)keyval);
    return rc ? mpir_err_win(w, rc) : MPI_SUCCESS;
}
MPIR_WEAK(Win_set_attr)

int mpir_win_attr_get(const char *fn, mpir_win *w, int keyval, void *attribute_val, int *flag)
{
    *flag = 0;
    int rc = check_keyval(fn, KV_WIN, keyval, 1, 0);
    if (rc)
        return rc;
    get_value(w->attrs, keyval, attribute_val, flag);
    return MPI_SUCCESS;
}

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    static const char fn[] = "MPI_Win_delete_attr";
    MPIR_ENTER(fn);
    mpir_win *w;
    MPIR_GET_WIN(fn, win, w);
    int rc = check_keyval(fn, KV_WIN, keyval, 1, 0);
    if (!rc && (rc = delete_attr(win, &w->attrs, keyval)))
        rc = mpir_err(rc, fn, "the delete callback of keyval 0x%x failed", (unsigned)keyval);
    return rc ? mpir_err_win(w, rc) : MPI_SUCCESS;
}
MPIR_WEAK(Win_delete_attr)

int mpir_win_attrs_free(mpir_win *w)
{
    return free_list(w->handle, &w->attrs);
}

/* ---- predefined callbacks (MPI_COMM_NULL_COPY_FN, ...) ------------------------------ */

int MPI_COMM_NULL_COPY_FN(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm c, int k, void *val, void *extra)
{
    return MPI_SUCCESS;
}

int MPI_TYPE_NULL_COPY_FN(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_TYPE_DUP_FN(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype t, int k, void *val, void *extra)
{
    return MPI_SUCCESS;
}

int MPI_WIN_NULL_COPY_FN(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_WIN_DUP_FN(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_WIN_NULL_DELETE_FN(MPI_Win w, int k, void *val, void *extra)
{
    return MPI_SUCCESS;
}
