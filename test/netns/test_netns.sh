#!/bin/sh
# test_netns.sh — jobs across real (namespaced) hosts: 3 network namespaces
# on a bridge, ranks started in them with --launcher-exec "ip netns exec",
# PMI over TCP with the job secret. Checks the PMI service across hosts,
# placement, environment and stdin, failures (abort, crash, a killed rank,
# a launcher that fails, a rank that never connects, unreachable hosts) and
# that nothing is left behind, and that a wrong secret is refused. Then the
# MPI programs of mpi_tests.list (or of the arguments: "NRANKS PROG [ARGS]").
# Skips (77) where namespaces cannot be made.
. "${top_srcdir:-$(dirname "$0")/../..}/test/tools/common.sh"
. "$top_srcdir/test/netns/netns.sh"

[ -x "$MPIRUN" ] || { echo "no $MPIRUN: build it first"; exit 99; }
[ -x "$PMI_PROG" ] || { echo "no $PMI_PROG: make check builds it"; exit 99; }
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd)" "$(basename "$1")"); }
MPIRUN=$(abs "$MPIRUN")
PMI_PROG=$(abs "$PMI_PROG")
BUILD=$(cd "$top_builddir" && pwd)

trap 'netns_teardown; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
if ! netns_setup 3; then
    echo "SKIP: cannot make network namespaces here: $(netns_why)"
    exit 77
fi
H=$NETNS_HOSTS
H1=$NETNS_PREFIX-h1
H2=$NETNS_PREFIX-h2
H3=$NETNS_PREFIX-h3
LX="ip netns exec"
cd "$TMP" || exit 99

UNIQ=$TMP/pmiprog_uniq_$$
cp "$PMI_PROG" "$UNIQ"
none_left() { ! pgrep -f "$UNIQ" >/dev/null; }
# Up to 3 s for leftovers to go (a remote rank's watchdog needs a moment).
none_left_soon() { for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do none_left && return 0; sleep 0.2; done; return 1; }
one_line() { [ "$(grep -c "^mpirun: " "$TMP/err")" -eq 1 ]; }
nprocs() { pgrep -f "$UNIQ" | wc -l | tr -d ' '; }

# --- PMI across hosts ----------------------------------------------------------
run -n 6 --hosts "$H" --launcher-exec "$LX" -v "$PMI_PROG"
check "6 ranks on 3 hosts: put/barrier/get, finalize" [ $rc -eq 0 ]
check "6 ok lines, 3 nodes" [ "$(grep -c ' of 6 ok nodes=3 singleton=0 ' "$TMP/out")" -eq 6 ]
check "-v: ranks connect from their hosts' addresses" grep -q '^mpirun: rank 4 connected from 10\.200\.0\.3:' "$TMP/err"
check "block layout: ranks 2,3 on node 1" sh -c "grep -q '^rank 2 of 6 ok .* node=1$' '$TMP/out' && grep -q '^rank 3 of 6 ok .* node=1$' '$TMP/out' && grep -q '^rank 5 of 6 ok .* node=2$' '$TMP/out'"

run -n 5 --hosts "$H" --launcher-exec "$LX" -v sh -c 'echo "$PMI_RANK $(ip netns identify) $(pwd) $CLUMPI_LOCAL_RANK/$CLUMPI_LOCAL_SIZE"'
check "ranks run in their namespaces, in mpirun's directory" sh -c "
    grep -qx '0 $H1 $TMP 0/2' '$TMP/out' && grep -qx '1 $H1 $TMP 1/2' '$TMP/out' &&
    grep -qx '2 $H2 $TMP 0/2' '$TMP/out' && grep -qx '4 $H3 $TMP 0/1' '$TMP/out'"
check "-v prints the node layout" sh -c "grep -q '^mpirun: node 1: host $H2 (remote), 2 ranks: 2-3$' '$TMP/err'"

run -n 3 --hosts "$H1:2,$H2" --launcher-exec "$LX" sh -c 'echo "$PMI_RANK $(ip netns identify)"'
check "slots: host:2 takes ranks 0-1" sh -c "grep -qx '1 $H1' '$TMP/out' && grep -qx '2 $H2' '$TMP/out'"
printf '# test hosts\n%s slots=1\n\n%s:2  # two here\n' "$H2" "$H3" >"$TMP/hostfile"
run -n 3 --hostfile "$TMP/hostfile" --launcher-exec "$LX" sh -c 'echo "$PMI_RANK $(ip netns identify)"'
check "--hostfile with slots= and :N and comments" sh -c "grep -qx '0 $H2' '$TMP/out' && grep -qx '1 $H3' '$TMP/out' && grep -qx '2 $H3' '$TMP/out'"

CLUMPI_T_FWD=yes run -n 2 --hosts "$H" --launcher-exec "$LX" -genv CU_T_A "a 'b' \$HOME c" "$PMI_PROG" --env CU_T_A --quiet
check "-genv value with spaces and quotes, exec-style launcher" [ "$(grep -cx "env CU_T_A=a 'b' \$HOME c" "$TMP/out")" -eq 2 ]
CLUMPI_T_FWD=yes run -n 2 --hosts "$H" --launcher-exec "$LX" "$PMI_PROG" --env CLUMPI_T_FWD --quiet
check "CLUMPI_* variables are forwarded" [ "$(grep -cx "env CLUMPI_T_FWD=yes" "$TMP/out")" -eq 2 ]
# An rsh-like launcher hands one command line to a shell: words get quoted.
printf '#!/bin/sh\nh=$1; shift\nexec ip netns exec "$h" sh -c "$*"\n' >"$TMP/fake-rsh"
chmod +x "$TMP/fake-rsh"
run -n 2 --hosts "$H" --launcher-exec "$TMP/fake-rsh" -genv CU_T_A "a 'b' \$HOME \"c\"" "$PMI_PROG" --env CU_T_A --quiet
check "shell-style launcher (*rsh): the value arrives intact" [ "$(grep -cx "env CU_T_A=a 'b' \$HOME \"c\"" "$TMP/out")" -eq 2 ]

printf 'alpha\nbeta\n' | timeout 30 "$MPIRUN" -n 2 --hosts "$H" --launcher-exec "$LX" "$PMI_PROG" --stdin --quiet >"$TMP/out" 2>"$TMP/err"
check "stdin reaches remote rank 0 (and not the secret)" sh -c "[ \$(grep -c '^stdin: ' '$TMP/out') -eq 2 ] && grep -qx 'stdin: alpha' '$TMP/out'"
run -n 2 --hosts "$H" --launcher-exec "$LX" sh -c 'echo "secret of ${#CLUMPI_PMI_SECRET} chars"'
check "each remote rank holds the job secret" [ "$(grep -cx 'secret of 32 chars' "$TMP/out")" -eq 2 ]

# --- failures end the job ------------------------------------------------------
run -n 4 --hosts "$H" --launcher-exec "$LX" "$UNIQ" --abort 3 5
check "abort on a remote host: status 5" [ $rc -eq 5 ]
check "abort: one line" one_line
check "abort: the line" grep -q "^mpirun: rank 3 called MPI_Abort with code 5; ending the job$" "$TMP/err"
check "abort: ends within 5 s ($secs ms)" [ $secs -lt 5000 ]
check "abort: nothing left on any host" none_left

run -n 4 --hosts "$H" --launcher-exec "$LX" "$UNIQ" --crash 2
check "crash on a remote host: 139" [ $rc -eq 139 ]
check "crash: the line names rank, host and signal" grep -q "^mpirun: rank 2 (host $H2, pid [0-9]*) was killed by signal 11" "$TMP/err"
check "crash: one line" one_line
check "crash: within 5 s ($secs ms)" [ $secs -lt 5000 ]
check "crash: nothing left" none_left

"$MPIRUN" -n 6 --hosts "$H" --launcher-exec "$LX" "$UNIQ" --sleep 30 >"$TMP/out" 2>"$TMP/err" </dev/null &
mp=$!
for _ in $(seq 50); do [ "$(nprocs)" -ge 6 ] && break; sleep 0.1; done
victim=$(ip netns pids "$H2" | while read -r p; do grep -q "$UNIQ" "/proc/$p/cmdline" 2>/dev/null && echo "$p"; done | head -1)
t0=$(date +%s%N)
[ -n "$victim" ] && kill -KILL "$victim"
wait $mp; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "a rank killed on host 2: job fails (137)" [ -n "$victim" -a $rc -eq 137 ]
check "killed rank: ends within 5 s ($ms ms)" [ $ms -lt 5000 ]
check "killed rank: one line naming it" sh -c "[ \$(grep -c '^mpirun: ' '$TMP/err') -eq 1 ] && grep -q 'host $H2, pid $victim) was killed by signal 9' '$TMP/err'"
check "killed rank: nothing left on any host" none_left

"$MPIRUN" -n 4 --hosts "$H" --launcher-exec "$LX" "$UNIQ" --sleep 30 >"$TMP/out" 2>"$TMP/err" </dev/null &
mp=$!
for _ in $(seq 50); do [ "$(nprocs)" -ge 4 ] && break; sleep 0.1; done
kill -TERM $mp
wait $mp; rc=$?
check "SIGTERM to mpirun: 143" [ $rc -eq 143 ]
check "SIGTERM to mpirun: nothing left on any host" none_left

# A launcher that does not take the rank with it when killed, as ssh does
# not: the rank must end itself once mpirun's PMI connection closes.
# (stdin through fd 3: sh gives background jobs /dev/null for stdin)
printf '#!/bin/sh\nh=$1; shift\nexec 3<&0\nsetsid ip netns exec "$h" "$@" <&3 &\nwait\n' >"$TMP/detach"
chmod +x "$TMP/detach"
run -n 2 --hosts "$H" --launcher-exec "$TMP/detach" --timeout 1 "$UNIQ" --sleep 30
check "detached remote ranks: job ends on --timeout (124)" [ $rc -eq 124 ]
check "detached remote ranks end themselves when PMI closes" none_left_soon
check "detached ranks say why" grep -q "lost the connection to mpirun" "$TMP/err"

# --- the job secret ----------------------------------------------------------------
# The port is open only until every rank connected: the intruders come while
# a launcher holds the ranks back, then one more comes after.
printf '#!/bin/sh\nwhile [ ! -e "%s" ]; do sleep 0.05; done\nexec ip netns exec "$@"\n' "$TMP/go" >"$TMP/held"
chmod +x "$TMP/held"
rm -f "$TMP/go" "$TMP/err"   # (the wait below must not read the last run's)
"$MPIRUN" -v -n 2 --hosts "$H1,$H2" --launcher-exec "$TMP/held" "$UNIQ" --sleep 2 >"$TMP/out" 2>"$TMP/err" </dev/null &
mp=$!
pmi_addr_of "$TMP/err" 50
ip netns exec "$H3" env -u PMI_FD PMI_PORT="$addr" PMI_ID=0 CLUMPI_PMI_SECRET=00112233445566778899aabbccddeeff \
    "$PMI_PROG" >"$TMP/intruder.out" 2>"$TMP/intruder.err"
irc=$?
ip netns exec "$H3" env -u PMI_FD PMI_PORT="$addr" PMI_ID=1 "$PMI_PROG" >/dev/null 2>"$TMP/intruder2.err"
irc2=$?
touch "$TMP/go"
for _ in $(seq 50); do grep -q "the PMI service is closed" "$TMP/err" && break; sleep 0.1; done
ip netns exec "$H3" env -u PMI_FD PMI_PORT="$addr" PMI_ID=0 CLUMPI_PMI_SECRET=00112233445566778899aabbccddeeff \
    CLUMPI_CONNECT_TIMEOUT=1 "$PMI_PROG" >/dev/null 2>"$TMP/intruder3.err"
irc3=$?
wait $mp; rc=$?
check "wrong secret: the intruder fails" [ -n "$addr" -a $irc -ne 0 ]
check "wrong secret: the intruder is told" grep -q "refused this rank's job secret" "$TMP/intruder.err"
check "wrong secret: refused and logged with the peer's address" grep -q "^mpirun: refused a PMI connection from 10\.200\.0\.3:[0-9]*: wrong job secret$" "$TMP/err"
check "no secret (a Hydra-style client): refused" sh -c "[ $irc2 -ne 0 ] && grep -q 'from 10\.200\.0\.3:[0-9]*: no job secret presented' '$TMP/err'"
check "every rank in: the port is closed to later comers" sh -c "[ $irc3 -ne 0 ] && grep -q 'the PMI service is closed' '$TMP/err'"
check "refused connections do not harm the job" [ $rc -eq 0 -a "$(grep -c ' of 2 ok ' "$TMP/out")" -eq 2 ]

# --- bad input: launchers, hosts, addresses ---------------------------------------
run -n 2 --hosts "$H1,nosuch-$$" --launcher-exec "$LX" "$UNIQ"
check "launcher fails for a host: non-zero" [ $rc -ne 0 ]
check "launcher fails: one mpirun line naming rank and host" sh -c "[ \$(grep -c '^mpirun: ' '$TMP/err') -eq 1 ] && grep -q '^mpirun: rank 1 (host nosuch-$$, pid [0-9]*) ended with status 255 before connecting to mpirun; ending the job' '$TMP/err'"
check "launcher fails: quick ($secs ms)" [ $secs -lt 5000 ]
check "launcher fails: nothing left" none_left
run -n 2 --hosts "$H" --launcher-exec "/nonexistent/launcher -x" "$UNIQ"
check "missing launcher: 127, one line" sh -c "[ $rc -eq 127 ] && [ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q 'launcher /nonexistent/launcher' '$TMP/err'"
run -n 2 --hosts "$H" --launcher-exec "$LX" /nonexistent/prog
check "program missing on the hosts: fails with 127 quickly" sh -c "[ $rc -eq 127 ] && [ $secs -lt 5000 ]"

# Rank 1 sleeps instead of starting (its command line names $UNIQ, so
# none_left sees it); rank 0 waits for it in the PMI barrier.
printf '#!/bin/sh\nif [ "$PMI_RANK" = 1 ]; then exec sh -c "sleep 30; :" "$1"; fi\nexec "$1"\n' >"$TMP/noconnect"
chmod +x "$TMP/noconnect"
CLUMPI_CONNECT_TIMEOUT=1 run -n 2 --hosts "$H" --launcher-exec "$LX" "$TMP/noconnect" "$UNIQ"
check "a rank that never connects: the job fails" [ $rc -ne 0 ]
check "never connects: one line naming it" grep -q "^mpirun: rank 1 ($H2) did not connect to mpirun's PMI service at .* within 1 s" "$TMP/err"
check "never connects: within 4 s ($secs ms)" [ $secs -lt 4000 ]
check "never connects: nothing left" none_left

CLUMPI_PMI_HOST=10.200.0.99 CLUMPI_CONNECT_TIMEOUT=1 run -n 2 --hosts "$H" --launcher-exec "$LX" "$UNIQ"
check "unreachable PMI address: fails" [ $rc -ne 0 ]
check "PMI address not of this host: mpirun cannot listen there, one line" sh -c "[ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q 'PMI service for remote ranks at 10.200.0.99 (CLUMPI_PMI_HOST): ' '$TMP/err'"
check "unreachable PMI address: within 6 s ($secs ms)" [ $secs -lt 6000 ]
check "unreachable PMI address: nothing left" none_left

if command -v ssh >/dev/null 2>&1; then
    # 10.200.0.1 is host 1, where no sshd listens; nothing has 10.200.0.77.
    CLUMPI_CONNECT_TIMEOUT=2 HOME=$TMP run -n 2 --hosts 10.200.0.1 --launcher ssh "$UNIQ"
    check "ssh refused: ssh's status 255" [ $rc -eq 255 ]
    check "ssh refused: mpirun's line says so" grep -q "^mpirun: rank [01] (host 10.200.0.1, pid [0-9]*) ended with status 255 before connecting to mpirun (ssh could not run it there)" "$TMP/err"
    check "ssh refused: quick ($secs ms)" [ $secs -lt 5000 ]
    CLUMPI_CONNECT_TIMEOUT=2 HOME=$TMP run -n 1 --hosts 10.200.0.77 "$UNIQ"
    check "ssh to an unreachable host: 255 within 6 s ($secs ms)" [ $rc -eq 255 -a $secs -lt 6000 ]
else
    echo "note: no ssh client; the ssh checks are skipped"
fi

# --- MPI programs across the hosts ------------------------------------------------
if [ $# -gt 0 ]; then
    for t in "$@"; do echo "$t"; done >"$TMP/mpi_tests"
else
    grep -v '^[[:space:]]*\(#\|$\)' "$top_srcdir/test/netns/mpi_tests.list" >"$TMP/mpi_tests" ||
        { echo "no MPI programs in $top_srcdir/test/netns/mpi_tests.list"; exit 99; }
fi
while read -r np prog args; do
    [ -n "$prog" ] || continue
    case $prog in /*) p=$prog ;; *) p=$BUILD/$prog ;; esac
    if [ ! -x "$p" ]; then
        echo "note: $prog not built; skipped"
        continue
    fi
    # shellcheck disable=SC2086
    run -n "$np" --hosts "$H" --launcher-exec "$LX" --timeout 50 "$p" $args
    check "MPI across hosts: $np ranks of $prog $args" [ $rc -eq 0 ]
done <"$TMP/mpi_tests"

finish
