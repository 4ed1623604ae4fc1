# src/util/: leaf utilities every layer may use.
libmpi_la_SOURCES += src/util/log.c src/util/log.h src/util/param.c src/util/param.h \
	src/util/dtype.h src/util/pmi.h
# PMI-1 client (launcher owner)
libmpi_la_SOURCES += src/util/pmi.c
