#!/bin/sh
# Every MPI_Scan and MPI_Exscan algorithm, forced by name.
d=$(dirname "$0")
. "$d/reduction-variants"
"$d/run-coll" test/coll/reduce_algos SCAN "$V_SCAN" scan || exit
exec "$d/run-coll" test/coll/reduce_algos EXSCAN "$V_EXSCAN" exscan
