#!/bin/sh
# test_pmi_listener.sh — mpirun's PMI port for ranks on other hosts: it
# listens only on the address the ranks are given (loopback when every
# host is this one), closes once every rank connected, and no number of
# silent, garbage or wrong-secret connections keeps a rank out; refusals
# are logged a few lines at a time. The "other hosts" are this one: a
# stand-in launcher starts the ranks here once the test has flooded the port.
. "${top_srcdir:-$(dirname "$0")/../..}/test/tools/common.sh"

FLOOD=$top_builddir/test/tools/pmi_flood
[ -x "$MPIRUN" ] && [ -x "$PMI_PROG" ] && [ -x "$FLOOD" ] || { echo "build first"; exit 99; }
[ -r /proc/net/tcp ] || { echo "SKIP: no /proc/net/tcp"; exit 77; }

GO=$TMP/go
cat >"$TMP/fakelaunch" <<EOS
#!/bin/sh
shift
while [ ! -e "$GO" ]; do sleep 0.05; done
exec "\$@"
EOS
chmod +x "$TMP/fakelaunch"

# start ARGS...: mpirun -v in the background, its ranks held back; sets
# $pid and the service's $host and $port.
start() {
    rm -f "$GO" "$TMP/err"
    timeout -k 5 60 "$MPIRUN" -v --launcher-exec "$TMP/fakelaunch" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null &
    pid=$!
    pmi_addr_of "$TMP/err" 100
    host=${addr%:*} port=${addr##*:}
}
release() { touch "$GO"; }
finish_job() { release; wait $pid; rc=$?; }
# The local addresses (hex, as /proc/net/tcp{,6} write them) listening on port $1.
listening() {
    hex=$(printf '%04X' "$1")
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { print $2 }'
}
refused() { grep -c 'refused a PMI connection' "$TMP/err"; }

# --- the bound address ---------------------------------------------------------
start -n 2 --hosts localhost,127.0.0.1 "$PMI_PROG"
check "hosts that are this one: the service is on loopback ($addr)" [ "$host" = 127.0.0.1 ]
check "listening on 127.0.0.1 only ($(listening "$port" | tr '\n' ' '))" \
    [ "$(listening "$port")" = "0100007F:$(printf '%04X' "$port")" ]
finish_job
check "the job ran" sh -c "[ $rc -eq 0 ] && [ \$(grep -c ' of 2 ok ' '$TMP/out') -eq 2 ]"
check "closed once every rank connected (said with -v)" grep -q "every remote rank connected: the PMI service is closed" "$TMP/err"

CLUMPI_PMI_HOST=127.0.0.1 start -n 2 --hosts nosuchhost-a,nosuchhost-b "$PMI_PROG"
check "CLUMPI_PMI_HOST=127.0.0.1: only there" \
    [ "$(listening "$port")" = "0100007F:$(printf '%04X' "$port")" ]
finish_job
check "CLUMPI_PMI_HOST=127.0.0.1: the job ran" [ $rc -eq 0 ]

CLUMPI_PMI_HOST=192.0.2.1 run -n 2 --hosts nosuchhost-a --launcher-exec "$TMP/fakelaunch" true
check "CLUMPI_PMI_HOST not ours: one clear line" sh -c "[ $rc -ne 0 ] && [ \$(wc -l <'$TMP/err') -eq 1 ] && grep -q 'CLUMPI_PMI_HOST' '$TMP/err'"

# --- the port closes while the ranks still run --------------------------------
start -n 2 --hosts localhost,127.0.0.1 sh -c '"$0" && sleep 3' "$PMI_PROG"
release
for _ in $(seq 100); do
    grep -q "the PMI service is closed" "$TMP/err" && break
    sleep 0.1
done
check "after every rank connected nothing listens on $port" [ -z "$(listening "$port")" ]
finish_job
check "... and the job ends well" [ $rc -eq 0 ]

# --- 200 silent connections during the start ---------------------------------
start -n 3 --hosts localhost,127.0.0.1,localhost "$PMI_PROG"
"$FLOOD" "$host" "$port" 200 5 >"$TMP/flood" &
fpid=$!
for _ in $(seq 50); do grep -q connected "$TMP/flood" && break; sleep 0.1; done
check "200 silent connections made" grep -qx "connected 200" "$TMP/flood"
finish_job
kill "$fpid" 2>/dev/null; wait "$fpid" 2>/dev/null
check "200 silent connections: the ranks still got in" sh -c "[ $rc -eq 0 ] && [ \$(grep -c ' of 3 ok ' '$TMP/out') -eq 3 ]"

# held past the secret's deadline, they are dropped, and logged briefly
start -n 2 --hosts localhost,127.0.0.1 "$PMI_PROG"
"$FLOOD" "$host" "$port" 200 5 >"$TMP/flood"
finish_job
check "silent connections dropped within the secret's deadline" grep -qx "closed by mpirun 200 of 200" "$TMP/flood"
check "the job ran after them" [ $rc -eq 0 ]
check "refusals: at most 5 lines, then a count ($(refused) lines)" \
    sh -c "[ $(refused) -le 5 ] && grep -q 'refused 19[0-9] more PMI connections' '$TMP/err'"

# --- the listener's fuzz: garbage and wrong secrets, then the ranks -------------
for seed in 1 2 3; do
    start -n 2 --hosts localhost,127.0.0.1 "$PMI_PROG"
    "$FLOOD" "$host" "$port" 40 2 "$seed" >"$TMP/flood"
    "$FLOOD" "$host" "$port" 40 3 "$((seed + 100))" >/dev/null &
    fpid=$!
    finish_job
    wait "$fpid"
    check "fuzz seed $seed: mpirun survived and the ranks got in" \
        sh -c "[ $rc -eq 0 ] && [ \$(grep -c ' of 2 ok ' '$TMP/out') -eq 2 ]"
    check "fuzz seed $seed: refusals logged at most 5 a window ($(refused))" [ "$(refused)" -le 10 ]
done

finish
