/*
 * agent_slots.h — the agent's fixed pool of MTU-sized packet slots, standing
 * for the NI's SRAM (Verstoep et al. §4.1: 256..512 buffers of 2 KB). Receive
 * buffers, DMA staging buffers and multicast packets all come from
 * it, so its size bounds what the agent holds. Received packets are copied
 * here out of the receive runs (agent_net.c) as they arrive: `reserve` free
 * slots are kept for them (one per credit peers hold, of Verstoep et al.'s W per
 * sending node), which only agt_slot_get_rx may take. A slot has a reference count:
 * a multicast packet is delivered to the host and forwarded to each child
 * from the same slot, and is freed when the last of them is done.
 */
#ifndef AGT_SLOTS_H
#define AGT_SLOTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct agt_slots {
    char     *mem;        /* n * size bytes, one registration */
    uint32_t  size, n;
    uint32_t *stack;      /* free slot indices */
    uint32_t  nfree;
    uint32_t  reserve;    /* free slots kept for arriving packets (set by the owner) */
    uint16_t *ref;
} agt_slots;

int   agt_slots_init(agt_slots *p, uint32_t n, uint32_t size);
void  agt_slots_fini(agt_slots *p);
int   agt_slot_get(agt_slots *p);                 /* index with ref 1, or -1 (reserve kept) */
int   agt_slot_get_rx(agt_slots *p);              /* the same for an arriving packet */
void  agt_slot_ref(agt_slots *p, uint32_t k);     /* one more holder */
int   agt_slot_put(agt_slots *p, uint32_t k);     /* 1 when this freed it */
/* Slots agt_slot_get may still hand out. */
static inline uint32_t agt_slot_avail(const agt_slots *p)
{
    return p->nfree > p->reserve ? p->nfree - p->reserve : 0;
}
static inline char *agt_slot_mem(agt_slots *p, uint32_t k) { return p->mem + (size_t)k * p->size; }

#endif
