# bench/coll_algos.sh — sourced by coll_run.sh and coll_tune.sh: the
# operations bench/coll_tune.sh measures and the algorithms of each that run on
# every transport, as coll/select.c names them (the ni-* and host-* ones
# need offload mode). coll_algos OP NODES: hier only where the run spans
# several nodes, shm (the node area) only where it does not: forced there,
# it would measure the default under shm's name.
coll_tune_ops="barrier bcast gather scatter allgather alltoall reduce allreduce reduce_scatter
reduce_scatter_block scan exscan ibarrier ibcast ireduce iallreduce iallgather"

coll_algos() {
    case $1 in
    barrier) a="dissemination binomial shm" h=hier ;;
    bcast) a="binomial binary knomial flat scatter_allgather shm" h=hier ;;
    gather|scatter) a="binomial linear shm" h= ;;
    allgather) a="ring recdbl bruck shm" h=hier ;;
    alltoall) a="pairwise bruck linear shm" h= ;;
    reduce) a="binomial binary rabenseifner shm" h=hier ;;
    allreduce) a="recdbl ring rabenseifner reduce_bcast shm" h=hier ;;
    reduce_scatter) a="ring reduce_scatterv shm" h= ;;
    reduce_scatter_block) a="ring reduce_scatter shm" h= ;;
    scan|exscan) a="recdbl linear" h= ;;
    ibarrier) a="dissemination binomial" h= ;;
    ibcast) a="binomial scatter_allgather" h= ;;
    ireduce) a="binomial linear" h= ;;
    iallreduce) a="recdbl reduce_bcast" h= ;;
    iallgather) a="ring linear" h= ;;
    *) a= h= ;;
    esac
    if [ "${2:-1}" -gt 1 ]; then
        a=$(echo "$a" | sed 's/ *\<shm\>//')
        echo "$a${h:+ $h}"
    else
        echo "$a"
    fi
}
