#!/bin/sh
# nodes.sh — the multi-rank tests across emulated nodes, in make check: a
# lean selection of test/mpi's programs, each run by run-mpi-test with
# CLUMPI_TEST_NODES=2 and 4 (mpirun --nodes), so point-to-point crosses the
# network channel (netmod/ofi) as well as shared memory within a node:
# every size class both ways (fi_read rendezvous and, with CLUMPI_NO_RMA=1,
# CTS + pipelined chunks), ANY_SOURCE mixing local and remote senders,
# ordering, probe, truncation, synchronous sends, cancel, completion calls,
# collectives, darray-typed scatters and external32 bytes (offload mode),
# MPI_T's exact message counts over the network and the NI agent,
# 16 oversubscribed ranks on 4 nodes, an incast into a slow
# receiver with small receive slabs (multi-recv reuse, with tcp;ofi_rxm),
# rounds of sends into one rank that runs behind (incast_burst); and the same
# ordering checks on the other providers a user may pick (tcp;ofi_rxm,
# udp;ofi_rxd), whose own large-message protocols can reorder; the
# collectives on intercommunicators (test/coll/intercoll) directly and in
# offload mode; MPI_THREAD_MULTIPLE (threads) directly, blocking at once,
# and in offload mode (also with the NI collectives, each thread's on its
# own communicator at once), and threads each exchanging every size class
# with another node at once (threads_net) directly and in offload mode
# (also with every send a DMA pull); dynamic processes (ports, join,
# spawn, the name service) directly and in offload mode, intercommunicators
# whose groups hold a process twice (twice_held) directly and in offload
# mode; the C++ program (cxx) and, with the Fortran bindings, the Fortran
# ones (f77, usempi, f08, mixed_f08, f08_procs and spawn directly and in
# offload mode, mixed in offload mode, f08_tool directly).
# `make check-long` runs every test at every rank count and variant with
# --nodes 2 and --nodes 4 instead (check-long-nodes in test/Makefile.mk).
# Exit status: 0 when all passed, 1 otherwise (each failure is listed).
here=$(dirname "$0")
bin=${MPI_TEST_BINDIR:-./test/mpi}
status=0
failed=
while read -r nodes np prog vars; do
    case $nodes in ''|'#'*) continue ;; esac
    if [ ! -x "$bin/$prog" ]; then
        # the Fortran programs exist only with the Fortran bindings
        case $prog in ../fortran/*) echo "nodes.sh: no $prog (no Fortran): skipped"; continue ;; esac
        echo "nodes.sh: $bin/$prog not built"
        exit 99
    fi
    # shellcheck disable=SC2086
    env $vars CLUMPI_TEST_NODES="$nodes" MPI_TEST_NP="$np" \
        "$here/run-mpi-test" "$bin/$prog"
    rc=$?
    if [ $rc -ne 0 ]; then
        status=1
        failed="$failed
  $prog with $np ranks on $nodes nodes $vars: exit status $rc"
    fi
done <<'EOF'
# nodes ranks program [VAR=value...]
2 2 pingpong CLUMPI_NO_RMA=1
2 4 anysource
2 4 order CLUMPI_EAGER_LIMIT=0
2 3 probe
2 2 truncate
2 2 mpit
2 2 mpit CLUMPI_NET=agent
2 2 ssend
2 3 cancel
2 4 cancel_send
2 4 completion
2 2 rndv_dtype CLUMPI_EAGER_LIMIT=0
2 5 darray
2 3 pack_external CLUMPI_NET=agent
2 3 rndv_reg
4 5 rndv_reg
4 4 rndv_reg CLUMPI_OFI_PROVIDER=tcp;ofi_rxm
4 4 pingpong
4 8 anysource
4 4 sendrecv
4 5 coll
4 16 stress
4 8 incast CLUMPI_OFI_SLAB=2
4 8 incast CLUMPI_OFI_SLAB=2 CLUMPI_OFI_PROVIDER=tcp;ofi_rxm
2 16 incast_burst
2 4 anysource CLUMPI_OFI_PROVIDER=tcp;ofi_rxm
2 4 pingpong CLUMPI_OFI_PROVIDER=tcp;ofi_rxm
2 4 anysource CLUMPI_OFI_PROVIDER=udp;ofi_rxd
2 4 procname
3 4 procname
2 5 topo_graph
2 5 ../coll/intercoll
2 7 ../coll/intercoll CLUMPI_NET=agent
2 3 threads
2 4 threads CLUMPI_SPIN=0
2 3 threads CLUMPI_NET=agent
2 4 threads CLUMPI_NET=agent CLUMPI_COLL_BCAST=ni-binary CLUMPI_COLL_ALLREDUCE=ni-binary CLUMPI_COLL_BARRIER=ni-binomial
3 5 threads CLUMPI_NET=agent CLUMPI_COLL_BCAST=host-packet CLUMPI_COLL_ALLREDUCE=ni-binomial
2 2 threads_net
2 4 threads_net CLUMPI_NET=agent
2 3 threads_net CLUMPI_NET=agent CLUMPI_SPIN=0
2 4 threads_net CLUMPI_NET=agent CLUMPI_AGENT_PIO_MAX=0
2 5 port
2 4 port CLUMPI_NET=agent
2 3 spawn
2 2 spawn CLUMPI_NET=agent
2 2 spawn_multiple
2 3 twice_held
2 2 twice_held CLUMPI_NET=agent
2 3 names CLUMPI_NET=agent
2 5 cxx
2 4 ../fortran/f77
2 3 ../fortran/f77 CLUMPI_NET=agent
2 3 ../fortran/usempi
2 4 ../fortran/usempi CLUMPI_NET=agent
2 3 ../fortran/f08
2 4 ../fortran/f08 CLUMPI_NET=agent
2 2 ../fortran/mixed_f08
2 3 ../fortran/mixed_f08 CLUMPI_NET=agent
2 3 ../fortran/mixed CLUMPI_NET=agent
2 3 ../fortran/f08_procs
2 4 ../fortran/f08_procs CLUMPI_NET=agent
2 3 ../fortran/f08_tool
2 2 ../fortran/spawn
2 2 ../fortran/spawn CLUMPI_NET=agent
EOF
# Emulated nodes use loopback (CLUMPI_ONE_HOST from mpirun, netmod/common/fabric_select.c):
# another interface may vanish under a running job (the netns tests' bridge).
# net and tcp list a "lo" domain; other providers (verbs) have none to pick.
. "$here/mpirun-env.sh"
if [ "${MPIRUN_IS_CLUMPI:-}" = yes ]; then
    out=$(CLUMPI_VERBOSE=1 "$MPIRUN" --nodes 2 -n 2 --timeout "$MPI_TEST_TIMEOUT" \
          "$bin/pingpong" 2>&1)
    chosen=$(printf '%s\n' "$out" | grep 'ofi: node [0-9]*: provider')
    echo "$chosen"
    if printf '%s\n' "$chosen" | grep -q 'provider \(net\|tcp\)' &&
       printf '%s\n' "$chosen" | grep -vq 'domain lo,'; then
        status=1
        failed="$failed
  an emulated node chose an interface other than loopback"
    elif [ -z "$chosen" ]; then
        status=1
        failed="$failed
  CLUMPI_VERBOSE=1 did not say which provider each node chose"
    fi
fi
if [ $status -ne 0 ]; then
    echo "nodes.sh: failed:$failed"
fi
exit $status
