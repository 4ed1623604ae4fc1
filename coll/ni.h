/*
 * ni.h — NI-level collectives (seed 002 §4.2, §5.3): algorithms whose
 * forwarding runs in the node's agent (CLUMPI_NET=agent), selectable by
 * name through coll/select.c. Without an agent (direct mode, or a job on
 * one node) each falls back to the host algorithm of the same tree shape,
 * on every rank alike, saying so once under CLUMPI_COLL_VERBOSE.
 */
#ifndef COLL_NI_H
#define COLL_NI_H

#include "coll/algos.h"

coll_bcast_fn coll_bcast_ni_binary, coll_bcast_ni_binomial;

#endif
