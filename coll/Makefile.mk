# coll: files of this folder (see top Makefile.am)
# Internal collectives (core issue): used by communicator creation and Finalize.
libmpi_la_SOURCES += coll/coll.h coll/coll_impl.h coll/coll_util.c \
	coll/barrier_dissemination.c coll/bcast_binomial.c coll/allgather_ring.c
