# src/tools/: mpicc, mpirun/mpiexec, and their tests (test/tools, test/unit/test_pmi.c).
bin_SCRIPTS += src/tools/mpicc

# mpirun is a plain program (it does not link libmpi): the build tree's
# launcher is $(top_builddir)/src/tools/mpirun. It installs as bin/mpirun
# with bin/mpiexec a symlink to it.
bin_PROGRAMS += src/tools/mpirun
src_tools_mpirun_SOURCES = src/tools/mpirun.c src/tools/mpirun.h src/tools/mpirun_opts.c src/tools/spawnjob.c \
	src/tools/launch.c src/tools/bind.c src/tools/pmi_server.c src/tools/iofwd.c \
	src/tools/jobctl.c src/tools/slurm_alloc.c $(CU_PMI_SOURCES) src/util/names.c src/util/port_wire.c src/util/log.c src/util/param.c src/util/param_table.c
# Per-target flags give these objects their own names, apart from libmpi's.
src_tools_mpirun_CFLAGS = $(AM_CFLAGS)
src_tools_mpirun_LDADD = $(HWLOC_LIBS) $(PMIX_LIBS)

# mpicxx, mpic++ and the Fortran wrappers are mpicc under other names (the
# name picks the compiler).
MPICC_ALIASES = mpicxx mpic++
if HAVE_FORTRAN
MPICC_ALIASES += mpifort mpif90 mpif77
endif
install-exec-hook:
	cd $(DESTDIR)$(bindir) && rm -f mpiexec && $(LN_S) mpirun mpiexec
	cd $(DESTDIR)$(bindir) && for w in $(MPICC_ALIASES); do rm -f $$w && $(LN_S) mpicc $$w; done
uninstall-hook:
	rm -f $(DESTDIR)$(bindir)/mpiexec
	cd $(DESTDIR)$(bindir) && rm -f $(MPICC_ALIASES)

# Test environment for every test script (set here only; other fragments
# rely on it): scripts find the build and source trees through these.
AM_TESTS_ENVIRONMENT = top_builddir=$(top_builddir) top_srcdir=$(top_srcdir); \
	export top_builddir top_srcdir;
# Sanitizer build: third-party leaks listed in test/lsan.supp; ranks and
# mpirun inherit them (remote ranks through the launcher's environment).
if SANITIZERS
AM_TESTS_ENVIRONMENT += LSAN_OPTIONS="suppressions=$(abs_top_srcdir)/test/lsan.supp:print_suppressions=0$${LSAN_OPTIONS:+:$$LSAN_OPTIONS}"; \
	export LSAN_OPTIONS;
# (programs test_mpicc.sh builds with the wrappers need the runtime too)
AM_TESTS_ENVIRONMENT += SAN_CFLAGS='$(SAN_CFLAGS)'; export SAN_CFLAGS;
endif
EXTRA_DIST += test/lsan.supp

# A rank that speaks PMI through src/util/pmi.c alone, for the launcher tests.
check_PROGRAMS += test/tools/pmi_prog
test_tools_pmi_prog_SOURCES = test/tools/pmi_prog.c $(CU_PMI_SOURCES) src/util/names.c src/util/log.c src/util/param.c src/util/param_table.c
test_tools_pmi_prog_CFLAGS = $(AM_CFLAGS)
test_tools_pmi_prog_LDADD = $(PMIX_LIBS)

# One MPI job as srun or salloc + mpirun starts it, for test_slurm.sh.
check_PROGRAMS += test/tools/launched
test_tools_launched_SOURCES = test/tools/launched.c
test_tools_launched_LDADD = libmpi.la
test_tools_launched_LDFLAGS = $(AM_LDFLAGS) -no-install

TESTS += test/tools/test_launcher.sh test/tools/test_mpicc.sh test/tools/test_hydra.sh \
	test/tools/test_slurm.sh
# mpirun's PMI port under silent and garbage connections (test/tools/pmi_flood.c).
check_PROGRAMS += test/tools/pmi_flood
TESTS += test/tools/test_pmi_listener.sh
EXTRA_DIST += test/tools/test_pmi_listener.sh
EXTRA_DIST += test/tools/test_launcher.sh test/tools/test_mpicc.sh test/tools/test_hydra.sh \
	test/tools/test_slurm.sh test/tools/slurm.sh \
	test/tools/common.sh src/tools/mpicc.in clumpi-cxx.pc.in

# Jobs across network namespaces (root only; skips with 77 elsewhere).
# MPI programs to run across them: test/netns/mpi_tests.list.
TESTS += test/netns/test_netns.sh
EXTRA_DIST += test/netns/test_netns.sh test/netns/netns.sh test/netns/mpi_tests.list

if HAVE_CRITERION
check_PROGRAMS += test/unit/test_pmi
TESTS += test/unit/test_pmi
test_unit_test_pmi_SOURCES = test/unit/test_pmi.c $(CU_PMI_SOURCES) src/util/names.c src/util/log.c src/util/param.c src/util/param_table.c
test_unit_test_pmi_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_pmi_LDADD = $(CRITERION_LIBS) $(PMIX_LIBS)
endif
