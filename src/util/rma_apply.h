/*
 * rma_apply.h — one-sided operations applied to memory, and the lock words
 * that serialize them: shared by the device (mpid/rma_*.c, ranks applying
 * operations themselves) and the NI agent (netmod/agent/agent_rma.c,
 * serving them for a target rank that computes), so that both follow the
 * same rules on the same words.
 */
#ifndef CU_RMA_APPLY_H
#define CU_RMA_APPLY_H

#include <stddef.h>
#include <sys/uio.h>

/* Operation kinds (the device's MPID_RMA_* are these). */
enum { CU_RMA_PUT = 1, CU_RMA_GET, CU_RMA_ACC, CU_RMA_GACC, CU_RMA_FOP, CU_RMA_CAS };
/* Lock types (the device's MPID_LOCK_*_T are these; src/win_sync.c turns
 * MPI_LOCK_SHARED and MPI_LOCK_EXCLUSIVE into them). */
enum { CU_LOCK_SHARED = 1, CU_LOCK_EXCL = 2 };

/* Applies one chunk: segs hold offsets relative to base (NULL: addresses);
 * in holds len origin bytes (CAS: value then compare value) of whole
 * elements of basic; out receives len fetched bytes. op is a CU_OP_*.
 * Accumulate kinds must run under the target's accumulate word. */
void cu_rma_apply(int kind, int op, int basic, char *base, const struct iovec *segs, int nseg,
                  const void *in, void *out, size_t len);

/* An accumulate kind applied to t, a packed copy of the target's len
 * bytes (read from memory this process cannot map); nonzero when t changed
 * and must be written back. */
int cu_rma_apply_packed(int kind, int op, int basic, char *t, const void *in, void *out,
                        size_t len);

static inline int cu_rma_is_acc(int kind)
{
    return kind == CU_RMA_ACC || kind == CU_RMA_GACC || kind == CU_RMA_FOP || kind == CU_RMA_CAS;
}
static inline int cu_rma_fetches(int kind)
{
    return kind == CU_RMA_GET || kind == CU_RMA_GACC || kind == CU_RMA_FOP || kind == CU_RMA_CAS;
}

/* A passive-target lock word: 0 free, n > 0 shared holders, -1 exclusive. */
int  cu_rma_try_lock(int *word, int type);
void cu_rma_release_lock(int *word, int type);
/* The accumulate word: a spin lock held for one chunk, never across a wait. */
void cu_rma_acc_lock(int *word);
void cu_rma_acc_unlock(int *word);

#endif
