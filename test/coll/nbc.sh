#!/bin/sh
# The nonblocking collectives (test/coll/nbc.c) on 1, 2, 3, 5, 8 ranks
# (1..9 and 16 with COLL_LONG=1): once with the default schedules, once with
# the second schedule of each operation that has one (CLUMPI_COLL_I<OP>).
# The blocking algorithms are the defaults.
alt="default,CLUMPI_COLL_IBARRIER=binomial,CLUMPI_COLL_IBCAST=scatter_allgather"
alt="$alt,CLUMPI_COLL_IREDUCE=linear,CLUMPI_COLL_IALLREDUCE=reduce_bcast"
alt="$alt,CLUMPI_COLL_IALLGATHER=linear,CLUMPI_COLL_IALLGATHERV=linear"
exec "$(dirname "$0")/run-coll" test/coll/nbc NBC "default $alt"
