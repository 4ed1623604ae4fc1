/*
 * iofwd.c — the ranks' stdout/stderr to ours, and our stdin to rank 0.
 * Output goes out by whole lines so lines of different ranks never mix;
 * a tail without a newline (a prompt) goes out after a short wait.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "src/tools/mpirun.h"

#define PARTIAL_WAIT 0.05   /* seconds an unterminated tail may wait */

/* The stream that left stdout (1) or stderr (2) in the middle of a line. */
static struct outstream *dangling[3];

void iofwd_init(struct outstream *s, int fd, int dest)
{
    s->fd = fd;
    s->dest = dest;
    s->len = 0;
    s->mid_line = 0;
    s->partial_since = 0;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;   /* our stdout is gone (EPIPE): drop, keep serving the job */
        p += w;
        n -= (size_t)w;
    }
}

/* Emit n bytes of s's buffer; eol says whether they end a line. */
static void emit(struct job *j, struct rank *r, struct outstream *s, size_t n, int eol)
{
    if (n == 0)
        return;
    struct outstream *d = dangling[s->dest];
    if (d && d != s) {
        /* Another rank's unfinished line: end it here rather than glue the
         * two together; its rest comes later on a line of its own. */
        write_all(s->dest, "\n", 1);
        d->mid_line = 0;
    }
    if (j->o->label && !s->mid_line) {
        /* Prefix and text in one write, so a line stays one unit. */
        char tmp[sizeof s->buf + 32];
        int p = snprintf(tmp, sizeof tmp, "[%d] ", r->rank);
        memcpy(tmp + p, s->buf, n);
        write_all(s->dest, tmp, (size_t)p + n);
    } else {
        write_all(s->dest, s->buf, n);
    }
    s->mid_line = !eol;
    dangling[s->dest] = eol ? NULL : s;
    memmove(s->buf, s->buf + n, s->len - n);
    s->len -= n;
}

static void emit_lines(struct job *j, struct rank *r, struct outstream *s)
{
    for (;;) {
        char *nl = memchr(s->buf, '\n', s->len);
        if (!nl)
            break;
        emit(j, r, s, (size_t)(nl - s->buf) + 1, 1);
    }
    if (s->len == sizeof s->buf)   /* a line longer than the buffer: pass a piece */
        emit(j, r, s, s->len, 0);
    if (s->len == 0)
        s->partial_since = 0;
    else if (s->partial_since == 0)
        s->partial_since = now_sec();
}

static void close_stream(struct job *j, struct rank *r, struct outstream *s)
{
    if (s->len) {
        emit(j, r, s, s->len, 0);
        if (j->o->label) {   /* keep the next rank's prefix at a line start */
            write_all(s->dest, "\n", 1);
            s->mid_line = 0;
            dangling[s->dest] = NULL;
        }
    }
    s->partial_since = 0;
    close(s->fd);
    s->fd = -1;
}

void iofwd_read(struct job *j, struct rank *r, struct outstream *s)
{
    while (s->fd >= 0) {
        ssize_t n = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            close_stream(j, r, s);
            return;
        }
        s->len += (size_t)n;
        emit_lines(j, r, s);
    }
}

/* After the rank exits: what it wrote is in the pipe. Read what is there,
 * without waiting for EOF (a child of the rank may hold the pipe). */
void iofwd_drain(struct job *j, struct rank *r)
{
    iofwd_read(j, r, &r->out);
    iofwd_read(j, r, &r->err);
}

void iofwd_flush_partial(struct job *j, struct rank *r, struct outstream *s, double now)
{
    if (s->len && s->partial_since && now - s->partial_since >= PARTIAL_WAIT) {
        emit(j, r, s, s->len, 0);
        s->partial_since = 0;
    }
}

void iofwd_stdin_close(struct job *j)
{
    j->stdin_src = -1;   /* our stdin stays open: it is the user's terminal */
    if (j->stdin_dst >= 0)
        close(j->stdin_dst);
    j->stdin_dst = -1;
    j->inlen = j->inoff = 0;
}

void iofwd_stdin_read(struct job *j)
{
    ssize_t n;
    do
        n = read(j->stdin_src, j->inbuf, sizeof j->inbuf);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {   /* EOF: rank 0 sees EOF too */
        iofwd_stdin_close(j);
        return;
    }
    j->inlen = (size_t)n;
    j->inoff = 0;
    iofwd_stdin_write(j);
}

void iofwd_stdin_write(struct job *j)
{
    while (j->inoff < j->inlen) {
        ssize_t w = write(j->stdin_dst, j->inbuf + j->inoff, j->inlen - j->inoff);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;   /* poll for POLLOUT */
        if (w <= 0) {   /* rank 0 closed its stdin or exited */
            iofwd_stdin_close(j);
            return;
        }
        j->inoff += (size_t)w;
    }
    j->inlen = j->inoff = 0;
}
