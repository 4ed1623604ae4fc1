/*
 * scratch.c — the collectives' large work buffers, kept between calls.
 *
 * A blocking collective needs its work buffers only during the call, so
 * malloc/free per call would be enough, except that freeing megabytes lets
 * the C library give the pages back (a trimmed heap top, or munmap) and the
 * next call takes them again: every page faults and is zeroed by the
 * kernel, which costs more than the collective's own copies and messages
 * (a 1 MiB rank's work buffers: hundreds of microseconds of faults). So
 * released buffers stay here, a few of them, for the next call.
 *
 * Calls come under the library lock (MPI_THREAD_MULTIPLE) or from one
 * thread at a time, and an algorithm that nests another takes a second
 * buffer; when every slot is busy, a buffer comes from malloc as before.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

#define SLOTS 4
/* Buffers bigger than this go back to the system: a single huge call
 * should not pin its memory for the rest of the run. */
#define KEEP_MAX ((size_t)64 << 20)
#define ROUND ((size_t)64 << 10)

static struct {
    char  *p;
    size_t cap;
    int    busy;
} slot[SLOTS];

void *coll_scratch_get(size_t n)
{
    if (n == 0)
        n = 1;
    if (n > KEEP_MAX)
        return malloc(n);
    int best = -1, idle = -1;
    for (int i = 0; i < SLOTS; i++) {
        if (slot[i].busy)
            continue;
        if (slot[i].cap >= n && (best < 0 || slot[i].cap < slot[best].cap))
            best = i;
        if (idle < 0 || slot[i].cap < slot[idle].cap)
            idle = i;
    }
    if (best < 0 && idle >= 0) {
        /* Grow the smallest idle one: its contents do not matter. */
        size_t cap = (n + ROUND - 1) / ROUND * ROUND;
        char *p = malloc(cap);
        if (!p)
            return NULL;
        free(slot[idle].p);
        slot[idle].p = p;
        slot[idle].cap = cap;
        best = idle;
    }
    if (best < 0)
        return malloc(n);
    slot[best].busy = 1;
    return slot[best].p;
}

void coll_scratch_put(void *p)
{
    if (!p)
        return;
    for (int i = 0; i < SLOTS; i++) {
        if (slot[i].p == p) {
            slot[i].busy = 0;
            return;
        }
    }
    free(p);
}

void coll_finalize(void)
{
    for (int i = 0; i < SLOTS; i++) {
        free(slot[i].p);
        slot[i].p = NULL;
        slot[i].cap = 0;
        slot[i].busy = 0;
    }
}
