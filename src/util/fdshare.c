/*
 * fdshare.c — shared memory with no name: memfds handed over an
 * abstract-namespace Unix socket (see fdshare.h).
 *
 * Abstract sockets have no file and vanish with their last descriptor, so a
 * process killed at any moment leaves nothing behind. Their names are
 * visible (/proc/net/unix) and anyone may connect: the token only keeps
 * concurrent shares apart; the peer's uid and the secret decide.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "src/util/fdshare.h"

#define PENDING_MAX 64     /* unproven connections held at once; the oldest goes */
#define PROOF_MS    2000   /* a connection's time to send the secret */

static int rand64(uint64_t *out)
{
    unsigned char *p = (unsigned char *)out;
    size_t got = 0;
    while (got < sizeof *out) {
        ssize_t n = getrandom(p + got, sizeof *out - got, 0);
        if (n < 0 && errno != EINTR)
            return -errno;
        got += n > 0 ? (size_t)n : 0;
    }
    return 0;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static socklen_t sock_addr(struct sockaddr_un *sa, uint64_t token)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    int n = snprintf(sa->sun_path + 1, sizeof sa->sun_path - 1, "clumpi-%016llx",
                     (unsigned long long)token);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int cu_memfd_make(const char *what, size_t bytes, int reserve)
{
    int fd = memfd_create(what, MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = 0;
    if (ftruncate(fd, (off_t)bytes) != 0)
        rc = -errno;
    else if (reserve && bytes && (rc = posix_fallocate(fd, 0, (off_t)bytes)) != 0)
        rc = -rc;
    if (rc) {
        close(fd);
        return rc;
    }
    return fd;
}

int cu_fdshare_open(cu_fdshare *s)
{
    s->lfd = -1;
    int rc = rand64(&s->key.secret);
    if (rc)
        return rc;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    for (int tries = 0; tries < 16; tries++) {   /* a taken name: draw another */
        struct sockaddr_un sa;
        if ((rc = rand64(&s->key.token)) != 0)
            break;
        socklen_t len = sock_addr(&sa, s->key.token);
        if (bind(fd, (struct sockaddr *)&sa, len) == 0) {
            if (listen(fd, 128) != 0)
                break;
            s->lfd = fd;
            return 0;
        }
        rc = -errno;
        if (errno != EADDRINUSE)
            break;
    }
    if (!rc)
        rc = -errno;
    close(fd);
    return rc;
}

static int send_fd(int sock, int fd)
{
    char byte = 'F';
    struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                        .msg_controllen = sizeof ctl.buf };
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

typedef struct pending {
    int fd;
    long long deadline;
    size_t got;
    unsigned char buf[sizeof(uint64_t)];
} pending;

static void drop(pending *p, int *n, int i)
{
    close(p[i].fd);
    p[i] = p[--*n];
}

/* Takes every waiting connection of our uid; others are closed at once. */
static void take(int lfd, pending *p, int *n)
{
    for (;;) {
        int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c < 0)
            return;
        struct ucred cr;
        socklen_t cl = sizeof cr;
        if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || cr.uid != geteuid()) {
            close(c);
            continue;
        }
        if (*n == PENDING_MAX) {
            int oldest = 0;
            for (int i = 1; i < *n; i++)
                if (p[i].deadline < p[oldest].deadline)
                    oldest = i;
            drop(p, n, oldest);
        }
        p[*n] = (pending){ .fd = c, .deadline = now_ms() + PROOF_MS };
        (*n)++;
    }
}

int cu_fdshare_serve(cu_fdshare *s, int fd, int nclients, int timeout_ms)
{
    pending p[PENDING_MAX];
    struct pollfd pf[PENDING_MAX + 1];
    int n = 0, served = 0, rc = 0;
    long long end = now_ms() + timeout_ms;
    while (served < nclients) {
        long long now = now_ms(), wake = end;
        if (now >= end) {
            rc = -ETIMEDOUT;
            break;
        }
        for (int i = 0; i < n;) {
            if (p[i].deadline <= now) {
                drop(p, &n, i);
                continue;
            }
            if (p[i].deadline < wake)
                wake = p[i].deadline;
            i++;
        }
        pf[0] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
        for (int i = 0; i < n; i++)
            pf[i + 1] = (struct pollfd){ .fd = p[i].fd, .events = POLLIN };
        int r = poll(pf, (nfds_t)n + 1, (int)(wake - now));
        if (r < 0 && errno != EINTR) {
            rc = -errno;
            break;
        }
        if (r <= 0)
            continue;
        /* connections first (indices stay valid), then the listener */
        for (int i = n - 1; i >= 0; i--) {
            if (!pf[i + 1].revents)
                continue;
            ssize_t got = recv(p[i].fd, p[i].buf + p[i].got, sizeof p[i].buf - p[i].got, 0);
            if (got < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (got <= 0) {
                drop(p, &n, i);
                continue;
            }
            p[i].got += (size_t)got;
            if (p[i].got < sizeof p[i].buf)
                continue;
            if (!memcmp(p[i].buf, &s->key.secret, sizeof p[i].buf) && send_fd(p[i].fd, fd) == 0)
                served++;
            drop(p, &n, i);
        }
        if (pf[0].revents)
            take(s->lfd, p, &n);
    }
    while (n > 0)
        drop(p, &n, n - 1);
    return rc;
}

void cu_fdshare_close(cu_fdshare *s)
{
    if (s->lfd >= 0)
        close(s->lfd);
    s->lfd = -1;
}

int cu_fdshare_fetch(const cu_fdshare_key *key, int timeout_ms)
{
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0)
        return -errno;
    struct sockaddr_un sa;
    socklen_t len = sock_addr(&sa, key->token);
    int rc = 0;
    if (connect(sock, (struct sockaddr *)&sa, len) != 0 ||
        send(sock, &key->secret, sizeof key->secret, MSG_NOSIGNAL) != (ssize_t)sizeof key->secret)
        rc = -errno;
    struct pollfd pf = { .fd = sock, .events = POLLIN };
    int r;
    while (!rc && (r = poll(&pf, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    if (!rc && r == 0)
        rc = -ETIMEDOUT;
    else if (!rc && r < 0)
        rc = -errno;
    int fd = -1;
    if (!rc) {
        char byte;
        struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
        union {
            struct cmsghdr h;
            char buf[CMSG_SPACE(sizeof(int))];
        } ctl;
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                            .msg_controllen = sizeof ctl.buf };
        ssize_t got = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
        struct cmsghdr *c = got == 1 ? CMSG_FIRSTHDR(&m) : NULL;
        if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
        else
            rc = got < 0 ? -errno : -EPROTO;
    }
    close(sock);
    return rc ? rc : fd;
}

void cu_fdshare_key_text(const cu_fdshare_key *key, char text[CU_FDSHARE_KEYTEXT])
{
    snprintf(text, CU_FDSHARE_KEYTEXT, "%016llx.%016llx", (unsigned long long)key->token,
             (unsigned long long)key->secret);
}

int cu_fdshare_key_parse(const char *text, cu_fdshare_key *key)
{
    unsigned long long t, s;
    int end = 0;
    if (strlen(text) != CU_FDSHARE_KEYTEXT - 1 ||
        sscanf(text, "%16llx.%16llx%n", &t, &s, &end) != 2 || end != CU_FDSHARE_KEYTEXT - 1)
        return -EINVAL;
    key->token = t;
    key->secret = s;
    return 0;
}
