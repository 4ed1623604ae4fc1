# src/fortran/: the Fortran bindings, generated at build time by gen.py
# from mpi_api.txt (and mpi.h's constants, evaluated by the C compiler
# through the generated fgen program): libmpifort (C wrappers mpi_x_ and
# pmpi_x_), mpif.h, the mpi module and the mpi_f08 module (gen_f08.py;
# compiled into libmpifort, as its procedures wrap the C wrappers). None of
# the generated files is in git. Built when configure finds a Fortran compiler and python3.
EXTRA_DIST += src/fortran/gen.py src/fortran/gen_f08.py src/fortran/mpi_api.txt
if HAVE_FORTRAN
lib_LTLIBRARIES += libmpifort.la
libmpifort_la_SOURCES = src/fortran/fortran.h src/fortran/fortran.c src/fortran/keyval.c \
	src/fortran/grequest.c
nodist_libmpifort_la_SOURCES = src/fortran/mpi_fortran.c src/fortran/mpi_f08.f90
# mpi_f08.mod is written beside mpi.mod.
libmpifort_la_FCFLAGS = $(AM_FCFLAGS) $(FC_MODOUT)src/fortran
libmpifort_la_LIBADD = libmpi.la
libmpifort_la_LDFLAGS = -version-info 0:0:0

FORTRAN_GEN_DEPS = $(top_srcdir)/src/fortran/gen.py $(top_srcdir)/src/fortran/gen_f08.py \
	$(top_srcdir)/src/fortran/mpi_api.txt \
	$(top_srcdir)/src/include/mpi.h
# One run writes both files; the stamp orders make's view of them.
src/fortran/gen.stamp: $(FORTRAN_GEN_DEPS)
	@$(MKDIR_P) src/fortran
	$(AM_V_GEN)$(PYTHON3) $(top_srcdir)/src/fortran/gen.py $(top_srcdir)/src/fortran/mpi_api.txt \
	    $(top_srcdir)/src/include/mpi.h src/fortran && touch $@
src/fortran/mpi_fortran.c src/fortran/fgen.c: src/fortran/gen.stamp
	@:

noinst_PROGRAMS += src/fortran/fgen
nodist_src_fortran_fgen_SOURCES = src/fortran/fgen.c
src_fortran_fgen_CFLAGS = $(AM_CFLAGS)
src_fortran_fgen_CPPFLAGS = $(AM_CPPFLAGS) -DMPIR_F_INTEGER_KIND=$(FC_INTEGER_KIND) \
	-DMPIR_F_ADDRESS_KIND=$(FC_ADDRESS_KIND) -DMPIR_F_OFFSET_KIND=$(FC_OFFSET_KIND) \
	-DMPIR_F_COUNT_KIND=$(FC_COUNT_KIND)

src/fortran/mpif.h: src/fortran/fgen$(EXEEXT)
	$(AM_V_GEN)src/fortran/fgen$(EXEEXT) mpif >$@.tmp && mv $@.tmp $@
src/fortran/mpi.f90: src/fortran/fgen$(EXEEXT)
	$(AM_V_GEN)src/fortran/fgen$(EXEEXT) module >$@.tmp && mv $@.tmp $@
# The module's interfaces and constants only: nothing to link.
src/fortran/mpi.mod: src/fortran/mpi.f90
	$(AM_V_GEN)cd src/fortran && $(FC) $(FCFLAGS) -c mpi.f90 -o mpi_mod.o && touch mpi.mod
src/fortran/mpi_f08.f90: src/fortran/fgen$(EXEEXT)
	$(AM_V_GEN)src/fortran/fgen$(EXEEXT) f08 >$@.tmp && mv $@.tmp $@
# (the compiler leaves a module it would write the same untouched)
src/fortran/mpi_f08.mod src/fortran/mpi_f08_types.mod: src/fortran/libmpifort_la-mpi_f08.lo
	@touch $@
# MPI_F_SYNC_REG, which the mpi_f08 module calls
libmpifort_la_SOURCES += src/fortran/sync_reg.c

# mpi_f08_types: the types and constants mpi_f08 and its procedures use
nodist_include_HEADERS = src/fortran/mpif.h src/fortran/mpi.mod src/fortran/mpi_f08.mod \
	src/fortran/mpi_f08_types.mod
CLEANFILES += src/fortran/gen.stamp src/fortran/mpi_fortran.c src/fortran/fgen.c \
	src/fortran/mpif.h src/fortran/mpi.f90 src/fortran/mpi.mod src/fortran/mpi_mod.o \
	src/fortran/mpi_f08.f90 src/fortran/mpi_f08.mod src/fortran/mpi_f08_types.mod
# Fortran programs of this tree find mpif.h, mpi.mod and mpi_f08.mod here.
AM_FCFLAGS = -I$(top_builddir)/src/fortran $(SAN_CFLAGS)
endif
