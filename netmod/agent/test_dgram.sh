#!/bin/sh
# test_dgram.sh — offload mode over datagrams (CLUMPI_AGENT_TRANSPORT=dgram):
# the agents' own reliability protocol (agent_rel.c) must deliver exactly
# under injected loss, duplication and reordering of every datagram kind
# (agent_fault.c): point-to-point (ordering, ANY_SOURCE, eager and
# rendezvous sizes, bulk chunks; every size class in pingpong, full matrix
# only), the NI collectives
# (bcast, reduce, allreduce, barrier; test_agent_coll checks each against a
# reference), agent-served RMA and the agents' fetch-and-add counters; a
# peer agent killed, or stopped (silent), ends the job within 5 s naming it.
# CLUMPI_AGENT_REL=host (agent_hrel.c): the same faults repaired end to end
# by the ranks (point-to-point, the window-based counters and RMA, the NI
# broadcast through the agents' tree repaired from the root's rank, the
# other NI collectives' fallback to host trees), under either ARQ setting
# (which then has nothing to do); a peer agent killed mid-broadcast ends
# the job within 5 s; a bad value, and host over the reliable transport,
# end the job with a message.
# make check: a lean subset at 5% loss, selective repeat and a part with
# go-back-N (CLUMPI_AGENT_ARQ=gbn), and REL=host at 5% (an NI broadcast
# run whose counters must show repairs) and (one order run with its
# counters) 30%; DGRAM_TEST_FULL=1 (make check-long): 5% and 30%
# loss, three seeds, 2-4 nodes, either level, and part of it for gbn, one
# seed; pingpong at 5% at either level, and at 30% under REL=host; 4 x 8
# ranks' ni-binomial at 30% at either level.
. "$(dirname "$0")/test_env.sh"
fail=0
out=dgram-test.$$.out
T=$top_builddir/test/mpi
RUNNER="$top_srcdir/test/mpi/run-mpi-test"
NI=$top_builddir/test/unit/test_agent_coll
R=$top_builddir/test/rma
OB=$top_builddir/examples/ordered_bcast
export CLUMPI_AGENT_TRANSPORT=dgram

# faults LOSS SEED: every datagram dropped with LOSS, taken twice or held
# back behind the next one with LOSS/2 each (at least 5%; none at 0)
faults() {
    d=$(echo "$1" | awk '{d = $1 / 2; print $1 == 0 ? 0 : d < 0.05 ? 0.05 : d}')
    export CLUMPI_AGENT_LOSS="$1" CLUMPI_AGENT_DUP="$d" CLUMPI_AGENT_REORDER="$d" \
        CLUMPI_AGENT_SEED="$2"
    echo "-- loss $1, dup and reorder $d, seed $2"
}

# counted WHAT PATTERN...: an order run on 2 nodes with CLUMPI_AGENT_STATS=1
# prints lines matching every PATTERN (else the runs above prove nothing).
counted() {
    what=$1; shift
    bad=0
    env CLUMPI_AGENT_STATS=1 timeout -k 5 120 "$MPIRUN" --nodes 2 -n 2 --timeout 100 \
        "$T/order" </dev/null >"$out" 2>&1 || bad=1
    for pat in "$@"; do grep -q "$pat" "$out" || bad=1; done
    if [ $bad -eq 0 ]; then
        echo "ok: $what (order, --nodes 2, counters)"
    else
        echo "FAILED: $what (order, --nodes 2, counters)"; cat "$out"; fail=1
    fi
}

# The protocol repaired something: the counters show injected faults,
# retransmissions and dropped copies, and with sack datagrams held after a
# gap.
repaired() {
    held=.
    [ "${CLUMPI_AGENT_ARQ:-sack}" = sack ] && held="held [1-9]"
    counted "faults injected and repaired${CLUMPI_AGENT_ARQ:+, $CLUMPI_AGENT_ARQ}" \
        "dgram: retransmits [1-9]" "duplicates dropped [1-9]" "$held" \
        "injected loss [1-9][0-9]* dup [1-9][0-9]* reorder [1-9]" \
        "fault injection on receive: loss $CLUMPI_AGENT_LOSS"
}

# As repaired, for REL=host: the ranks sent packets again (some found
# lost by time) and dropped copies, the agents found datagrams lost,
# passed latecomers on and resent none.
repaired_host() {
    counted "REL=host: faults repaired by the ranks" \
        "REL=host: packets kept [1-9][0-9]*, sent again [1-9]" \
        "REL=host: .*found lost by time [1-9]" "REL=host: .*duplicates dropped [1-9]" \
        "dgram: retransmits 0 .*REL=host packets lost [1-9][0-9]* (late after all: passed on [1-9]"
}

# bcast_repaired NODES NP ALGO: test_agent_coll under REL=host with
# CLUMPI_AGENT_STATS=1 passes and its ranks repaired broadcast packets
# the tree lost (else the NI broadcast did not run, or nothing was lost).
bcast_repaired() {
    if env CLUMPI_AGENT_STATS=1 timeout -k 5 120 "$MPIRUN" --nodes "$1" -n "$2" --timeout 100 \
           "$NI" "$3" </dev/null >"$out" 2>&1 &&
       grep -q "REL=host: broadcasts short [1-9][0-9]*, packets missing [1-9]" "$out"; then
        echo "ok: REL=host: NI broadcast repaired from the root, --nodes $1 -n $2 $3"
    else
        echo "FAILED: REL=host: NI broadcast repaired, --nodes $1 -n $2 $3"; cat "$out"; fail=1
    fi
}

if [ -z "${DGRAM_TEST_FULL:-}" ]; then
    faults 0.05 1
    suite 2 "2" -- order anysource bulk
    suite 3 "3" -- sendrecv
    run 3 3 -- "$NI" ni-binary
    run 4 4 -- "$NI" ni-binomial
    T=$R; suite 2 "4" -- atomic; T=$top_builddir/test/mpi
    run 3 6 -- "$OB" 100
    repaired
    export CLUMPI_AGENT_ARQ=gbn
    suite 2 "2" -- order bulk
    run 3 3 -- "$NI" ni-binary
    repaired
    unset CLUMPI_AGENT_ARQ
    export CLUMPI_AGENT_REL=host
    echo "-- CLUMPI_AGENT_REL=host"
    suite 2 "2" -- order anysource
    run 3 3 -- "$NI" ni-binary
    run 3 6 -- "$OB" 100
    run 2 2 CLUMPI_AGENT_ARQ=gbn -- "$T/order"
    repaired_host
    bcast_repaired 2 4 ni-binomial
    faults 0.3 2
    repaired_host
    unset CLUMPI_AGENT_REL
else
    for loss in 0.05 0.3; do
        for seed in 1 2 3; do
            faults $loss $seed
            suite 2 "2" -- order anysource persistent bulk
            suite 3 "3" -- sendrecv anysource
            suite 4 "4" -- order
            run 2 4 -- "$NI" ni-binary
            run 3 3 -- "$NI" ni-binomial
            [ "$loss" = 0.05 ] && run 4 8 -- "$NI" ni-binary   # 30%: ~60 s loaded
            T=$R; suite 2 "4" -- atomic passive; T=$top_builddir/test/mpi
            run 3 6 -- "$OB" 100
            run 4 4 -- "$OB" 100
        done
        [ "$loss" = 0.3 ] && run 4 8 -- "$NI" ni-binomial
        repaired
    done
    export CLUMPI_AGENT_ARQ=gbn
    for loss in 0.05 0.3; do
        faults $loss 5
        suite 2 "2" -- order anysource persistent bulk
        suite 3 "3" -- sendrecv
        run 3 3 -- "$NI" ni-binomial
        T=$R; suite 2 "4" -- atomic; T=$top_builddir/test/mpi
        repaired
    done
    faults 0.05 6
    suite 2 "2 4" -- pingpong
    unset CLUMPI_AGENT_ARQ
    # every size class (0 B..8 MiB), without and with faults
    faults 0 1
    suite 2 "2" -- pingpong
    faults 0.05 4
    suite 2 "2 4" -- pingpong
    run 2 4 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_ACK_EVERY=1 -- "$T/order"
    run 3 6 CLUMPI_AGENT_MTU=5000 -- "$NI" ni-binomial
    export CLUMPI_AGENT_REL=host
    for loss in 0.05 0.3; do
        for seed in 1 2 3; do
            faults $loss $seed
            echo "-- CLUMPI_AGENT_REL=host"
            suite 2 "2" -- order anysource persistent bulk
            suite 3 "3" -- sendrecv anysource
            suite 4 "4" -- order
            run 2 4 -- "$NI" ni-binary
            run 3 3 -- "$NI" ni-binomial
            # the NI broadcast on more nodes (its reductions fall back);
            # at 30% one seed (~60 s loaded)
            [ "$loss" = 0.05 ] || [ "$seed" = 1 ] && run 8 8 -- "$NI" ni-binary
            # RMA and the counters go through the targets' progress here
            T=$R; suite 2 "4" -- atomic passive; T=$top_builddir/test/mpi
            run 3 6 -- "$OB" 100
            run 4 4 -- "$OB" 100
        done
        repaired_host
        bcast_repaired 4 8 ni-binary
        # the window counters (fadd_check) after the NI broadcasts, on the
        # seeds where 2 x 4 ran past its limit at a load of 40 while the
        # agents, out of credits, waited for their doubling probes
        if [ "$loss" = 0.3 ]; then
            for seed in 4 5; do faults $loss $seed; run 2 4 -- "$NI" ni-binary; done
        fi
    done
    # 4 x 8 at 30% hung in MPI_Finalize while every packet a rank still
    # held was reported held and the ack covering them was lost
    faults 0.3 1
    run 4 8 -- "$NI" ni-binomial
    for loss in 0.05 0.3; do
        faults $loss 4
        suite 2 "2 4" -- pingpong
    done
    run 2 4 CLUMPI_AGENT_WINDOW=2 CLUMPI_AGENT_ACK_EVERY=1 -- "$T/order"
    run 3 6 CLUMPI_AGENT_MTU=5000 -- "$T/order"
    unset CLUMPI_AGENT_REL
fi
faults 0 1

# Both agents stopped (SIGSTOP, one 0.2 s after the other, as a loaded host
# or a stopped job leaves them) for longer than the deadline, then
# continued: neither was silent while the other ran, so the job must go
# on. The agent stopped last and continued first finds nothing from its
# peer in its socket: counting its own absence as the peer's silence, it
# ended the job at once naming the peer. A long bench/pt2pt run, ended by
# the test 3 s after the agents continue.
both_paused() {
    pout=agent-pause.$$.out
    env CLUMPI_AGENT_PEER_TIMEOUT=3 timeout -k 5 100 "$MPIRUN" --nodes 2 -n 2 --timeout 90 \
        "$top_builddir/bench/pt2pt" lat -m 1 -i 1000 </dev/null >"$pout" 2>&1 &
    mp=$!
    agents= tries=0 pfail=0
    while [ "$(echo $agents | wc -w)" -lt 2 ] && [ $tries -lt 300 ]; do
        sleep 0.1; tries=$((tries + 1)); agents=
        for p in $(desc $mp); do
            [ "$(cat /proc/"$p"/comm 2>/dev/null)" = clumpi-agent ] && agents="$agents $p"
        done
    done
    procs=$(desc $mp)
    set -- $agents
    if [ $# -eq 2 ]; then
        sleep 1.5   # the ranks' ping-pong under way
        kill -STOP "$1"; sleep 0.2; kill -STOP "$2"; sleep 4.5
        kill -CONT "$2"; kill -CONT "$1"; sleep 3
        kill -0 $mp 2>/dev/null ||
            { echo "FAILED: both agents paused 4.5 s (deadline 3 s): the job ended"; pfail=1; }
        grep -q "has not answered" "$pout" &&
            { echo "FAILED: both agents paused: a peer taken for silent"; pfail=1; }
        kill -TERM $mp 2>/dev/null
    else
        echo "FAILED: both agents paused: not two agents under mpirun (pid $mp)"; pfail=1
    fi
    wait $mp
    sleep 0.5
    for p in $procs; do
        if alive "$p"; then echo "FAILED: process $p left: $(ps -o args= -p "$p")"; pfail=1; fi
    done
    if [ $pfail -eq 0 ]; then
        echo "ok: both agents paused 4.5 s (deadline 3 s): the job went on"
    else
        cat "$pout"; fail=1
    fi
    rm -f "$pout"
}
both_paused

# A peer agent killed: its node's ranks end the job; stopped (silent):
# the other agent's deadline does.
agent_stop KILL "NI agent of node"
agent_stop KILL "NI agent of node" CLUMPI_AGENT_REL=host CLUMPI_AGENT_LOSS=0.3 \
    CLUMPI_AGENT_DUP=0.15 CLUMPI_AGENT_REORDER=0.15
STOP_PROG="$top_builddir/bench/coll -o bcast -S 65536 -i 1000000" \
    agent_stop KILL "NI agent of node" CLUMPI_AGENT_REL=host CLUMPI_COLL_BCAST=ni-binary \
    CLUMPI_AGENT_LOSS=0.3 CLUMPI_AGENT_DUP=0.15 CLUMPI_AGENT_REORDER=0.15
agent_stop STOP "has not answered for" CLUMPI_AGENT_PEER_TIMEOUT=2
agent_stop STOP "has not answered for" CLUMPI_AGENT_PEER_TIMEOUT=2 CLUMPI_AGENT_REL=host
refused CLUMPI_AGENT_REL=fast -- "CLUMPI_AGENT_REL=fast is not a valid value; accepted: ni, host"
refused CLUMPI_AGENT_REL=host CLUMPI_AGENT_TRANSPORT=reliable -- \
    "CLUMPI_AGENT_REL=host needs CLUMPI_AGENT_TRANSPORT=dgram"
rm -f "$out"
exit $fail
