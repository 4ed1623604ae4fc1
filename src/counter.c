/*
 * counter.c — MPIX_Counter (mpi.h): a 64-bit counter owned by one rank of a
 * communicator, fetch-and-added by any member. Two homes, chosen alike on
 * every rank: with the NI agent up (offload mode, several nodes) the
 * owner's node agent holds it (coll/fadd_ni.c -> netmod/agent/
 * agent_fadd.c) and the owner rank never helps; otherwise an RMA window of
 * one long long at the owner, kept in a lock_all epoch, with
 * MPI_Fetch_and_op + MPI_Win_flush per call (atomic by MPI's rules).
 * Each counter works on a private duplicate of the creating communicator,
 * so it outlives the user's handle and never matches user traffic.
 */
#include <stdint.h>
#include <stdlib.h>
#include "coll/ni.h"
#include "src/core.h"

#define CTR_KIND 0x5cu   /* top byte of a counter handle */

typedef struct mpir_counter {
    MPI_Comm comm;       /* private duplicate */
    int owner;           /* comm rank */
    int agent;           /* 1: held by the owner's agent */
    uint32_t id;         /* agent: the owner's number for it */
    MPI_Win win;         /* otherwise: the window */
} mpir_counter;

static mpir_counter **tab;
static unsigned cap;
static uint32_t next_id;   /* counters this rank owns, for their agent ids */

static mpir_counter *get(MPIX_Counter h)
{
    unsigned u = (unsigned)h, idx = u & 0xffffffu;
    if (u >> 24 != CTR_KIND || idx == 0 || idx >= cap)
        return NULL;
    return tab[idx];
}

static int put(mpir_counter *c, MPIX_Counter *h)
{
    unsigned i = 1;
    while (i < cap && tab[i])
        i++;
    if (i >= cap) {
        unsigned ncap = cap ? 2 * cap : 16;
        mpir_counter **t = realloc(tab, ncap * sizeof *t);
        if (!t)
            return -1;
        for (unsigned j = cap; j < ncap; j++)
            t[j] = NULL;
        tab = t, cap = ncap;
    }
    tab[i] = c;
    *h = (MPIX_Counter)(CTR_KIND << 24 | i);
    return 0;
}

int PMPIX_Counter_create(MPI_Comm comm, int owner, long long initial, MPIX_Counter *counter)
{
    static const char fn[] = "MPIX_Counter_create";
    MPIR_ENTER(fn);
    mpir_comm *c;
    MPIR_GET_COMM(fn, comm, c);
    int rc = mpir_check_rank(fn, "owner", c, owner, 0);
    if (rc)
        return mpir_err_comm(comm, rc);
    if (!counter)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_ARG, fn, "counter is NULL"));
    mpir_counter *k = calloc(1, sizeof *k);
    if (!k)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of memory"));
    k->owner = owner;
    k->agent = coll_fadd_ni_up();
    k->win = MPI_WIN_NULL;
    if ((rc = mpir_Comm_dup(comm, &k->comm))) {
        free(k);
        return rc;
    }
    const mpid_comm *d = &mpir_comm_get(k->comm)->dev;
    if (k->agent) {
        /* the agent has it before anyone learns its id */
        if (d->rank == owner) {
            k->id = next_id++;
            rc = coll_fadd_ni_init(d, owner, k->id, initial);
        }
        unsigned id = k->id;
        int brc = mpir_Bcast(&id, 1, MPI_UNSIGNED, owner, k->comm);
        k->id = id;
        rc = rc ? rc : brc;
    } else {
        void *base;
        long long ignore;
        rc = mpir_Win_allocate(d->rank == owner ? (MPI_Aint)sizeof(long long) : 0,
                               (int)sizeof(long long), MPI_INFO_NULL, k->comm, &base, &k->win);
        if (!rc)
            rc = mpir_Win_lock_all(MPI_MODE_NOCHECK, k->win);
        if (!rc && d->rank == owner &&
            !(rc = mpir_Fetch_and_op(&initial, &ignore, MPI_LONG_LONG, owner, 0, MPI_REPLACE,
                                     k->win)))
            rc = mpir_Win_flush(owner, k->win);
        int brc = mpir_Barrier(k->comm);   /* stored before anyone adds */
        rc = rc ? rc : brc;
    }
    if (!rc && put(k, counter))
        rc = mpir_err(MPI_ERR_NO_MEM, fn, "out of memory");
    if (rc) {
        if (k->win != MPI_WIN_NULL)
            mpir_Win_free(&k->win);
        mpir_Comm_free(&k->comm);
        free(k);
        return mpir_err_comm(comm, rc);
    }
    return MPI_SUCCESS;
}
#pragma weak MPIX_Counter_create = PMPIX_Counter_create

int PMPIX_Counter_fetch_and_add(MPIX_Counter counter, long long add, long long *old)
{
    static const char fn[] = "MPIX_Counter_fetch_and_add";
    MPIR_ENTER(fn);
    mpir_counter *k = get(counter);
    if (!k)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "invalid counter (counter=0x%x)",
                                       (unsigned)counter));
    if (!old)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "old is NULL"));
    int rc;
    if (k->agent)
        rc = coll_fadd_ni(&mpir_comm_get(k->comm)->dev, k->owner, k->id, add, old);
    else if (!(rc = mpir_Fetch_and_op(&add, old, MPI_LONG_LONG, k->owner, 0, MPI_SUM, k->win)))
        rc = mpir_Win_flush(k->owner, k->win);
    return rc ? mpir_err_world(mpir_err(rc & 0xff, fn, "the counter's %s failed",
                                        k->agent ? "agent" : "window"))
              : MPI_SUCCESS;
}
#pragma weak MPIX_Counter_fetch_and_add = PMPIX_Counter_fetch_and_add

int PMPIX_Counter_free(MPIX_Counter *counter)
{
    static const char fn[] = "MPIX_Counter_free";
    MPIR_ENTER(fn);
    mpir_counter *k = counter ? get(*counter) : NULL;
    if (!k)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, fn, "invalid counter (counter=%s)",
                                       counter ? "not a live counter" : "NULL"));
    /* nobody adds any more once everyone is here */
    int rc = mpir_Barrier(k->comm);
    if (k->agent) {
        const mpid_comm *d = &mpir_comm_get(k->comm)->dev;
        if (!rc && d->rank == k->owner)
            rc = coll_fadd_ni_free(d, k->owner, k->id);
    } else {
        int urc = mpir_Win_unlock_all(k->win);
        int frc = mpir_Win_free(&k->win);
        rc = rc ? rc : urc ? urc : frc;
    }
    int crc = mpir_Comm_free(&k->comm);
    rc = rc ? rc : crc;
    tab[(unsigned)*counter & 0xffffffu] = NULL;
    free(k);
    *counter = MPIX_COUNTER_NULL;
    return rc ? mpir_err_world(mpir_err(rc & 0xff, fn, "freeing the counter failed"))
              : MPI_SUCCESS;
}
#pragma weak MPIX_Counter_free = PMPIX_Counter_free
