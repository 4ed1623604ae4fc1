#!/bin/sh
# Every MPI_Allreduce algorithm, forced by name.
exec "$(dirname "$0")/run-coll" test/coll/reduce_algos ALLREDUCE "default recdbl ring rabenseifner reduce_bcast hier shm" allreduce
