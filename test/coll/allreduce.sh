#!/bin/sh
# Every MPI_Allreduce algorithm, forced by name; with COLL_LONG=1 each also
# applies every predefined op to every type it is defined for (op_pairs).
d=$(dirname "$0")
. "$d/reduction-variants"
"$d/run-coll" test/coll/reduce_algos ALLREDUCE "$V_ALLREDUCE" allreduce || exit
[ "${COLL_LONG:-0}" = 0 ] || exec "$d/run-coll" test/coll/op_pairs ALLREDUCE "$V_ALLREDUCE"
