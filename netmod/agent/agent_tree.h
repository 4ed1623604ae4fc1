/*
 * agent_tree.h — the trees over nodes of the NI collectives, one
 * definition for the agent (agent_mc.c) and for the ranks that forward
 * packets themselves (host-packet, agent_mc_rank.c). Nodes are numbered by
 * their first appearance in communicator order starting at the root, so
 * the root's node is 0.
 */
#ifndef AGT_TREE_H
#define AGT_TREE_H

#include "netmod/agent/agent_ring.h"

#define AGT_TREE_CHILD_MAX 32

/* Children of relative index r among n nodes; returns how many. */
static inline int agt_tree_children(int shape, int r, int n, int *out)
{
    int c = 0;
    if ((shape & AGT_TREE_SHAPE) == AGT_TREE_BINARY) {
        for (int i = 1; i <= 2; i++)
            if (2 * r + i < n)
                out[c++] = 2 * r + i;
        return c;
    }
    int mask = 1;
    while (mask < n && !(r & mask))
        mask <<= 1;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (r + mask < n && c < AGT_TREE_CHILD_MAX)
            out[c++] = r + mask;
    return c;
}

/* The parent of r > 0: the inverse of agt_tree_children. */
static inline int agt_tree_parent(int shape, int r)
{
    return (shape & AGT_TREE_SHAPE) == AGT_TREE_BINARY ? (r - 1) / 2 : r & (r - 1);
}

#endif
