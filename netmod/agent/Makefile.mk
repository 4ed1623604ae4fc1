# netmod/agent: offload mode (CLUMPI_NET=agent). The rank side lives in
# libnetmod; the agent is a program of its own, one per node, started by
# the node's first rank (see agent_launch.c).
libnetmod_la_SOURCES += netmod/agent/agent_chan.c netmod/agent/agent_launch.c \
	netmod/agent/agent_launch.h netmod/agent/agent_ring.c netmod/agent/agent_ring.h \
	netmod/agent/agent_chan.h netmod/agent/agent_coll.h netmod/agent/agent_mc_rank.c \
	netmod/agent/agent_mc_rank.h netmod/agent/agent_red_rank.c netmod/agent/agent_fadd_rank.c \
	netmod/agent/agent_rma_rank.c netmod/agent/agent_bulk_rank.c \
	netmod/agent/agent_hrel.c netmod/agent/agent_hrel.h netmod/agent/agent_rtt.h \
	netmod/agent/agent_red.h netmod/agent/agent_rma.h
libnetmod_la_CPPFLAGS = $(AM_CPPFLAGS) -DAGT_AGENT_PATH=\"$(bindir)/clumpi-agent\"

bin_PROGRAMS += netmod/agent/clumpi-agent
netmod_agent_clumpi_agent_SOURCES = netmod/agent/agent_main.c netmod/agent/agent.h \
	netmod/agent/agent_net.c netmod/agent/agent_mc.c netmod/agent/agent_mc.h \
	netmod/agent/agent_red.c netmod/agent/agent_red.h netmod/agent/agent_fadd.c \
	netmod/agent/agent_rma.c netmod/agent/agent_rma.h netmod/agent/agent_bulk.c \
	src/util/rma_apply.c src/util/rma_apply.h \
	netmod/agent/agent_tree.h \
	netmod/agent/agent_flow.c netmod/agent/agent_flow.h \
	netmod/agent/agent_rel.c netmod/agent/agent_rel.h netmod/agent/agent_rtt.h \
	netmod/agent/agent_fault.c netmod/agent/agent_fault.h \
	netmod/agent/agent_slots.c netmod/agent/agent_slots.h netmod/agent/agent_stats.c \
	netmod/agent/agent_stats.h netmod/agent/agent_ring.c netmod/agent/agent_ring.h \
	src/util/log.c src/util/param.c src/util/param_table.c \
	src/util/sigfault.c src/util/op.c src/util/fdshare.c
netmod_agent_clumpi_agent_CFLAGS = $(AM_CFLAGS) $(FABRIC_CFLAGS)
netmod_agent_clumpi_agent_LDADD = libnetcommon.la $(FABRIC_LIBS)

# Tests run the agent from the build tree.
AM_TESTS_ENVIRONMENT += CLUMPI_AGENT_PATH=$(abs_top_builddir)/netmod/agent/clumpi-agent; \
	export CLUMPI_AGENT_PATH;
# make check: a lean subset of offload mode's suite; make check-agent: the
# whole matrix; check-long adds the long rows (5-8 nodes, slow agents) and
# the datagram transport's fault matrix (test_dgram.sh).
TESTS += netmod/agent/test_agent.sh netmod/agent/test_dgram.sh
check-agent: all
	AGENT_TEST_FULL=1 $(MAKE) $(AM_MAKEFLAGS) check TESTS="netmod/agent/test_agent.sh"
check-agent-long: all
	AGENT_TEST_FULL=1 AGENT_TEST_LONG=1 $(MAKE) $(AM_MAKEFLAGS) check TESTS="netmod/agent/test_agent.sh"
# the datagram transport under injected faults: 5% and 30% loss, three seeds
check-dgram-long: all
	DGRAM_TEST_FULL=1 $(MAKE) $(AM_MAKEFLAGS) check TESTS="netmod/agent/test_dgram.sh"
check-long: check-agent-long check-dgram-long
.PHONY: check-agent check-agent-long check-dgram-long
EXTRA_DIST += netmod/agent/test_agent.sh netmod/agent/test_env.sh netmod/agent/test_dgram.sh

# NI collectives against a reference (run by test_agent.sh on 1-4 nodes)
check_PROGRAMS += test/unit/test_agent_coll
test_unit_test_agent_coll_SOURCES = test/unit/test_agent_coll.c
test_unit_test_agent_coll_LDADD = libmpi.la
test_unit_test_agent_coll_LDFLAGS = $(AM_LDFLAGS) -no-install
check_PROGRAMS += test/unit/test_agent_lag
test_unit_test_agent_lag_SOURCES = test/unit/test_agent_lag.c
test_unit_test_agent_lag_LDADD = libmpi.la
test_unit_test_agent_lag_LDFLAGS = $(AM_LDFLAGS) -no-install

# idle agents block: each measures its node agent's CPU time (run by test_agent.sh)
check_PROGRAMS += test/unit/test_agent_idle
test_unit_test_agent_idle_SOURCES = test/unit/test_agent_idle.c test/unit/proc_stat.h
test_unit_test_agent_idle_LDADD = libmpi.la
test_unit_test_agent_idle_LDFLAGS = $(AM_LDFLAGS) -no-install

# a stopped rank does not stall its node's agent (run by test_agent.sh)
check_PROGRAMS += test/unit/test_agent_stopped
test_unit_test_agent_stopped_SOURCES = test/unit/test_agent_stopped.c test/unit/proc_stat.h
test_unit_test_agent_stopped_LDADD = libmpi.la
test_unit_test_agent_stopped_LDFLAGS = $(AM_LDFLAGS) -no-install

if HAVE_CRITERION
check_PROGRAMS += test/unit/test_agent_flow
TESTS += test/unit/test_agent_flow
test_unit_test_agent_flow_SOURCES = test/unit/test_agent_flow.c netmod/agent/agent_flow.c \
	netmod/agent/agent_slots.c
test_unit_test_agent_flow_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_agent_flow_LDADD = $(CRITERION_LIBS)
endif
