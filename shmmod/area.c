/*
 * area.c — node areas: job-private shared memory that the device hands to
 * the collectives (a flag barrier, small reductions through memory) and
 * to windows. Each area is a memfd handed to its users over an fd share
 * (src/util/fdshare.h): it has no name, so nobody else can open or squat
 * it and nothing outlives its last mapping. The device runs the protocol
 * among the area's ranks (who makes, who fetches, when to drop).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "shmmod/shm_internal.h"
#include "src/util/biglock.h"
#include "src/util/fdshare.h"
#include "src/util/log.h"

#define AREA_SERVE_MS 60000   /* users fetch right after the key reaches them */

typedef struct area_share {
    cu_fdshare share;
    int fd;
} area_share;

void *shm_area_make(size_t bytes, uint64_t key[2], void **share)
{
    *share = NULL;
    area_share *a = malloc(sizeof *a);
    if (!a)
        return NULL;
    a->fd = cu_memfd_make("clumpi-area", bytes, 1);
    int rc = a->fd < 0 ? a->fd : cu_fdshare_open(&a->share);
    void *p = MAP_FAILED;
    if (!rc && (p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0)) == MAP_FAILED)
        rc = -errno;
    if (rc) {
        cu_debug("shm: node area of %zu bytes: %s", bytes, strerror(-rc));
        if (a->fd >= 0) {
            cu_fdshare_close(&a->share);
            close(a->fd);
        }
        free(a);
        return NULL;
    }
    key[0] = a->share.key.token;
    key[1] = a->share.key.secret;
    *share = a;
    return p;
}

/* Serving and fetching wait on sockets: without the library's lock, so
 * this process's other threads go on (one of them may be what a peer
 * waits for before it can come and fetch). */
int shm_area_serve(void *share, int n)
{
    area_share *a = share;
    int depth = cu_lock_suspend();
    int rc = cu_fdshare_serve(&a->share, a->fd, n, AREA_SERVE_MS);
    cu_lock_resume(depth);
    return rc;
}

void shm_area_drop(void *share)
{
    area_share *a = share;
    if (!a)
        return;
    cu_fdshare_close(&a->share);
    close(a->fd);
    free(a);
}

void *shm_area_fetch(const uint64_t key[2], size_t bytes)
{
    cu_fdshare_key k = { .token = key[0], .secret = key[1] };
    int depth = cu_lock_suspend();
    int fd = cu_fdshare_fetch(&k, AREA_SERVE_MS);
    cu_lock_resume(depth);
    if (fd < 0) {
        cu_debug("shm: node area: cannot fetch it: %s", strerror(-fd));
        return NULL;
    }
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= bytes)
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    else
        cu_debug("shm: node area: smaller than the %zu bytes expected", bytes);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

void shm_area_unmap(void *base, size_t bytes)
{
    if (base)
        munmap(base, bytes);
}
