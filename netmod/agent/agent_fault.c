/*
 * agent_fault.c — seeded fault choices for arriving datagrams (see
 * agent_fault.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "netmod/agent/agent_fault.h"
#include "netmod/agent/agent_stats.h"
#include "src/util/param.h"

static double loss, dup, reorder;
static uint64_t state;
static int on;

static double prob(const char *name)
{
    const char *v = cu_param_str(name);
    return v ? strtod(v, NULL) : 0;
}

/* splitmix64: small, fast, and the same sequence everywhere for a seed */
static double uniform(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

int agt_fault_init(int node)
{
    loss = prob("AGENT_LOSS"), dup = prob("AGENT_DUP"), reorder = prob("AGENT_REORDER");
    long seed = cu_param_int("AGENT_SEED");
    state = (uint64_t)seed + (uint64_t)node;
    on = loss > 0 || dup > 0 || reorder > 0;
    if (on)
        fprintf(stderr, "clumpi-agent[node %d]: fault injection on receive: loss %g, dup %g, "
                "reorder %g, seed %ld\n", node, loss, dup, reorder, seed);
    return on;
}

int agt_fault_pick(void)
{
    if (!on)
        return AGT_FAULT_PASS;
    double u = uniform();
    if (u < loss) {
        agt_st.inj_loss++;
        return AGT_FAULT_DROP;
    }
    u -= loss;
    if (u < dup) {
        agt_st.inj_dup++;
        return AGT_FAULT_DUP;
    }
    u -= dup;
    if (u < reorder) {
        agt_st.inj_reorder++;
        return AGT_FAULT_HOLD;
    }
    return AGT_FAULT_PASS;
}
