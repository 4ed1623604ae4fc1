#!/bin/sh
# test_agent.sh — offload mode (CLUMPI_NET=agent): the point-to-point suite
# of test/mpi through its own runner (run-mpi-test) across 2 and 4 emulated
# nodes, both send paths (all PIO, all DMA), a slow agent with a tiny window
# (credit stalls), NI collectives when built (coll/*_ni.c), and an agent
# killed mid-run: the job must end within 5 s with a message, leaving no
# process or segment behind.
# make check runs a lean subset (cross-node point-to-point with both send
# paths and rendezvous, persistent on 4 nodes, two NI trees, the agent
# kill); AGENT_TEST_FULL=1 (make check-agent) the whole matrix,
# AGENT_TEST_LONG=1 (make check-long) adds 5-8 nodes.
. "$(dirname "$0")/test_env.sh"
fail=0
out=agent-test.$$.out
T=$top_builddir/test/mpi
RUNNER="$top_srcdir/test/mpi/run-mpi-test"

# Nodes with different chunk sizes: each direction's first read fails at
# the owner's agent (-ENOTSUP, sent as the read's last chunk after grants
# it will not use), the device falls back to CTS for that peer, and every
# message still arrives.
bulk_mixed() {
    run 2 2 BULK_TEST_CHUNK=8192 -- sh -c \
        '[ "$PMI_RANK" = 0 ] && export CLUMPI_AGENT_BULK_CHUNK=8192; exec "$0"' "$T/bulk"
}

# Trains: a multi-packet message leaves as one fabric send and, whole,
# reaches its rank as one entry (the agents' counters say so).
trains() {
    if env CLUMPI_AGENT_STATS=1 timeout -k 5 120 "$MPIRUN" --nodes 2 -n 2 --timeout 100 \
           "$T/pingpong" </dev/null >"$out" 2>&1 &&
       grep -q "trains sent [1-9][0-9]* delivered whole [1-9]" "$out"; then
        echo "ok: trains sent and delivered whole (pingpong, --nodes 2)"
    else
        echo "FAILED: trains sent and delivered whole (pingpong, --nodes 2)"; cat "$out"; fail=1
    fi
}

# Rendezvous crawling at one rank<->agent round trip per DMA packet under
# load is covered by the cross-node runs below: every
# order/persistent run streams rendezvous DATA through the DMA path.
if [ -z "${AGENT_TEST_FULL:-}" ]; then
    suite 2 "2" -- order anysource persistent sendrecv
    suite 4 "4" -- persistent
    run 2 2 CLUMPI_AGENT_PIO_MAX=0 CLUMPI_EAGER_LIMIT=0 -- "$T/order"
    run 2 2 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$T/order"
    # the bulk path: default chunks; many small chunks through one landing
    # buffer (every grant waits for the one before); off (CTS + DATA)
    suite 2 "2" -- bulk
    run 2 3 CLUMPI_AGENT_BULK_CHUNK=4096 CLUMPI_AGENT_BULK=1 -- "$T/bulk"
    run 2 2 CLUMPI_AGENT_BULK=0 -- "$T/bulk"
    bulk_mixed
    trains
else
PT2PT="pingpong anysource order truncate probe persistent ssend bsend sendrecv completion cancel dtype procnull"
suite 2 "" -- $PT2PT comms coll bulk rndv_dtype rndv_reg
# the bulk path's chunks and grants: small chunks, one landing buffer or a
# window of one, a slow agent, off; 4 nodes of 2 ranks reading at once
run 2 3 CLUMPI_AGENT_BULK_CHUNK=4096 CLUMPI_AGENT_BULK=1 -- "$T/bulk"
run 3 3 CLUMPI_AGENT_BULK_CHUNK=8192 CLUMPI_AGENT_BULK_WINDOW=1 CLUMPI_AGENT_BULK_BOUNCE=1 -- "$T/bulk"
run 2 4 CLUMPI_AGENT_BULK_CHUNK=65536 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$T/bulk"
run 2 2 CLUMPI_AGENT_BULK=0 -- "$T/bulk"
run 4 8 CLUMPI_AGENT_BULK_CHUNK=16384 CLUMPI_AGENT_BULK=3 -- "$T/bulk"
bulk_mixed
trains
# the programs that take any rank count, at 4 and 8 ranks over 4 nodes
suite 4 "4 8" -- pingpong anysource order sendrecv completion persistent
suite 4 "8" -- stress
# all DMA / all PIO, between nodes (-n 2: the pair spans both)
run 2 2 CLUMPI_AGENT_PIO_MAX=0 -- "$T/pingpong"
run 2 2 CLUMPI_AGENT_PIO_MAX=100000 CLUMPI_EAGER_LIMIT=0 -- "$T/order"
run 2 4 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$T/stress"
# a larger MTU: fewer, larger packets per message (both send paths)
run 2 2 CLUMPI_AGENT_MTU=16384 -- "$T/pingpong"
run 2 4 CLUMPI_AGENT_MTU=5000 CLUMPI_AGENT_PIO_MAX=0 -- "$T/stress"
fi

# NI-level collectives (Verstoep et al. §4-5): every algorithm against a reference.
NI=$top_builddir/test/unit/test_agent_coll
if [ -x "$NI" ] && [ -z "${AGENT_TEST_FULL:-}" ]; then
    run 2 4 -- "$NI" ni-binary
    run 3 3 -- "$NI" ni-binomial
elif [ -x "$NI" ]; then
    for nodes in 1 2 3 4; do
        for ppn in 1 2 3; do
            run "$nodes" $((nodes * ppn)) -- "$NI" ni-binary
            run "$nodes" $((nodes * ppn)) -- "$NI" ni-binomial
        done
    done
    run 3 6 -- "$NI" host-message
    run 3 6 -- "$NI" host-packet
    run 4 4 -- "$NI" host-packet-binary   # a computing forwarder delays its subtree
    run 4 8 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$NI" host-packet
    run 3 6 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_DELAY_NS=2000 -- "$NI" ni-binomial
    run 4 8 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_POOL=1 -- "$NI" ni-binary
    # a larger MTU: reductions in fewer, larger packets of whole elements
    run 3 6 CLUMPI_AGENT_MTU=5000 -- "$NI" ni-binomial
    run 4 4 CLUMPI_AGENT_MTU=16384 CLUMPI_AGENT_WINDOW=2 -- "$NI" ni-binary
    CLUMPI_NET=direct run 2 4 -- "$NI" ni-binary   # no agent: the host's tree
    # 5-8 nodes (check-long): deeper trees, both shapes, a slow agent
    if [ -n "${AGENT_TEST_LONG:-}" ]; then
        for nodes in 5 6 7 8; do
            run "$nodes" "$nodes" -- "$NI" ni-binary
            run "$nodes" $((nodes * 2)) -- "$NI" ni-binomial
        done
        run 8 16 CLUMPI_AGENT_WINDOW=4 CLUMPI_AGENT_DELAY_NS=5000 -- "$NI" ni-binary
        run 8 24 -- "$NI" ni-binomial
    fi
fi
# NI collectives and point-to-point never block each other: members run
# ahead of a root that sends to a non-member first (test_agent_lag.c)
LAG=$top_builddir/test/unit/test_agent_lag
if [ -x "$LAG" ]; then
    run 3 7 -- "$LAG" ni-binomial
    run 3 7 -- "$LAG" ni-binary
    if [ -n "${AGENT_TEST_FULL:-}" ]; then
        run 2 4 -- "$LAG" ni-binomial
        run 4 8 -- "$LAG" ni-binary
        run 3 7 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_POOL=1 -- "$LAG" ni-binomial
        run 3 9 CLUMPI_AGENT_MTU=5000 -- "$LAG" ni-binary
    fi
fi
# Idle agents block: ranks wait 2 s for rank 0; each node's agent must use
# under 5% of a core meanwhile (test_agent_idle.c measures it)
IDLE=$top_builddir/test/unit/test_agent_idle
[ -x "$IDLE" ] && run 2 4 -- "$IDLE" 2
# A rank that does not run must not stall its node's agent
# (test_agent_stopped.c says how it once did)
STOPPED=$top_builddir/test/unit/test_agent_stopped
[ -x "$STOPPED" ] && run 2 4 -- "$STOPPED"
# MPIX_Counter served by the agents: a totally ordered broadcast
[ -x "$top_builddir/examples/ordered_bcast" ] && run 4 8 -- "$top_builddir/examples/ordered_bcast" 200

# Agent killed mid-run (test_env.sh): the job ends within 5 s with a message.
agent_stop KILL "NI agent of node"
# no agent where the path says: every rank says the agent did not start
# (the node's first rank why), none that a node is unreachable
refused CLUMPI_AGENT_PATH=$top_builddir/no-such-agent -- \
    "cannot run the NI agent .*no-such-agent (No such file or directory)" "No route to host"
rm -f "$out"
exit $fail
