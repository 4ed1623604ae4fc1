#!/bin/sh
# Every MPI_Bcast algorithm, forced by name (binary with segments of 1 KiB +- 1 byte, k-nomial with k = 2, 3, 4).
exec "$(dirname "$0")/run-coll" test/coll/bcast BCAST "default binomial binary binary,CLUMPI_COLL_SEGSIZE=1023 binary,CLUMPI_COLL_SEGSIZE=1025 knomial knomial,CLUMPI_COLL_KNOMIAL_K=3 knomial,CLUMPI_COLL_KNOMIAL_K=2 flat scatter_allgather hier shm"
