#!/bin/sh
# The nonblocking collectives (test/coll/nbc.c) on 1, 2, 3, 5, 8 ranks
# (1..9 and 16 with COLL_LONG=1); the blocking algorithms are the defaults.
exec "$(dirname "$0")/run-coll" test/coll/nbc NBC "default"
