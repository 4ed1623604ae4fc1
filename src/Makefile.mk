# src/: the MPI layer. Each helper-owned group of files adds its own lines.
libmpi_la_SOURCES += src/mpir.h src/handle.c
libmpi_la_SOURCES += src/check.c
libmpi_la_SOURCES += src/datatype.h src/datatype.c src/darray.c src/pack_external.c src/f90types.c \
	src/handle_conv.c
# Thread levels, MPI_THREAD_MULTIPLE (threads owner)
libmpi_la_SOURCES += src/thread.h src/thread.c
# MPI layer core (init, errors, groups, communicators, attributes, info,
# topologies) and the public entry points of the internal collectives.
libmpi_la_SOURCES += src/core.h src/errors.c src/errhandler.c src/init.c src/group.c \
	src/comm.c src/comm_idup.c src/intercomm.c src/attr.c src/info.c src/topo.h src/topo.c \
	src/topo_graph.c src/topo_dist.c src/dims.c src/coll_entry.c
libmpi_la_SOURCES += src/pt2pt.h src/send.c src/recv.c src/sendrecv.c src/probe.c \
	src/request.c src/persistent.c src/bsend.c src/status.c
# Generalized requests, profiling control (misc owner).
libmpi_la_SOURCES += src/grequest.c src/pcontrol.c
# Reduction ops and the reduction entry points (reductions owner).
libmpi_la_SOURCES += src/op.c src/coll_reduce_entry.c
# One-sided communication (rma owner): windows, operations, epochs.
libmpi_la_SOURCES += src/win.h src/win.c src/win_info.c src/rma.c src/win_sync.c
# Process creation and management (dynproc owner): ports, accept/connect, join.
libmpi_la_SOURCES += src/dynamic.h src/dynamic.c src/port.c src/spawn.c \
	src/name_service.c
# MPIX extensions: shared counters (fetch-and-add by the NI agent, or a window).
libmpi_la_SOURCES += src/counter.c
# MPI_T, the tool information interface (mpit owner): control variables are
# the runtime parameters (src/util/param_table.c), performance variables the
# device's counters (mpid/counters.h).
libmpi_la_SOURCES += src/mpit/mpit.h src/mpit/init.c src/mpit/enum.c src/mpit/cvar.c \
	src/mpit/category.c src/mpit/pvar.c src/mpit/pvar_session.c
