#!/bin/sh
# reductions.sh — every reduction algorithm in make check-long, in fewer
# jobs than reduce.sh, allreduce.sh, reduce_scatter.sh and scan.sh (make
# check's form, one job per algorithm and rank count) would take:
# - one job forces one algorithm of each of the six reductions at once
#   (zip-variants: every algorithm of every operation still runs on every
#   rank count and node split run-coll makes, not in every combination)
#   and checks all six (reduce_algos "all");
# - binary reduce with segments of 1 KiB +- 1 byte in jobs of its own
#   (the segment size is one variable for every operation), without the
#   megabyte counts (COLL_BIG=0: the default segment size has them);
# - every predefined op x type through every Allreduce algorithm
#   (op_pairs) on 3 and 4 ranks and 7 ranks on 3 nodes (and the node
#   splits of the hier and default forms): the op kernels do not change
#   with the rank count, the algorithms' paths do, and reduce_algos runs
#   every rank count with representative ops and types.
d=$(dirname "$0")
. "$d/reduction-variants"
all=$("$d/zip-variants" ALLREDUCE "$V_ALLREDUCE" REDUCE "$V_REDUCE" \
    REDUCE_SCATTER "$V_REDUCE_SCATTER" REDUCE_SCATTER_BLOCK "$V_REDUCE_SCATTER_BLOCK" \
    SCAN "$V_SCAN" EXSCAN "$V_EXSCAN") || exit
"$d/run-coll" test/coll/reduce_algos ALLREDUCE "$all" all || exit
seg=$(echo "$V_REDUCE_SEG" | sed 's/\([^ ]*\)/\1,COLL_BIG=0/g')
"$d/run-coll" test/coll/reduce_algos REDUCE "$seg" reduce || exit
COLL_NP=${COLL_NP:-"3 4"} COLL_NODES=${COLL_NODES:-"3:7"} \
    exec "$d/run-coll" test/coll/op_pairs ALLREDUCE "$V_ALLREDUCE"
