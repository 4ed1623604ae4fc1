/*
 * shm_sync.h — flag synchronisation among the ranks of a view (a
 * communicator or a node's sub-view) through their node area (mpid.h,
 * mpid_node_area): each rank has a cache line with its arrival number, the
 * leader (member 0) one with the release number. A round e: every rank
 * stores e in its line and either waits until all lines reach e itself
 * (barrier, allreduce), or the leader does, and stores e as the release
 * for the others to wait for (the hierarchical barrier: the leaders meet in
 * between). No message and no lock. Numbers live in the area, so every rank
 * knows its next one without keeping state; ranks may be a round apart.
 */
#ifndef COLL_SHM_SYNC_H
#define COLL_SHM_SYNC_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include "coll/coll_impl.h"

typedef struct coll_shm {
    const mpid_comm  *view;
    _Atomic uint32_t *release;   /* the leader's line */
    _Atomic uint32_t *arrive;    /* member i's line: arrive[i * COLL_SHM_STRIDE] */
    char             *slots;     /* 2 x size data slots of COLL_SHM_SLOT bytes */
    int               copy;      /* members may single-copy (mpid_node_read/write) */
} coll_shm;

#define COLL_SHM_LINE   64
#define COLL_SHM_STRIDE (COLL_SHM_LINE / sizeof(uint32_t))
/* Data slots: one per member for each parity of the round number, so a
 * round may write while the one before is still read. Messages up to this
 * size go through the area. */
#define COLL_SHM_SLOT   4096
/* A broadcast up to this size goes through a staging buffer of the view
 * (coll/bcast_shm.c), larger ones by single copy. */
#define COLL_SHM_STAGE  262144

/* Round numbers wrap: a is at or past b. */
static inline int coll_shm_reached(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) >= 0;
}

/* The view's area, set up on first use (collective then over the view).
 * MPI_ERR_UNSUPPORTED_OPERATION, alike on every member, when the view is
 * not on one node's shared memory: the caller uses messages. */
int coll_shm_get(const mpid_comm *view, coll_shm *s);

/* The number of my next round. */
uint32_t coll_shm_next(const coll_shm *s);
/* My arrival in the next round, waking the leader; returns its number. */
uint32_t coll_shm_arrive(coll_shm *s);
/* The same, waking every member (when each one waits for all). */
uint32_t coll_shm_arrive_all(coll_shm *s);
/* Member i's line (its last round; for a broadcast root: its data is in). */
_Atomic uint32_t *coll_shm_line(const coll_shm *s, int i);
/* Member i's data slot of round e, to read. */
static inline char *coll_shm_slot(const coll_shm *s, uint32_t e, int i)
{
    return s->slots + ((size_t)(e & 1) * (size_t)s->view->size + (size_t)i) * COLL_SHM_SLOT;
}
/* The single-copy forms: a member publishes the address of its data (in
 * its own memory) at the start of its slot of round e; peers read it there
 * once it has arrived in round e. */
static inline void coll_shm_put_addr(char *slot, const void *p)
{
    memcpy(slot, &p, sizeof p);
}
static inline char *coll_shm_addr(const coll_shm *s, uint32_t e, int i)
{
    char *p;
    memcpy(&p, coll_shm_slot(s, e, i), sizeof p);
    return p;
}
/* The view's area for a form that moves `bytes` through a slot (up to
 * COLL_SHM_SLOT) or by single copy (above): MPI_ERR_UNSUPPORTED_OPERATION,
 * alike on every member, when there is nothing to do that way (one rank,
 * no bytes, not one node's shared memory, no single copy above a slot):
 * the caller runs a message algorithm. */
int coll_shm_open(const mpid_comm *view, size_t bytes, coll_shm *s);
/* Arrives in the next round, waking everyone, and waits for all. */
void coll_shm_fence(coll_shm *s);
/* The split reduction (coll/shm_reduce.c): each member publishes in its
 * slot the data start of its operand and of its result buffer (NULL: it
 * wants none), arrives, and once all have, combines its slice of count
 * elements of contiguous dt and writes it to member root (root < 0: to
 * all). A fence must follow before anyone reuses its buffers. */
void coll_shm_put_operands(char *slot, const void *operand, void *result);
int  coll_shm_reduce_slice(coll_shm *s, uint32_t e, size_t count, const cu_dtype *dt,
                           const coll_op *op, int root);
/* The same for elements [lo, hi) of the vectors, whoever combines them
 * (Reduce_scatter: each member its own block). */
int  coll_shm_reduce_range(coll_shm *s, uint32_t e, size_t lo, size_t hi, const cu_dtype *dt,
                           const coll_op *op, int root);
/* The shm broadcast and reduce on a view (a node of the hierarchical
 * algorithms), falling back to the binomial tree on tag without an area. */
int coll_bcast_shm_tag(void *buf, size_t count, const cu_dtype *dt, int root,
                       const mpid_comm *view, int tag);
int coll_reduce_shm_tag(const void *sbuf, void *rbuf, size_t count, const cu_dtype *dt,
                        const coll_op *op, int root, const mpid_comm *view, int tag);
/* Single copy of n packed bytes at src in member i into buf (count
 * elements of dt), through a bounce copy when dt is not contiguous. */
int coll_shm_read_typed(coll_shm *s, int i, const char *src, size_t n, void *buf,
                        size_t count, const cu_dtype *dt);
/* My data slot of round e, to write: waits until every member is past
 * round e - 2, the last one that used it. */
char *coll_shm_slot_to_write(coll_shm *s, uint32_t e);
/* Waits until member i's line reaches e. */
void coll_shm_wait_line(coll_shm *s, int i, uint32_t e);
/* Waits until every member has arrived in round e. */
void coll_shm_wait_all(coll_shm *s, uint32_t e);
/* Leader: releases round e. */
void coll_shm_release(coll_shm *s, uint32_t e);
/* Others: waits for the release of round e. */
void coll_shm_wait_release(coll_shm *s, uint32_t e);

#endif
