/*
 * pmi.c — PMI client: the PMI-1 wire (the "simple PMI" protocol that MPICH's
 * Hydra, Slurm's pmi2 plugin and clumpi's mpirun speak): one line per
 * message, "cmd=<name>" followed by space-separated key=value pairs, over a
 * socket given as PMI_FD (or reached through PMI_PORT); used at init and
 * finalize, so plain blocking I/O. Under a PMIx launcher every call goes to
 * src/util/pmix.c instead.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "src/util/log.h"
#include "src/util/pmi.h"
#include "src/util/names.h"
#include "src/util/param.h"
#ifdef HAVE_PMIX
#include "src/util/pmix.h"
#endif

#define MAXKV 16

static struct {
    int inited;
    int singleton;
    int pmix;   /* through the PMIx server (src/util/pmix.c), not the wire */
    int fd;
    int rank, size, appnum;
    int keylen_max, vallen_max;
    char kvsname[256];
    cu_pmi_linebuf lb;
    /* The singleton's own key-value space. */
    struct { char *key, *val; } *local;
    int nlocal, caplocal;
    /* Watchdog of a rank that clumpi's mpirun started on another host. */
    pthread_t watch;
    int watching;
    int watch_stop[2];
} pmi = { .fd = -1, .watch_stop = { -1, -1 } };

/* ---- Parsing --------------------------------------------------------- */

int cu_pmi_linebuf_next(cu_pmi_linebuf *lb, char *line, size_t cap)
{
    for (;;) {
        char *nl = memchr(lb->buf, '\n', lb->len);
        if (!nl) {
            if (lb->len < sizeof lb->buf)
                return 0;
            /* Full buffer and no newline: drop it and skip to the next one. */
            int was = lb->skipping;
            lb->len = 0;
            lb->skipping = 1;
            if (!was)
                return -1;
            continue;
        }
        size_t n = (size_t)(nl - lb->buf);
        int bad = lb->skipping || n + 1 > cap || memchr(lb->buf, '\0', n) != NULL;
        int was_skipping = lb->skipping;
        if (!bad) {
            memcpy(line, lb->buf, n);
            line[n] = '\0';
        }
        memmove(lb->buf, nl + 1, lb->len - n - 1);
        lb->len -= n + 1;
        lb->skipping = 0;
        if (!bad)
            return 1;
        if (!was_skipping)   /* the tail of an over-long line was reported already */
            return -1;
    }
}

int cu_pmi_parse_line(const char *line, cu_pmi_kv *kv, int maxkv)
{
    if (!line || !kv || maxkv <= 0)
        return -1;
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    int n = 0;
    size_t i = 0;
    for (;;) {
        while (i < len && line[i] == ' ')
            i++;
        if (i >= len)
            break;
        size_t start = i;
        while (i < len && line[i] != ' ') {
            /* Control characters (a newline in the middle, tabs...) never
             * belong in a PMI line. */
            if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
                return -1;
            i++;
        }
        const char *tok = line + start;
        size_t toklen = i - start;
        const char *eq = memchr(tok, '=', toklen);
        if (!eq) {
            /* Some servers put free text in msg=; only there do words
             * without '=' continue the previous value. */
            if (n > 0 && strcmp(kv[n - 1].key, "msg") == 0) {
                size_t vl = strlen(kv[n - 1].val);
                if (vl + 1 + toklen >= CU_PMI_VALLEN_MAX)
                    return -1;
                kv[n - 1].val[vl] = ' ';
                memcpy(kv[n - 1].val + vl + 1, tok, toklen);
                kv[n - 1].val[vl + 1 + toklen] = '\0';
                continue;
            }
            return -1;
        }
        size_t klen = (size_t)(eq - tok), vlen = toklen - klen - 1;
        if (klen == 0 || klen >= CU_PMI_KEYLEN_MAX || vlen >= CU_PMI_VALLEN_MAX)
            return -1;
        if (n >= maxkv)
            return -1;
        memcpy(kv[n].key, tok, klen);
        kv[n].key[klen] = '\0';
        memcpy(kv[n].val, eq + 1, vlen);
        kv[n].val[vlen] = '\0';
        n++;
    }
    if (n == 0 || (strcmp(kv[0].key, "cmd") != 0 && strcmp(kv[0].key, "mcmd") != 0))
        return -1;
    return n;
}

const char *cu_pmi_find(const cu_pmi_kv *kv, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(kv[i].key, key) == 0)
            return kv[i].val;
    return NULL;
}

/* Non-negative decimal integer at *p (spaces allowed around it). */
static int map_int(const char **p, int *out)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    if (*s < '0' || *s > '9')
        return -1;
    long v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > (1 << 24))   /* far beyond any real node or rank count */
            return -1;
        s++;
    }
    while (*s == ' ')
        s++;
    *out = (int)v;
    *p = s;
    return 0;
}

static int map_expect(const char **p, char c)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    if (*s != c)
        return -1;
    *p = s + 1;
    return 0;
}

int cu_pmi_parse_mapping(const char *mapping, int size, int *node_of)
{
    enum { MAXBLK = 1024 };
    int blk[MAXBLK][3];
    if (!mapping || size <= 0 || !node_of)
        return -1;
    const char *p = mapping;
    if (map_expect(&p, '(') < 0)
        return -1;
    while (*p == ' ')
        p++;
    if (strncmp(p, "vector", 6) != 0)
        return -1;
    p += 6;
    int nblk = 0;
    long per_cycle = 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == ')')
            break;
        if (map_expect(&p, ',') < 0 || map_expect(&p, '(') < 0)
            return -1;
        if (nblk >= MAXBLK)
            return -1;
        int *b = blk[nblk];
        if (map_int(&p, &b[0]) < 0 || map_expect(&p, ',') < 0 ||
            map_int(&p, &b[1]) < 0 || map_expect(&p, ',') < 0 ||
            map_int(&p, &b[2]) < 0 || map_expect(&p, ')') < 0)
            return -1;
        if (b[1] < 1 || b[2] < 1)
            return -1;
        per_cycle += (long)b[1] * b[2];
        nblk++;
    }
    p++;
    while (*p == ' ')
        p++;
    if (*p != '\0' || nblk == 0 || per_cycle == 0)
        return -1;
    /* The blocks repeat, in order, until every rank has a node. */
    int r = 0, maxnode = -1;
    while (r < size) {
        for (int i = 0; i < nblk && r < size; i++)
            for (int nd = 0; nd < blk[i][1] && r < size; nd++)
                for (int k = 0; k < blk[i][2] && r < size; k++) {
                    int node = blk[i][0] + nd;
                    node_of[r++] = node;
                    if (node > maxnode)
                        maxnode = node;
                }
    }
    /* Node ids must be dense so callers can size arrays by the count. */
    char *seen = calloc((size_t)maxnode + 1, 1);
    if (!seen)
        return -1;
    for (int i = 0; i < size; i++)
        seen[node_of[i]] = 1;
    int dense = 1;
    for (int i = 0; i <= maxnode; i++)
        dense &= seen[i];
    free(seen);
    return dense ? maxnode + 1 : -1;
}

int cu_pmi_format_mapping(const int *node_of, int size, char *out, size_t cap)
{
    size_t len = 0;
    int w = snprintf(out, cap, "(vector");
    if (w < 0 || (size_t)w >= cap)
        return -1;
    len = (size_t)w;
    int r = 0;
    while (r < size) {
        /* A run: consecutive nodes start, start+1, ... each with ppn ranks. */
        int start = node_of[r], ppn = 0;
        while (r + ppn < size && node_of[r + ppn] == start)
            ppn++;
        int nn = 1, q = r + ppn;
        for (;;) {
            int k = 0;
            while (q + k < size && k < ppn && node_of[q + k] == start + nn)
                k++;
            if (k != ppn || (q + k < size && node_of[q + k] == start + nn))
                break;
            nn++;
            q += ppn;
        }
        w = snprintf(out + len, cap - len, ",(%d,%d,%d)", start, nn, ppn);
        if (w < 0 || (size_t)w >= cap - len)
            return -1;
        len += (size_t)w;
        r = q;
    }
    if (len + 2 > cap)
        return -1;
    out[len++] = ')';
    out[len] = '\0';
    return 0;
}

/* ---- Wire I/O -------------------------------------------------------- */

static int send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int send_line(const char *fmt, ...)
{
    char buf[CU_PMI_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf)
        return -1;
    for (size_t off = 0; off < (size_t)n;) {
        ssize_t w = write(pmi.fd, buf + off, (size_t)n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            cu_warn("PMI: lost the connection to the process manager (%s)", strerror(errno));
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

/* Next reply, which must be cmd=<expect>; fills kv and returns the count. */
static int recv_cmd(const char *expect, cu_pmi_kv *kv)
{
    char line[CU_PMI_LINE_MAX];
    for (;;) {
        int got = cu_pmi_linebuf_next(&pmi.lb, line, sizeof line);
        if (got < 0) {
            cu_warn("PMI: malformed reply from the process manager");
            return -1;
        }
        if (got > 0)
            break;
        ssize_t r = read(pmi.fd, pmi.lb.buf + pmi.lb.len, sizeof pmi.lb.buf - pmi.lb.len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            cu_warn("PMI: the process manager closed the connection%s%s",
                    r < 0 ? ": " : "", r < 0 ? strerror(errno) : "");
            return -1;
        }
        pmi.lb.len += (size_t)r;
    }
    int n = cu_pmi_parse_line(line, kv, MAXKV);
    if (n < 0) {
        cu_warn("PMI: malformed reply from the process manager: %.80s", line);
        return -1;
    }
    if (strcmp(kv[0].val, expect) != 0) {
        cu_warn("PMI: expected cmd=%s from the process manager, got cmd=%.64s", expect, kv[0].val);
        return -1;
    }
    return n;
}

/* rc=0 (or no rc at all, as some servers omit it) is success. */
static int reply_ok(const cu_pmi_kv *kv, int n)
{
    const char *rc = cu_pmi_find(kv, n, "rc");
    return !rc || strcmp(rc, "0") == 0;
}

static int parse_nonneg(const char *s, int *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* connect() that gives up after timeout seconds: a host that drops our
 * packets must not leave the rank waiting for minutes. */
static int connect_timed(int fd, const struct sockaddr *sa, socklen_t len, double timeout)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -1;
    int rc = connect(fd, sa, len);
    if (rc < 0 && errno == EINPROGRESS) {
        double end = mono_now() + timeout;
        for (;;) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            double left = end - mono_now();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            int n = poll(&p, 1, (int)(left * 1000) + 1);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return -1;
            if (n > 0)
                break;
        }
        int err = 0;
        socklen_t el = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
            return -1;
        if (err) {
            errno = err;
            return -1;
        }
        rc = 0;
    }
    if (rc == 0 && fcntl(fd, F_SETFL, fl) < 0)
        return -1;
    return rc;
}

/* PMI_PORT=host:port: a TCP connection, then Hydra's initack handshake in
 * which the server tells us our rank and the job size. clumpi's mpirun
 * also wants the job's secret (CLUMPI_PMI_SECRET) first: "cmd=auth
 * secret=<hex>", answered by "cmd=auth_result rc=0"; without the variable
 * (Hydra) that line is not sent. */
static int connect_port(const char *port_env)
{
    char host[256];
    const char *colon = strrchr(port_env, ':');
    if (!colon || colon == port_env || (size_t)(colon - port_env) >= sizeof host) {
        cu_warn("PMI: PMI_PORT=%s is not host:port", port_env);
        return -1;
    }
    const char *h0 = port_env, *h1 = colon;
    if (*h0 == '[' && h1[-1] == ']') {   /* [v6 address]:port */
        h0++;
        h1--;
    }
    memcpy(host, h0, (size_t)(h1 - h0));
    host[h1 - h0] = '\0';
    double timeout = 30;
    const char *t = cu_param_str("CONNECT_TIMEOUT");
    if (t && strtod(t, NULL) > 0)
        timeout = strtod(t, NULL);
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
    int e = getaddrinfo(host, colon + 1, &hints, &res);
    if (e) {
        cu_warn("PMI: cannot resolve PMI_PORT=%s: %s", port_env, gai_strerror(e));
        return -1;
    }
    int fd = -1, err = 0;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect_timed(fd, ai->ai_addr, ai->ai_addrlen, timeout) == 0)
            break;
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        cu_warn("PMI: cannot connect to mpirun's PMI service at PMI_PORT=%s: %s", port_env,
                strerror(err ? err : errno));
        return -1;
    }
    pmi.fd = fd;
    const char *id = getenv("PMI_ID");
    if (!id) {
        cu_warn("PMI: PMI_PORT is set but PMI_ID is not");
        return -1;
    }
    cu_pmi_kv kv[MAXKV];
    int n;
    const char *secret = getenv("CLUMPI_PMI_SECRET");
    if (secret) {
        if (send_line("cmd=auth secret=%s\n", secret) < 0 || (n = recv_cmd("auth_result", kv)) < 0)
            return -1;
        if (!reply_ok(kv, n)) {
            cu_warn("PMI: mpirun at %s refused this rank's job secret (CLUMPI_PMI_SECRET)", port_env);
            return -1;
        }
    }
    if (send_line("cmd=initack pmiid=%s\n", id) < 0 || (n = recv_cmd("initack", kv)) < 0)
        return -1;
    if (!reply_ok(kv, n)) {
        cu_warn("PMI: the process manager at %s refused PMI_ID=%s", port_env, id);
        return -1;
    }
    /* Three "cmd=set" lines follow: size, rank, debug. */
    for (int i = 0; i < 3; i++) {
        if ((n = recv_cmd("set", kv)) < 0)
            return -1;
        const char *v;
        if ((v = cu_pmi_find(kv, n, "size")) && parse_nonneg(v, &pmi.size) < 0)
            return -1;
        if ((v = cu_pmi_find(kv, n, "rank")) && parse_nonneg(v, &pmi.rank) < 0)
            return -1;
    }
    return 0;
}

/* A rank on another host cannot be signalled by mpirun: when mpirun ends
 * the job (or dies), its launcher goes, and with ssh the rank would live
 * on. mpirun's end of the PMI connection closes then; this thread sees
 * that and ends the rank. It only polls, never reads, so the replies stay
 * for the main thread. */
static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p[2] = { { .fd = pmi.fd, .events = POLLRDHUP },
                               { .fd = pmi.watch_stop[0], .events = POLLIN } };
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || p[1].revents)
            return NULL;
        if (p[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
            cu_warn("PMI: lost the connection to mpirun (the job ended); exiting");
            _exit(1);
        }
    }
}

static void watchdog_start(void)
{
    if (pipe2(pmi.watch_stop, O_CLOEXEC) < 0)
        return;   /* the rank then relies on its launcher alone */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* signals stay with the program's threads */
    pmi.watching = pthread_create(&pmi.watch, NULL, watchdog, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!pmi.watching) {
        close(pmi.watch_stop[0]);
        close(pmi.watch_stop[1]);
        pmi.watch_stop[0] = pmi.watch_stop[1] = -1;
    }
}

static void watchdog_stop(void)
{
    if (!pmi.watching)
        return;
    char c = 0;
    ssize_t w;
    do
        w = write(pmi.watch_stop[1], &c, 1);
    while (w < 0 && errno == EINTR);
    pthread_join(pmi.watch, NULL);
    close(pmi.watch_stop[0]);
    close(pmi.watch_stop[1]);
    pmi.watch_stop[0] = pmi.watch_stop[1] = -1;
    pmi.watching = 0;
}

/* ---- The API ----------------------------------------------------------- */

/* A PMIx launcher sets PMIX_NAMESPACE and PMIX_RANK. When PMI_FD or PMI_PORT
 * is set too, the process runs under a PMI-1 launcher (mpirun, Hydra)
 * started inside a PMIx job step, whose variables it inherited: the wire
 * is the one meant for it. */
static int pmix_start(void)
{
    if (!getenv("PMIX_NAMESPACE") || !getenv("PMIX_RANK"))
        return 0;
#ifdef HAVE_PMIX
    if (cu_pmix_init(&pmi.rank, &pmi.size, &pmi.appnum, pmi.kvsname, sizeof pmi.kvsname) < 0)
        return -1;
    pmi.pmix = 1;
    return 1;
#else
    cu_warn("PMI: started by a PMIx launcher (PMIX_NAMESPACE=%s), but this clumpi was built "
            "without PMIx (configure found no libpmix-dev); launch with srun --mpi=pmi2, "
            "Hydra or clumpi's mpirun, or rebuild with PMIx",
            getenv("PMIX_NAMESPACE"));
    return -1;
#endif
}

int cu_pmi_init(int *rank, int *size, int *appnum)
{
    if (pmi.inited)
        goto out;
    const char *fd_env = getenv("PMI_FD"), *port_env = getenv("PMI_PORT");
    pmi.keylen_max = CU_PMI_KEYLEN_MAX;
    pmi.vallen_max = CU_PMI_VALLEN_MAX;
    if (!fd_env && !port_env) {
        int px = pmix_start();
        if (px < 0)
            return -1;
        if (px > 0) {
            pmi.inited = 1;
            goto out;
        }
        pmi.singleton = 1;
        pmi.rank = 0;
        pmi.size = 1;
        pmi.appnum = 0;
        snprintf(pmi.kvsname, sizeof pmi.kvsname, "singleton-%d", (int)getpid());
        pmi.inited = 1;
        goto out;
    }
    pmi.size = -1;
    pmi.rank = -1;
    if (fd_env) {
        if (parse_nonneg(fd_env, &pmi.fd) < 0 || fcntl(pmi.fd, F_GETFD) < 0) {
            cu_warn("PMI: PMI_FD=%s is not an open file descriptor", fd_env);
            pmi.fd = -1;
            return -1;
        }
        const char *r = getenv("PMI_RANK"), *s = getenv("PMI_SIZE");
        if (parse_nonneg(r, &pmi.rank) < 0 || parse_nonneg(s, &pmi.size) < 0) {
            cu_warn("PMI: PMI_FD is set but PMI_RANK/PMI_SIZE are missing or malformed");
            return -1;
        }
    } else if (connect_port(port_env) < 0) {
        goto fail;
    }
    if (pmi.size < 1 || pmi.rank < 0 || pmi.rank >= pmi.size) {
        cu_warn("PMI: bad rank %d / size %d from the process manager", pmi.rank, pmi.size);
        goto fail;
    }
    /* Keep the connection out of programs the rank may exec (an agent):
     * the server sees EOF only when this process is gone. */
    fcntl(pmi.fd, F_SETFD, FD_CLOEXEC);

    cu_pmi_kv kv[MAXKV];
    int n;
    const char *v;
    if (send_line("cmd=init pmi_version=1 pmi_subversion=1\n") < 0 ||
        (n = recv_cmd("response_to_init", kv)) < 0)
        goto fail;
    if (!reply_ok(kv, n)) {
        cu_warn("PMI: the process manager refused PMI version 1.1");
        goto fail;
    }
    if (send_line("cmd=get_maxes\n") < 0 || (n = recv_cmd("maxes", kv)) < 0)
        goto fail;
    int m;
    if ((v = cu_pmi_find(kv, n, "keylen_max")) && parse_nonneg(v, &m) == 0 && m < pmi.keylen_max)
        pmi.keylen_max = m;
    if ((v = cu_pmi_find(kv, n, "vallen_max")) && parse_nonneg(v, &m) == 0 && m < pmi.vallen_max)
        pmi.vallen_max = m;
    if (send_line("cmd=get_appnum\n") < 0 || (n = recv_cmd("appnum", kv)) < 0)
        goto fail;
    if (parse_nonneg(cu_pmi_find(kv, n, "appnum"), &pmi.appnum) < 0)
        pmi.appnum = 0;
    if (send_line("cmd=get_my_kvsname\n") < 0 || (n = recv_cmd("my_kvsname", kv)) < 0)
        goto fail;
    v = cu_pmi_find(kv, n, "kvsname");
    if (!v || !*v || strlen(v) >= sizeof pmi.kvsname) {
        cu_warn("PMI: no usable kvsname from the process manager");
        goto fail;
    }
    strcpy(pmi.kvsname, v);
    pmi.inited = 1;
    if (port_env && !fd_env && getenv("CLUMPI_PMI_SECRET"))
        watchdog_start();
out:
    if (rank)
        *rank = pmi.rank;
    if (size)
        *size = pmi.size;
    if (appnum)
        *appnum = pmi.appnum;
    return 0;
fail:
    if (pmi.fd >= 0)
        close(pmi.fd);
    pmi.fd = -1;
    return -1;
}

int cu_pmi_is_singleton(void) { return pmi.singleton; }
const char *cu_pmi_kvsname(void) { return pmi.kvsname; }

static int valid_token(const char *s, size_t maxlen, int allow_eq)
{
    size_t i = 0;
    for (; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= ' ' || c == 0x7f || (!allow_eq && c == '='))
            return 0;
    }
    return i < maxlen;
}

int cu_pmi_put(const char *key, const char *value)
{
    if (!pmi.inited || !key || !value || !*key)
        return -1;
    if (!valid_token(key, (size_t)pmi.keylen_max, 0) ||
        !valid_token(value, (size_t)pmi.vallen_max, 1)) {
        cu_warn("PMI: put of key '%.64s': key or value too long or contains spaces", key);
        return -1;
    }
    if (pmi.singleton) {
        for (int i = 0; i < pmi.nlocal; i++)
            if (strcmp(pmi.local[i].key, key) == 0) {
                char *nv = strdup(value);
                if (!nv)
                    return -1;
                free(pmi.local[i].val);
                pmi.local[i].val = nv;
                return 0;
            }
        if (pmi.nlocal == pmi.caplocal) {
            int cap = pmi.caplocal ? 2 * pmi.caplocal : 16;
            void *p = realloc(pmi.local, (size_t)cap * sizeof *pmi.local);
            if (!p)
                return -1;
            pmi.local = p;
            pmi.caplocal = cap;
        }
        char *k = strdup(key), *v = strdup(value);
        if (!k || !v) {
            free(k);
            free(v);
            return -1;
        }
        pmi.local[pmi.nlocal].key = k;
        pmi.local[pmi.nlocal].val = v;
        pmi.nlocal++;
        return 0;
    }
#ifdef HAVE_PMIX
    if (pmi.pmix)
        return cu_pmix_put(key, value);
#endif
    cu_pmi_kv kv[MAXKV];
    int n;
    if (send_line("cmd=put kvsname=%s key=%s value=%s\n", pmi.kvsname, key, value) < 0 ||
        (n = recv_cmd("put_result", kv)) < 0)
        return -1;
    if (!reply_ok(kv, n)) {
        const char *msg = cu_pmi_find(kv, n, "msg");
        cu_warn("PMI: put of key '%s' failed%s%s", key, msg ? ": " : "", msg ? msg : "");
        return -1;
    }
    return 0;
}

int cu_pmi_get(const char *key, char *value, size_t len)
{
    if (!pmi.inited || !key || !value || len == 0 || !valid_token(key, (size_t)pmi.keylen_max, 0))
        return -1;
    const char *v = NULL;
    cu_pmi_kv kv[MAXKV];
    if (pmi.singleton) {
        for (int i = 0; i < pmi.nlocal && !v; i++)
            if (strcmp(pmi.local[i].key, key) == 0)
                v = pmi.local[i].val;
#ifdef HAVE_PMIX
    } else if (pmi.pmix) {
        return cu_pmix_get(key, value, len);
#endif
    } else {
        int n;
        if (send_line("cmd=get kvsname=%s key=%s\n", pmi.kvsname, key) < 0 ||
            (n = recv_cmd("get_result", kv)) < 0)
            return -1;
        if (reply_ok(kv, n))
            v = cu_pmi_find(kv, n, "value");
    }
    if (!v || strlen(v) >= len)
        return -1;
    strcpy(value, v);
    return 0;
}

/* A multi-line request's "key=value" line: the value may hold spaces but
 * no newline. */
static int send_pair(const char *key, const char *val)
{
    if (strchr(val, '\n'))
        return -1;
    return send_line("%s=%s\n", key, val);
}

/* One command's mcmd=spawn block, the k-th of ncmd. */
static int send_spawn_block(const cu_pmi_spawn_cmd *c, int k, int ncmd, const char *port)
{
    char key[32], n[16];
    int argc = 0;
    while (c->argv[argc])
        argc++;
    int rc = send_line("mcmd=spawn\nnprocs=%d\n", c->np);
    rc = rc ? rc : send_pair("execname", c->argv[0]);
    rc = rc ? rc : send_line("totspawns=%d\nspawnssofar=%d\nargcnt=%d\n", ncmd, k + 1, argc - 1);
    for (int i = 1; rc == 0 && i < argc; i++) {
        snprintf(key, sizeof key, "arg%d", i);
        rc = send_pair(key, c->argv[i]);
    }
    rc = rc ? rc : send_line("preput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\n");
    rc = rc ? rc : send_pair("preput_val_0", port);
    snprintf(n, sizeof n, "%d", c->ninfo);
    rc = rc ? rc : send_pair("info_num", n);
    for (int i = 0; rc == 0 && i < c->ninfo; i++) {
        snprintf(key, sizeof key, "info_key_%d", i);
        rc = send_pair(key, c->info_keys[i]);
        snprintf(key, sizeof key, "info_val_%d", i);
        rc = rc ? rc : send_pair(key, c->info_vals[i]);
    }
    return rc ? rc : send_line("endcmd\n");
}

int cu_pmi_spawn(const cu_pmi_spawn_cmd *cmds, int ncmd, const char *port, char *why,
                 size_t whylen)
{
    snprintf(why, whylen, "no process manager (a singleton cannot spawn)");
    if (!pmi.inited || pmi.singleton)
        return -1;
    snprintf(why, whylen, "clumpi spawns through PMI-1 only (clumpi's mpirun, Hydra), "
             "not through the PMIx launcher that started this job");
    if (pmi.pmix)
        return -1;
    /* nothing goes out unless every block can */
    snprintf(why, whylen, "an argument or info value holds a newline");
    for (int k = 0; k < ncmd; k++) {
        for (int i = 0; cmds[k].argv[i]; i++)
            if (strchr(cmds[k].argv[i], '\n'))
                return -1;
        for (int i = 0; i < cmds[k].ninfo; i++)
            if (strchr(cmds[k].info_keys[i], '\n') || strchr(cmds[k].info_vals[i], '\n'))
                return -1;
    }
    int rc = 0;
    for (int k = 0; rc == 0 && k < ncmd; k++)
        rc = send_spawn_block(&cmds[k], k, ncmd, port);
    if (rc)
        return -1;   /* a line half sent leaves the stream broken: as a lost manager */
    cu_pmi_kv kv[MAXKV];
    int got = recv_cmd("spawn_result", kv);
    if (got < 0) {
        snprintf(why, whylen, "the process manager does not serve spawn");
        return -1;
    }
    if (!reply_ok(kv, got)) {
        const char *msg = cu_pmi_find(kv, got, "msg");
        snprintf(why, whylen, "the process manager refused: %s", msg ? msg : "no reason given");
        return -1;
    }
    return 0;
}

int cu_pmi_universe_size(void)
{
    if (!pmi.inited)
        return 0;
    if (pmi.singleton)
        return 1;
#ifdef HAVE_PMIX
    if (pmi.pmix)
        return cu_pmix_universe_size();
#endif
    cu_pmi_kv kv[MAXKV];
    int n, size = 0;
    if (send_line("cmd=get_universe_size\n") < 0 || (n = recv_cmd("universe_size", kv)) < 0 ||
        !reply_ok(kv, n))
        return 0;
    const char *v = cu_pmi_find(kv, n, "size");
    return v && parse_nonneg(v, &size) == 0 ? size : 0;
}

/* service hex-encoded (a PMI value holds no spaces), into out. */
static int service_key(const char *service, char *out, size_t cap)
{
    size_t n = strlen(service);
    if (n == 0 || 2 * n + 1 > cap)
        return -1;
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", (unsigned char)service[i]);
    return 0;
}

/* One name-service request and its reply: 0, -EEXIST, -ENOENT or -EIO;
 * value, when set, receives the reply's port. */
static int name_request(const char *cmd, const char *key, const char *port, char *value,
                        size_t cap)
{
    cu_pmi_kv kv[MAXKV];
    char expect[32];
    snprintf(expect, sizeof expect, "%.*s_result", (int)strcspn(cmd, "_"), cmd);
    int n = port ? send_line("cmd=%s service=%s port=%s\n", cmd, key, port)
                 : send_line("cmd=%s service=%s\n", cmd, key);
    if (n < 0 || (n = recv_cmd(expect, kv)) < 0)
        return -EIO;
    if (!reply_ok(kv, n)) {
        const char *msg = cu_pmi_find(kv, n, "msg");
        return msg && !strcmp(msg, "name_taken") ? -EEXIST
               : msg && !strcmp(msg, "not_found") ? -ENOENT : -EIO;
    }
    const char *p = value ? cu_pmi_find(kv, n, "port") : NULL;
    if (p && !*p)
        return -ENOENT;   /* Hydra's external name server: "ok", no port */
    if (value && (!p || strlen(p) >= cap))
        return -EIO;
    if (value)
        strcpy(value, p);
    return 0;
}

/* Publish or unpublish (cmd): through the manager, or the store itself. */
static int name_change(const char *cmd, const char *service, const char *port,
                       int (*local)(const char *, const char *))
{
    char key[CU_PMI_VALLEN_MAX];
    if (!pmi.inited || service_key(service, key, sizeof key) || strpbrk(port, " \n="))
        return -EIO;
    return pmi.singleton || pmi.pmix ? local(key, port) : name_request(cmd, key, port, NULL, 0);
}

int cu_pmi_publish(const char *service, const char *port)
{
    /* Slurm's pmi2 plugin replaces a name already published: a taken name
     * must stay, so it is looked up first (as unpublish does for Hydra) */
    char cur[CU_PMI_VALLEN_MAX];
    if (pmi.inited && !pmi.singleton && !pmi.pmix && cu_pmi_lookup(service, cur, sizeof cur) == 0)
        return -EEXIST;
    return name_change("publish_name", service, port, cu_names_publish);
}

int cu_pmi_lookup(const char *service, char *port, size_t cap)
{
    char key[CU_PMI_VALLEN_MAX];
    if (!pmi.inited || service_key(service, key, sizeof key))
        return -EIO;
    return pmi.singleton || pmi.pmix ? cu_names_lookup(key, port, cap)
                         : name_request("lookup_name", key, NULL, port, cap);
}

int cu_pmi_unpublish(const char *service, const char *port)
{
    /* Hydra's unpublish_name takes the service alone: a name published
     * with another port must stay, so the port is checked first */
    char cur[CU_PMI_VALLEN_MAX];
    int own = pmi.singleton || pmi.pmix;   /* the store checks the port itself */
    int rc = own ? 0 : cu_pmi_lookup(service, cur, sizeof cur);
    if (rc)
        return rc;
    if (!own && strcmp(cur, port))
        return -ENOENT;
    return name_change("unpublish_name", service, port, cu_names_unpublish);
}

int cu_pmi_barrier(void)
{
    if (!pmi.inited)
        return -1;
    if (pmi.singleton)
        return 0;
#ifdef HAVE_PMIX
    if (pmi.pmix)
        return cu_pmix_fence();
#endif
    cu_pmi_kv kv[MAXKV];
    int n;
    if (send_line("cmd=barrier_in\n") < 0 || (n = recv_cmd("barrier_out", kv)) < 0)
        return -1;
    return reply_ok(kv, n) ? 0 : -1;
}

int cu_pmi_finalize(void)
{
    if (!pmi.inited)
        return -1;
    int ret = 0;
    if (pmi.singleton) {
        for (int i = 0; i < pmi.nlocal; i++) {
            free(pmi.local[i].key);
            free(pmi.local[i].val);
        }
        free(pmi.local);
        pmi.local = NULL;
        pmi.nlocal = pmi.caplocal = 0;
#ifdef HAVE_PMIX
    } else if (pmi.pmix) {
        ret = cu_pmix_finalize();
        pmi.pmix = 0;
#endif
    } else {
        cu_pmi_kv kv[MAXKV];
        /* mpirun may close once it has acknowledged: stop watching first. */
        watchdog_stop();
        if (send_line("cmd=finalize\n") < 0 || recv_cmd("finalize_ack", kv) < 0)
            ret = -1;
        close(pmi.fd);
        pmi.fd = -1;
    }
    memset(&pmi.lb, 0, sizeof pmi.lb);
    pmi.inited = 0;
    pmi.singleton = 0;
    return ret;
}

void cu_pmi_abort(int code, const char *msg)
{
    if (msg && *msg)
        cu_warn("%s", msg);
    /* No reply comes: the process manager ends the job with our code. */
#ifdef HAVE_PMIX
    if (pmi.inited && pmi.pmix)
        cu_pmix_abort(code, msg);
#endif
    if (pmi.inited && !pmi.singleton && pmi.fd >= 0)
        send_line("cmd=abort exitcode=%d\n", code);
    _exit(code);
}

int cu_pmi_node_map(int size, int *node_of)
{
    if (!pmi.inited || size != pmi.size || !node_of)
        return -1;
    if (pmi.singleton) {
        node_of[0] = 0;
        return 1;
    }
    char map[CU_PMI_VALLEN_MAX];
#ifdef HAVE_PMIX
    int pn = pmi.pmix ? cu_pmix_node_map(size, node_of) : -1;
    if (pn > 0)
        return pn;
    if (pmi.pmix)
        goto by_host;
#endif
    if (cu_pmi_get("PMI_process_mapping", map, sizeof map) == 0) {
        int nn = cu_pmi_parse_mapping(map, size, node_of);
        if (nn > 0)
            return nn;
        cu_debug("PMI: unusable PMI_process_mapping '%.200s'; comparing host names", map);
    }
    /* No mapping: ranks on the same host are on the same node. Every rank
     * takes this path, since all read the same (missing) mapping. */
#ifdef HAVE_PMIX
by_host:;
#endif
    char host[256], key[CU_PMI_KEYLEN_MAX];
    if (gethostname(host, sizeof host) < 0)
        return -1;
    host[sizeof host - 1] = '\0';
    for (char *c = host; *c; c++)
        if ((unsigned char)*c <= ' ' || *c == 0x7f)
            *c = '_';
    snprintf(key, sizeof key, "host-%d", pmi.rank);
    if (cu_pmi_put(key, host) < 0 || cu_pmi_barrier() < 0)
        return -1;
    char (*names)[256] = malloc((size_t)size * sizeof *names);
    if (!names)
        return -1;
    int nnodes = 0;
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "host-%d", r);
        if (cu_pmi_get(key, names[r], sizeof names[r]) < 0) {
            free(names);
            return -1;
        }
        node_of[r] = -1;
        for (int q = 0; q < r && node_of[r] < 0; q++)
            if (strcmp(names[q], names[r]) == 0)
                node_of[r] = node_of[q];
        if (node_of[r] < 0)
            node_of[r] = nnodes++;
    }
    free(names);
    return nnodes;
}
