#!/bin/sh
# Every MPI_Reduce algorithm, forced by name (binary with segments of 1 KiB +- 1 byte).
d=$(dirname "$0")
. "$d/reduction-variants"
exec "$d/run-coll" test/coll/reduce_algos REDUCE "$V_REDUCE $V_REDUCE_SEG" reduce
