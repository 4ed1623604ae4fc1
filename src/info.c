/*
 * info.c — info objects: ordered (key, value) string pairs.
 * Keys keep their insertion order so Info_get_nthkey is stable while the
 * object is not changed; setting an existing key replaces its value in place.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/core.h"

typedef struct mpir_info {
    int    n, cap;
    char **keys, **vals;
} mpir_info;

static mpir_info info_env;

static mpir_info *info_get(MPI_Info h)
{
    return mpir_handle_get(&mpir_infos, h);
}

static int find(const mpir_info *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (!strcmp(in->keys[i], key))
            return i;
    return -1;
}

static int put(mpir_info *in, const char *key, const char *val)
{
    int i = find(in, key);
    char *v = strdup(val);
    if (!v)
        return -1;
    if (i >= 0) {
        free(in->vals[i]);
        in->vals[i] = v;
        return 0;
    }
    if (in->n == in->cap) {
        int cap = in->cap ? in->cap * 2 : 8;
        char **k = realloc(in->keys, (size_t)cap * sizeof(char *));
        if (k)
            in->keys = k;
        char **vv = realloc(in->vals, (size_t)cap * sizeof(char *));
        if (vv)
            in->vals = vv;
        if (!k || !vv) {
            free(v);
            return -1;
        }
        in->cap = cap;
    }
    char *kk = strdup(key);
    if (!kk) {
        free(v);
        return -1;
    }
    in->keys[in->n] = kk;
    in->vals[in->n] = v;
    in->n++;
    return 0;
}

static void clear(mpir_info *in)
{
    for (int i = 0; i < in->n; i++) {
        free(in->keys[i]);
        free(in->vals[i]);
    }
    free(in->keys);
    free(in->vals);
    memset(in, 0, sizeof *in);
}

static mpir_info *copy(const mpir_info *src)
{
    mpir_info *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
    for (int i = 0; i < src->n; i++)
        if (put(in, src->keys[i], src->vals[i]) != 0) {
            clear(in);
            free(in);
            return NULL;
        }
    return in;
}

/* MPI_INFO_ENV: how the process was started, as far as we know it. */
void mpir_info_init(int *argc, char ***argv)
{
    char buf[4096];
    clear(&info_env);
    mpir_handle_set(&mpir_infos, MPI_INFO_ENV & 0xffffff, &info_env);
    if (argc && argv && *argv && *argc > 0) {
        put(&info_env, "command", (*argv)[0]);
        size_t len = 0;
        buf[0] = 0;
        for (int i = 1; i < *argc && len < sizeof buf; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i > 1 ? " " : "",
                                    (*argv)[i]);
        put(&info_env, "argv", buf);
    } else {
        /* MPI_Init(NULL, NULL): the kernel still knows the command line. */
        FILE *f = fopen("/proc/self/cmdline", "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = 0;
            if (n > 0) {
                put(&info_env, "command", buf);
                size_t first = strlen(buf) + 1;
                for (size_t i = first; i + 1 < n; i++)
                    if (!buf[i])
                        buf[i] = ' ';
                if (n > 0 && !buf[n - 1])
                    n--;
                put(&info_env, "argv", first < n ? buf + first : "");
            }
        }
    }
    snprintf(buf, sizeof buf, "%d", mpid_world_size());
    put(&info_env, "maxprocs", buf);
    if (gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = 0;
        put(&info_env, "host", buf);
    }
#if defined(__x86_64__)
    put(&info_env, "arch", "x86_64");
#elif defined(__aarch64__)
    put(&info_env, "arch", "aarch64");
#endif
    if (getcwd(buf, sizeof buf))
        put(&info_env, "wdir", buf);
    static const char *const levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
    put(&info_env, "thread_level", levels[mpir_thread_provided & 3]);
}

void mpir_info_finalize(void)
{
    for (int i = 1; i < mpir_infos.cap; i++) {
        mpir_info *in = mpir_infos.obj[i];
        if (in) {
            clear(in);
            if (in != &info_env)
                free(in);
        }
        mpir_infos.obj[i] = NULL;
    }
    mpir_infos.nfree_hint = 1;
}

int mpir_info_dup(MPI_Info info, MPI_Info *out)
{
    *out = MPI_INFO_NULL;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    mpir_info *src = info_get(info);
    if (!src)
        return MPI_ERR_INFO;
    mpir_info *in = copy(src);
    if (!in)
        return MPI_ERR_NO_MEM;
    int h = mpir_handle_new(&mpir_infos, in);
    if (h == MPI_INFO_NULL) {
        clear(in);
        free(in);
        return MPI_ERR_NO_MEM;
    }
    *out = h;
    return MPI_SUCCESS;
}

void mpir_info_release(MPI_Info info)
{
    mpir_info *in = info_get(info);
    if (!in || in == &info_env)
        return;
    clear(in);
    free(in);
    mpir_handle_free(&mpir_infos, info);
}

/* ---- entry points --------------------------------------------------------- */

#define GET_INFO(fn, h, in)                                                   \
    do {                                                                     \
        (in) = info_get(h);                                                  \
        if (!(in))                                                           \
            return mpir_err_world(mpir_err(MPI_ERR_INFO, fn,                 \
                                           "invalid info object (0x%x)",      \
                                           (unsigned)(h)));                   \
    } while (0)

static int check_key(const char *fn, const char *key)
{
    if (!key)
        return mpir_err(MPI_ERR_INFO_KEY, fn, "key is NULL");
    size_t len = strlen(key);
    if (len == 0)
        return mpir_err(MPI_ERR_INFO_KEY, fn, "key is empty");
    if (len > MPI_MAX_INFO_KEY)
        return mpir_err(MPI_ERR_INFO_KEY, fn, "key is %zu characters, more than MPI_MAX_INFO_KEY (%d)",
                        len, MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    static const char fn[] = "MPI_Info_create";
    MPIR_ENTER(fn);
    if (!info)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "info is NULL"));
    mpir_info *in = calloc(1, sizeof *in);
    int h = in ? mpir_handle_new(&mpir_infos, in) : MPI_INFO_NULL;
    if (h == MPI_INFO_NULL) {
        free(in);
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    }
    *info = h;
    return MPI_SUCCESS;
}
MPIR_WEAK(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char fn[] = "MPI_Info_set";
    MPIR_ENTER(fn);
    mpir_info *in;
    GET_INFO(fn, info, in);
    int rc = check_key(fn, key);
    if (rc)
        return mpir_err_world(rc);
    if (!value)
        return mpir_err_world(mpir_err(MPI_ERR_INFO_VALUE, fn, "value is NULL"));
    size_t len = strlen(value);
    if (len > MPI_MAX_INFO_VAL)
        return mpir_err_world(mpir_err(MPI_ERR_INFO_VALUE, fn,
                                       "value is %zu characters, more than MPI_MAX_INFO_VAL (%d)",
                                       len, MPI_MAX_INFO_VAL));
    if (put(in, key, value) != 0)
        return mpir_err_world(mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    return MPI_SUCCESS;
}
MPIR_WEAK(Info_set)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char fn[] = "MPI_Info_get";
    MPIR_ENTER(fn);
    mpir_info *in;
    GET_INFO(fn, info, in);
    int rc = check_key(fn, key);
    if (rc)
        return mpir_err_world(rc);
    if (valuelen < 0)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "valuelen is negative (%d)", valuelen));
    if (!flag)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "flag is NULL"));
    int i = find(in, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    if (!value)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "value is NULL"));
    /* valuelen excludes the terminating NUL: value must have valuelen+1 bytes. */
    size_t n = strlen(in->vals[i]);
    if (n > (size_t)valuelen)
        n = (size_t)valuelen;
    memcpy(value, in->vals[i], n);
    value[n] = 0;
    return MPI_SUCCESS;
}
MPIR_WEAK(Info_get)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char fn[] = "MPI_Info_get_valuelen";
    MPIR_ENTER(fn);
    mpir_info *in;
    GET_INFO(fn, info, in);
    int rc = check_key(fn, key);
    if (rc)
        return mpir_err_world(rc);
    if (!valuelen || !flag)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "%s is NULL", valuelen ? "flag" : "valuelen"));
    int i = find(in, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(in->vals[i]);
    return MPI_SUCCESS;
}
MPIR_WEAK(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char fn[] = "MPI_Info_get_nkeys";
    MPIR_ENTER(fn);
    mpir_info *in;
    GET_INFO(fn, info, in);
    if (!nkeys)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "nkeys is NULL"));
    *nkeys = in->n;
    return MPI_SUCCESS;
}
MPIR_WEAK(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char fn[] = "MPI_Info_get_nthkey";
    MPIR_ENTER(fn);
    mpir_info *in;
    GET_INFO(fn, info, in);
    if (n < 0 || n >= in->n)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "n = %d is not in [0, nkeys = %d)", n, in->n));
    if (!key)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "key is NULL"));
    strcpy(key, in->keys[n]);
    return MPI_SUCCESS;
}
MPIR_WEAK(Info_get_nthkey)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    static const char fn[] = "MPI_Info_delete";
    MPIR_ENTER(fn);
    mpir_info *in;
    GET_INFO(fn, info, in);
    int rc = check_key(fn, key);
    if (rc)
        return mpir_err_world(rc);
    int i = find(in, key);
    if (i < 0)
        return mpir_err_world(mpir_err(MPI_ERR_INFO_NOKEY, fn, "key \"%s\" is not set", key));
    free(in->keys[i]);
    free(in->vals[i]);
    memmove(in->keys + i, in->keys + i + 1, (size_t)(in->n - i - 1) * sizeof(char *));
    memmove(in->vals + i, in->vals + i + 1, (size_t)(in->n - i - 1) * sizeof(char *));
    in->n--;
    return MPI_SUCCESS;
}
MPIR_WEAK(Info_delete)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char fn[] = "MPI_Info_dup";
    MPIR_ENTER(fn);
    mpir_info *in;
    GET_INFO(fn, info, in);
    if (!newinfo)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "newinfo is NULL"));
    int rc = mpir_info_dup(info, newinfo);
    if (rc)
        return mpir_err_world(mpir_err(rc, fn, "out of memory"));
    return MPI_SUCCESS;
}
MPIR_WEAK(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    static const char fn[] = "MPI_Info_free";
    MPIR_ENTER(fn);
    if (!info)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "info is NULL"));
    mpir_info *in;
    GET_INFO(fn, *info, in);
    if (in == &info_env)
        return mpir_err_world(mpir_err(MPI_ERR_INFO, fn, "MPI_INFO_ENV cannot be freed"));
    mpir_info_release(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Info_free)
