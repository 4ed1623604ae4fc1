/*
 * agent_flow.c — credits and blocked queues (see agent_flow.h). Pure
 * bookkeeping, no I/O, so that test/unit/test_agent_flow.c drives it alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "netmod/agent/agent_flow.h"

int agt_flow_init(agt_flow *f, int nnodes, int W)
{
    memset(f, 0, sizeof *f);
    if (nnodes < 1 || W < 2)
        return -EINVAL;
    f->nnodes = nnodes, f->W = W;
    f->credits = malloc((size_t)nnodes * sizeof *f->credits);
    f->owed = calloc((size_t)nnodes, sizeof *f->owed);
    f->qh = calloc((size_t)nnodes, sizeof *f->qh);
    f->qt = calloc((size_t)nnodes, sizeof *f->qt);
    f->qlen = calloc((size_t)nnodes, sizeof *f->qlen);
    if (!f->credits || !f->owed || !f->qh || !f->qt || !f->qlen) {
        agt_flow_fini(f);
        return -ENOMEM;
    }
    for (int i = 0; i < nnodes; i++)
        f->credits[i] = W;
    return 0;
}

void agt_flow_fini(agt_flow *f)
{
    free(f->credits);
    free(f->owed);
    free(f->qh);
    free(f->qt);
    free(f->qlen);
    memset(f, 0, sizeof *f);
}

int agt_flow_admit(agt_flow *f, int node, agt_pend *p)
{
    /* FIFO per destination: nothing overtakes a blocked packet */
    if (!f->qh[node] && f->credits[node] > 0) {
        f->credits[node]--;
        return 1;
    }
    p->next = NULL;
    if (f->qt[node])
        f->qt[node]->next = p;
    else
        f->qh[node] = p;
    f->qt[node] = p;
    f->qlen[node]++;
    f->stalls++;
    return 0;
}

int agt_flow_admit_n(agt_flow *f, int node, int n)
{
    if (f->qh[node] || f->credits[node] < n)
        return 0;
    f->credits[node] -= n;
    return 1;
}

void agt_flow_credit(agt_flow *f, int node, int n)
{
    f->credits[node] += n;
}

agt_pend *agt_flow_next(agt_flow *f, int node)
{
    agt_pend *p = f->qh[node];
    if (!p || f->credits[node] <= 0)
        return NULL;
    f->credits[node]--;
    f->qh[node] = p->next;
    if (!f->qh[node])
        f->qt[node] = NULL;
    f->qlen[node]--;
    p->next = NULL;
    return p;
}

int agt_flow_released(agt_flow *f, int node)
{
    return ++f->owed[node] >= f->W / 2;
}

int agt_flow_take_owed(agt_flow *f, int node)
{
    int n = f->owed[node];
    f->owed[node] = 0;
    return n;
}
