/* agent_launch.h — starting and stopping the node's agent (see agent_launch.c). */
#ifndef AGT_LAUNCH_H
#define AGT_LAUNCH_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include "netmod/agent/agent_ring.h"

/* Starts the agent on the segment's memfd (it inherits it as fd 3): its
 * pid, or -errno when it could not be run (said on stderr). */
pid_t agt_spawn(int segfd);
/* 0 once *state == want; -EIO (agent failed), -ECHILD (it died), -ETIMEDOUT */
int   agt_wait_state(_Atomic uint32_t *state, uint32_t want, pid_t pid, long timeout_ms);
void  agt_stop(_Atomic uint32_t *state, pid_t pid);

#endif
