#!/bin/sh
# Every MPI_Gather algorithm, forced by name (Gatherv: linear).
exec "$(dirname "$0")/run-coll" test/coll/gather GATHER "default binomial linear shm shm,CLUMPI_SHM_CMA=0"
