# test/fortran: Fortran programs against mpif.h (fixed form) and the mpi
# module, and one of a Fortran and a C part; run by run-mpi-test like
# test/mpi's (the np: line of each source). Built only with the bindings.
EXTRA_DIST += test/fortran/f77.f90 test/fortran/usempi.f90 test/fortran/mixed.f90 \
	test/fortran/mixed_c.c
if HAVE_FORTRAN
FORTRAN_TESTS = test/fortran/f77 test/fortran/usempi test/fortran/mixed
check_PROGRAMS += $(FORTRAN_TESTS)
TESTS += $(FORTRAN_TESTS)
FORTRAN_TEST_LIBS = libmpifort.la libmpi.la

test_fortran_f77_SOURCES = test/fortran/f77.f90
test_fortran_f77_FCFLAGS = $(AM_FCFLAGS) $(FC_FIXED)
test_fortran_f77_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f77_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_fortran_usempi_SOURCES = test/fortran/usempi.f90
test_fortran_usempi_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_usempi_LDFLAGS = $(MPI_TEST_LINKFLAGS)

test_fortran_mixed_SOURCES = test/fortran/mixed.f90 test/fortran/mixed_c.c
test_fortran_mixed_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_mixed_LDFLAGS = $(MPI_TEST_LINKFLAGS)

# Every object of a Fortran test waits for mpif.h and the mpi module.
$(test_fortran_f77_OBJECTS) $(test_fortran_usempi_OBJECTS) $(test_fortran_mixed_OBJECTS): \
	src/fortran/mpif.h src/fortran/mpi.mod
endif
