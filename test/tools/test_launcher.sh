#!/bin/sh
# test_launcher.sh — mpirun: PMI service, emulated nodes and hosts started
# here, exit status, failure handling, output labels, stdin, environment,
# bad input, signals, binding report. (Remote hosts: test/netns.)
. "${top_srcdir:-$(dirname "$0")/../..}/test/tools/common.sh"

[ -x "$MPIRUN" ] || { echo "no $MPIRUN: build it first"; exit 99; }
[ -x "$PMI_PROG" ] || { echo "no $PMI_PROG: make check builds it"; exit 99; }

# A copy under a name no other process has, so pgrep finds only our ranks.
UNIQ=$TMP/pmiprog_uniq_$$
cp "$PMI_PROG" "$UNIQ"
# (pgrep from this shell: a "sh -c" around it would match its own command line)
none_left() { ! pgrep -f "$UNIQ" >/dev/null; }
one_line() { [ "$(grep -c "^mpirun: " "$TMP/err")" -eq 1 ]; }

# --- the PMI service -------------------------------------------------------
run -n 4 "$PMI_PROG"
check "4 ranks put/barrier/get and finalize" [ $rc -eq 0 ]
check "4 ok lines" [ "$(grep -c ' of 4 ok nodes=1 singleton=0' "$TMP/out")" -eq 4 ]
run -n 1 "$PMI_PROG"
check "1 rank under mpirun is not a singleton" grep -q "rank 0 of 1 ok nodes=1 singleton=0" "$TMP/out"
"$PMI_PROG" >"$TMP/out" 2>"$TMP/err"; rc=$?
check "singleton without mpirun" [ $rc -eq 0 ]
check "singleton says so" grep -q "rank 0 of 1 ok nodes=1 singleton=1" "$TMP/out"
run -n 16 "$PMI_PROG" --quiet
check "16 ranks on few cores" [ $rc -eq 0 ]

# --- nodes -------------------------------------------------------------------
run -n 8 --nodes 4 "$PMI_PROG"
check "--nodes 4: 8 ranks see 4 nodes" [ "$(grep -c ' of 8 ok nodes=4 ' "$TMP/out")" -eq 8 ]
check "--nodes 4: blocks of 2 (rank 5 on node 2)" grep -q '^rank 5 of 8 ok .* node=2$' "$TMP/out"
run -n 7 --nodes 3 -v sh -c 'echo "$PMI_RANK $CLUMPI_LOCAL_RANK/$CLUMPI_LOCAL_SIZE"'
check "-n 7 --nodes 3: 3+2+2, local ranks per node" sh -c "grep -qx '2 2/3' '$TMP/out' && grep -qx '3 0/2' '$TMP/out' && grep -qx '6 1/2' '$TMP/out'"
check "-n 7 --nodes 3: mapping" grep -q '^mpirun: PMI_process_mapping (vector,(0,1,3),(1,2,2))$' "$TMP/err"
check "-v: node layout" sh -c "grep -q '^mpirun: node 0: host .* (emulated node), 3 ranks: 0-2$' '$TMP/err' && grep -q '^mpirun: node 2: host .* (emulated node), 2 ranks: 5-6$' '$TMP/err'"
run -n 6 -ppn 2 --emulate-nodes "$PMI_PROG"
check "-ppn 2 --emulate-nodes: 3 nodes" [ "$(grep -c ' of 6 ok nodes=3 ' "$TMP/out")" -eq 6 ]
run -n 5 -ppn 2 --emulate-nodes "$PMI_PROG"
check "-n 5 -ppn 2 --emulate-nodes: 3 nodes, last of 1" sh -c "[ \$(grep -c ' of 5 ok nodes=3 ' '$TMP/out') -eq 5 ] && grep -q '^rank 4 of 5 ok .* node=2$' '$TMP/out'"
CLUMPI_VERBOSE=1 run -n 2 --nodes 2 true
check "CLUMPI_VERBOSE=1 prints the layout" grep -q '^mpirun: node 1: ' "$TMP/err"
run -n 4 --nodes 2 --bind-to core --report-bindings true
check "emulated nodes bind over the whole machine (rank 2 not on rank 0's core)" sh -c "[ \"\$(sed -n 's/^mpirun: rank 0: bound to \([a-zA-Z]* [0-9]*\) .*/\1/p' '$TMP/err')\" != \"\$(sed -n 's/^mpirun: rank 2: bound to \([a-zA-Z]* [0-9]*\) .*/\1/p' '$TMP/err')\" ] || [ $(nproc) -lt 3 ]"
run -n 4 --hosts a:3,b --launcher fork "$PMI_PROG"
check "--hosts with --launcher fork: named nodes here, slots fill in order" sh -c "[ \$(grep -c ' of 4 ok nodes=2 ' '$TMP/out') -eq 4 ] && grep -q '^rank 2 of 4 ok .* node=0$' '$TMP/out' && grep -q '^rank 3 of 4 ok .* node=1$' '$TMP/out'"
run -n 3 --hosts localhost "$PMI_PROG"
check "--hosts localhost: started here without ssh" [ "$(grep -c ' of 3 ok nodes=1 ' "$TMP/out")" -eq 3 ]
printf 'localhost slots=2 # here\n# a comment\n\n' >"$TMP/hosts"
run -n 2 --hostfile "$TMP/hosts" -v "$PMI_PROG"
check "--hostfile: localhost slots=2" sh -c "[ $rc -eq 0 ] && grep -q '^mpirun: node 0: host localhost, 2 ranks: 0-1$' '$TMP/err'"

# --- MPMD: several programs in one job ---------------------------------------
run -n 2 sh -c 'echo "a $PMI_RANK/$PMI_SIZE"' : -n 3 sh -c 'echo "b $PMI_RANK/$PMI_SIZE"'
check "MPMD: 2 + 3 ranks, consecutive, one job" sh -c "[ $rc -eq 0 ] && grep -qx 'a 1/5' '$TMP/out' && grep -qx 'b 2/5' '$TMP/out' && grep -qx 'b 4/5' '$TMP/out' && [ \$(wc -l < '$TMP/out') -eq 5 ]"
run -n 2 true : -n 2
check "MPMD: ':' without a program is a usage error" [ $rc -eq 2 ]
run -n 1 true : -n 1 /nonexistent/prog
check "MPMD: a missing second program exits 127" [ $rc -eq 127 ]

# --- exit status -------------------------------------------------------------
run -n 3 true
check "non-MPI program, all exit 0" [ $rc -eq 0 ]
run -n 2 sh -c 'exit 3'
check "exit status 3 propagates" [ $rc -eq 3 ]
run -n 4 "$PMI_PROG" --exit 2 7
check "rank exiting 7 gives 7" [ $rc -eq 7 ]
check "exit: one line naming rank 2" sh -c "grep -q 'rank 2 (pid [0-9]*) exited with status 7' '$TMP/err'"

# --- failures end the job ----------------------------------------------------
run -n 4 "$UNIQ" --crash 2
check "crash: status 128+11" [ $rc -eq 139 ]
check "crash: ends within 2 s ($secs ms)" [ $secs -lt 2000 ]
check "crash: one line" one_line
check "crash: the line names rank and signal" grep -q "rank 2 (pid [0-9]*) was killed by signal 11 (Segmentation fault); ending the job" "$TMP/err"
check "crash: no process left" none_left

run -n 4 "$UNIQ" --abort 1 5
check "abort: status is the code" [ $rc -eq 5 ]
check "abort: one line" one_line
check "abort: line" grep -q "mpirun: rank 1 called MPI_Abort with code 5; ending the job" "$TMP/err"
check "abort: ends within 2 s ($secs ms)" [ $secs -lt 2000 ]
check "abort: no process left" none_left

run -n 3 "$UNIQ" --nofinalize 0 --sleep 30
check "no finalize: non-zero status" [ $rc -ne 0 ]
check "no finalize: line" grep -q "rank 0 (pid [0-9]*) exited without calling MPI_Finalize" "$TMP/err"
check "no finalize: one line" one_line
check "no finalize: within 2 s ($secs ms)" [ $secs -lt 2000 ]
check "no finalize: no process left" none_left

run -n 2 --timeout 1 "$UNIQ" --sleep 30
check "timeout: status 124" [ $rc -eq 124 ]
check "timeout: one line" one_line
check "timeout: within 3 s ($secs ms)" [ $secs -lt 3000 ]
check "timeout: no process left" none_left

# Ranks that ignore SIGTERM, with a child of their own, still go.
run -n 2 --timeout 0.5 sh -c "trap '' TERM; $UNIQ --sleep 30 & wait"
check "SIGTERM ignored: killed anyway within 2.5 s ($secs ms)" [ $secs -lt 2500 ]
check "SIGTERM ignored: rank's child gone too" none_left

# --- signals to mpirun ---------------------------------------------------------
"$MPIRUN" -n 3 "$UNIQ" --sleep 30 >"$TMP/out" 2>"$TMP/err" </dev/null &
mp=$!
sleep 0.5
kill -TERM $mp
wait $mp; rc=$?
check "SIGTERM to mpirun: status 143" [ $rc -eq 143 ]
check "SIGTERM to mpirun: one line" one_line
sleep 0.1
check "SIGTERM to mpirun: no process left" none_left
# A non-interactive shell starts background jobs with SIGINT ignored; with
# job control (set -m) it does not.
sh -c "set -m; '$MPIRUN' -n 2 '$UNIQ' --sleep 30 >'$TMP/out' 2>'$TMP/err' </dev/null & p=\$!; sleep 0.5; kill -INT \$p; wait \$p" 2>/dev/null
rc=$?
check "Ctrl-C (SIGINT): status 130" [ $rc -eq 130 ]
check "Ctrl-C: no process left" none_left

# --- output ----------------------------------------------------------------------
run -n 3 -l "$PMI_PROG" --lines 500 --quiet
check "-l: 1500 lines" [ "$(lines_of "$TMP/out")" -eq 1500 ]
check "-l: every line has its rank's prefix" sh -c "! grep -v '^\[\([0-2]\)\] rank \1 line [0-9]*$' '$TMP/out'"
run -n 2 "$PMI_PROG" --lines 300 --quiet
check "no -l: lines pass through whole" [ "$(grep -c '^rank [01] line [0-9]*$' "$TMP/out")" -eq 600 ]
run -n 2 sh -c 'echo to-stderr >&2'
check "stderr forwarded to stderr" [ "$(grep -c '^to-stderr$' "$TMP/err")" -eq 2 ]
run -n 1 sh -c 'printf "no newline"'
check "a last line without newline is kept" [ "$(cat "$TMP/out")" = "no newline" ]

# --- stdin to rank 0 ------------------------------------------------------------
printf 'alpha\nbeta\n' | timeout 30 "$MPIRUN" -n 3 "$PMI_PROG" --stdin --quiet >"$TMP/out" 2>"$TMP/err"
rc=$?
check "stdin: job ok" [ $rc -eq 0 ]
check "stdin reaches rank 0 once" [ "$(grep -c '^stdin: ' "$TMP/out")" -eq 2 ]
check "stdin content" sh -c "grep -q '^stdin: alpha$' '$TMP/out' && grep -q '^stdin: beta$' '$TMP/out'"
head -c 300000 /dev/zero | tr '\0' 'x' | timeout 30 "$MPIRUN" -n 2 sh -c 'if [ "$PMI_RANK" = 0 ]; then wc -c; else cat; fi' >"$TMP/out" 2>"$TMP/err"
check "stdin: 300 kB to rank 0 only" [ "$(tr -d ' ' <"$TMP/out")" = 300000 ]

# --- environment ------------------------------------------------------------------
run -n 2 -genv CU_T_A "a b" -x CU_T_B=bee "$PMI_PROG" --env CU_T_A --quiet
check "-genv with a space in the value" [ "$(grep -c '^env CU_T_A=a b$' "$TMP/out")" -eq 2 ]
CU_T_C=sea run -n 1 -x CU_T_C "$PMI_PROG" --env CU_T_C --quiet
check "-x NAME forwards mpirun's value" grep -q '^env CU_T_C=sea$' "$TMP/out"
run -n 1 -x CU_T_B=bee "$PMI_PROG" --env CU_T_B --quiet
check "-x NAME=VALUE" grep -q '^env CU_T_B=bee$' "$TMP/out"
run -n 2 --coll bcast=binary,allreduce=ring --coll=reduce_scatter=pairwise "$PMI_PROG" --env CLUMPI_COLL_ALLREDUCE --quiet
check "--coll: CLUMPI_COLL_ALLREDUCE=ring in every rank" [ "$(grep -c '^env CLUMPI_COLL_ALLREDUCE=ring$' "$TMP/out")" -eq 2 ]
run -n 1 --coll bcast=binary,allreduce=ring --coll=reduce_scatter=pairwise sh -c 'echo "$CLUMPI_COLL_BCAST $CLUMPI_COLL_REDUCE_SCATTER"'
check "--coll: first item and repeated option" grep -qx 'binary pairwise' "$TMP/out"
run -n 2 sh -c 'echo "$PMI_RANK/$PMI_SIZE $CLUMPI_JOB_ID $CLUMPI_LOCAL_RANK/$CLUMPI_LOCAL_SIZE"'
check "PMI_RANK/PMI_SIZE and local rank" sh -c "grep -q '^0/2 [0-9a-f]\{16\} 0/2$' '$TMP/out' && grep -q '^1/2 [0-9a-f]\{16\} 1/2$' '$TMP/out'"
id1=$(cut -d' ' -f2 "$TMP/out" | sort -u)
run -n 1 sh -c 'echo "$CLUMPI_JOB_ID"'
check "one job id per job, new each job" sh -c "[ \$(echo '$id1' | wc -l) -eq 1 ] && [ '$id1' != \"\$(cat '$TMP/out')\" ]"

# --- bad input -------------------------------------------------------------------
printf 'good\nbad:x\n' >"$TMP/badhosts"
for args in "-n 0 true" "-n -1 true" "-n abc true" "--bogus true" "-n" "" "--bind-to socket true" "--timeout 0 true" "-genv ONLYKEY" \
            "-n 2 --nodes 3 true" "--nodes 0 true" "--emulate-nodes true" "--nodes 2 --hosts a true" \
            "--hosts a:0 true" "--hosts a,,b true" "--hosts= true" "--launcher telnet true" "--launcher-exec= true" \
            "--hostfile $TMP/nonexistent true" "--hostfile $TMP/badhosts true" "--hostfile /dev/null true" \
            "--emulate-nodes=1 true" "--coll bcast true" "--coll =binary true" "--coll bcast= true" \
            "--coll bcast=binary, true" "--coll b-cast=x true"; do
    # shellcheck disable=SC2086
    run $args
    check "usage error '$args': status 2" [ $rc -eq 2 ]
    check "usage error '$args': one line" [ "$(lines_of "$TMP/err")" -eq 1 ]
done
run -n 2 "$TMP/does-not-exist"
check "missing program: 127" [ $rc -eq 127 ]
check "missing program: one line" [ "$(lines_of "$TMP/err")" -eq 1 ]
run -n 2 no-such-command-clumpi
check "command not in PATH: 127" [ $rc -eq 127 ]
printf '#!/bin/sh\n' >"$TMP/noexec"; chmod 644 "$TMP/noexec"
run -n 2 "$TMP/noexec"
check "not executable: 127" [ $rc -eq 127 ]
check "not executable: one line" grep -q "not executable" "$TMP/err"
run -n 1 "$TMP"
check "a directory: 127" [ $rc -eq 127 ]
run -n 2 --hosts somehost --launcher-exec "$TMP/no-such-launcher" true
check "missing launcher: 127, one line" sh -c "[ $rc -eq 127 ] && [ \$(wc -l <'$TMP/err') -eq 1 ]"
CLUMPI_CONNECT_TIMEOUT=abc run -n 2 --hosts somehost --launcher-exec /bin/true true
check "bad CLUMPI_CONNECT_TIMEOUT: one line" sh -c "[ $rc -ne 0 ] && [ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q CLUMPI_CONNECT_TIMEOUT '$TMP/err'"

# --- help, names, bindings ----------------------------------------------------------
run --help
check "--help: status 0, man-style" sh -c "[ $rc -eq 0 ] && grep -q '^SYNOPSIS' '$TMP/out' && grep -q '^EXIT STATUS' '$TMP/out'"
ln -s "$(cd "$(dirname "$MPIRUN")" && pwd)/mpirun" "$TMP/mpiexec"
"$TMP/mpiexec" -n 1 --bogus >/dev/null 2>"$TMP/err"
check "called as mpiexec, says mpiexec" grep -q "^mpiexec: unknown option" "$TMP/err"
run -n 3 --report-bindings true
check "--report-bindings: one line per rank" [ "$(grep -c '^mpirun: rank [0-2]: ' "$TMP/err")" -eq 3 ]
run -n 2 --bind-to none --report-bindings true
check "--bind-to none reported" [ "$(grep -c 'not bound' "$TMP/err")" -eq 2 ]
ncores=$(nproc)
run -n $((ncores + 1)) --report-bindings true
check "oversubscribed: not bound by default" [ "$(grep -c 'oversubscribed' "$TMP/err")" -eq $((ncores + 1)) ]
run -n 1 --bind-to core --report-bindings sh -c 'sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status'
cpus=$(sed -n 's/^mpirun: rank 0: bound to .* (cpus \([^)]*\)).*/\1/p' "$TMP/err")
check "--bind-to core: the rank runs on the reported cpus ($cpus)" [ -n "$cpus" -a "$cpus" = "$(cat "$TMP/out")" ]
check "--report-bindings names the NIC situation" grep -q "^mpirun: rank 0: bound to .*, \(near NIC \|far from every NIC\|no NIC found\)" "$TMP/err"

finish
