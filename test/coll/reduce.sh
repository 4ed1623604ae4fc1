#!/bin/sh
# Every MPI_Reduce algorithm, forced by name (binary with segments of 1 KiB +- 1 byte).
exec "$(dirname "$0")/run-coll" test/coll/reduce_algos REDUCE "default binomial binary binary,CLUMPI_COLL_SEGSIZE=1023 binary,CLUMPI_COLL_SEGSIZE=1025 rabenseifner hier" reduce
