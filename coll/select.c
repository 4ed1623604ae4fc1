/*
 * select.c — THE selection table: every collective algorithm a user can
 * force by name, and the defaults by message size, ranks and nodes.
 *
 * The defaults come first from the measured table (coll/tuning.c: the
 * built-in coll/tuning_default.txt written by bench/coll_tune.sh, or
 * CLUMPI_COLL_TUNING's file). The rules below pick where it has no row for
 * a call: rank counts far from the measured ones, a non-commutative op the
 * measured winner cannot keep in order, operations it does not list.
 *
 * Why these rules (measured with bench/coll; doc/PERFORMANCE.md):
 * - small messages are latency-bound, and on oversubscribed cores every
 *   step may wait for a peer to be scheduled, so the fewest rounds win
 *   (binomial, dissemination, Bruck);
 * - large messages are bandwidth-bound: pipelined binary trees and
 *   scatter+allgather keep every link busy, the ring moves each byte once;
 * - across nodes (1 < nodes < ranks) the hierarchical forms send one message
 *   per node pair instead of one per rank pair;
 * - when a host's ranks outnumber its cores (mpid_oversubscribed), barrier
 *   and small allreduces go through the node area (coll/..._shm.c): each rank
 *   needs its core once to arrive and once to leave, instead of once per
 *   round; with a core each, messages are as fast and the rule stays off;
 *   oversubscribed, broadcasts above 8 KiB and gathers of blocks above
 *   64 KiB take the shm forms too (staged by the root, or single copy from /
 *   into the root), and
 *   reduces above 32 KiB the shm form to 64 KiB (staged in the node area:
 *   a non-root copies its vector in and leaves), then the trees (binary to
 *   128 KiB, then binomial) instead of Rabenseifner's twice as many
 *   rounds, allgathers and alltoalls the shm forms (small: every rank's data in its slot; blocks
 *   past the eager limit: one round of single copies), and scatters of
 *   blocks past the eager limit the shm form (each rank reads its block
 *   from the root: the root's core is not needed per receiver),
 *   reduce-scatters (small: every rank's input in its slot; above 64 KiB
 *   each rank combines its block by single copy), and 8-rank allreduces
 *   above 64 KiB (each rank combines its slice by single copy).
 * Rules of one operation are tried in order; the first whose bounds hold
 * picks the algorithm.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll_impl.h"
#include "coll/ni.h"
#include "coll/select.h"
#include "coll/tuning.h"
#include "src/util/log.h"
#include "src/util/param.h"

#define F(fn) ((coll_anyfn)(fn))
#define ANY SIZE_MAX
#define ALL INT_MAX
#define NALG(a) ((int)(sizeof a / sizeof a[0]))
#define H COLL_ALGO_NODES
#define A COLL_ALGO_AREA

/* ---- data movement ----------------------------------------------------- */
static const coll_algo barrier_algos[] = {
    { "dissemination", F(coll_barrier_dissemination), 0 },
    { "binomial", F(coll_barrier_binomial), 0 },
    { "hier", F(coll_barrier_hier), H },
    { "shm", F(coll_barrier_shm), A },   /* flags in the node area (coll/barrier_shm.c) */
    /* a zero-byte allreduce in the NI agents (coll/reduce_ni.c) */
    { "ni-binary", F(coll_barrier_ni_binary), 0 },
    { "ni-binomial", F(coll_barrier_ni_binomial), 0 },
};
static const coll_rule barrier_rules[] = {
    { ANY, ALL, 2, 0, "hier" },
    { ANY, ALL, 1, 0, "shm", 1 },   /* oversubscribed: 8 ranks on 2 cores 18 us vs 25 */
    { ANY, ALL, 1, 0, "dissemination" },
};

static const coll_algo bcast_algos[] = {
    { "binomial", F(coll_bcast_binomial), 0 },
    { "binary", F(coll_bcast_binary), 0 },
    { "knomial", F(coll_bcast_knomial), 0 },
    { "flat", F(coll_bcast_flat), 0 },
    { "scatter_allgather", F(coll_bcast_scatter_allgather), 0 },
    { "hier", F(coll_bcast_hier), H },
    { "shm", F(coll_bcast_shm), A },   /* through the node area (coll/bcast_shm.c) */
    /* NI-forwarded trees over nodes (coll/bcast_ni.c, CLUMPI_NET=agent), and
     * whole-message forwarding by the ranks under its name from Verstoep et al. */
    { "ni-binary", F(coll_bcast_ni_binary), 0 },
    { "ni-binomial", F(coll_bcast_ni_binomial), 0 },
    { "host-message", F(coll_bcast_binomial), 0 },
    /* the agents' packets, forwarded by one rank per node (Verstoep et al.'s l-sdma-hmc) */
    { "host-packet", F(coll_bcast_host_packet_binomial), 0 },
    { "host-packet-binary", F(coll_bcast_host_packet_binary), 0 },
};
static const coll_rule bcast_rules[] = {
    { 16384, 2, 1, 0, "flat" },
    { ANY, 2, 1, 0, "shm" },   /* both copy half, no rendezvous packets */
    { ANY, 2, 1, 0, "binomial" },   /* 2 nodes: one message */
    { ANY, ALL, 2, 0, "hier" },
    { 8192, ALL, 1, 0, "binomial" },
    { ANY, ALL, 1, 0, "shm", 1 },   /* oversubscribed: the root stages it and leaves */
    { 16384, ALL, 1, 0, "binomial" },
    { 524288, 7, 1, 0, "binary" },
    { ANY, ALL, 1, 0, "scatter_allgather" },
};

static const coll_algo gather_algos[] = {
    { "binomial", F(coll_gather_binomial), 0 },
    { "linear", F(coll_gather_linear), 0 },
    { "shm", F(coll_gather_shm), A },   /* slots, or writes into the root (coll/gather_shm.c) */
};
static const coll_rule gather_rules[] = {  /* bytes: one rank's block */
    /* 2 ranks: the same one message as the tree, without its packing */
    { 2048, 2, 1, 0, "linear" },
    { 2048, ALL, 1, 0, "binomial" },
    { 65536, ALL, 1, 0, "linear" },
    { ANY, ALL, 1, 0, "shm", 1 },   /* oversubscribed: each rank writes into the root */
    { ANY, ALL, 1, 0, "linear" },
};

static const coll_algo gatherv_algos[] = {
    { "linear", F(coll_gatherv_linear), 0 },
};
static const coll_rule gatherv_rules[] = {
    { ANY, ALL, 1, 0, "linear" },
};

static const coll_algo scatter_algos[] = {
    { "binomial", F(coll_scatter_binomial), 0 },
    { "linear", F(coll_scatter_linear), 0 },
    { "shm", F(coll_scatter_shm), A },   /* slots, or reads from the root */
};
static const coll_rule scatter_rules[] = {  /* bytes: one rank's block */
    { 2048, 2, 1, 0, "linear" },   /* as gather's */
    { 2048, ALL, 1, 0, "binomial" },
    { 32768, ALL, 1, 0, "linear" },   /* eager when oversubscribed: the root sends and leaves */
    { ANY, ALL, 1, 0, "shm", 1 },   /* oversubscribed: each rank reads its block from the root */
    { ANY, ALL, 1, 0, "linear" },
};

static const coll_algo scatterv_algos[] = {
    { "linear", F(coll_scatterv_linear), 0 },
};
static const coll_rule scatterv_rules[] = {
    { ANY, ALL, 1, 0, "linear" },
};

static const coll_algo allgather_algos[] = {
    { "ring", F(coll_allgather_ring), 0 },
    { "recdbl", F(coll_allgather_recdbl), 0 },
    { "bruck", F(coll_allgather_bruck), 0 },
    { "hier", F(coll_allgather_hier), H },
    { "shm", F(coll_allgather_shm), A },   /* slots, or single copy (coll/allgather_shm.c) */
};
static const coll_rule allgather_rules[] = {  /* bytes: the whole result */
    { 262144, ALL, 2, 0, "hier" },
    { 16384, ALL, 1, 0, "shm", 1 },   /* oversubscribed: one round, no message */
    /* 2 ranks: from 1 KiB blocks the slot or one single copy each, where
     * eager blocks cost two copies and 1 MiB the rendezvous' handshakes */
    { 2048, 2, 1, 0, "recdbl" },
    { ANY, 2, 1, 0, "shm" },
    { 32768, ALL, 1, 1, "recdbl" },
    { 32768, ALL, 1, 0, "bruck" },
    /* oversubscribed, blocks past the eager limit (32 KiB): one flag round
     * and single copies, where each ring step waits for both neighbours'
     * handshake; eager blocks stay with messages (16 ranks: recdbl, a ring
     * of 15 steps waits 3x as long) */
    { ANY, 4, 1, 0, "shm", 1 },
    { 131072, 8, 1, 0, "ring" },
    { ANY, 8, 1, 0, "shm", 1 },
    { 65536, 16, 1, 0, "shm", 1 },   /* 16 ranks: blocks of a slot */
    { 262144, 16, 1, 1, "recdbl", 1 },
    { 262144, 16, 1, 0, "ring" },
    { 4194304, 16, 1, 0, "shm", 1 },
    { ANY, ALL, 1, 0, "ring" },
};

static const coll_algo allgatherv_algos[] = {
    { "ring", F(coll_allgatherv_ring), 0 },
};
static const coll_rule allgatherv_rules[] = {
    { ANY, ALL, 1, 0, "ring" },
};

static const coll_algo alltoall_algos[] = {
    { "pairwise", F(coll_alltoall_pairwise), 0 },
    { "bruck", F(coll_alltoall_bruck), 0 },
    { "linear", F(coll_alltoall_linear), 0 },
    { "shm", F(coll_alltoall_shm), A },   /* slots, or single copy (coll/alltoall_shm.c) */
};
static const coll_rule alltoall_rules[] = {  /* bytes: one block */
    { 256, 2, 1, 0, "linear" },
    { ANY, 2, 1, 0, "shm" },   /* the slot, or one single copy each way */
    /* oversubscribed, all of a rank's blocks in one slot (COLL_SHM_SLOT):
     * one round, no message; beyond a slot its single copies lose */
    { 256, 16, 1, 0, "shm", 1 },
    { 1024, 4, 1, 0, "shm", 1 },
    { 256, ALL, 1, 0, "bruck" },
    { 8192, ALL, 1, 0, "linear" },
    /* oversubscribed, larger blocks: one flag round and single copies
     * instead of a handshake per pair; above 64 KiB 5-16 ranks keep
     * the pairs */
    { 65536, 16, 1, 0, "shm", 1 },
    { 32768, ALL, 1, 0, "linear" },
    /* 3-4 ranks, larger blocks too: each pairwise step's rendezvous
     * needs both partners on a core, single copies need none */
    { ANY, 4, 1, 0, "shm", 1 },
    { ANY, ALL, 1, 0, "pairwise" },
};

static const coll_algo alltoallv_algos[] = {
    { "linear", F(coll_alltoallv_linear), 0 },
};
static const coll_rule alltoallv_rules[] = {
    { ANY, ALL, 1, 0, "linear" },
};

static const coll_algo alltoallw_algos[] = {
    { "linear", F(coll_alltoallw_linear), 0 },
};
static const coll_rule alltoallw_rules[] = {
    { ANY, ALL, 1, 0, "linear" },
};

/* ---- reductions: maintained with src/coll_reduce_entry.c ---------------
 * Add each algorithm of coll/reduce_*.c, allreduce_*.c, reduce_scatter*.c,
 * scan*.c here as it lands: { "name", F(coll_<op>_<name>), flags }, with
 * COLL_ALGO_ORDERED when it combines operands in rank order, and a rule
 * naming it.
 * Reductions (why: reduce_*.c / allreduce_*.c headers; figures:
 * doc/PERFORMANCE.md):
 * - short vectors: recursive doubling / binomial, the fewest rounds;
 * - long ones: Rabenseifner or the ring (about 2n bytes per rank instead of
 *   n log2 p); the ring where p is not a power of two (Rabenseifner's fold
 *   costs a whole extra message there);
 * - non-commutative ops skip the unordered rows and land on the ordered
 *   ones at the end (recdbl, binomial/binary, reduce_scatterv, scans). */
#define O COLL_ALGO_ORDERED
static const coll_algo reduce_algos[] = {
    { "binomial", F(coll_reduce_binomial), O },
    { "binary", F(coll_reduce_binary), O },
    { "rabenseifner", F(coll_reduce_rabenseifner), 0 },
    { "hier", F(coll_reduce_hier), H },
    { "shm", F(coll_reduce_shm), O | A },   /* slots, or split across the node (coll/reduce_shm.c) */
    /* combined in the NI agents (coll/reduce_ni.c, CLUMPI_NET=agent) */
    { "ni-binary", F(coll_reduce_ni_binary), 0 },
    { "ni-binomial", F(coll_reduce_ni_binomial), 0 },
};
static const coll_rule reduce_rules[] = {
    { ANY, ALL, 2, 0, "hier" },
    { 32768, ALL, 1, 0, "binomial" },
    { ANY, 2, 1, 0, "binomial" },   /* one message against halving's two */
    /* oversubscribed: every round waits for a peer to be scheduled, so
     * the fewest rounds win over halving's 2 log2 p: staged in the node
     * area, a non-root needs its core once (coll/reduce_shm.c); above its
     * staging parts two pipelined eager segments up the binary tree, then
     * whole messages up the binomial one */
    { 65536, ALL, 1, 0, "shm", 1 },
    { 131072, 8, 1, 0, "binary", 1 },
    { ANY, ALL, 1, 0, "binomial", 1 },
    { ANY, ALL, 1, 0, "rabenseifner" },
    { ANY, ALL, 1, 0, "binary" },
};
static const coll_algo allreduce_algos[] = {
    { "recdbl", F(coll_allreduce_recdbl), O },
    { "ring", F(coll_allreduce_ring), 0 },
    { "rabenseifner", F(coll_allreduce_rabenseifner), 0 },
    { "reduce_bcast", F(coll_allreduce_reduce_bcast), O },
    { "hier", F(coll_allreduce_hier), H },
    { "shm", F(coll_allreduce_shm), O | A },   /* through the node area */
    { "ni-binary", F(coll_allreduce_ni_binary), 0 },
    { "ni-binomial", F(coll_allreduce_ni_binomial), 0 },
};
static const coll_rule allreduce_rules[] = {
    { ANY, ALL, 2, 0, "hier" },
    { 4096, ALL, 1, 0, "shm", 1 },   /* oversubscribed, up to COLL_SHM_SLOT */
    { 16384, ALL, 1, 0, "recdbl" },
    { ANY, 4, 1, 1, "rabenseifner" },
    { 65536, ALL, 1, 1, "rabenseifner" },
    /* oversubscribed 8 ranks: two flag rounds, each rank combining its
     * slice by single copy, where halving and doubling wait for 6 partners
     * in turn (3 of the messages past the cooperative-copy size) */
    { ANY, 8, 1, 1, "shm", 1 },
    { ANY, ALL, 1, 1, "rabenseifner" },
    { ANY, ALL, 1, 0, "ring" },
    { ANY, ALL, 1, 0, "recdbl" },
};
static const coll_algo reduce_scatter_algos[] = {
    { "ring", F(coll_reduce_scatter_ring), 0 },
    { "reduce_scatterv", F(coll_reduce_scatter_reduce_scatterv), O },
    { "shm", F(coll_reduce_scatter_shm), O | A },   /* one round through the node area */
};
static const coll_rule reduce_scatter_rules[] = {  /* bytes: the whole input */
    /* 2 ranks: one exchange of halves, both combining, against the whole
     * vector reduced to rank 0 and a half sent back; but for one element
     * the reduce is one message, the ring two (the empty block back) */
    { 8, 2, 1, 0, "reduce_scatterv" },
    { 32768, 2, 1, 0, "ring" },
    /* tiny inputs leave blocks empty, and the reduce's leaves never wait */
    { 64, ALL, 1, 0, "reduce_scatterv" },
    { 4096, ALL, 1, 0, "shm", 1 },   /* oversubscribed, up to COLL_SHM_SLOT */
    { 32768, ALL, 1, 0, "reduce_scatterv" },
    { 65536, ALL, 1, 0, "ring" },
    /* oversubscribed: two flag rounds, each rank combining its block of
     * every input by single copy, where the ring waits p - 1 times for a
     * neighbour's handshake */
    { ANY, ALL, 1, 0, "shm", 1 },
    { ANY, ALL, 1, 0, "ring" },
    { ANY, ALL, 1, 0, "reduce_scatterv" },
};
static const coll_algo reduce_scatter_block_algos[] = {
    { "ring", F(coll_reduce_scatter_block_ring), 0 },
    { "reduce_scatter", F(coll_reduce_scatter_block_reduce_scatter), O },
    { "shm", F(coll_reduce_scatter_block_shm), O | A },
};
static const coll_rule reduce_scatter_block_rules[] = {
    { 64, ALL, 1, 0, "reduce_scatter" },
    { 4096, ALL, 1, 0, "shm", 1 },
    { 32768, ALL, 1, 0, "reduce_scatter" },
    { 65536, ALL, 1, 0, "ring" },
    { ANY, ALL, 1, 0, "shm", 1 },
    { ANY, ALL, 1, 0, "ring" },
    { ANY, ALL, 1, 0, "reduce_scatter" },
};
static const coll_algo scan_algos[] = {
    { "recdbl", F(coll_scan_recdbl), O },
    { "linear", F(coll_scan_linear), O },
};
static const coll_rule scan_rules[] = {
    { 65536, ALL, 1, 0, "recdbl" },
    { ANY, ALL, 1, 0, "linear" },
};
static const coll_algo exscan_algos[] = {
    { "recdbl", F(coll_exscan_recdbl), O },
    { "linear", F(coll_exscan_linear), O },
};
static const coll_rule exscan_rules[] = {
    { 65536, ALL, 1, 0, "recdbl" },
    { ANY, ALL, 1, 0, "linear" },
};

/* ---- nonblocking forms: schedules (coll/nbc_*.c) -----------------------
 * The first algorithm of each is the one every call ran before there was a
 * choice, and stays the default: a schedule's rounds run in the progress of
 * whatever the application does meanwhile, and the others are not yet
 * measured against them as schedules. The others: scatter+allgather for
 * large broadcasts (2n bytes per rank instead of n log2 p at the root),
 * linear exchanges for small blocks (one round), trees for the fewest
 * messages. */
static const coll_algo ibarrier_algos[] = {
    { "dissemination", F(coll_nbc_barrier), 0 },
    { "binomial", F(coll_nbc_barrier_binomial), 0 },
};
static const coll_rule ibarrier_rules[] = {
    { ANY, ALL, 1, 0, "dissemination" },
};
static const coll_algo ibcast_algos[] = {
    { "binomial", F(coll_nbc_bcast), 0 },
    { "scatter_allgather", F(coll_nbc_bcast_scatter_allgather), 0 },
};
static const coll_rule ibcast_rules[] = {
    { ANY, ALL, 1, 0, "binomial" },
};
static const coll_algo ireduce_algos[] = {
    { "binomial", F(coll_nbc_reduce), O },
    { "linear", F(coll_nbc_reduce_linear), O },
};
static const coll_rule ireduce_rules[] = {
    { ANY, ALL, 1, 0, "binomial" },
};
static const coll_algo iallreduce_algos[] = {
    { "recdbl", F(coll_nbc_allreduce), O },
    { "reduce_bcast", F(coll_nbc_allreduce_reduce_bcast), O },
};
static const coll_rule iallreduce_rules[] = {
    { ANY, ALL, 1, 0, "recdbl" },
};
static const coll_algo iallgather_algos[] = {
    { "ring", F(coll_nbc_allgather), 0 },
    { "linear", F(coll_nbc_allgather_linear), 0 },
};
static const coll_rule iallgather_rules[] = {
    { ANY, ALL, 1, 0, "ring" },
};
#undef O

/* ---- the table --------------------------------------------------------- */
typedef struct coll_optab {
    const char      *op;      /* lower case; CLUMPI_COLL_<upper case> */
    const coll_algo *algos;
    int              nalgos;
    const coll_rule *rules;
    int              nrules;
} coll_optab;

#define ROW(name, a, r) { name, a, NALG(a), r, NALG(r) }
static const coll_optab table[COLL_OP_COUNT] = {
    [COLL_OP_BARRIER]    = ROW("barrier", barrier_algos, barrier_rules),
    [COLL_OP_BCAST]      = ROW("bcast", bcast_algos, bcast_rules),
    [COLL_OP_GATHER]     = ROW("gather", gather_algos, gather_rules),
    [COLL_OP_GATHERV]    = ROW("gatherv", gatherv_algos, gatherv_rules),
    [COLL_OP_SCATTER]    = ROW("scatter", scatter_algos, scatter_rules),
    [COLL_OP_SCATTERV]   = ROW("scatterv", scatterv_algos, scatterv_rules),
    [COLL_OP_ALLGATHER]  = ROW("allgather", allgather_algos, allgather_rules),
    [COLL_OP_ALLGATHERV] = ROW("allgatherv", allgatherv_algos, allgatherv_rules),
    [COLL_OP_ALLTOALL]   = ROW("alltoall", alltoall_algos, alltoall_rules),
    [COLL_OP_ALLTOALLV]  = ROW("alltoallv", alltoallv_algos, alltoallv_rules),
    [COLL_OP_ALLTOALLW]  = ROW("alltoallw", alltoallw_algos, alltoallw_rules),
    /* reductions: maintained with src/coll_reduce_entry.c */
    [COLL_OP_REDUCE]     = ROW("reduce", reduce_algos, reduce_rules),
    [COLL_OP_ALLREDUCE]  = ROW("allreduce", allreduce_algos, allreduce_rules),
    [COLL_OP_REDUCE_SCATTER] = ROW("reduce_scatter", reduce_scatter_algos,
                                   reduce_scatter_rules),
    [COLL_OP_REDUCE_SCATTER_BLOCK] = ROW("reduce_scatter_block", reduce_scatter_block_algos,
                                         reduce_scatter_block_rules),
    [COLL_OP_SCAN]       = ROW("scan", scan_algos, scan_rules),
    [COLL_OP_EXSCAN]     = ROW("exscan", exscan_algos, exscan_rules),
    [COLL_OP_IBARRIER]   = ROW("ibarrier", ibarrier_algos, ibarrier_rules),
    [COLL_OP_IBCAST]     = ROW("ibcast", ibcast_algos, ibcast_rules),
    [COLL_OP_IREDUCE]    = ROW("ireduce", ireduce_algos, ireduce_rules),
    [COLL_OP_IALLREDUCE] = ROW("iallreduce", iallreduce_algos, iallreduce_rules),
    [COLL_OP_IALLGATHER] = ROW("iallgather", iallgather_algos, iallgather_rules),
    [COLL_OP_IALLGATHERV] = ROW("iallgatherv", iallgather_algos, iallgather_rules),
};

/* ---- overrides, read again after a parameter is written (MPI_T) -------- */
static unsigned env_gen;
static int verbose;
static const coll_algo *forced[COLL_OP_COUNT];
static const char *forced_bad[COLL_OP_COUNT];   /* unknown name given */
static char upper[COLL_OP_COUNT][40];            /* the op in CLUMPI_COLL_<OP> */
static atomic_int area_warned[COLL_OP_COUNT];   /* a forced shm refused, said once */
static char errmsg[COLL_OP_COUNT][512];
/* The algorithm each rule names, looked up once instead of by name in
 * every call (rules past RULES_MAX are looked up by name). */
#define RULES_MAX 14
static const coll_algo *rule_algo[COLL_OP_COUNT][RULES_MAX];

static const coll_algo *find_algo(const coll_optab *t, const char *name)
{
    for (int i = 0; i < t->nalgos; i++)
        if (t->algos[i].name && strcmp(t->algos[i].name, name) == 0)
            return &t->algos[i];
    return NULL;
}

/* MPICH's (MPIR_CVAR_<OP>_INTRA_ALGORITHM) and Open MPI's (coll tuned)
 * names for algorithms we have, accepted wherever a user names one; each
 * maps only to the same method. op NULL: every operation that has it. */
static const struct { const char *op, *alias, *name; } aliases[] = {
    { NULL, "recursive_doubling", "recdbl" },
    { NULL, "brucks", "bruck" },
    { NULL, "k_nomial", "knomial" },
    { "barrier", "bruck", "dissemination" },   /* Open MPI's: rank+2^k each round */
    { "ibarrier", "bruck", "dissemination" },
    { "bcast", "linear", "flat" },
    { "bcast", "basic_linear", "flat" },
    { "bcast", "scatter_ring_allgather", "scatter_allgather" },   /* binomial scatter, ring */
    { "bcast", "scatter_allgather_ring", "scatter_allgather" },
    { "gather", "basic_linear", "linear" },
    { "scatter", "basic_linear", "linear" },
    { "reduce", "reduce_scatter_gather", "rabenseifner" },
    { "allreduce", "reduce_scatter_allgather", "rabenseifner" },
    { "allreduce", "nonoverlapping", "reduce_bcast" },
    { "reduce_scatter", "non-overlapping", "reduce_scatterv" },   /* reduce, then scatterv */
};

/* name, or the algorithm another MPI's name for it stands for. */
static const coll_algo *find_algo_or_alias(const coll_optab *t, const char *name)
{
    const coll_algo *a = find_algo(t, name);
    for (size_t i = 0; !a && i < sizeof aliases / sizeof aliases[0]; i++)
        if ((!aliases[i].op || !strcmp(aliases[i].op, t->op)) &&
            !strcmp(aliases[i].alias, name))
            a = find_algo(t, aliases[i].name);
    return a;
}

/* ---- the measured table (coll/tuning.c) -------------------------------- */
static coll_tuning tuned;
static int tuned_loaded;
static unsigned tuned_gen;   /* bumped when a table is loaded (by_table's memo) */
extern const char coll_tuning_default[];   /* coll/tuning_default.txt, built in */

static int op_by_name(const char *name)
{
    for (int op = 0; op < COLL_OP_COUNT; op++)
        if (!strcmp(table[op].op, name))
            return op;
    return -1;
}

static int algo_by_name(int op, const char *name, char *valid, size_t len)
{
    const coll_algo *a = find_algo_or_alias(&table[op], name);
    if (a)
        return (int)(a - table[op].algos);
    size_t n = 0;
    for (int i = 0; i < table[op].nalgos && n < len; i++)
        n += (size_t)snprintf(valid + n, len - n, "%s%s", i ? ", " : "", table[op].algos[i].name);
    return -1;
}

static const coll_tuning_names tuning_names = { COLL_OP_COUNT, op_by_name, algo_by_name };

void coll_select_init(void)
{
    if (tuned_loaded)
        return;
    char err[1024];
    const char *path = cu_param_str("COLL_TUNING");
    int rc = path ? coll_tuning_load(path, &tuning_names, &tuned, err, sizeof err)
                  : coll_tuning_parse(coll_tuning_default, "coll/tuning_default.txt",
                                      &tuning_names, &tuned, err, sizeof err);
    if (rc)
        cu_fatal("CLUMPI_COLL_TUNING: %s", err);
    tuned_gen++;
    tuned_loaded = 1;
}

void coll_select_finalize(void)
{
    coll_tuning_free(&tuned);
    tuned_loaded = 0;
}

/* The node area holds this job's processes, each once: not on a
 * communicator with another job's processes or one process twice (its
 * members would share one line of the area). */
static int area_fits(const mpid_comm *comm)
{
    return !(comm->foreign || (comm->remote_context_id & MPID_CTX_BY_RANK));
}

/* Whether a default may run this call with algorithm a: a non-commutative
 * op needs an ordered one, a hierarchy several nodes with several ranks on
 * one, the node area this job's processes, each once, on one node. The
 * table's picks and the rules' both pass here; a forced algorithm is the
 * user's, but for the order and the node area (coll_select). */
static int fits(const coll_algo *a, int commute, const mpid_comm *comm, int *nodes)
{
    if (!a || !a->fn || (commute == 0 && !(a->flags & COLL_ALGO_ORDERED)))
        return 0;
    if (a->flags & COLL_ALGO_NODES) {
        if (*nodes < 0)
            *nodes = coll_comm_nodes(comm);
        if (*nodes <= 1 || *nodes >= comm->size)
            return 0;
    }
    if (!(a->flags & COLL_ALGO_AREA))
        return 1;
    if (!area_fits(comm))
        return 0;
    /* the area is one node's memory: on several, a node-area form falls
     * back to a message algorithm that a later rule may beat */
    if (*nodes < 0)
        *nodes = coll_comm_nodes(comm);
    return *nodes == 1;
}

/* Bumped whenever a communicator is freed: the memos below key on a
 * communicator's address, context and member list, which a new one may
 * reuse with other members (other nodes) after a free. */
static atomic_uint comm_gen;

void coll_select_comm_freed(void)
{
    atomic_fetch_add_explicit(&comm_gen, 1, memory_order_relaxed);
}

/* A communicator's identity as the memos key on it: its address, member
 * list, context and size, and the free generation when it was taken. */
typedef struct {
    const mpid_comm *comm;
    const int *world_ranks;
    uint32_t context_id;
    int size;
    unsigned cgen;
} comm_key;

static inline int comm_key_same(const comm_key *k, const mpid_comm *comm, unsigned cgen)
{
    return k->comm == comm && k->world_ranks == comm->world_ranks &&
           k->context_id == comm->context_id && k->size == comm->size && k->cgen == cgen;
}

static inline comm_key comm_key_of(const mpid_comm *comm, unsigned cgen)
{
    return (comm_key){ comm, comm->world_ranks, comm->context_id, comm->size, cgen };
}

/* The group of table rows for the last communicator each thread called an
 * operation on: a loop of calls on one communicator finds it again at
 * once, instead of walking the operation's rows in each call (tens of nanoseconds, as long as a 2-rank
 * 8-byte broadcast). Keyed by what the group depends on, and by the
 * communicator's identity (a new one at a freed one's address, context and
 * size at worst reuses its node count: only a performance hint, and fits()
 * checks the node area on the call's own communicator). */
typedef struct {
    comm_key key;
    int oversub, group;
    unsigned gen;
} table_memo;
static _Thread_local table_memo memo[COLL_OP_COUNT];

/* The table's algorithm for this call, if it has one the call can run. */
static const coll_algo *by_table(int opid, size_t bytes, int commute, const mpid_comm *comm,
                                 int *nodes)
{
    const coll_optab *t = &table[opid];
    if (tuned.first[opid] == tuned.first[opid + 1])
        return NULL;
    int oversub = mpid_oversubscribed() && !comm->foreign;
    table_memo *m = &memo[opid];
    unsigned cgen = atomic_load_explicit(&comm_gen, memory_order_relaxed);
    if (m->gen != tuned_gen || m->oversub != oversub || !comm_key_same(&m->key, comm, cgen)) {
        if (*nodes < 0)
            *nodes = coll_comm_nodes(comm);
        m->group = coll_tuning_group(&tuned, opid, comm->size, *nodes, oversub);
        m->key = comm_key_of(comm, cgen);
        m->oversub = oversub;
        m->gen = tuned_gen;
    }
    int i = coll_tuning_in_group(&tuned, m->group, bytes);
    if (i < 0)
        return NULL;
    const coll_algo *a = &t->algos[i];
    return fits(a, commute, comm, nodes) ? a : NULL;
}

static void read_env(void)
{
    for (int op = 0; op < COLL_OP_COUNT; op++) {
        const coll_optab *t = &table[op];
        for (int i = 0; i < t->nrules && i < RULES_MAX; i++)
            rule_algo[op][i] = t->rules[i].algo ? find_algo(t, t->rules[i].algo) : NULL;
    }
    verbose = (int)cu_param_int("COLL_VERBOSE");
    for (int op = 0; op < COLL_OP_COUNT; op++) {
        char var[64];
        size_t n = 0;
        for (const char *s = table[op].op; *s && n + 1 < sizeof upper[op]; s++)
            upper[op][n++] = (char)(*s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s);
        upper[op][n] = 0;
        snprintf(var, sizeof var, "COLL_%.39s", upper[op]);
        const char *v = cu_param_str(var);
        forced[op] = NULL;
        forced_bad[op] = NULL;
        if (!v)
            continue;
        forced[op] = find_algo_or_alias(&table[op], v);
        if (!forced[op]) {
            forced_bad[op] = v;
            int len = snprintf(errmsg[op], sizeof errmsg[op],
                               "CLUMPI_%s=%s: no such %s algorithm; valid names:", var, v,
                               table[op].op);
            int any = 0;
            for (int i = 0; i < table[op].nalgos && len < (int)sizeof errmsg[op]; i++)
                if (table[op].algos[i].name) {
                    len += snprintf(errmsg[op] + len, sizeof errmsg[op] - (size_t)len, "%s %s",
                                    any ? "," : "", table[op].algos[i].name);
                    any = 1;
                }
            if (!any && len < (int)sizeof errmsg[op])
                snprintf(errmsg[op] + len, sizeof errmsg[op] - (size_t)len, " (none yet)");
        }
    }
    env_gen = cu_param_gen;
}

/* The last communicator each thread counted the nodes of: the rules and
 * the table ask in every call of an operation that may run a hierarchy or
 * the node area, and a loop of calls is on one communicator. Keyed by the
 * communicator's identity as table_memo is (a new one at a freed one's
 * address, context, size and member list at worst reuses its count: only a
 * performance hint). */
static _Thread_local struct {
    comm_key key;
    int total, nodes;
} nodes_memo;

int coll_comm_nodes(const mpid_comm *comm)
{
    int total = coll_node_count();
    /* processes of other jobs: no node map both jobs share, so every
     * member takes the answer that needs none */
    if (total <= 1 || comm->size <= 1 || comm->foreign)
        return 1;
    unsigned cgen = atomic_load_explicit(&comm_gen, memory_order_relaxed);
    if (nodes_memo.total == total && comm_key_same(&nodes_memo.key, comm, cgen))
        return nodes_memo.nodes;
    unsigned char small[256], *seen = small;
    if (total > (int)sizeof small && !(seen = calloc((size_t)total, 1)))
        return 1;   /* only a performance hint: one node is always correct */
    if (seen == small)
        memset(small, 0, sizeof small);
    int n = 0;
    for (int i = 0; i < comm->size; i++) {
        int node = coll_node_of(comm->world_ranks[i]);
        if (node >= 0 && node < total && !seen[node]) {
            seen[node] = 1;
            n++;
        }
    }
    if (seen != small)
        free(seen);
    n = n > 0 ? n : 1;
    nodes_memo.key = comm_key_of(comm, cgen);
    nodes_memo.total = total;
    nodes_memo.nodes = n;
    return n;
}

static int is_pow2(int p) { return (p & (p - 1)) == 0; }

/* The default for this call: the first rule that holds (and, for a
 * non-commutative op, names an ordered algorithm). */
static const coll_algo *by_rules(const coll_optab *t, size_t bytes, int commute,
                                 const mpid_comm *comm, int *nodes)
{
    for (int i = 0; i < t->nrules; i++) {
        const coll_rule *r = &t->rules[i];
        if (!r->algo || bytes > r->max_bytes || comm->size > r->max_ranks)
            continue;
        if ((r->pow2 && !is_pow2(comm->size)) || (r->oversub && (!mpid_oversubscribed() || comm->foreign)))
            continue;
        if (r->min_nodes > 1) {
            if (*nodes < 0)
                *nodes = coll_comm_nodes(comm);
            /* a hierarchy needs several nodes with several ranks on one */
            if (*nodes < r->min_nodes || *nodes >= comm->size)
                continue;
        }
        const coll_algo *a = i < RULES_MAX ? rule_algo[t - table][i] : find_algo(t, r->algo);
        if (fits(a, commute, comm, nodes))
            return a;
    }
    /* no rule held: the first ordered (or any) algorithm */
    for (int i = 0; i < t->nalgos; i++)
        if (t->algos[i].fn && (commute != 0 || (t->algos[i].flags & COLL_ALGO_ORDERED)))
            return &t->algos[i];
    return NULL;
}

/* The last pick of each operation: a loop of calls on one communicator
 * with one size takes it again at once instead of walking the forced,
 * table and rule paths (which cost as many instructions as a 2-rank 8-byte
 * broadcast's own sends). Keyed by everything those paths read: the
 * communicator's identity (as table_memo), the size, the op's
 * commutativity, and the generations of the parameters, the table and the
 * communicators. One per process,
 * not per thread (a thread-local costs a __tls_get_addr call here): MPI
 * calls run one at a time, under cu_mt's lock or the program's own
 * serialization below MPI_THREAD_MULTIPLE, and a selection never waits.
 * Verbose runs skip it, so every call still says its pick. */
typedef struct {
    comm_key key;
    size_t bytes;
    int commute;
    unsigned env, tgen;
    uint32_t remote_context_id;
    int foreign;
    const coll_algo *algo;
} pick_memo;
static pick_memo picks[COLL_OP_COUNT];

static coll_anyfn select_slow(int opid, size_t bytes, int commute, const mpid_comm *comm,
                              const char **name);

/* The memo's answer, else the slow path's. Inlined into each typed front
 * end, so the common case is a leaf that saves no registers and the slow
 * path a tail call. The host's oversubscription is not in the test: it is
 * set once, when the device starts, before any collective. */
static inline __attribute__((always_inline)) coll_anyfn
select_fast(int opid, size_t bytes, int commute, const mpid_comm *comm, const char **name)
{
    const pick_memo *pm = &picks[opid];
    unsigned cgen = atomic_load_explicit(&comm_gen, memory_order_relaxed);
    if (__builtin_expect(comm_key_same(&pm->key, comm, cgen) && pm->bytes == bytes &&
                         pm->env == cu_param_gen && pm->commute == commute &&
                         pm->tgen == tuned_gen && pm->foreign == comm->foreign &&
                         pm->remote_context_id == comm->remote_context_id && pm->algo, 1)) {
        *name = pm->algo->name;
        return pm->algo->fn;
    }
    return select_slow(opid, bytes, commute, comm, name);
}

/* The pick without the memo (and the memo filled for the next call). */
static __attribute__((noinline)) coll_anyfn
select_slow(int opid, size_t bytes, int commute, const mpid_comm *comm, const char **name)
{
    pick_memo *pm = &picks[opid];
    unsigned cgen = atomic_load_explicit(&comm_gen, memory_order_relaxed);
    if (env_gen != cu_param_gen)
        read_env();
    const coll_optab *t = &table[opid];
    if (forced_bad[opid]) {
        *name = errmsg[opid];
        return NULL;
    }
    int nodes = -1;
    const coll_algo *a = forced[opid];
    const char *why = a ? "forced" : "default";
    if (a && commute == 0 && !(a->flags & COLL_ALGO_ORDERED)) {
        a = NULL;
        why = "default: the forced algorithm does not keep a non-commutative op's order";
    } else if (a && (a->flags & COLL_ALGO_AREA) && !area_fits(comm)) {
        /* it would wait for itself in the area (hung), or for a process
         * of another job that has no map of it */
        if (!atomic_exchange(&area_warned[opid], 1))
            cu_warn("CLUMPI_COLL_%s=%s: not on a communicator holding another job's "
                    "processes or one process twice; the default runs there", upper[opid],
                    a->name);
        a = NULL;
        why = "default: the forced algorithm needs the node area of this job's processes, "
              "each once";
    }
    if (!a) {
        if (!tuned_loaded)
            coll_select_init();
        if ((a = by_table(opid, bytes, commute, comm, &nodes)))
            why = "table";
    }
    if (!a)
        a = by_rules(t, bytes, commute, comm, &nodes);
    if (!a) {
        snprintf(errmsg[opid], sizeof errmsg[opid], "no %s algorithm is available%s",
                 t->op, commute == 0 ? " for a non-commutative op" : "");
        *name = errmsg[opid];
        return NULL;
    }
    *name = a->name;
    if (!verbose && tuned_loaded)
        *pm = (pick_memo){ comm_key_of(comm, cgen), bytes, commute, env_gen, tuned_gen,
                           comm->remote_context_id, comm->foreign, a };
    if (verbose && (verbose > 1 || comm->rank == 0)) {
        if (nodes < 0)
            nodes = coll_comm_nodes(comm);
        fprintf(stderr, "clumpi: coll: rank %d: %s %zu B, %d ranks, %d node%s: %s (%s)\n",
                comm->rank, t->op, bytes, comm->size, nodes, nodes == 1 ? "" : "s", a->name,
                why);
    }
    return a->fn;
}

/* ---- typed front ends -------------------------------------------------- */
#define SEL(T, op, bytes, commute) ((T *)select_fast(op, bytes, commute, comm, name))

coll_barrier_fn *coll_select_barrier(const mpid_comm *comm, const char **name)
{ return SEL(coll_barrier_fn, COLL_OP_BARRIER, 0, -1); }
coll_bcast_fn *coll_select_bcast(size_t bytes, const mpid_comm *comm, const char **name)
{ return SEL(coll_bcast_fn, COLL_OP_BCAST, bytes, -1); }
coll_gather_fn *coll_select_gather(size_t bytes, const mpid_comm *comm, const char **name)
{ return SEL(coll_gather_fn, COLL_OP_GATHER, bytes, -1); }
coll_gatherv_fn *coll_select_gatherv(const mpid_comm *comm, const char **name)
{ return SEL(coll_gatherv_fn, COLL_OP_GATHERV, 0, -1); }
coll_scatter_fn *coll_select_scatter(size_t bytes, const mpid_comm *comm, const char **name)
{ return SEL(coll_scatter_fn, COLL_OP_SCATTER, bytes, -1); }
coll_scatterv_fn *coll_select_scatterv(const mpid_comm *comm, const char **name)
{ return SEL(coll_scatterv_fn, COLL_OP_SCATTERV, 0, -1); }
coll_allgather_fn *coll_select_allgather(size_t bytes, const mpid_comm *comm, const char **name)
{ return SEL(coll_allgather_fn, COLL_OP_ALLGATHER, bytes, -1); }
coll_allgatherv_fn *coll_select_allgatherv(size_t bytes, const mpid_comm *comm,
                                           const char **name)
{ return SEL(coll_allgatherv_fn, COLL_OP_ALLGATHERV, bytes, -1); }
coll_alltoall_fn *coll_select_alltoall(size_t bytes, const mpid_comm *comm, const char **name)
{ return SEL(coll_alltoall_fn, COLL_OP_ALLTOALL, bytes, -1); }
coll_alltoallv_fn *coll_select_alltoallv(const mpid_comm *comm, const char **name)
{ return SEL(coll_alltoallv_fn, COLL_OP_ALLTOALLV, 0, -1); }
coll_alltoallw_fn *coll_select_alltoallw(const mpid_comm *comm, const char **name)
{ return SEL(coll_alltoallw_fn, COLL_OP_ALLTOALLW, 0, -1); }

coll_reduce_fn *coll_select_reduce(size_t bytes, const coll_op *op, const mpid_comm *comm,
                                   const char **name)
{ return SEL(coll_reduce_fn, COLL_OP_REDUCE, bytes, op->commute != 0); }
coll_allreduce_fn *coll_select_allreduce(size_t bytes, const coll_op *op,
                                         const mpid_comm *comm, const char **name)
{ return SEL(coll_allreduce_fn, COLL_OP_ALLREDUCE, bytes, op->commute != 0); }
coll_reduce_scatter_fn *coll_select_reduce_scatter(size_t bytes, const coll_op *op,
                                                   const mpid_comm *comm, const char **name)
{ return SEL(coll_reduce_scatter_fn, COLL_OP_REDUCE_SCATTER, bytes, op->commute != 0); }
coll_reduce_scatter_block_fn *coll_select_reduce_scatter_block(size_t bytes,
                                                               const coll_op *op,
                                                               const mpid_comm *comm,
                                                               const char **name)
{ return SEL(coll_reduce_scatter_block_fn, COLL_OP_REDUCE_SCATTER_BLOCK, bytes,
             op->commute != 0); }
coll_scan_fn *coll_select_scan(size_t bytes, const coll_op *op, const mpid_comm *comm,
                               const char **name)
{ return SEL(coll_scan_fn, COLL_OP_SCAN, bytes, op->commute != 0); }
coll_scan_fn *coll_select_exscan(size_t bytes, const coll_op *op, const mpid_comm *comm,
                                 const char **name)
{ return SEL(coll_scan_fn, COLL_OP_EXSCAN, bytes, op->commute != 0); }

coll_nbc_barrier_fn *coll_select_ibarrier(const mpid_comm *comm, const char **name)
{ return SEL(coll_nbc_barrier_fn, COLL_OP_IBARRIER, 0, -1); }
coll_nbc_bcast_fn *coll_select_ibcast(size_t bytes, const mpid_comm *comm, const char **name)
{ return SEL(coll_nbc_bcast_fn, COLL_OP_IBCAST, bytes, -1); }
coll_nbc_reduce_fn *coll_select_ireduce(size_t bytes, const coll_op *op, const mpid_comm *comm,
                                        const char **name)
{ return SEL(coll_nbc_reduce_fn, COLL_OP_IREDUCE, bytes, op->commute != 0); }
coll_nbc_allreduce_fn *coll_select_iallreduce(size_t bytes, const coll_op *op,
                                              const mpid_comm *comm, const char **name)
{ return SEL(coll_nbc_allreduce_fn, COLL_OP_IALLREDUCE, bytes, op->commute != 0); }
coll_nbc_allgather_fn *coll_select_iallgather(size_t bytes, const mpid_comm *comm,
                                              const char **name)
{ return SEL(coll_nbc_allgather_fn, COLL_OP_IALLGATHER, bytes, -1); }
coll_nbc_allgather_fn *coll_select_iallgatherv(size_t bytes, const mpid_comm *comm,
                                               const char **name)
{ return SEL(coll_nbc_allgather_fn, COLL_OP_IALLGATHERV, bytes, -1); }
