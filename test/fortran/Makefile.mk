# test/fortran: Fortran programs against mpif.h (fixed form), the mpi
# module and the mpi_f08 module, one of a Fortran and a C part, one of an
# mpi_f08 and an mpif.h part, one spawning its own children and a C one
# loading libmpifort by dlopen; run by
# run-mpi-test like test/mpi's (the np: line of each source). Built only
# with the bindings.
EXTRA_DIST += test/fortran/f77.f90 test/fortran/usempi.f90 test/fortran/mixed.f90 \
	test/fortran/mixed_c.c test/fortran/f08.f90 test/fortran/mixed_f08.f90 \
	test/fortran/mixed_f77.f90 test/fortran/spawn.f90 test/fortran/fail.f90 \
	test/fortran/f08_procs.f90 test/fortran/late_load.c test/fortran/f08_tool.f90 \
	test/fortran/f08_uop.inc
if HAVE_FORTRAN
FORTRAN_TESTS = test/fortran/f77 test/fortran/usempi test/fortran/mixed test/fortran/f08 \
	test/fortran/mixed_f08 test/fortran/spawn test/fortran/f08_procs test/fortran/late_load \
	test/fortran/f08_tool
check_PROGRAMS += $(FORTRAN_TESTS)
TESTS += $(FORTRAN_TESTS)
FORTRAN_TEST_LIBS = libmpifort.la libmpi.la

test_fortran_f77_SOURCES = test/fortran/f77.f90
test_fortran_f77_FCFLAGS = $(AM_FCFLAGS) $(FC_FIXED)
test_fortran_f77_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f77_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_fortran_usempi_SOURCES = test/fortran/usempi.f90 test/fortran/fail.f90
test_fortran_usempi_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_usempi_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_fortran_spawn_SOURCES = test/fortran/spawn.f90 test/fortran/fail.f90
test_fortran_spawn_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_spawn_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_fortran_mixed_SOURCES = test/fortran/mixed.f90 test/fortran/mixed_c.c
test_fortran_mixed_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_mixed_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_fortran_f08_SOURCES = test/fortran/f08.f90
test_fortran_f08_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f08_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_fortran_f08_procs_SOURCES = test/fortran/f08_procs.f90 test/fortran/fail.f90
test_fortran_f08_procs_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f08_procs_LDFLAGS = $(MPI_TEST_LINKFLAGS)

# a profiling tool in Fortran: its MPI_Send_f08, ... take the program's calls
test_fortran_f08_tool_SOURCES = test/fortran/f08_tool.f90 test/fortran/fail.f90
test_fortran_f08_tool_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f08_tool_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_fortran_mixed_f08_SOURCES = test/fortran/mixed_f08.f90 test/fortran/mixed_f77.f90
test_fortran_mixed_f08_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_mixed_f08_LDFLAGS = $(MPI_TEST_LINKFLAGS)

# libmpi only, libmpifort by dlopen (built first: check_PROGRAMS come after lib_)
test_fortran_late_load_SOURCES = test/fortran/late_load.c
test_fortran_late_load_CPPFLAGS = $(AM_CPPFLAGS) -DLIBMPIFORT='"$(abs_top_builddir)/.libs/libmpifort.so"'
test_fortran_late_load_LDADD = libmpi.la
test_fortran_late_load_LDFLAGS = $(MPI_TEST_LINKFLAGS)

# Every object of a Fortran test waits for mpif.h and the modules.
$(test_fortran_f77_OBJECTS) $(test_fortran_usempi_OBJECTS) $(test_fortran_mixed_OBJECTS) \
	$(test_fortran_f08_OBJECTS) $(test_fortran_mixed_f08_OBJECTS) $(test_fortran_spawn_OBJECTS) \
	$(test_fortran_f08_procs_OBJECTS) $(test_fortran_f08_tool_OBJECTS): \
	src/fortran/mpif.h src/fortran/mpi.mod src/fortran/mpi_f08.mod
# test/tools/test_mpicc.sh builds f77 with mpifort and these flags
AM_TESTS_ENVIRONMENT += FC_FIXED='$(FC_FIXED)'; export FC_FIXED;

# the user op both include
$(test_fortran_f08_OBJECTS) $(test_fortran_f08_procs_OBJECTS): test/fortran/f08_uop.inc
endif
