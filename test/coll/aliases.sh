#!/bin/sh
# aliases.sh — MPICH's and Open MPI's names for our collective algorithms
# (coll/select.c's alias table): each alias forced through CLUMPI_COLL_<OP>
# runs the algorithm it stands for (CLUMPI_COLL_VERBOSE=1 names it,
# "(forced)") and aliases.c checks the results, at 3 and 4 ranks, several
# operations per run; once through mpirun --coll. A name that is no true
# equivalent of ours (MPICH's "scattered" alltoall) is still refused with
# the list of valid names.
d=$(dirname "$0")
. "$d/../mpi/mpirun-env.sh"
[ "$MPIRUN_IS_CLUMPI" = yes ] || { echo "aliases.sh: clumpi's mpirun only"; exit 77; }
prog=./test/coll/aliases
status=0
fail() { echo "== FAILED: $*"; printf '%s\n' "$out" | tail -n 5; status=1; }
# run NP "op=alias=canonical ..." [mpirun options]: with options, the
# aliases come from them; else from CLUMPI_COLL_<OP>.
run() {
    np=$1 set=$2
    shift 2
    envs=
    for t in $set; do
        op=${t%%=*} rest=${t#*=}
        envs="$envs CLUMPI_COLL_$(echo "$op" | tr a-z A-Z)=${rest%%=*}"
    done
    [ $# -gt 0 ] && envs=
    # shellcheck disable=SC2086
    out=$(env $envs CLUMPI_COLL_VERBOSE=1 "$MPIRUN" $MPIRUN_FLAGS "$@" -n "$np" \
          --timeout "$MPI_TEST_TIMEOUT" "$prog" 2>&1 </dev/null)
    rc=$?
    [ $rc -eq 0 ] || { fail "$set $* with $np ranks: exit $rc"; return; }
    for t in $set; do
        op=${t%%=*} want=${t##*=}
        printf '%s\n' "$out" | grep -q "coll: rank 0: $op [0-9]* B.*: $want (forced)" ||
            fail "$t with $np ranks: $op did not run $want (forced)"
    done
    echo "== ok: $set $* with $np ranks"
}
while read -r set; do
    for np in 3 4; do
        run $np "$set"
    done
done <<'LIST'
barrier=bruck=dissemination ibarrier=bruck=dissemination bcast=linear=flat gather=basic_linear=linear scatter=basic_linear=linear allgather=recursive_doubling=recdbl alltoall=brucks=bruck reduce=reduce_scatter_gather=rabenseifner allreduce=recursive_doubling=recdbl reduce_scatter=non-overlapping=reduce_scatterv scan=recursive_doubling=recdbl exscan=recursive_doubling=recdbl
bcast=basic_linear=flat allgather=brucks=bruck allreduce=reduce_scatter_allgather=rabenseifner
bcast=k_nomial=knomial allreduce=nonoverlapping=reduce_bcast
bcast=scatter_ring_allgather=scatter_allgather
bcast=scatter_allgather_ring=scatter_allgather
LIST
run 3 "allreduce=x=rabenseifner bcast=x=knomial" --coll allreduce=reduce_scatter_allgather,bcast=k_nomial
out=$(CLUMPI_COLL_ALLTOALL=scattered "$MPIRUN" $MPIRUN_FLAGS -n 2 --timeout "$MPI_TEST_TIMEOUT" \
      "$prog" 2>&1 </dev/null)
if [ $? -eq 0 ] || ! printf '%s\n' "$out" | grep -q "no such alltoall algorithm"; then
    fail "CLUMPI_COLL_ALLTOALL=scattered was not refused"
else
    echo "== ok: alltoall=scattered refused"
fi
exit $status
