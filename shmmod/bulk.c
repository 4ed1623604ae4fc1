/*
 * bulk.c — bulk fragments for packets too big for the queue (Lumetta et al. pair each
 * packet FIFO with a shorter FIFO of 8 KB bulk blocks; ours are
 * SHM_FRAG_SIZE, page-aligned).
 *
 * Why a pool per *sender* rather than per receiver or per pair: the sender is
 * the only allocator, so allocation is a scan of its own busy flags with no
 * atomic read-modify-write at all, and a receiver frees with one release
 * store. Memory grows as L x nfrags (per-pair rings grow as L^2), and one
 * sender can stream its whole pool to a single receiver for bandwidth. The
 * scan skips fragments still held by a slow receiver, so one slow peer does
 * not block the others.
 */
#include "shmmod/shm_internal.h"

void shm_pool_bind(shm_pool *p, void *base, const shm_layout *lay, int rank,
                   uint32_t nfrags, uint32_t fragsize)
{
    unsigned char *b = (unsigned char *)base + lay->pool_off + (size_t)rank * lay->pool_stride;
    p->busy = (_Atomic uint32_t *)b;
    p->frags = b + lay->frag_off;
    p->nfrags = nfrags;
    p->fragsize = fragsize;
    p->cursor = 0;
}

void shm_pool_init(shm_pool *p)
{
    for (uint32_t i = 0; i < p->nfrags; i++)
        atomic_init(&p->busy[i], 0);
}

/* A free fragment of my pool, marked busy; -1 when all are in flight, -2
 * when none is free and some are lent (held by receivers). */
int shm_pool_alloc(shm_pool *p)
{
    uint32_t n = p->nfrags, i = p->cursor;
    int lent = 0;
    for (uint32_t k = 0; k < n; k++, i = (i + 1 == n) ? 0 : i + 1) {
        /* acquire: the receiver's reads of the fragment are done */
        uint32_t b = atomic_load_explicit(&p->busy[i], memory_order_acquire);
        if (b == SHM_FRAG_FREE) {
            atomic_store_explicit(&p->busy[i], SHM_FRAG_SENT, memory_order_relaxed);
            p->cursor = (i + 1 == n) ? 0 : i + 1;
            return (int)i;
        }
        lent |= b == SHM_FRAG_LENT;
    }
    return lent ? -2 : -1;
}

void shm_pool_copyin(shm_pool *p, int frag, const struct iovec *iov, int iovcnt)
{
    unsigned char *d = shm_pool_frag(p, (uint32_t)frag);
    for (int i = 0; i < iovcnt; i++) {
        memcpy(d, iov[i].iov_base, iov[i].iov_len);
        d += iov[i].iov_len;
    }
}
