# shmmod: the intra-node shared-memory channel (see top Makefile.am)
libmpi_la_SOURCES += shmmod/shm.c shmmod/shm_internal.h \
	shmmod/segment.c shmmod/bulk.c shmmod/cma.c shmmod/area.c

if HAVE_CRITERION
# The queue alone, many producer processes on a shared mapping.
check_PROGRAMS += test/unit/test_queue
TESTS += test/unit/test_queue
test_unit_test_queue_SOURCES = test/unit/test_queue.c src/util/queue.h
test_unit_test_queue_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_queue_LDADD = $(CRITERION_LIBS)

# The whole channel across forked ranks, with a stand-in PMI in the test.
check_PROGRAMS += test/unit/test_shm
TESTS += test/unit/test_shm
test_unit_test_shm_SOURCES = test/unit/test_shm.c shmmod/shm.c shmmod/segment.c src/util/fdshare.c \
	src/util/biglock.c \
	shmmod/bulk.c shmmod/cma.c shmmod/area.c src/util/param.c src/util/param_table.c src/util/log.c
test_unit_test_shm_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_shm_LDADD = $(CRITERION_LIBS)
endif
