# examples: standard MPI programs, also run as tests (np: line in each
# source; see test/Makefile.mk for the runner).
EXAMPLES = examples/hello examples/ring examples/pi examples/stencil examples/ordered_bcast \
	examples/cxx/ring
check_PROGRAMS += $(EXAMPLES)
TESTS += $(EXAMPLES)

examples_hello_SOURCES = examples/hello.c
examples_hello_LDADD = libmpi.la
examples_hello_LDFLAGS = $(AM_LDFLAGS) -no-install

examples_ring_SOURCES = examples/ring.c
examples_ring_LDADD = libmpi.la
examples_ring_LDFLAGS = $(AM_LDFLAGS) -no-install

examples_pi_SOURCES = examples/pi.c
examples_pi_LDADD = libmpi.la
examples_pi_LDFLAGS = $(AM_LDFLAGS) -no-install

examples_stencil_SOURCES = examples/stencil.c
# sin, cos: libm, which mpicc does not add (nor do MPICH's and Open MPI's)
examples_stencil_LDADD = libmpi.la -lm
examples_stencil_LDFLAGS = $(AM_LDFLAGS) -no-install

examples_ordered_bcast_SOURCES = examples/ordered_bcast.c
examples_ordered_bcast_LDADD = libmpi.la
examples_ordered_bcast_LDFLAGS = $(AM_LDFLAGS) -no-install

# ring in C++ (built as mpicxx builds it)
examples_cxx_ring_SOURCES = examples/cxx/ring.cxx
examples_cxx_ring_LDADD = libmpi.la
examples_cxx_ring_LDFLAGS = $(AM_LDFLAGS) -no-install

# ring in Fortran (the mpi module), with the bindings
EXTRA_DIST += examples/fortran/ring.f90
if HAVE_FORTRAN
check_PROGRAMS += examples/fortran/ring
TESTS += examples/fortran/ring
examples_fortran_ring_SOURCES = examples/fortran/ring.f90
examples_fortran_ring_LDADD = libmpifort.la libmpi.la
examples_fortran_ring_LDFLAGS = $(AM_LDFLAGS) -no-install
$(examples_fortran_ring_OBJECTS): src/fortran/mpi.mod
endif

# ring in Fortran with the mpi_f08 module
EXTRA_DIST += examples/fortran/ring_f08.f90
if HAVE_FORTRAN
check_PROGRAMS += examples/fortran/ring_f08
TESTS += examples/fortran/ring_f08
examples_fortran_ring_f08_SOURCES = examples/fortran/ring_f08.f90
examples_fortran_ring_f08_LDADD = libmpifort.la libmpi.la
examples_fortran_ring_f08_LDFLAGS = $(AM_LDFLAGS) -no-install
$(examples_fortran_ring_f08_OBJECTS): src/fortran/mpi_f08.mod
endif
