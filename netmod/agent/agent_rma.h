/*
 * agent_rma.h — the wire format of agent-served one-sided operations,
 * shared by the agent (agent_rma.c) and the rank side (agent_rma_rank.c,
 * which translates it from and to the device's mpid_chan_agent_op).
 */
#ifndef AGT_RMA_H
#define AGT_RMA_H

#include <stdint.h>
#include "netmod/agent/agent_ring.h"

/* An RMA packet's device header. A request names the target's window by
 * the target's device window index; segments are offsets from the
 * window's base. Kinds are src/util/rma_apply.h's CU_RMA_* and these: */
enum { AGT_RMA_LOCK = 16, AGT_RMA_UNLOCK, AGT_RMA_GRANT, AGT_RMA_ACK, AGT_RMA_RESP };
typedef struct agt_rma_hdr {
    uint8_t  kind, op, basic, ltype;  /* op: CU_OP_*; basic: element type; lock type */
    uint32_t win;         /* the target's window index */
    uint32_t nseg;        /* request: (offset, len) pairs first in the payload (0: one
                             segment at addr); answer: AGT_RMA_OK or an error */
    uint32_t len;         /* target bytes of this chunk */
    uint64_t addr;
    uint64_t oreq, ooff;  /* the origin's, echoed in the answer */
    uint32_t owin;        /* the origin's window index, echoed */
    int32_t  osrc;        /* the target's rank in the window, echoed */
} agt_rma_hdr;
_Static_assert(sizeof(agt_rma_hdr) <= AGT_HDR_MAX, "agent RMA header too large");
/* An answer's outcome: done; a malformed request; segments outside the
 * window; the target's memory could not be read or written. */
enum { AGT_RMA_OK = 0, AGT_RMA_EBADREQ, AGT_RMA_ERANGE, AGT_RMA_EACCESS };

/* The words of one (rank, window) the agent serves, in the node's
 * rank<->agent segment (agt_rma_lines): the lock and accumulate words
 * (src/util/rma_apply.h's locks, first in the line, as the channel
 * interface promises the device), then the window the agent checks
 * requests against, set by the owner rank. */
typedef struct agt_rma_line {
    int32_t  lock, acc;
    uint64_t base, size;  /* in the owner's address space */
    uint32_t open;        /* nonzero while the window exists (release store) */
    char     pad[36];
} agt_rma_line;
_Static_assert(sizeof(agt_rma_line) == 64, "one cache line");

#endif
