/*
 * pmi_server.c — mpirun's side of PMI-1: the job's key-value space, the
 * barrier across all ranks, and the replies Hydra gives to the same
 * commands, so one client works under both. Ranks here talk over a
 * socketpair; ranks on other hosts connect over TCP (Hydra's PMI_PORT
 * handshake, preceded by the job's secret).
 */
#include "config.h"
#include <sched.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include "src/tools/mpirun.h"
#include "src/util/names.h"
#include "src/util/param.h"

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

/* The names this job published and left: removed when it ends
 * (pmisrv_free), as its segments are. */
static struct pubname { struct pubname *next; char *service, *port; } *published;

void pmisrv_free(void)
{
    while (published) {
        struct pubname *p = published;
        published = p->next;
        cu_names_unpublish(p->service, p->port);   /* if the job left it */
        free(p->service);
        free(p->port);
        free(p);
    }
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

/* The value of key in a multi-line request (lines "key=value", the value
 * the rest of the line, spaces included), or NULL. */
static const char *mcmd_find(const char *block, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *l = block; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (len > kl && !strncmp(l, key, kl) && l[kl] == '=') {
            snprintf(out, cap, "%.*s", (int)(len - kl - 1), l + kl + 1);
            return out;
        }
        l += len + (nl ? 1 : 0);
    }
    return NULL;
}

static void spawn_cmd_free(struct spawn_cmd *c)
{
    for (int i = 0; c->argv && c->argv[i]; i++)
        free(c->argv[i]);
    free(c->argv);
    free(c->host);
    free(c->wdir);
    free(c->path);
    memset(c, 0, sizeof *c);
}

void pmisrv_spawn_reset(struct rank *r)
{
    for (int i = 0; i < r->nspw; i++)
        spawn_cmd_free(&r->spw[i]);
    free(r->spw);
    r->spw = NULL;
    r->nspw = r->nspw_seen = 0;
    r->spw_port[0] = r->spw_why[0] = '\0';
}

/* One mcmd=spawn block (PMI-1's wire form, as MPICH's clients send it)
 * into c: the command, its arguments, the info keys host, wdir and path
 * (others are ignored, as MPI-3.1 allows); the parents' port among the
 * preput pairs into port. An empty string, or why filled. */
static void spawn_parse(const char *b, struct spawn_cmd *c, char *port, size_t pcap, char *why,
                        size_t wcap)
{
    char v[CU_PMI_VALLEN_MAX], key[64], val[CU_PMI_VALLEN_MAX];
    int argc = 0, npre = 0, ninfo = 0;
    if (!mcmd_find(b, "nprocs", v, sizeof v) || (c->np = atoi(v)) <= 0 || c->np > 100000)
        snprintf(why, wcap, "bad_nprocs");
    else if (!mcmd_find(b, "argcnt", v, sizeof v) || (argc = atoi(v)) < 0 || argc > 4096)
        snprintf(why, wcap, "bad_argcnt");
    else if (!(c->argv = calloc((size_t)argc + 2, sizeof *c->argv)))
        snprintf(why, wcap, "out_of_memory");
    else if (!mcmd_find(b, "execname", v, sizeof v) || !(c->argv[0] = strdup(v)))
        snprintf(why, wcap, "no_execname");
    for (int i = 1; !*why && i <= argc; i++) {
        snprintf(key, sizeof key, "arg%d", i);
        if (!(c->argv[i] = strdup(mcmd_find(b, key, v, sizeof v) ? v : "")))
            snprintf(why, wcap, "out_of_memory");
    }
    if (!*why && mcmd_find(b, "preput_num", v, sizeof v))
        npre = atoi(v);
    for (int i = 0; !*why && i < npre; i++) {
        snprintf(key, sizeof key, "preput_key_%d", i);
        if (mcmd_find(b, key, v, sizeof v) && !strcmp(v, "PARENT_ROOT_PORT_NAME")) {
            snprintf(key, sizeof key, "preput_val_%d", i);
            mcmd_find(b, key, port, pcap);
        }
    }
    if (!*why && mcmd_find(b, "info_num", v, sizeof v))
        ninfo = atoi(v);
    for (int i = 0; !*why && i < ninfo; i++) {
        snprintf(key, sizeof key, "info_val_%d", i);
        if (!mcmd_find(b, key, val, sizeof val))
            continue;
        snprintf(key, sizeof key, "info_key_%d", i);
        if (!mcmd_find(b, key, v, sizeof v))
            continue;
        char **slot = !strcmp(v, "host") ? &c->host : !strcmp(v, "wdir") ? &c->wdir
                      : !strcmp(v, "path") ? &c->path : NULL;
        if (slot && !*slot && !(*slot = strdup(val)))
            snprintf(why, wcap, "out_of_memory");
    }
}

/* A complete mcmd=spawn block: one command of a request of totspawns
 * (Comm_spawn_multiple sends several); the last one starts them all as
 * one job, and only it is answered. */
static void spawn_request(struct job *j, struct rank *r, const char *b)
{
    char v[64], *why = r->spw_why;
    size_t wl = sizeof r->spw_why;
    int tot = mcmd_find(b, "totspawns", v, sizeof v) ? atoi(v) : 1;
    int sofar = mcmd_find(b, "spawnssofar", v, sizeof v) ? atoi(v) : 1;
    /* the client reads one answer, after its last block: a failure is
     * kept until then */
    r->nspw_seen++;
    if (!*why && (tot < 1 || tot > 1024 || sofar != r->nspw_seen || sofar > tot)) {
        snprintf(why, wl, "bad_totspawns_or_spawnssofar");
    } else if (!*why) {
        struct spawn_cmd *grown = realloc(r->spw, (size_t)sofar * sizeof *grown);
        if (!grown) {
            snprintf(why, wl, "out_of_memory");
        } else {
            r->spw = grown;
            memset(&r->spw[r->nspw], 0, sizeof *r->spw);
            spawn_parse(b, &r->spw[r->nspw++], r->spw_port, sizeof r->spw_port, why, wl);
        }
    }
    if (sofar < tot && r->nspw_seen < tot)
        return;   /* more commands to come */
    if (!*why && !r->spw_port[0])
        snprintf(why, wl, "no_PARENT_ROOT_PORT_NAME");
    if (!*why && j->ending)
        snprintf(why, wl, "the_job_is_ending");
    if (!*why)
        spawnjob_start(j, r->spw, r->nspw, r->spw_port, why, wl);
    if (*why)
        reply(j, r, "cmd=spawn_result rc=-1 msg=%s\n", why);
    else
        reply(j, r, "cmd=spawn_result rc=0\n");
    pmisrv_spawn_reset(r);
}

/* Lines of a multi-line request: collected until "endcmd". 1 when line
 * was one of them. */
static int mcmd_line(struct job *j, struct rank *r, const char *line)
{
    if (!r->mcmd && strncmp(line, "mcmd=", 5) != 0)
        return 0;
    if (r->mcmd && !strcmp(line, "endcmd")) {
        if (!strncmp(r->mcmd, "mcmd=spawn\n", 11))
            spawn_request(j, r, r->mcmd);
        else
            reply(j, r, "cmd=%.32s_result rc=-1 msg=unsupported_command\n", r->mcmd + 5);
        free(r->mcmd);
        r->mcmd = NULL;
        r->mcmd_len = 0;
        return 1;
    }
    size_t l = strlen(line);
    char *grown = r->mcmd_len + l + 2 <= 1 << 20 ? realloc(r->mcmd, r->mcmd_len + l + 2) : NULL;
    if (!grown) {   /* a runaway request: drop it, the client hears nothing */
        free(r->mcmd);
        r->mcmd = NULL;
        r->mcmd_len = 0;
        return 1;
    }
    r->mcmd = grown;
    memcpy(r->mcmd + r->mcmd_len, line, l);
    r->mcmd_len += l;
    r->mcmd[r->mcmd_len++] = '\n';
    r->mcmd[r->mcmd_len] = '\0';
    return 1;
}

/* ---- name service: the store is src/util/names.c's --------------------- */

static void name_service(struct job *j, struct rank *r, const char *cmd, const cu_pmi_kv *kv,
                         int n)
{
    const char *svc = cu_pmi_find(kv, n, "service"), *port = cu_pmi_find(kv, n, "port");
    char res[32], got[CU_PMI_VALLEN_MAX];
    snprintf(res, sizeof res, "%.*s_result", (int)strcspn(cmd, "_"), cmd);
    int rc;
    if (!svc || !*svc || (strcmp(cmd, "lookup_name") && !port)) {
        reply(j, r, "cmd=%s rc=-1 msg=missing_service_or_port\n", res);
        return;
    }
    if (!strcmp(cmd, "publish_name")) {
        struct pubname *p = calloc(1, sizeof *p);
        rc = p ? cu_names_publish(svc, port) : -ENOMEM;
        if (rc == 0 && (p->service = strdup(svc)) && (p->port = strdup(port))) {
            p->next = published;
            published = p;
        } else if (p) {
            free(p->service);
            free(p);
        }
    } else if (!strcmp(cmd, "lookup_name")) {
        rc = cu_names_lookup(svc, got, sizeof got);
    } else {
        rc = cu_names_unpublish(svc, port);
    }
    if (rc == 0 && !strcmp(cmd, "lookup_name"))
        reply(j, r, "cmd=%s rc=0 port=%s\n", res, got);
    else if (rc == 0)
        reply(j, r, "cmd=%s rc=0 info=ok\n", res);
    else
        reply(j, r, "cmd=%s rc=-1 msg=%s\n", res, rc == -EEXIST ? "name_taken"
                                             : rc == -ENOENT ? "not_found" : "name_store_failed");
}

/* MPI_UNIVERSE_SIZE: the processes this job's resources hold, which
 * spawned jobs may use too: the slots of --hosts/--hostfile (a host without
 * slots counts one), else the cores mpirun may use here; never below the
 * job's own size. */
static int universe_size(const struct job *j)
{
    long u = 0;
    if (j->o->nhostspecs || j->o->hostfile) {
        for (int h = 0; h < j->nhosts; h++)
            u += j->hosts[h].slots > 0 ? j->hosts[h].slots : 1;
    } else {
        cpu_set_t set;
        u = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    }
    return u > j->n ? (u < 1 << 24 ? (int)u : 1 << 24) : j->n;
}

static void handle(struct job *j, struct rank *r, const char *line)
{
    if (mcmd_line(j, r, line))
        return;
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
        /* The first rank in MPI_Init starts the clock for remote ranks: a
         * job whose ranks wait for one that never connects must not hang. */
        if (j->nremote && !j->connect_deadline)
            j->connect_deadline = now_sec() + j->connect_timeout;
        if (v && strcmp(v, "1") == 0)
            reply(j, r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
        else
            reply(j, r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 "
                        "msg=only_PMI_version_1_is_served\n");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        reply(j, r, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d rc=0\n",
              (int)sizeof j->kvsname, CU_PMI_KEYLEN_MAX, CU_PMI_VALLEN_MAX);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        reply(j, r, "cmd=appnum appnum=%d rc=0\n", r->app);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        reply(j, r, "cmd=my_kvsname kvsname=%s rc=0\n", j->kvsname);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        reply(j, r, "cmd=universe_size size=%d rc=0\n", universe_size(j));
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
    } else if (!strcmp(cmd, "publish_name") || !strcmp(cmd, "lookup_name") ||
               !strcmp(cmd, "unpublish_name")) {
        name_service(j, r, cmd, kv, n);
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
        /* A rank that aborts because a peer vanished (netmod/ofi: "lost the
         * connection to rank N") can beat the peer's SIGCHLD: a death that
         * is under way gets up to 50 ms to be reported first, as the
         * cause (measured: 1 run in 6 the abort came first). */
        for (double until = now_sec() + 0.05; !j->ending && now_sec() < until;) {
            job_reap(j);
            if (!j->ending)
                usleep(2000);
        }
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
    /* What it wrote before dying (an abort, say) is still in the socket.
     * Over TCP it may still be on its way: wait briefly for the EOF that
     * follows it (briefly: with ssh, the rank may outlive its launcher). */
    if (r->remote && r->pmi_fd >= 0) {
        double until = now_sec() + 0.2;
        while (r->pmi_fd >= 0 && now_sec() < until) {
            struct pollfd p = { .fd = r->pmi_fd, .events = POLLIN };
            if (poll(&p, 1, 20) > 0)
                pmisrv_read(j, r);
        }
    }
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

/* ---- TCP service for remote ranks ---------------------------------------- */

/* A connection must show the job's secret within SECRET_TIMEOUT, then name
 * its rank within HANDSHAKE_TIMEOUT. When every slot is taken, the oldest
 * connection without the secret goes: silent or garbage connections, any
 * number of them, cannot keep a real rank (which sends the secret at once)
 * out. Refusals are logged at most REFUSE_LOG_MAX per REFUSE_LOG_S, then
 * counted. */
#define SECRET_TIMEOUT 3.0
#define HANDSHAKE_TIMEOUT 10.0
#define REFUSE_LOG_MAX 5
#define REFUSE_LOG_S 10.0

static struct pending {
    int fd;
    int authed;
    double since;
    char peer[80];
    cu_pmi_linebuf lb;
} pend[PMISRV_MAXPENDING];
static int npend;

static struct {
    double since;     /* start of the current log window */
    int logged;       /* refusals logged in it */
    long quiet;       /* refusals not logged in it */
} refusals;

/* Says how many refusals went unlogged once their window is over (or
 * now, with force). */
static void refusals_flush(struct job *j, double now, int force)
{
    if (refusals.quiet && (force || now >= refusals.since + REFUSE_LOG_S))
        fprintf(stderr, "%s: refused %ld more PMI connection%s in %g s\n", j->self,
                refusals.quiet, refusals.quiet > 1 ? "s" : "", REFUSE_LOG_S);
    if (force || now >= refusals.since + REFUSE_LOG_S)
        refusals.since = now, refusals.logged = 0, refusals.quiet = 0;
}

static void refuse(struct job *j, int i, const char *why, const char *reply_line);

static void log_refusal(struct job *j, const char *peer, const char *why)
{
    refusals_flush(j, now_sec(), 0);
    if (refusals.logged++ < REFUSE_LOG_MAX)
        fprintf(stderr, "%s: refused a PMI connection from %s: %s%s\n", j->self, peer, why,
                refusals.logged == REFUSE_LOG_MAX ? " (more within 10 s are only counted)" : "");
    else
        refusals.quiet++;
}

static void peer_name(int fd, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char h[INET6_ADDRSTRLEN] = "?", p[16] = "?";
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
        getnameinfo((struct sockaddr *)&ss, sl, h, sizeof h, p, sizeof p,
                    NI_NUMERICHOST | NI_NUMERICSERV);
    /* Dual-stack sockets see IPv4 peers as ::ffff:a.b.c.d; say a.b.c.d. */
    const char *hp = strncmp(h, "::ffff:", 7) == 0 && strchr(h, '.') ? h + 7 : h;
    snprintf(buf, len, strchr(hp, ':') ? "[%s]:%s" : "%s:%s", hp, p);
}

/* The address remote ranks are told to connect to, and the only one the
 * service listens on. CLUMPI_PMI_HOST wins; else the source address the
 * kernel would use towards the first remote host that resolves (loopback
 * when every remote host is this one by another name); else the first
 * non-loopback address that is up. */
static void pick_address(struct job *j, char *out, size_t len)
{
    const char *env = cu_param_str("PMI_HOST");
    if (env) {
        snprintf(out, len, "%s", env);
        return;
    }
    int nremote = 0, nloop = 0;
    for (int h = 0; h < j->nhosts; h++) {
        if (j->hosts[h].here)
            continue;
        nremote++;
        struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *res;
        if (getaddrinfo(j->hosts[h].name, "9", &hints, &res) != 0)
            continue;
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in me;
        socklen_t sl = sizeof me;
        /* A UDP connect sends nothing; it only picks the route. */
        int ok = fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
                 getsockname(fd, (struct sockaddr *)&me, &sl) == 0;
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        if (ok && (ntohl(me.sin_addr.s_addr) >> 24) == 127)
            nloop++;
        else if (ok && inet_ntop(AF_INET, &me.sin_addr, out, (socklen_t)len))
            return;
    }
    if (nremote && nloop == nremote) {
        snprintf(out, len, "127.0.0.1");
        return;
    }
    struct ifaddrs *ifa, *i;
    if (getifaddrs(&ifa) == 0) {
        for (i = ifa; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK) ||
                !(i->ifa_flags & IFF_UP))
                continue;
            struct sockaddr_in *sin = (struct sockaddr_in *)i->ifa_addr;
            if (inet_ntop(AF_INET, &sin->sin_addr, out, (socklen_t)len)) {
                freeifaddrs(ifa);
                return;
            }
        }
        freeifaddrs(ifa);
    }
    if (gethostname(out, len) < 0)
        snprintf(out, len, "127.0.0.1");
    out[len - 1] = '\0';
}

int pmisrv_listen(struct job *j)
{
    j->listen_fd = -1;
    const char *ct = cu_param_str("CONNECT_TIMEOUT");
    char *end;
    j->connect_timeout = 30;
    if (ct) {
        double v = strtod(ct, &end);
        if (*end || !(v > 0) || v > 1e6) {
            fprintf(stderr, "%s: CLUMPI_CONNECT_TIMEOUT=%s: expected a positive number of seconds\n",
                    j->self, ct);
            return -1;
        }
        j->connect_timeout = v;
    }
    if (j->nremote == 0)
        return 0;
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        /* A guessable secret protects nothing: better not to start. */
        fprintf(stderr, "%s: no randomness for the job secret: %s\n", j->self, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof b; i++)
        sprintf(j->secret + 2 * i, "%02x", b[i]);

    /* Only the address the ranks are given: nobody reaches the service
     * through another network. */
    char addr[256];
    pick_address(j, addr, sizeof addr);
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG }, *res, *ai;
    int fd = -1, on = 1, gai = getaddrinfo(addr, "0", &hints, &res);
    if (gai != 0) {
        fprintf(stderr, "%s: cannot open the PMI service for remote ranks at %s%s: %s\n",
                j->self, addr, cu_param_str("PMI_HOST") ? " (CLUMPI_PMI_HOST)" : "",
                gai_strerror(gai));
        return -1;
    }
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd >= 0 && bind(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
            int e = errno;
            close(fd);
            fd = -1;
            errno = e;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot open the PMI service for remote ranks at %s%s: %s\n",
                j->self, addr, cu_param_str("PMI_HOST") ? " (CLUMPI_PMI_HOST)" : "",
                strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (listen(fd, 128) < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
        fprintf(stderr, "%s: cannot open the PMI service for remote ranks: %s\n", j->self,
                strerror(errno));
        close(fd);
        return -1;
    }
    int port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                        : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    snprintf(j->pmi_addr, sizeof j->pmi_addr, strchr(addr, ':') ? "[%s]:%d" : "%s:%d", addr, port);
    j->listen_fd = fd;
    if (j->o->verbose)
        fprintf(stderr, "%s: PMI service for remote ranks at %s\n", j->self, j->pmi_addr);
    return 0;
}

void pmisrv_accept(struct job *j)
{
    for (;;) {
        int fd = accept4(j->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;   /* EAGAIN, or a transient error: the next poll retries */
        char peer[80];
        peer_name(fd, peer, sizeof peer);
        if (npend == PMISRV_MAXPENDING) {
            int old = -1;
            for (int i = 0; i < npend; i++)
                if (!pend[i].authed && (old < 0 || pend[i].since < pend[old].since))
                    old = i;
            if (old < 0) {   /* every slot holds a real rank: cannot happen for long */
                log_refusal(j, peer, "every handshake slot holds a rank");
                close(fd);
                continue;
            }
            refuse(j, old, "no job secret yet, and its slot was needed", NULL);
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
        struct pending *p = &pend[npend++];
        memset(p, 0, sizeof *p);
        p->fd = fd;
        p->since = now_sec();
        snprintf(p->peer, sizeof p->peer, "%s", peer);
    }
}

int pmisrv_pending_fds(struct job *j, int *fds, int max)
{
    (void)j;
    int n = 0;
    for (int i = 0; i < npend && n < max; i++)
        fds[n++] = pend[i].fd;
    return n;
}

static void pend_drop(int i)
{
    pend[i] = pend[--npend];
}

static void send_str(int fd, const char *s)
{
    size_t n = strlen(s);
    /* A fresh socket's buffer takes these few bytes at once. */
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* Drops pending connection i, telling it reply_line (if any) and the log
 * why (if any). */
static void refuse(struct job *j, int i, const char *why, const char *reply_line)
{
    if (why)
        log_refusal(j, pend[i].peer, why);
    if (reply_line)
        send_str(pend[i].fd, reply_line);
    close(pend[i].fd);
    pend_drop(i);
}

/* Compares all of both strings, so the time taken says nothing about
 * how much of a guess was right. */
static int secret_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = la != lb;
    for (size_t i = 0; i < lb; i++)
        d |= (unsigned char)(a[i % (la ? la : 1)] ^ b[i]);
    return d == 0;
}

/* Every remote rank is in: the port closes, so nobody can reach mpirun
 * through it any more (a spawned job has its own mpirun and port). */
static void close_service(struct job *j)
{
    pmisrv_close_all(j);
    if (j->o->verbose)
        fprintf(stderr, "%s: every remote rank connected: the PMI service is closed\n", j->self);
}

/* One line of a connection in the handshake. Returns 0 to go on, 1 when
 * the connection was dropped or became a rank's. */
static int pending_line(struct job *j, int i, const char *line)
{
    struct pending *p = &pend[i];
    cu_pmi_kv kv[MAXKV];
    int n = cu_pmi_parse_line(line, kv, MAXKV);
    if (n < 0 || strcmp(kv[0].key, "cmd") != 0) {
        refuse(j, i, "not a PMI request", NULL);
        return 1;
    }
    if (!p->authed) {
        const char *sec = strcmp(kv[0].val, "auth") == 0 ? cu_pmi_find(kv, n, "secret") : NULL;
        if (!sec) {
            refuse(j, i, "no job secret presented",
                   "cmd=auth_result rc=-1 msg=this_job_needs_CLUMPI_PMI_SECRET\n");
            return 1;
        }
        if (!secret_equal(sec, j->secret)) {
            refuse(j, i, "wrong job secret", "cmd=auth_result rc=-1 msg=wrong_secret\n");
            return 1;
        }
        p->authed = 1;
        send_str(p->fd, "cmd=auth_result rc=0\n");
        return 0;
    }
    const char *id = strcmp(kv[0].val, "initack") == 0 ? cu_pmi_find(kv, n, "pmiid") : NULL;
    char *end;
    long rank = id ? strtol(id, &end, 10) : -1;
    if (!id || !*id || *end || rank < 0 || rank >= j->n) {
        refuse(j, i, "expected cmd=initack with a rank number", "cmd=initack rc=-1\n");
        return 1;
    }
    struct rank *r = &j->r[rank];
    char why[96];
    if (!r->remote || r->connected || r->exited) {
        snprintf(why, sizeof why, "rank %ld is %s", rank,
                 !r->remote ? "not a remote rank" : r->connected ? "connected already" : "gone");
        /* A rank that holds the secret but has exited already is one whose
         * job is ending (its launcher was killed while it connected): its
         * end is reported once, by its exit. */
        refuse(j, i, r->remote && !r->connected ? NULL : why, "cmd=initack rc=-1\n");
        return 1;
    }
    char buf[160];
    snprintf(buf, sizeof buf, "cmd=initack rc=0\ncmd=set size=%d\ncmd=set rank=%ld\ncmd=set debug=0\n",
             j->n, rank);
    send_str(p->fd, buf);
    r->pmi_fd = p->fd;
    r->lb = p->lb;   /* anything it sent after the handshake */
    r->connected = 1;
    if (j->o->verbose)
        fprintf(stderr, "%s: rank %ld connected from %s\n", j->self, rank, p->peer);
    pend_drop(i);
    if (++j->nconnected == j->nremote)
        close_service(j);
    if (r->lb.len)
        pmisrv_read(j, r);
    return 1;
}

void pmisrv_pending_read(struct job *j, int fd)
{
    int i = 0;
    while (i < npend && pend[i].fd != fd)
        i++;
    if (i == npend)
        return;
    char line[CU_PMI_LINE_MAX];
    for (;;) {
        int got;
        while ((got = cu_pmi_linebuf_next(&pend[i].lb, line, sizeof line)) != 0) {
            if (got < 0) {
                refuse(j, i, "over-long or binary data", NULL);
                return;
            }
            if (pending_line(j, i, line))
                return;
        }
        struct pending *p = &pend[i];
        ssize_t n = read(p->fd, p->lb.buf + p->lb.len, sizeof p->lb.buf - p->lb.len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            if (j->ending) {   /* a rank killed mid-handshake: nothing to report */
                close(p->fd);
                pend_drop(i);
            } else {
                refuse(j, i, p->authed ? "closed before naming its rank"
                                       : "closed before presenting the job secret", NULL);
            }
            return;
        }
        p->lb.len += (size_t)n;
    }
}

static double pend_deadline(const struct pending *p)
{
    return p->since + (p->authed ? HANDSHAKE_TIMEOUT : SECRET_TIMEOUT);
}

double pmisrv_next_deadline(struct job *j)
{
    double next = j->ending ? 0 : j->connect_deadline;
    for (int i = 0; i < npend; i++)
        if (next == 0 || pend_deadline(&pend[i]) < next)
            next = pend_deadline(&pend[i]);
    if (refusals.quiet && (next == 0 || refusals.since + REFUSE_LOG_S < next))
        next = refusals.since + REFUSE_LOG_S;
    return next;
}

void pmisrv_tick(struct job *j, double now)
{
    for (int i = 0; i < npend;) {
        if (now >= pend_deadline(&pend[i]))
            refuse(j, i, pend[i].authed ? "did not name its rank within 10 s"
                                        : "no job secret within 3 s", NULL);
        else
            i++;
    }
    refusals_flush(j, now, 0);
    if (j->ending || !j->connect_deadline || now < j->connect_deadline)
        return;
    j->connect_deadline = 0;
    char list[200] = "";
    size_t off = 0;
    int missing = 0, first = -1;
    for (int i = 0; i < j->n; i++) {
        struct rank *r = &j->r[i];
        if (!r->remote || r->connected || r->exited)
            continue;
        if (first < 0)
            first = i;
        if (missing++ < 8 && off + 40 < sizeof list)
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%d (%s)", off ? ", " : "", i,
                                    j->hosts[r->host].name);
    }
    if (missing)
        job_fail(j, 1, "rank%s %s%s did not connect to mpirun's PMI service at %s within %g s "
                 "(is that address reachable from %s? CLUMPI_PMI_HOST picks another; "
                 "CLUMPI_CONNECT_TIMEOUT waits longer); ending the job",
                 missing > 1 ? "s" : "", list, missing > 8 ? ", ..." : "", j->pmi_addr,
                 j->connect_timeout, j->hosts[j->r[first].host].name);
}

void pmisrv_close_all(struct job *j)
{
    for (int i = 0; i < npend; i++)
        close(pend[i].fd);
    npend = 0;
    if (j->listen_fd >= 0)
        close(j->listen_fd);
    j->listen_fd = -1;
    refusals_flush(j, now_sec(), 1);
}
