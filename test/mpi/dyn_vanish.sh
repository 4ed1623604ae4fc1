#!/bin/sh
# dyn_vanish.sh — a connected process of another job dies while we receive
# from it: job A (the server, 2 ranks) accepts job B (the client, 1 rank)
# through the name service (test/mpi/dyn_vanish.c); once both sides have
# talked, every rank of A waits in MPI_Recv from B's rank, which is killed
# with SIGKILL. A's mpirun must end, non-zero, within LIMIT seconds (10 by
# default; the probes of CLUMPI_DYN_PROBE_S, 5 s, find the death), its
# message naming the lost process of the other job. With CLUMPI_TEST_NODES
# A spans that many emulated nodes (in offload mode too, CLUMPI_NET=agent).
here=$(dirname "$0")
. "$here/mpirun-env.sh"
clumpi_test_bin dyn_vanish.sh dyn_vanish
limit=${LIMIT:-10}
nodes=${CLUMPI_TEST_NODES:-1}
[ "$nodes" -gt 2 ] && nodes=2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CLUMPI_NAMESERVER="$tmp/names"
fail=0
timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n 2 --nodes "$nodes" "$bin" server "vanish $$" \
    > "$tmp/server.out" 2>&1 &
spid=$!
timeout 60 "$MPIRUN" $MPIRUN_FLAGS -n 1 "$bin" client "vanish $$" "$tmp/pid" \
    > "$tmp/client.out" 2>&1 &
cpid=$!
for i in $(seq 300); do
    [ -s "$tmp/pid" ] && break
    sleep 0.1
done
if [ ! -s "$tmp/pid" ]; then
    echo "FAIL dyn_vanish.sh: the client never connected"
    cat "$tmp/server.out" "$tmp/client.out"
    kill $spid $cpid 2>/dev/null
    exit 1
fi
sleep 0.5   # the server ranks are in MPI_Recv by now
start=$(date +%s)
kill -9 "$(cat "$tmp/pid")"
wait $spid
src=$?
took=$(( $(date +%s) - start ))
wait $cpid
cat "$tmp/server.out" "$tmp/client.out"
if [ $src -eq 0 ] || [ $src -eq 124 ] || [ $took -gt "$limit" ]; then
    echo "FAIL dyn_vanish.sh: the server ended with status $src after $took s"
    fail=1
elif ! grep -q "lost the connection to a process of another job" "$tmp/server.out"; then
    echo "FAIL dyn_vanish.sh: the server's message does not name the lost process"
    fail=1
fi
[ $fail -eq 0 ] && echo "PASS dyn_vanish.sh (the server ended $took s after the kill)"
exit $fail
