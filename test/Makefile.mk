# test/mpi: multi-rank MPI programs (standard MPI C, self-checking). Each is
# run through mpirun by test/mpi/run-mpi-test (the LOG_COMPILER of every
# extensionless test) once per rank count on the "np:" line of its source;
# a test program without an "np:" line (a unit test) runs directly.
# Environment: MPIRUN, MPIRUN_FLAGS, MPI_TEST_TIMEOUT, MPI_TEST_NP (see
# test/mpi/mpirun-env.sh). Scripts (*.sh) run directly.
LOG_COMPILER = $(SHELL) $(top_srcdir)/test/mpi/run-mpi-test
TEST_EXTENSIONS = .sh

# Linked with -no-install: real binaries (no libtool wrapper scripts) that
# mpirun can start directly and that crash.sh can find by path.
MPI_TEST_LIBS = libmpi.la
MPI_TEST_LINKFLAGS = $(AM_LDFLAGS) -no-install

MPI_TESTS = test/mpi/pingpong \
	test/mpi/anysource \
	test/mpi/order \
	test/mpi/truncate \
	test/mpi/probe \
	test/mpi/persistent \
	test/mpi/ssend \
	test/mpi/bsend \
	test/mpi/sendrecv \
	test/mpi/completion \
	test/mpi/cancel \
	test/mpi/dtype \
	test/mpi/rndv_dtype \
	test/mpi/rndv_reg \
	test/mpi/bulk \
	test/mpi/procnull \
	test/mpi/comms \
	test/mpi/threads \
	test/mpi/threads_dyn \
	test/mpi/threads_net \
	test/mpi/self_connect \
	test/mpi/twice_held \
	test/mpi/intercomm \
	test/mpi/topo_graph \
	test/mpi/idup \
	test/mpi/errors \
	test/mpi/initfini \
	test/mpi/mpit \
	test/mpi/coll \
	test/mpi/stress \
	test/mpi/incast \
	test/mpi/incast_burst \
	test/mpi/lend \
	test/mpi/eager_regime \
	test/mpi/mpit_protocol \
	test/mpi/handle_conv \
	test/mpi/darray \
	test/mpi/pack_external \
	test/mpi/f90types \
	test/mpi/grequest \
	test/mpi/attr_deprecated \
	test/mpi/pcontrol \
	test/mpi/profile \
	test/mpi/procname \
	test/mpi/char_ops \
	test/coll/intercoll \
	test/mpi/cancel_send \
	test/mpi/port \
	test/mpi/spawn \
	test/mpi/spawn_dead \
	test/mpi/dyn_slots \
	test/mpi/names \
	test/mpi/spawn_multiple \
	test/mpi/cxx

check_PROGRAMS += $(MPI_TESTS) test/mpi/crash test/mpi/vanish
TESTS += $(MPI_TESTS) test/mpi/crash.sh test/mpi/nodes.sh test/mpi/vanish.sh
# nothing of a job named in /dev/shm: squatters, ranks killed around MPI_Init
check_PROGRAMS += test/mpi/shm_names
TESTS += test/mpi/shm_names.sh
EXTRA_DIST += test/mpi/shm_names.sh
# dynamic processes across separately started jobs
check_PROGRAMS += test/mpi/connect test/mpi/dyn_vanish
TESTS += test/mpi/connect.sh test/mpi/spawn_fail.sh test/mpi/dyn_vanish.sh
EXTRA_DIST += test/mpi/connect.sh test/mpi/spawn_fail.sh test/mpi/dyn_vanish.sh

EXTRA_DIST += test/mpi/run-mpi-test test/mpi/mpirun-env.sh test/mpi/crash.sh \
	test/mpi/nodes.sh test/mpi/vanish.sh

# Across emulated nodes: make check runs a lean selection (nodes.sh);
# check-long runs every multi-rank test, rank count and variant on 2 and on
# 4 nodes.
check-long: check-long-nodes
check-long-nodes: $(MPI_TESTS) src/tools/mpirun
	CLUMPI_TEST_NODES=2 $(MAKE) $(AM_MAKEFLAGS) check TESTS="$(MPI_TESTS)" \
	    check_PROGRAMS="$(MPI_TESTS)"
	CLUMPI_TEST_NODES=4 $(MAKE) $(AM_MAKEFLAGS) check TESTS="$(MPI_TESTS)" \
	    check_PROGRAMS="$(MPI_TESTS)"
.PHONY: check-long-nodes

# C++: mpi.h and mtest.h through the C++ compiler.
test_mpi_cxx_SOURCES = test/mpi/cxx.cxx test/mpi/mtest.h
test_mpi_cxx_LDADD = $(MPI_TEST_LIBS)
test_mpi_cxx_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_port_SOURCES = test/mpi/port.c test/mpi/mtest.h
test_mpi_port_LDADD = $(MPI_TEST_LIBS)
test_mpi_port_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_dyn_vanish_SOURCES = test/mpi/dyn_vanish.c test/mpi/mtest.h
test_mpi_dyn_vanish_LDADD = $(MPI_TEST_LIBS)
test_mpi_dyn_vanish_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_connect_SOURCES = test/mpi/connect.c test/mpi/mtest.h
test_mpi_connect_LDADD = $(MPI_TEST_LIBS)
test_mpi_connect_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_spawn_SOURCES = test/mpi/spawn.c test/mpi/mtest.h
test_mpi_spawn_LDADD = $(MPI_TEST_LIBS)
test_mpi_spawn_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_spawn_dead_SOURCES = test/mpi/spawn_dead.c test/mpi/mtest.h
test_mpi_spawn_dead_LDADD = $(MPI_TEST_LIBS)
test_mpi_spawn_dead_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_dyn_slots_SOURCES = test/mpi/dyn_slots.c test/mpi/mtest.h
test_mpi_dyn_slots_LDADD = $(MPI_TEST_LIBS)
test_mpi_dyn_slots_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_names_SOURCES = test/mpi/names.c test/mpi/mtest.h
test_mpi_names_LDADD = $(MPI_TEST_LIBS)
test_mpi_names_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_spawn_multiple_SOURCES = test/mpi/spawn_multiple.c test/mpi/mtest.h
test_mpi_spawn_multiple_LDADD = $(MPI_TEST_LIBS)
test_mpi_spawn_multiple_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_grequest_SOURCES = test/mpi/grequest.c test/mpi/mtest.h
test_mpi_grequest_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_grequest_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_attr_deprecated_SOURCES = test/mpi/attr_deprecated.c test/mpi/mtest.h
test_mpi_attr_deprecated_LDADD = $(MPI_TEST_LIBS)
test_mpi_attr_deprecated_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_pcontrol_SOURCES = test/mpi/pcontrol.c test/mpi/mtest.h
test_mpi_pcontrol_LDADD = $(MPI_TEST_LIBS)
test_mpi_pcontrol_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_profile_SOURCES = test/mpi/profile.c test/mpi/mtest.h
test_mpi_profile_LDADD = $(MPI_TEST_LIBS)
test_mpi_profile_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_procname_SOURCES = test/mpi/procname.c test/mpi/mtest.h
test_mpi_procname_LDADD = $(MPI_TEST_LIBS)
test_mpi_procname_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_cancel_send_SOURCES = test/mpi/cancel_send.c test/mpi/mtest.h
test_mpi_cancel_send_LDADD = $(MPI_TEST_LIBS)
test_mpi_cancel_send_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_char_ops_SOURCES = test/mpi/char_ops.c test/mpi/mtest.h
test_mpi_char_ops_LDADD = $(MPI_TEST_LIBS)
test_mpi_char_ops_LDFLAGS = $(MPI_TEST_LINKFLAGS)

# Every collective on intercommunicators (test/coll/ctest.h's helpers).
test_coll_intercoll_SOURCES = test/coll/intercoll.c test/coll/ctest.h
test_coll_intercoll_LDADD = $(MPI_TEST_LIBS)
test_coll_intercoll_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_pingpong_SOURCES = test/mpi/pingpong.c test/mpi/mtest.h
test_mpi_pingpong_LDADD = $(MPI_TEST_LIBS)
test_mpi_pingpong_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_anysource_SOURCES = test/mpi/anysource.c test/mpi/mtest.h
test_mpi_anysource_LDADD = $(MPI_TEST_LIBS)
test_mpi_anysource_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_order_SOURCES = test/mpi/order.c test/mpi/mtest.h
test_mpi_order_LDADD = $(MPI_TEST_LIBS)
test_mpi_order_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_truncate_SOURCES = test/mpi/truncate.c test/mpi/mtest.h
test_mpi_truncate_LDADD = $(MPI_TEST_LIBS)
test_mpi_truncate_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_probe_SOURCES = test/mpi/probe.c test/mpi/mtest.h
test_mpi_probe_LDADD = $(MPI_TEST_LIBS)
test_mpi_probe_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_persistent_SOURCES = test/mpi/persistent.c test/mpi/mtest.h
test_mpi_persistent_LDADD = $(MPI_TEST_LIBS)
test_mpi_persistent_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_ssend_SOURCES = test/mpi/ssend.c test/mpi/mtest.h
test_mpi_ssend_LDADD = $(MPI_TEST_LIBS)
test_mpi_ssend_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_bsend_SOURCES = test/mpi/bsend.c test/mpi/mtest.h
test_mpi_bsend_LDADD = $(MPI_TEST_LIBS)
test_mpi_bsend_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_sendrecv_SOURCES = test/mpi/sendrecv.c test/mpi/mtest.h
test_mpi_sendrecv_LDADD = $(MPI_TEST_LIBS)
test_mpi_sendrecv_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_completion_SOURCES = test/mpi/completion.c test/mpi/mtest.h
test_mpi_completion_LDADD = $(MPI_TEST_LIBS)
test_mpi_completion_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_rndv_dtype_SOURCES = test/mpi/rndv_dtype.c test/mpi/mtest.h
test_mpi_rndv_dtype_LDADD = $(MPI_INTERNAL_LIBS)
test_mpi_rndv_dtype_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_bulk_SOURCES = test/mpi/bulk.c test/mpi/mtest.h
test_mpi_bulk_LDADD = $(MPI_TEST_LIBS)
test_mpi_bulk_LDFLAGS = $(MPI_TEST_LINKFLAGS)
test_mpi_rndv_reg_SOURCES = test/mpi/rndv_reg.c test/mpi/mtest.h
test_mpi_rndv_reg_LDADD = $(MPI_INTERNAL_LIBS)
test_mpi_rndv_reg_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_cancel_SOURCES = test/mpi/cancel.c test/mpi/mtest.h
test_mpi_cancel_LDADD = $(MPI_TEST_LIBS)
test_mpi_cancel_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_dtype_SOURCES = test/mpi/dtype.c test/mpi/mtest.h
test_mpi_dtype_LDADD = $(MPI_TEST_LIBS)
test_mpi_dtype_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_procnull_SOURCES = test/mpi/procnull.c test/mpi/mtest.h
test_mpi_procnull_LDADD = $(MPI_TEST_LIBS)
test_mpi_procnull_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_handle_conv_SOURCES = test/mpi/handle_conv.c test/mpi/mtest.h
test_mpi_handle_conv_LDADD = $(MPI_TEST_LIBS)
test_mpi_handle_conv_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_darray_SOURCES = test/mpi/darray.c test/mpi/mtest.h
test_mpi_darray_LDADD = $(MPI_TEST_LIBS)
test_mpi_darray_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_pack_external_SOURCES = test/mpi/pack_external.c test/mpi/mtest.h
test_mpi_pack_external_LDADD = $(MPI_TEST_LIBS)
test_mpi_pack_external_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_f90types_SOURCES = test/mpi/f90types.c test/mpi/mtest.h
test_mpi_f90types_LDADD = $(MPI_TEST_LIBS)
test_mpi_f90types_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_mpit_SOURCES = test/mpi/mpit.c test/mpi/mtest.h test/mpi/mpit_util.h
test_mpi_mpit_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_mpit_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_comms_SOURCES = test/mpi/comms.c test/mpi/mtest.h
test_mpi_comms_LDADD = $(MPI_TEST_LIBS)
test_mpi_comms_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_threads_SOURCES = test/mpi/threads.c test/mpi/mtest.h
test_mpi_threads_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_threads_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_threads_net_SOURCES = test/mpi/threads_net.c test/mpi/mtest.h
test_mpi_threads_net_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_threads_net_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_threads_dyn_SOURCES = test/mpi/threads_dyn.c test/mpi/mtest.h
test_mpi_threads_dyn_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_threads_dyn_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_self_connect_SOURCES = test/mpi/self_connect.c test/mpi/mtest.h
test_mpi_self_connect_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_self_connect_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_twice_held_SOURCES = test/mpi/twice_held.c test/mpi/mtest.h
test_mpi_twice_held_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_twice_held_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_intercomm_SOURCES = test/mpi/intercomm.c test/mpi/mtest.h
test_mpi_intercomm_LDADD = $(MPI_TEST_LIBS)
test_mpi_intercomm_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_topo_graph_SOURCES = test/mpi/topo_graph.c test/mpi/mtest.h
test_mpi_topo_graph_LDADD = $(MPI_TEST_LIBS)
test_mpi_topo_graph_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_idup_SOURCES = test/mpi/idup.c test/mpi/mtest.h
test_mpi_idup_LDADD = $(MPI_TEST_LIBS)
test_mpi_idup_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_errors_SOURCES = test/mpi/errors.c test/mpi/mtest.h
test_mpi_errors_LDADD = $(MPI_TEST_LIBS)
test_mpi_errors_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_initfini_SOURCES = test/mpi/initfini.c test/mpi/mtest.h
test_mpi_initfini_LDADD = $(MPI_TEST_LIBS)
test_mpi_initfini_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_coll_SOURCES = test/mpi/coll.c test/mpi/mtest.h
test_mpi_coll_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_stress_SOURCES = test/mpi/stress.c test/mpi/mtest.h
test_mpi_stress_LDADD = $(MPI_TEST_LIBS)
test_mpi_stress_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_incast_SOURCES = test/mpi/incast.c test/mpi/mtest.h
test_mpi_incast_LDADD = $(MPI_TEST_LIBS)
test_mpi_incast_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_incast_burst_SOURCES = test/mpi/incast_burst.c test/mpi/mtest.h
test_mpi_incast_burst_LDADD = $(MPI_TEST_LIBS)
test_mpi_incast_burst_LDFLAGS = $(MPI_TEST_LINKFLAGS)
test_mpi_lend_SOURCES = test/mpi/lend.c test/mpi/mtest.h
test_mpi_lend_LDADD = $(MPI_TEST_LIBS)
test_mpi_lend_LDFLAGS = $(MPI_TEST_LINKFLAGS)
test_mpi_eager_regime_SOURCES = test/mpi/eager_regime.c test/mpi/mtest.h
test_mpi_eager_regime_LDADD = $(MPI_TEST_LIBS)
test_mpi_eager_regime_LDFLAGS = $(MPI_TEST_LINKFLAGS)
test_mpi_mpit_protocol_SOURCES = test/mpi/mpit_protocol.c test/mpi/mtest.h test/mpi/mpit_util.h
test_mpi_mpit_protocol_LDADD = $(MPI_TEST_LIBS)
test_mpi_mpit_protocol_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_vanish_SOURCES = test/mpi/vanish.c test/mpi/mtest.h
test_mpi_vanish_LDADD = $(MPI_TEST_LIBS)
test_mpi_vanish_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_mpi_shm_names_SOURCES = test/mpi/shm_names.c
test_mpi_shm_names_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_shm_names_LDFLAGS = $(MPI_TEST_LINKFLAGS)
test_mpi_crash_SOURCES = test/mpi/crash.c test/mpi/mtest.h
test_mpi_crash_LDADD = $(MPI_TEST_LIBS)
test_mpi_crash_LDFLAGS = $(MPI_TEST_LINKFLAGS)

# make check-valgrind: a representative set under valgrind's memcheck
# (test/valgrind.sh; minutes, so not part of make check).
VALGRIND_TEST_PROGS = test/mpi/pingpong test/mpi/anysource test/coll/bcast \
	test/coll/reduce_algos test/coll/alltoall test/rma/ops test/rma/netrma \
	test/rma/atomic test/rma/busy_target
check-valgrind: $(VALGRIND_TEST_PROGS) src/tools/mpirun netmod/agent/clumpi-agent
	top_builddir=$(abs_top_builddir) top_srcdir=$(abs_top_srcdir) \
	    $(SHELL) $(srcdir)/test/valgrind.sh
.PHONY: check-valgrind
EXTRA_DIST += test/valgrind.sh test/valgrind.supp

# The include rule src -> coll -> mpid -> {shmmod, netmod} -> src/util, on
# every #include of the tree (exceptions being removed: test/layers.allow).
TESTS += test/layers.sh
EXTRA_DIST += test/layers.sh test/layers.allow

# CLUMPI_* checking: malformed values, spellings, unknown names (param.c).
TESTS += test/mpi/params.sh
EXTRA_DIST += test/mpi/params.sh

# doc/TUNING.md in step with src/util/param_table.c (names and defaults).
check_PROGRAMS += test/tools/param_list
test_tools_param_list_SOURCES = test/tools/param_list.c src/util/param_table.c
test_tools_param_list_CFLAGS = $(AM_CFLAGS)
TESTS += test/tuning_doc.sh
EXTRA_DIST += test/tuning_doc.sh
