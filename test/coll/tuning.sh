#!/bin/sh
# tuning.sh — CLUMPI_COLL_TUNING: a small table makes test/coll/aliases
# (every result checked) run the algorithms it names, by the rules of
# doc/TUNING.md (CLUMPI_COLL_VERBOSE=1 says "(table)"): nearest rank count,
# one node against emulated nodes, the hand-written rules past a factor of
# two and for a hierarchical algorithm on one node; CLUMPI_COLL_<OP> still
# wins. A bad table ends the job at MPI_Init naming file and line. Then
# bench/coll_tune.sh's short mode measures and writes a table the library
# takes. (The parser's cases: test/unit/test_tuning.c.)
d=$(dirname "$0")
. "$d/../mpi/mpirun-env.sh"
[ "$MPIRUN_IS_CLUMPI" = yes ] || { echo "tuning.sh: clumpi's mpirun only"; exit 77; }
prog=./test/coll/aliases
top=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "== FAILED: $*"; printf '%s\n' "$out" | tail -n 5; status=1; }
# run TABLE NP "op=algo=why ..." [mpirun options]
run() {
    tbl=$1 np=$2 want=$3
    shift 3
    out=$(CLUMPI_COLL_TUNING=$tbl CLUMPI_COLL_VERBOSE=1 "$MPIRUN" $MPIRUN_FLAGS "$@" -n "$np" \
          --timeout "$MPI_TEST_TIMEOUT" "$prog" 2>&1 </dev/null)
    rc=$?
    [ $rc -eq 0 ] || { fail "$tbl $* with $np ranks: exit $rc"; return; }
    for t in $want; do
        op=${t%%=*} rest=${t#*=}
        algo=${rest%%=*} why=${rest#*=}
        printf '%s\n' "$out" | grep -q "coll: rank 0: $op [0-9]* B.*: $algo ($why)" ||
            fail "$(basename "$tbl") $* with $np ranks: $op did not run $algo ($why)"
    done
    echo "== ok: $(basename "$tbl") $* with $np ranks"
}
cat > "$tmp/small.tbl" <<'EOF'
# op nodes ranks oversub bytes algorithm
barrier 1 4 * 0- binomial
ibarrier 1 4 * 0- binomial
bcast 1 2 * 0- flat
bcast 1 4 * 0-1k binary
bcast 1 4 * 1025- knomial
gather 1 4 * 0- binomial
scatter 1 4 * 0- binomial
allgather 1 4 * 0- recdbl
allgather 2 4 * 0- ring
alltoall 1 4 * 0- bruck
reduce 1 4 * 0- binary
allreduce 1 4 * 0- reduce_bcast
allreduce 2 4 * 0- recdbl
reduce_scatter 1 4 * 0- reduce_scatterv
scan 1 4 * 0- linear
exscan 1 8 * 0- recdbl
EOF
# aliases.c: bcast of 300 ints (1200 B), 4-byte blocks, reductions of 300 ints
all="barrier=binomial=table ibarrier=binomial=table bcast=knomial=table gather=binomial=table
scatter=binomial=table alltoall=bruck=table reduce=binary=table allreduce=reduce_bcast=table
reduce_scatter=reduce_scatterv=table scan=linear=table allgather=recdbl=table"
run "$tmp/small.tbl" 4 "$all exscan=recdbl=table"   # 8 is within a factor of two
# 3 ranks: 4 is nearer than 2; 8 is too far for exscan
run "$tmp/small.tbl" 3 "$all exscan=[a-z]*=default"
run "$tmp/small.tbl" 4 "allgather=ring=table allreduce=recdbl=table" --nodes 2
# 2 ranks: bcast has its own row; 4 is within a factor of two
run "$tmp/small.tbl" 2 "bcast=flat=table gather=binomial=table exscan=[a-z]*=default"
out=$(CLUMPI_COLL_BCAST=binomial CLUMPI_COLL_TUNING=$tmp/small.tbl CLUMPI_COLL_VERBOSE=1 \
      "$MPIRUN" $MPIRUN_FLAGS -n 4 --timeout "$MPI_TEST_TIMEOUT" "$prog" 2>&1 </dev/null)
printf '%s\n' "$out" | grep -q "coll: rank 0: bcast [0-9]* B.*: binomial (forced)" &&
    printf '%s\n' "$out" | grep -q "coll: rank 0: reduce [0-9]* B.*: binary (table)" &&
    echo "== ok: CLUMPI_COLL_BCAST wins over the table" ||
    fail "CLUMPI_COLL_BCAST did not win over the table"
# a hierarchical algorithm needs several nodes: on one, the hand-written rules
printf 'barrier 1 4 * 0- hier\nbarrier 2 4 * 0- hier\n' > "$tmp/hier.tbl"
run "$tmp/hier.tbl" 4 "barrier=[a-z]*=default"
run "$tmp/hier.tbl" 4 "barrier=hier=table" --nodes 2

# bad tables: the job ends at MPI_Init, quickly, naming file and line
bad() {
    printf "$1" > "$tmp/bad.tbl"
    out=$(CLUMPI_COLL_TUNING=$tmp/bad.tbl "$MPIRUN" $MPIRUN_FLAGS -n 2 --timeout 30 "$prog" \
          2>&1 </dev/null)
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! printf '%s\n' "$out" | grep -qF "$2"; then
        fail "table '$1' (exit $rc): no \"$2\""
    else
        echo "== ok: refused: $2"
    fi
}
bad '# x\nbcast 1 4 * 0- binary\nbcast 1 4 * 0- fastest\n' \
    "CLUMPI_COLL_TUNING: $tmp/bad.tbl:3: bcast has no algorithm 'fastest'; valid: binomial, binary"
bad 'broadcast 1 4 * 0- binary\n' "$tmp/bad.tbl:1: unknown operation 'broadcast'"
bad '\n\nbcast 1 4 * 0-\n' "$tmp/bad.tbl:3: too few fields"
bad 'bcast 1 4 2 0- binary\n' "$tmp/bad.tbl:1: oversub '2' is not 0, 1 or *"
out=$(CLUMPI_COLL_TUNING=$tmp/none.tbl "$MPIRUN" $MPIRUN_FLAGS -n 1 "$prog" 2>&1 </dev/null)
[ $? -ne 0 ] && printf '%s\n' "$out" | grep -qF "$tmp/none.tbl: No such file" &&
    echo "== ok: a missing file refused" || fail "a missing table file was not refused"

# hosts that differ: node 0's ranks oversubscribed, node 1's not. Every
# rank must take the same row (the oversubscribed one: some host is), or
# the two halves run different algorithms and wait for each other.
printf 'allreduce 2 4 0 0- recdbl\nallreduce 2 4 1 0- ring\n' >"$tmp/mixed.tbl"
printf '#!/bin/sh\nif [ "$PMI_RANK" -lt 2 ]; then export CLUMPI_OVERSUBSCRIBED=1\nelse export CLUMPI_OVERSUBSCRIBED=0; fi\nexec "$@"\n' >"$tmp/mixed.sh"
chmod +x "$tmp/mixed.sh"
out=$(CLUMPI_COLL_TUNING=$tmp/mixed.tbl CLUMPI_COLL_VERBOSE=2 "$MPIRUN" $MPIRUN_FLAGS --nodes 2 -n 4 \
      --timeout 60 "$tmp/mixed.sh" "$prog" 2>&1 </dev/null)
if [ $? -eq 0 ] && printf '%s\n' "$out" | grep -q "coll: rank 3: allreduce [0-9]* B.*: ring (table)" &&
   ! printf '%s\n' "$out" | grep -q "allreduce [0-9]* B.*: recdbl (table)"; then
    echo "== ok: hosts that differ in oversubscription choose alike"
else
    fail "hosts that differ in oversubscription: allreduce picks differ or the job failed"
fi

# the tuner's short mode: a table the library takes, of every operation
if "$top/bench/coll_tune.sh" -q -b . -d "$tmp/tune" -w "$tmp/tuned.tbl" > "$tmp/tune.out" 2>&1; then
    for op in barrier bcast gather scatter allgather alltoall reduce allreduce reduce_scatter \
              reduce_scatter_block scan exscan ibarrier ibcast ireduce iallreduce iallgather; do
        grep -q "^$op 1 2 0 0-" "$tmp/tuned.tbl" && grep -q "^$op 1 3 . 0-" "$tmp/tuned.tbl" ||
            { out=$(cat "$tmp/tuned.tbl"); fail "the tuned table has no $op rows"; }
    done
    run "$tmp/tuned.tbl" 3 "bcast=[a-z_]*=table allreduce=[a-z_]*=table"
else
    out=$(cat "$tmp/tune.out" "$tmp/tune/coll_tune.log" 2>/dev/null)
    fail "bench/coll_tune.sh -q"
fi
exit $status
