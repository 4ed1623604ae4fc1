/*
 * neighbor.c — the exchange behind every neighborhood collective, blocking
 * or not: one round in which each in-neighbor's block is received and each
 * out-neighbor's block sent. MPI_PROC_NULL neighbors (non-periodic
 * Cartesian edges) keep their buffer slots but move nothing.
 */
#include "coll/sched.h"

int coll_neighbor_build(coll_sched *s, int nin, const int *in, int nout, const int *out,
                        const void *sbuf, const size_t *scounts, const ptrdiff_t *sdispls,
                        const cu_dtype *const *sdts, void *rbuf, const size_t *rcounts,
                        const ptrdiff_t *rdispls, const cu_dtype *const *rdts,
                        const int *sub_in, const int *sub_out)
{
    /* Receives first, so messages that arrive early find them posted. */
    for (int i = 0; i < nin; i++) {
        coll_sched_subtag(s, sub_in ? sub_in[i] : 0);
        coll_sched_recv(s, (char *)rbuf + rdispls[i], rcounts[i], rdts[i], in[i]);
    }
    for (int i = 0; i < nout; i++) {
        coll_sched_subtag(s, sub_out ? sub_out[i] : 0);
        coll_sched_send(s, (const char *)sbuf + sdispls[i], scounts[i], sdts[i], out[i]);
    }
    coll_sched_subtag(s, 0);
    return coll_sched_failed(s);
}
