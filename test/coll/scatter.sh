#!/bin/sh
# Every MPI_Scatter algorithm, forced by name (Scatterv: linear).
exec "$(dirname "$0")/run-coll" test/coll/scatter SCATTER "default binomial linear shm shm,CLUMPI_SHM_CMA=0"
