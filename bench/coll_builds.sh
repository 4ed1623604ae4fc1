#!/bin/sh
# bench/coll_builds.sh — two clumpi builds side by side: the same bench/coll
# source (this tree's) linked against each build's library, run by each
# build's mpirun, interleaved rank count by rank count and round by round.
# Writes OUTDIR/coll.csv and OUTDIR/ratio.txt, one line per point: op,
# ranks, bytes, the best of the rounds (slowest rank's average, µs) of
# OLD and of NEW, and NEW / OLD (above 1: NEW slower); prints how many
# points there are, their geometric mean and those above 1.1.
#
# usage: bench/coll_builds.sh OLDBUILD NEWBUILD [-N NODES] [-n "2 4 8 16"]
#                             [-o OPS] [-S SIZES] [-r ROUNDS] [-d OUTDIR]
# BUILD: a configured and built clumpi tree (make; src/include/mpi.h,
# .libs/libmpi.so, src/tools/mpirun). OPS and SIZES: comma lists.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { sed -n '2,14p' "$0"; exit 2; }
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
shift 2
tree() { if [ "$1" = old ]; then echo "$old"; else echo "$new"; fi; }
nodes=2 nps="2 4 8 16" rounds=3 outdir=bench-coll-builds
ops=allreduce,reduce,bcast,allgather,alltoall,gather,scatter,reduce_scatter,barrier
sizes=8,1024,65536,1048576
while getopts N:n:o:S:r:d: f; do
    case $f in
    N) nodes=$OPTARG ;; n) nps=$OPTARG ;; o) ops=$OPTARG ;; S) sizes=$OPTARG ;;
    r) rounds=$OPTARG ;; d) outdir=$OPTARG ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
    esac
done
mkdir -p "$outdir" || exit 1
csv=$outdir/coll.csv
: > "$csv"
for b in old new; do
    t=$(tree $b)
    cc -O2 -I"$t/src/include" -I"$here" -o "$outdir/coll-$b" "$here/coll.c" \
        -L"$t/.libs" -lmpi -Wl,-rpath,"$t/.libs" -lm || exit 1
done
nflag=
[ "$nodes" -gt 1 ] && nflag="--nodes $nodes"
for r in $(seq "$rounds"); do
    for np in $nps; do
        echo "== round $r: $np ranks, $nodes node(s), load $(cut -d' ' -f1 /proc/loadavg)"
        for b in old new; do
            t=$(tree $b)
            # shellcheck disable=SC2086
            "$t/src/tools/mpirun" -n "$np" $nflag "$outdir/coll-$b" -o "$ops" -S "$sizes" \
                -l "$b" -c "$csv" > /dev/null || echo "coll_builds.sh: $b, $np ranks: exit $?" >&2
        done
    done
done
awk -F, '($1 == "old" || $1 == "new") && NF >= 10 {
        k = $2 " " $4 " " $6; i = $1 SUBSEP k
        if (!(i in b) || $9 + 0 < b[i]) b[i] = $9 + 0
        K[k] = 1
    }
    END {
        for (k in K)
            if ((("old" SUBSEP k) in b) && (("new" SUBSEP k) in b) && b["old" SUBSEP k] > 0)
                printf "%s %.3f %.3f %.2f\n", k, b["old" SUBSEP k], b["new" SUBSEP k],
                       b["new" SUBSEP k] / b["old" SUBSEP k]
    }' "$csv" | sort -k1,1 -k2n -k3n > "$outdir/ratio.txt"
awk '{ s += log($6); n++; if ($6 > 1.1) { w++; l = l "\n  " $0 } }
     END { if (n) printf "%d points, geometric mean new/old %.2f, above 1.1: %d%s\n",
                         n, exp(s / n), w, l }' "$outdir/ratio.txt"
