/*
 * agent_fault.h — fault injection on the agent's receive path (dgram
 * transport only): each arriving datagram, whatever it carries (acks and
 * probes too), is dropped, taken twice, or held back behind the next one
 * with the probabilities CLUMPI_AGENT_LOSS, _DUP and _REORDER, drawn from a
 * generator seeded by CLUMPI_AGENT_SEED plus the node number, so that a run
 * can be repeated. The agent logs the settings at start.
 */
#ifndef AGT_FAULT_H
#define AGT_FAULT_H

enum { AGT_FAULT_PASS, AGT_FAULT_DROP, AGT_FAULT_DUP, AGT_FAULT_HOLD };

/* Read the parameters; 1: some fault is on. */
int agt_fault_init(int node);
/* What happens to the next arriving datagram. */
int agt_fault_pick(void);

#endif
