/* agent_launch.h — starting and stopping the node's agent (see agent_launch.c). */
#ifndef AGT_LAUNCH_H
#define AGT_LAUNCH_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include "netmod/agent/agent_ring.h"

pid_t agt_spawn(const char *segname);
/* 0 once *state == want; -EIO (agent failed), -ECHILD (it died), -ETIMEDOUT */
int   agt_wait_state(_Atomic uint32_t *state, uint32_t want, pid_t pid, long timeout_ms);
void  agt_stop(_Atomic uint32_t *state, pid_t pid);

#endif
