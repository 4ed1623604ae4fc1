/*
 * pmi_flood.c — connections against mpirun's PMI port, for
 * test_pmi_listener.sh: HOST PORT N SECONDS [SEED]. Opens N connections and
 * holds them for SECONDS; without SEED they stay silent, with SEED each
 * sends random bytes, PMI-looking lines, wrong secrets and over-long lines
 * (the listener's fuzz) until mpirun drops it or time is up. Prints how many
 * connections mpirun had closed by the end. Exit 0, or 1 when it could not
 * connect at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One piece of garbage: random bytes, or a line that looks like PMI. */
static size_t garbage(char *buf, size_t cap, unsigned *seed)
{
    static const char *lines[] = {
        "cmd=auth secret=00000000000000000000000000000000\n",
        "cmd=auth\n", "cmd=initack pmiid=0\n", "cmd=init pmi_version=1 pmi_subversion=1\n",
        "cmd=get_maxes\n", "cmd=barrier_in\n", "cmd=put kvsname=x key=k value=v\n",
        "cmd=initack pmiid=-1\n", "cmd=initack pmiid=99999999999999999999\n", "=\n", "cmd\n",
        "cmd=auth secret=\n", "\n\n\n", "cmd=abort exitcode=1\n", "cmd=finalize\n",
    };
    int kind = rand_r(seed) % 4;
    if (kind == 0) {   /* a known line */
        const char *l = lines[rand_r(seed) % (int)(sizeof lines / sizeof *lines)];
        size_t n = strlen(l);
        memcpy(buf, l, n);
        return n;
    }
    size_t n = 1 + (size_t)rand_r(seed) % (kind == 3 ? cap : 64);   /* 3: often over-long */
    for (size_t i = 0; i < n; i++)
        buf[i] = kind == 1 ? (char)rand_r(seed) : "cmd=ath secrt0123 \n"[rand_r(seed) % 19];
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: pmi_flood HOST PORT N SECONDS [SEED]\n");
        return 2;
    }
    int n = atoi(argv[3]);
    double secs = atof(argv[4]);
    int fuzz = argc > 5;
    unsigned seed = fuzz ? (unsigned)strtoul(argv[5], NULL, 10) : 0;
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
    if (getaddrinfo(argv[1], argv[2], &hints, &res) != 0) {
        fprintf(stderr, "pmi_flood: cannot resolve %s:%s\n", argv[1], argv[2]);
        return 1;
    }
    int *fd = calloc((size_t)n, sizeof *fd), open_n = 0;
    for (int i = 0; i < n; i++) {
        fd[i] = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd[i] < 0 || connect(fd[i], res->ai_addr, res->ai_addrlen) != 0) {
            if (fd[i] >= 0)
                close(fd[i]);
            fd[i] = -1;
            continue;
        }
        open_n++;
    }
    freeaddrinfo(res);
    if (!open_n) {
        fprintf(stderr, "pmi_flood: no connection to %s:%s\n", argv[1], argv[2]);
        return 1;
    }
    printf("connected %d\n", open_n);
    fflush(stdout);
    char buf[4096];
    double end = now() + secs;
    while (now() < end) {
        for (int i = 0; i < n; i++) {
            if (fd[i] < 0)
                continue;
            struct pollfd p = { .fd = fd[i], .events = POLLIN };
            if (poll(&p, 1, 0) == 1) {   /* closed by mpirun (or an answer) */
                ssize_t r = recv(fd[i], buf, sizeof buf, MSG_DONTWAIT);
                if (r <= 0) {
                    close(fd[i]);
                    fd[i] = -1;
                    continue;
                }
            }
            if (fuzz && send(fd[i], buf, garbage(buf, sizeof buf, &seed), MSG_NOSIGNAL) < 0) {
                close(fd[i]);
                fd[i] = -1;
            }
        }
        usleep(fuzz ? 2000 : 50000);
    }
    int closed = 0;
    for (int i = 0; i < n; i++) {
        if (fd[i] < 0)
            closed++;
        else
            close(fd[i]);
    }
    printf("closed by mpirun %d of %d\n", closed - (n - open_n), open_n);
    free(fd);
    return 0;
}
