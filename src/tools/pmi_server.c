/*
 * pmi_server.c — mpirun's side of PMI-1: the job's key-value space, the
 * barrier across all ranks, and the replies Hydra gives to the same
 * commands, so one client works under both.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/tools/mpirun.h"

#define MAXKV 16

/* Open-addressing hash table: a job puts a few keys per rank. */
static struct kvent { char *key, *val; } *kvs;
static size_t kvcap, kvcount;

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static struct kvent *kv_slot(const char *key)
{
    size_t i = hash(key) & (kvcap - 1);
    while (kvs[i].key && strcmp(kvs[i].key, key) != 0)
        i = (i + 1) & (kvcap - 1);
    return &kvs[i];
}

static int kv_put(const char *key, const char *val)
{
    if (2 * (kvcount + 1) > kvcap) {
        size_t oldcap = kvcap;
        struct kvent *old = kvs;
        kvcap = kvcap ? 2 * kvcap : 256;
        kvs = calloc(kvcap, sizeof *kvs);
        if (!kvs) {
            kvs = old;
            kvcap = oldcap;
            return -1;
        }
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].key)
                *kv_slot(old[i].key) = old[i];
        free(old);
    }
    struct kvent *e = kv_slot(key);
    char *v = strdup(val);
    if (!v)
        return -1;
    if (e->key) {   /* a put again replaces the value, as Hydra does */
        free(e->val);
        e->val = v;
        return 0;
    }
    e->key = strdup(key);
    if (!e->key) {
        free(v);
        return -1;
    }
    e->val = v;
    kvcount++;
    return 0;
}

static const char *kv_get(const char *key)
{
    if (!kvcap)
        return NULL;
    struct kvent *e = kv_slot(key);
    return e->key ? e->val : NULL;
}

void pmisrv_free(void)
{
    for (size_t i = 0; i < kvcap; i++) {
        free(kvs[i].key);
        free(kvs[i].val);
    }
    free(kvs);
    kvs = NULL;
    kvcap = kvcount = 0;
}

int pmisrv_init(struct job *j)
{
    snprintf(j->kvsname, sizeof j->kvsname, "clumpi-%s", j->id);
    int *node_of = malloc((size_t)j->n * sizeof *node_of);
    /* Up to 16 bytes per rank in the worst case; CU_PMI_VALLEN_MAX is what a
     * client can receive in one get. */
    char map[CU_PMI_VALLEN_MAX];
    if (!node_of)
        return -1;
    for (int i = 0; i < j->n; i++)
        node_of[i] = j->r[i].node;
    int rc = cu_pmi_format_mapping(node_of, j->n, map, sizeof map);
    free(node_of);
    /* A mapping too long for one value is left out: clients then compare
     * host names, which is slower but right. */
    if (rc == 0 && kv_put("PMI_process_mapping", map) < 0)
        return -1;
    if (j->o->verbose)
        fprintf(stderr, "%s: PMI_process_mapping %s\n", j->self, rc == 0 ? map : "(too long, omitted)");
    return 0;
}

static void reply(struct job *j, struct rank *r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void reply(struct job *j, struct rank *r, const char *fmt, ...)
{
    char buf[CU_PMI_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf || r->pmi_fd < 0)
        return;
    /* Requests and replies alternate, so the socket buffer always has room;
     * a failed write means the rank is gone, which its exit will report. */
    for (size_t off = 0; off < (size_t)n;) {
        ssize_t w = write(r->pmi_fd, buf + off, (size_t)n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

static void barrier_release(struct job *j)
{
    for (int i = 0; i < j->n; i++)
        if (j->r[i].in_barrier) {
            j->r[i].in_barrier = 0;
            reply(j, &j->r[i], "cmd=barrier_out rc=0\n");
        }
    j->nbarrier = 0;
}

static void handle(struct job *j, struct rank *r, const char *line)
{
    cu_pmi_kv kv[MAXKV];
    int n = cu_pmi_parse_line(line, kv, MAXKV);
    if (n < 0 || strcmp(kv[0].key, "cmd") != 0) {
        fprintf(stderr, "%s: rank %d sent a malformed PMI line; ignored: %.80s\n", j->self,
                r->rank, line);
        return;
    }
    const char *cmd = kv[0].val;
    if (strcmp(cmd, "init") == 0) {
        const char *v = cu_pmi_find(kv, n, "pmi_version");
        r->pmi_inited = 1;
        if (v && strcmp(v, "1") == 0)
            reply(j, r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
        else
            reply(j, r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 "
                        "msg=only_PMI_version_1_is_served\n");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        reply(j, r, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d rc=0\n",
              (int)sizeof j->kvsname, CU_PMI_KEYLEN_MAX, CU_PMI_VALLEN_MAX);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        reply(j, r, "cmd=appnum appnum=0 rc=0\n");
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        reply(j, r, "cmd=my_kvsname kvsname=%s rc=0\n", j->kvsname);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        reply(j, r, "cmd=universe_size size=%d rc=0\n", j->n);
    } else if (strcmp(cmd, "put") == 0) {
        const char *k = cu_pmi_find(kv, n, "key"), *v = cu_pmi_find(kv, n, "value");
        const char *kn = cu_pmi_find(kv, n, "kvsname");
        if (!k || !v || !*k)
            reply(j, r, "cmd=put_result rc=-1 msg=missing_key_or_value\n");
        else if (kn && strcmp(kn, j->kvsname) != 0)
            reply(j, r, "cmd=put_result rc=-1 msg=unknown_kvsname\n");
        else if (kv_put(k, v) < 0)
            reply(j, r, "cmd=put_result rc=-1 msg=out_of_memory\n");
        else
            reply(j, r, "cmd=put_result rc=0 msg=success\n");
    } else if (strcmp(cmd, "get") == 0) {
        const char *k = cu_pmi_find(kv, n, "key");
        const char *kn = cu_pmi_find(kv, n, "kvsname");
        const char *v = k ? kv_get(k) : NULL;
        if (kn && strcmp(kn, j->kvsname) != 0)
            reply(j, r, "cmd=get_result rc=-1 msg=unknown_kvsname\n");
        else if (!v)
            reply(j, r, "cmd=get_result rc=-1 msg=key_not_found\n");
        else
            reply(j, r, "cmd=get_result rc=0 msg=success value=%s\n", v);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        if (!r->in_barrier) {
            r->in_barrier = 1;
            j->nbarrier++;
        }
        if (j->nbarrier == j->n)
            barrier_release(j);
    } else if (strcmp(cmd, "finalize") == 0) {
        r->finalized = 1;
        reply(j, r, "cmd=finalize_ack rc=0\n");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *v = cu_pmi_find(kv, n, "exitcode");
        long code = v ? strtol(v, NULL, 10) : 1;
        r->aborted = 1;
        r->abort_code = (int)code;
        /* Exit statuses are 8 bits; a code that would read as success
         * after truncation reports 1 instead. */
        int status = (int)(code & 0xff);
        if (status == 0 && code != 0)
            status = 1;
        job_fail(j, status, "rank %d called MPI_Abort with code %ld; ending the job", r->rank, code);
    } else {
        reply(j, r, "cmd=%s_result rc=-1 msg=unsupported_command\n", cmd);
        if (j->o->verbose)
            fprintf(stderr, "%s: rank %d: unsupported PMI command '%.64s'\n", j->self, r->rank, cmd);
    }
}

void pmisrv_read(struct job *j, struct rank *r)
{
    char line[CU_PMI_LINE_MAX];
    while (r->pmi_fd >= 0) {
        int got;
        while ((got = cu_pmi_linebuf_next(&r->lb, line, sizeof line)) != 0) {
            if (got > 0)
                handle(j, r, line);
            else
                fprintf(stderr, "%s: rank %d sent an over-long or binary PMI line; ignored\n",
                        j->self, r->rank);
        }
        ssize_t n = read(r->pmi_fd, r->lb.buf + r->lb.len, sizeof r->lb.buf - r->lb.len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {   /* EOF: the rank closed it or is gone; its exit tells which */
            close(r->pmi_fd);
            r->pmi_fd = -1;
            return;
        }
        r->lb.len += (size_t)n;
    }
}

void pmisrv_rank_gone(struct job *j, struct rank *r)
{
    /* What it wrote before dying (an abort, say) is still in the socket. */
    pmisrv_read(j, r);
    if (r->pmi_fd >= 0) {
        close(r->pmi_fd);
        r->pmi_fd = -1;
    }
    if (r->in_barrier) {
        r->in_barrier = 0;
        j->nbarrier--;
    }
}
