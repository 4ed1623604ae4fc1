#!/bin/sh
# Every MPI_Scan and MPI_Exscan algorithm, forced by name.
d=$(dirname "$0")
"$d/run-coll" test/coll/reduce_algos SCAN "default linear recdbl" scan || exit
exec "$d/run-coll" test/coll/reduce_algos EXSCAN "default linear recdbl" exscan
