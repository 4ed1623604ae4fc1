#!/bin/sh
# Every MPI_Reduce_scatter and MPI_Reduce_scatter_block algorithm, forced by name.
d=$(dirname "$0")
"$d/run-coll" test/coll/reduce_algos REDUCE_SCATTER "default ring reduce_scatterv" reduce_scatter || exit
exec "$d/run-coll" test/coll/reduce_algos REDUCE_SCATTER_BLOCK "default ring reduce_scatter" reduce_scatter_block
