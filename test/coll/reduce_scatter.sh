#!/bin/sh
# Every MPI_Reduce_scatter and MPI_Reduce_scatter_block algorithm, forced by name.
d=$(dirname "$0")
. "$d/reduction-variants"
"$d/run-coll" test/coll/reduce_algos REDUCE_SCATTER "$V_REDUCE_SCATTER" reduce_scatter || exit
exec "$d/run-coll" test/coll/reduce_algos REDUCE_SCATTER_BLOCK "$V_REDUCE_SCATTER_BLOCK" \
    reduce_scatter_block
