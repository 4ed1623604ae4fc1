#!/bin/sh
# Communicators made and freed with the shared-memory and hierarchical
# collectives forced: their node areas go with them (test/coll/commfree.c).
exec "$(dirname "$0")/run-coll" test/coll/commfree BARRIER "shm,CLUMPI_COLL_BCAST=shm,CLUMPI_COLL_ALLREDUCE=shm hier,CLUMPI_COLL_BCAST=hier,CLUMPI_COLL_ALLREDUCE=hier"
