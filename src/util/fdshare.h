/*
 * fdshare.h — shared memory with no name: a memfd handed to the node's
 * other processes over an abstract-namespace Unix socket (SCM_RIGHTS).
 *
 * The maker opens a share (a listening socket named by a random 64-bit
 * token), passes the key (token and a random 64-bit secret) to the
 * processes that need the memory by a job-private path (PMI, MPI
 * messages), and serves them. A client connects, sends the secret and
 * receives the fd. The server hands the fd only to a peer of our own uid
 * (SO_PEERCRED) that sends the secret within a short deadline; anything
 * else is dropped without holding up the rest. Nothing appears in the
 * file system, so nothing is left behind whoever launched the job and
 * whichever process dies; the memory goes when its last mapping does.
 */
#ifndef CU_FDSHARE_H
#define CU_FDSHARE_H

#include <stddef.h>
#include <stdint.h>

typedef struct cu_fdshare_key {
    uint64_t token;       /* the socket's abstract name */
    uint64_t secret;      /* what a client must send */
} cu_fdshare_key;

typedef struct cu_fdshare {
    int lfd;              /* the listening socket, -1 when closed */
    cu_fdshare_key key;
} cu_fdshare;

/* "<16 hex>.<16 hex>" and its NUL. */
#define CU_FDSHARE_KEYTEXT 34

/* A memfd of `bytes` (named `what` in /proc only): the fd or -errno. With
 * reserve, its pages are taken now, so a full tmpfs is an error here and
 * not a SIGBUS later. */
int  cu_memfd_make(const char *what, size_t bytes, int reserve);

/* Opens a share: 0 or -errno. */
int  cu_fdshare_open(cu_fdshare *s);
/* Hands fd to nclients clients, each as soon as it proves itself; gives up
 * after timeout_ms with -ETIMEDOUT. 0 once all were served. */
int  cu_fdshare_serve(cu_fdshare *s, int fd, int nclients, int timeout_ms);
void cu_fdshare_close(cu_fdshare *s);
/* Client: the fd (close-on-exec) or -errno. */
int  cu_fdshare_fetch(const cu_fdshare_key *key, int timeout_ms);

void cu_fdshare_key_text(const cu_fdshare_key *key, char text[CU_FDSHARE_KEYTEXT]);
int  cu_fdshare_key_parse(const char *text, cu_fdshare_key *key);   /* 0 or -EINVAL */

#endif
