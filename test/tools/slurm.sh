# slurm.sh — a one-node Slurm of the test's own, sourced by test_slurm.sh:
# slurm_start writes a slurm.conf under $SL (the test's temp folder), starts
# munged, slurmctld and slurmd as root on ports of their own and waits for
# the node to be idle; slurm_stop stops exactly those three daemons (and
# the slurmstepd they left). The node declares 8 CPUs whatever the host has
# (SlurmdParameters=config_overrides). Clients find the cluster through
# SLURM_CONF, which slurm_start exports.

# Why this host cannot run the Slurm tests, or nothing when it can.
slurm_missing() {
    [ "$(id -u)" = 0 ] || { echo "not root (slurmd and munged must run as root here)"; return; }
    for c in munged slurmctld slurmd srun salloc sinfo; do
        command -v "$c" >/dev/null 2>&1 ||
            { echo "no $c (Debian: apt-get install slurm-wlm munge, or CI_WITH_SLURM=1 .ci/setup)"; return; }
    done
    [ -r /etc/munge/munge.key ] || { echo "no /etc/munge/munge.key (the munge package makes it)"; return; }
}

SLURM_PIDS=

slurm_start() {
    SL=$1
    mkdir -p "$SL/state" "$SL/spool" "$SL/munge"
    chmod 700 "$SL/munge"
    # The pid picks the ports, so concurrent test runs do not meet.
    base=$((20000 + ($$ % 2000) * 4))
    host=$(hostname -s)
    cat >"$SL/slurm.conf" <<EOF
ClusterName=clumpitest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SrunPortRange=$((base + 2000))-$((base + 2999))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SL/munge/sock
CredType=cred/munge
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/slurmctld.log
SlurmdLogFile=$SL/slurmd.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
KillWait=2
InactiveLimit=0
MinJobAge=2
SlurmdTimeout=30
NodeName=clumpinode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=clumpi Nodes=clumpinode Default=YES MaxTime=10 State=UP OverSubscribe=YES
EOF
    # The PMIx plugin's per-step folders go under ours too: in /tmp, one a
    # killed step left would make the same step id fail in the next run.
    mkdir -p "$SL/pmix"
    echo "PMIxCliTmpDirBase=$SL/pmix" >"$SL/mpi.conf"
    export SLURM_CONF="$SL/slurm.conf"
    # The test's own slurm.conf must win over anything of the caller's.
    unset SLURM_JOB_ID SLURM_JOBID SLURM_NTASKS SLURM_NPROCS SLURM_JOB_NODELIST \
        SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_STEP_ID SLURM_CPUS_ON_NODE
    munged -F --force --socket="$SL/munge/sock" --key-file=/etc/munge/munge.key \
        --pid-file="$SL/munge/pid" --log-file="$SL/munge/log" --seed-file="$SL/munge/seed" \
        >"$SL/munged.out" 2>&1 &
    SLURM_PIDS="$!"
    i=0
    while [ ! -S "$SL/munge/sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    slurmctld -D -i -f "$SL/slurm.conf" >"$SL/slurmctld.out" 2>&1 &
    SLURM_PIDS="$SLURM_PIDS $!"
    slurmd -D -N clumpinode -f "$SL/slurm.conf" >"$SL/slurmd.out" 2>&1 &
    SLURM_PIDS="$SLURM_PIDS $!"
    # Idle: registered and ready for jobs (30 s at most).
    i=0
    while [ $i -lt 150 ]; do
        st=$(sinfo -h -n clumpinode -o %T 2>/dev/null)
        [ "$st" = idle ] && return 0
        sleep 0.2
        i=$((i + 1))
    done
    echo "slurm: the node did not become idle (state '$st'); logs:"
    tail -n 20 "$SL/slurmctld.log" "$SL/slurmd.log" "$SL/munge/log" "$SL"/*.out 2>/dev/null
    return 1
}

slurm_stop() {
    [ -n "$SLURM_PIDS" ] || return 0
    # slurmd, then slurmctld, then munged: the reverse of their start.
    for p in $(echo "$SLURM_PIDS" | awk '{ for (i = NF; i > 0; i--) print $i }'); do
        kill "$p" 2>/dev/null
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    # slurmstepd of a step cut short lives on after slurmd: end those whose
    # command line names our spool folder (no other Slurm's).
    for d in /proc/[0-9]*; do
        case "$( (tr '\0' ' ' <"$d/cmdline") 2>/dev/null)" in
        slurmstepd*) grep -qs "$SL" "$d/environ" && kill -9 "${d#/proc/}" 2>/dev/null ;;
        esac
    done
    SLURM_PIDS=
}
