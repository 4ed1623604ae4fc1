#!/bin/sh
# Every MPI_Allgather algorithm, forced by name (Allgatherv: ring).
exec "$(dirname "$0")/run-coll" test/coll/allgather ALLGATHER "default ring recdbl bruck hier shm shm,CLUMPI_SHM_CMA=0"
