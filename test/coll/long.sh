#!/bin/sh
# long.sh — the collective part of make check-long: the test/coll scripts
# it is given (coll/Makefile.mk: COLL_LONG_TESTS) with COLL_LONG=1 (1-9 and
# 16 ranks, 2-4 emulated nodes, every root, long counts: see run-coll), one
# after the other, timed. The first failure
# stops it: the end of that script's log, whose "== rerun:" line is the
# command that failed.
# usage: long.sh BUILD_DIR SRC_DIR SCRIPT...   (make check-long-coll)
b=$1 s=$2
shift 2
cd "$b" || exit 2
top_builddir=. top_srcdir=$s srcdir=$s COLL_LONG=1
export top_builddir top_srcdir srcdir COLL_LONG
start=$(date +%s)
for t in "$@"; do
    log=${t%.sh}.long.log
    t0=$(date +%s)
    if sh "$s/$t" >"$log" 2>&1; then
        echo "ok   $t ($(($(date +%s) - t0)) s)"
    else
        echo "FAIL $t ($(($(date +%s) - t0)) s); the end of $b/$log:"
        tail -n 30 "$log"
        exit 1
    fi
done
echo "collectives (check-long-coll): all ok in $(($(date +%s) - start)) s"
