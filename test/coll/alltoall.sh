#!/bin/sh
# Every MPI_Alltoall algorithm, forced by name, window 1 and 3 for linear (Alltoallv/w: linear).
exec "$(dirname "$0")/run-coll" test/coll/alltoall ALLTOALL "default pairwise bruck linear linear,CLUMPI_COLL_ALLTOALL_WINDOW=1 linear,CLUMPI_COLL_ALLTOALL_WINDOW=3 shm shm,CLUMPI_SHM_CMA=0"
