#!/bin/sh
# Every MPI_Barrier algorithm, forced by name.
exec "$(dirname "$0")/run-coll" test/coll/bcast BARRIER "default dissemination binomial hier shm" barrier
