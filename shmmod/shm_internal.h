/*
 * shm_internal.h — state shared by the files of the shared-memory channel.
 *
 * Segment layout (one per node, offsets from shm_layout_compute()):
 *   [seg header][rank blocks x nlocal][per rank: data queue, ctrl queue]
 *   [per rank: bulk pool = busy flags page + page-aligned fragments]
 */
#ifndef SHM_INTERNAL_H
#define SHM_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "mpid/channel.h"
#include "src/util/queue.h"

#define SHM_MAGIC     0x636c756d70695348ull   /* "clumpiSH" */
#define SHM_PAGE      4096
/* Fragment size, the largest packet: max_payload of the channel table is
 * a compile-time constant of the contract, and the eager limit when ranks
 * outnumber cores. 32 KiB measured best here (see shm.c); it keeps a
 * pipeline of fragments inside the L2. */
#ifndef SHM_FRAG_SIZE
#define SHM_FRAG_SIZE (32u * 1024)
#endif
/* The eager limit while every local rank has a core (eager_idle_max):
 * from 8 KiB one process_vm_readv into a posted receive beats the two
 * copies through a fragment; with ranks waiting for cores, eager to
 * SHM_FRAG_SIZE lets a sender go on without its receiver. */
#ifndef SHM_EAGER_IDLE
#define SHM_EAGER_IDLE 8192u
#endif
#define SHM_LEND_SPARE 2      /* fragments of a pool never lent (shm.c, on_bulk) */
#define SHM_LEND_MIN   8192   /* the smallest payload lent */

typedef struct shm_seg_hdr {
    uint64_t magic;
    uint64_t size;
    uint32_t local_size;
    uint32_t nunits, nctrl, nfrags, fragsize;
    _Atomic uint32_t attached;
} shm_seg_hdr;

/* Per local rank: what peers need to reach it besides its queues. */
typedef struct shm_rank_blk {
    _Alignas(SHM_CACHELINE) _Atomic int32_t pid;    /* for CMA */
    _Atomic int32_t efd;          /* its wake eventfd's number + 1, 0: none */
    _Atomic uint32_t efd_bad;     /* a peer could not get that eventfd */
    /* 0 awake, SHM_SLEEP_FUTEX / SHM_SLEEP_FD while it may block on the
     * futex / in poll on its eventfd (shm.c) */
    _Alignas(SHM_CACHELINE) _Atomic uint32_t futex;
} shm_rank_blk;

typedef struct shm_layout {
    size_t rank_off;      /* rank blocks */
    size_t q_off, q_stride, ctrl_off;   /* data queue of rank i at q_off+i*q_stride, ctrl after it */
    size_t pool_off, pool_stride, frag_off;  /* pool of rank i; fragments at +frag_off */
    size_t size;
} shm_layout;

/* A bulk pool: owned (allocated from) by one sender, freed by its receivers.
 * The sender alone sets busy[i] = SHM_FRAG_SENT; the receiver clears it
 * after delivery, or first marks it SHM_FRAG_LENT while it holds the
 * payload of an unexpected message there (shm.c, lending). */
enum { SHM_FRAG_FREE, SHM_FRAG_SENT, SHM_FRAG_LENT };
typedef struct shm_pool {
    _Atomic uint32_t *busy;
    unsigned char *frags;
    uint32_t nfrags, fragsize;
    uint32_t cursor;      /* sender-private: where the next search starts */
} shm_pool;

/* What this process knows of one local peer (process-local memory). */
typedef struct shm_peer {
    shm_queue *data, *ctrl;
    uint64_t data_head, ctrl_head;   /* cached heads of its queues (producer side) */
    shm_rank_blk *blk;
    shm_pool pool;                   /* the peer's own pool (we free into it) */
    uint32_t lent;                   /* its fragments I hold (lend_max at most) */
    int world;
    int efd;                         /* our copy of its wake eventfd, or -1 */
} shm_peer;

struct shm_state {
    int world_rank, world_size, local_rank, local_size;
    int *local_of;          /* [world_size]: local index or -1 */
    void *base;
    size_t size;
    shm_layout lay;
    shm_peer *peers;        /* [local_size] */
    shm_queue *my_data, *my_ctrl;
    uint64_t data_head, ctrl_head;   /* consumer heads of my queues */
    shm_rank_blk *me;
    shm_pool *my_pool;      /* = &peers[local_rank].pool */
    uint32_t lend_max;      /* a peer's fragments I may hold at once */
    _Alignas(16) unsigned char bounce[SHM_INLINE_MAX];   /* header and payload of a multi-unit packet */
    int in_progress;        /* guard against nested progress from a handler */
    int cma;                /* 1 allowed, 0 disabled, <0 the kernel's refusal */
    _Atomic uint32_t solo_futex;     /* sleep word when there is no segment */
    int efd;                /* my wake eventfd (ranks with network peers), or -1 */
    int efd_armed;          /* wait_fd handed it out: drain it on disarm */
};

extern struct shm_state shm_st;

/* segment.c */
void shm_layout_compute(shm_layout *lay, uint32_t local_size, uint32_t nunits,
                        uint32_t nctrl, uint32_t nfrags, uint32_t fragsize);
int  shm_segment_setup(const mpid_chan_info *info, uint32_t nunits, uint32_t nctrl,
                       uint32_t nfrags);
void shm_segment_teardown(void);

/* bulk.c */
void shm_pool_bind(shm_pool *p, void *base, const shm_layout *lay, int rank,
                   uint32_t nfrags, uint32_t fragsize);
void shm_pool_init(shm_pool *p);
int  shm_pool_alloc(shm_pool *p);
void shm_pool_copyin(shm_pool *p, int frag, const struct iovec *iov, int iovcnt);

static inline unsigned char *shm_pool_frag(const shm_pool *p, uint32_t frag)
{
    return p->frags + (size_t)frag * p->fragsize;
}

static inline void shm_pool_free(shm_pool *p, uint32_t frag)
{
    atomic_store_explicit(&p->busy[frag], 0, memory_order_release);
}

/* area.c: node areas (mpid_channel's area table) */
void *shm_area_make(size_t bytes, uint64_t key[2], void **share);
int   shm_area_serve(void *share, int n);
void  shm_area_drop(void *share);
void *shm_area_fetch(const uint64_t key[2], size_t bytes);
void  shm_area_unmap(void *base, size_t bytes);

/* cma.c */
ssize_t shm_cma_read(pid_t pid, const struct iovec *local, int nlocal,
                     const struct iovec *remote, int nremote);
ssize_t shm_cma_write(pid_t pid, const struct iovec *local, int nlocal,
                      const struct iovec *remote, int nremote);

#endif
