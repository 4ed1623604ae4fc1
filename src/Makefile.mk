# src/: the MPI layer. Each helper-owned group of files adds its own lines.
libmpi_la_SOURCES += src/mpir.h src/handle.c
libmpi_la_SOURCES += src/check.c
