/*
 * agent_slots.c — the slot pool (see agent_slots.h): a stack of free
 * indices (the most recently freed slot is reused first, still in cache).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "netmod/agent/agent_slots.h"

int agt_slots_init(agt_slots *p, uint32_t n, uint32_t size)
{
    memset(p, 0, sizeof *p);
    if (n == 0 || size == 0)
        return -EINVAL;
    if (posix_memalign((void **)&p->mem, 4096, (size_t)n * size))
        return -ENOMEM;
    p->stack = malloc(n * sizeof *p->stack);
    p->ref = calloc(n, sizeof *p->ref);
    if (!p->stack || !p->ref) {
        agt_slots_fini(p);
        return -ENOMEM;
    }
    p->n = n, p->size = size;
    for (uint32_t i = 0; i < n; i++)
        p->stack[i] = n - 1 - i;   /* slot 0 on top */
    p->nfree = n;
    return 0;
}

void agt_slots_fini(agt_slots *p)
{
    free(p->mem);
    free(p->stack);
    free(p->ref);
    memset(p, 0, sizeof *p);
}

static int take(agt_slots *p, uint32_t keep)
{
    if (p->nfree <= keep)
        return -1;
    uint32_t k = p->stack[--p->nfree];
    p->ref[k] = 1;
    return (int)k;
}

int agt_slot_get(agt_slots *p) { return take(p, p->reserve); }
int agt_slot_get_rx(agt_slots *p) { return take(p, 0); }

void agt_slot_ref(agt_slots *p, uint32_t k)
{
    p->ref[k]++;
}

int agt_slot_put(agt_slots *p, uint32_t k)
{
    if (k >= p->n || p->ref[k] == 0)
        return -EINVAL;   /* double free: a bug the caller must hear of */
    if (--p->ref[k])
        return 0;
    p->stack[p->nfree++] = k;
    return 1;
}
