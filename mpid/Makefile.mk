# mpid/: the device.
libmpi_la_SOURCES += mpid/mpid.h mpid/channel.h mpid/mpidi.h mpid/match.h mpid/counters.h \
	mpid/match.c mpid/request.c mpid/pt2pt.c mpid/cancel.c mpid/eager.c mpid/rndv.c \
	mpid/progress.c mpid/route.c mpid/self.c mpid/init.c \
	mpid/netpoll.c mpid/node_area.c mpid/peer_watch.c
# offloaded collectives (the channel's mpid_chan_coll)
libmpi_la_SOURCES += mpid/offload.h mpid/offload.c
# peers of other jobs (dynamic processes), and their loss
libmpi_la_SOURCES += mpid/dynpeer.c mpid/peer_lost.c
# one-sided communication (rma owner)
libmpi_la_SOURCES += mpid/rma.h mpid/rma_impl.h mpid/rma.c mpid/rma_am.c mpid/rma_ofi.c \
	mpid/rma_direct.c mpid/rma_target.c mpid/rma_cma.c mpid/rma_agent.c

if HAVE_CRITERION
check_PROGRAMS += test/unit/test_match
TESTS += test/unit/test_match
test_unit_test_match_SOURCES = test/unit/test_match.c mpid/match.c mpid/match.h
test_unit_test_match_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
test_unit_test_match_LDADD = $(CRITERION_LIBS)
endif
