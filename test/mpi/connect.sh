#!/bin/sh
# connect.sh — MPI_Comm_accept/connect between two jobs started by separate
# mpiruns (test/mpi/connect.c), which find each other through the name
# service (a private CLUMPI_NAMESERVER directory; the server publishes, the
# client looks up): a server job of 2 and a client job of 3, then 1 and 4;
# each run bounded by MPI_TEST_TIMEOUT; no name is left published (the
# one the server leaves, its mpirun removes). The client outlives
# the server after disconnecting: both must pass, the client after the
# server has exited. With CLUMPI_TEST_NODES the jobs span that many
# emulated nodes (in offload mode too, CLUMPI_NET=agent).
here=$(dirname "$0")
. "$here/mpirun-env.sh"
clumpi_test_bin connect.sh connect
nodes=${CLUMPI_TEST_NODES:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CLUMPI_NAMESERVER="$tmp/names"
fail=0
for sizes in "2 3" "1 4"; do
    set -- $sizes
    n1=$nodes; [ "$n1" -gt "$1" ] && n1=$1
    n2=$nodes; [ "$n2" -gt "$2" ] && n2=$2
    timeout "$MPI_TEST_TIMEOUT" "$MPIRUN" $MPIRUN_FLAGS -n "$1" --nodes "$n1" "$bin" server \
        "svc $1" > "$tmp/server.out" 2>&1 &
    spid=$!
    timeout "$MPI_TEST_TIMEOUT" "$MPIRUN" $MPIRUN_FLAGS -n "$2" --nodes "$n2" "$bin" client \
        "svc $1" > "$tmp/client.out" 2>&1
    crc=$?
    wait $spid
    src=$?
    cat "$tmp/server.out" "$tmp/client.out"
    if [ $src -ne 0 ] || [ $crc -ne 0 ] || ! grep -q "PASS connect" "$tmp/server.out" ||
       ! grep -q "PASS connect" "$tmp/client.out"; then
        echo "FAIL connect.sh: server of $1 (exit $src), client of $2 (exit $crc)"
        fail=1
    fi
done
if [ -n "$(ls -A "$tmp/names" 2>/dev/null)" ]; then
    echo "FAIL connect.sh: names left published: $(ls "$tmp/names")"
    fail=1
fi
[ $fail -eq 0 ] && echo "PASS connect.sh"
exit $fail
