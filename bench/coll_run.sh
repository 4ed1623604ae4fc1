#!/bin/sh
# bench/coll_run.sh — runs bench/coll for every algorithm of each operation
# (forced through CLUMPI_COLL_<OP>) with clumpi, then the same program built
# with Open MPI's and MPICH's mpicc, in one go. Results: OUT/coll.csv (one
# row per mpi, op, algorithm, ranks, size) and the tables on stdout.
#
# usage: bench/coll_run.sh [-b BUILDDIR] [-n "2 8"] [-o "bcast allreduce"]
#                          [-M MAXBYTES] [-s SCALE%] [-d OUTDIR]
# BUILDDIR: clumpi build tree (default .); needs bench/coll and
# src/tools/mpirun built there (make bench/coll).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=. nps="2 8" ops="barrier bcast gather scatter allgather alltoall allreduce reduce"
max=1048576 scale=100 outdir=bench-coll-results
while getopts b:n:o:M:s:d: f; do
    case $f in
    b) build=$OPTARG ;; n) nps=$OPTARG ;; o) ops=$OPTARG ;; M) max=$OPTARG ;;
    s) scale=$OPTARG ;; d) outdir=$OPTARG ;; *) exit 2 ;;
    esac
done
mkdir -p "$outdir"
csv=$outdir/coll.csv
: > "$csv"

algos() {  # the algorithms of one operation, as coll/select.c names them
    case $1 in
    barrier) echo dissemination binomial hier shm ;;
    bcast) echo binomial binary knomial flat scatter_allgather hier shm ;;
    gather|scatter) echo binomial linear shm ;;
    allgather) echo ring recdbl bruck hier shm ;;
    alltoall) echo pairwise bruck linear shm ;;
    allreduce) echo recdbl ring rabenseifner reduce_bcast hier shm ;;
    reduce) echo binomial binary rabenseifner hier shm ;;
    esac
}
upper() { echo "$1" | tr 'a-z' 'A-Z'; }

# the peers: same source, their mpicc
for m in openmpi mpich; do
    if command -v "mpicc.$m" >/dev/null 2>&1; then
        "mpicc.$m" -O2 -o "$outdir/coll-$m" "$here/coll.c" || echo "build with $m failed" >&2
    fi
done

for np in $nps; do
    for op in $ops; do
        for a in default $(algos "$op"); do
            if [ "$a" = default ]; then
                "$build/src/tools/mpirun" -n "$np" "$build/bench/coll" -o "$op" -M "$max" \
                    -s "$scale" -c "$csv"
            else
                "$build/src/tools/mpirun" -n "$np" -genv "CLUMPI_COLL_$(upper "$op")" "$a" \
                    "$build/bench/coll" -o "$op" -M "$max" -s "$scale" -c "$csv"
            fi
        done
        [ -x "$outdir/coll-openmpi" ] &&
            mpirun.openmpi --allow-run-as-root --oversubscribe -n "$np" \
                "$outdir/coll-openmpi" -o "$op" -M "$max" -s "$scale" -c "$csv"
        [ -x "$outdir/coll-mpich" ] &&
            mpirun.mpich -n "$np" "$outdir/coll-mpich" -o "$op" -M "$max" -s "$scale" -c "$csv"
    done
done
echo "results: $csv (plot: $here/coll_plot.sh $csv)"
