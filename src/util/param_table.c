/*
 * param_table.c — THE table of runtime parameters: every CLUMPI_* variable
 * that configures the library, mpirun or the NI agent (variables mpirun
 * sets for its ranks, such as CLUMPI_JOB_ID, are not parameters). Each row
 * is also an MPI_T control variable, named as the environment variable.
 *
 * `when` says how a write through MPI_T can take effect: FIXED rows are
 * read once at start-up or by another process (mpirun, the NI agent), so
 * they are constant; BEFORE_INIT rows are read during MPI_Init or later in
 * this process; LIVE rows are read again after each write. ALL_EQ rows
 * must hold the same value in every process (message cutting, protocol and
 * algorithm choices that the peers must match). In offload mode the NI
 * agent reads the libfabric rows (OFI_PROVIDER, OFI_IFACE, ONE_HOST) from
 * its own environment: a write in a rank affects direct mode only.
 */
#include <stdlib.h>
#include <string.h>
#include "src/util/param.h"

static const cu_param_item off_on[] = { { 0, "off" }, { 1, "on" } };
static const cu_param_item auto_off_on[] = { { -1, "auto" }, { 0, "off" }, { 1, "on" } };

enum { E_OFF_ON, E_AUTO_OFF_ON };
const cu_param_enum cu_param_enums[] = {
    [E_OFF_ON] = { "clumpi_off_on", 2, off_on },
    [E_AUTO_OFF_ON] = { "clumpi_auto_off_on", 3, auto_off_on },
};
const int cu_param_nenums = (int)(sizeof cu_param_enums / sizeof cu_param_enums[0]);

#define I(name, def, cat, when, agree, lvl, en, desc) \
    { "CLUMPI_" name, CU_PARAM_INT, def, NULL, cat, CU_PARAM_##when, CU_PARAM_##agree, \
      CU_LVL_##lvl, en, desc }
#define S(name, def, cat, when, agree, lvl, desc) \
    { "CLUMPI_" name, CU_PARAM_STR, 0, def, cat, CU_PARAM_##when, CU_PARAM_##agree, \
      CU_LVL_##lvl, -1, desc }
#define SC(name, def, check, cat, when, agree, lvl, desc) \
    { "CLUMPI_" name, CU_PARAM_STR, 0, def, cat, CU_PARAM_##when, CU_PARAM_##agree, \
      CU_LVL_##lvl, -1, desc, check }
#define FAULT(name, what) \
    SC(name, "0", probability, "agent", FIXED, LOCAL, DEV_DETAIL, \
       "dgram fault injection: probability that an arriving datagram is " what)
#define COLL(op, OP) \
    S("COLL_" OP, NULL, "collectives", LIVE, ALL_EQ, USER_BASIC, \
      "force the algorithm of " op " by name (unset: chosen by size, ranks and nodes); " \
      "a wrong name fails the call with the valid ones")

/* The checks of string rows: NULL when text is valid, else what is. */
static const char *net_mode(const char *text)
{
    return strcmp(text, "direct") && strcmp(text, "agent") ? "direct, agent" : NULL;
}

static const char *positive_seconds(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    return end == text || *end || !(v > 0) || v > 1e6 ? "a positive number of seconds" : NULL;
}

static const char *agent_transport(const char *text)
{
    return strcmp(text, "reliable") && strcmp(text, "dgram") ? "reliable, dgram" : NULL;
}

static const char *agent_arq(const char *text)
{
    return strcmp(text, "gbn") && strcmp(text, "sack") ? "gbn, sack" : NULL;
}

static const char *agent_rel(const char *text)
{
    return strcmp(text, "ni") && strcmp(text, "host") ? "ni, host" : NULL;
}

static const char *probability(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    return end == text || *end || !(v >= 0 && v <= 1) ? "a probability, 0..1" : NULL;
}

const cu_param_def cu_param_defs[] = {
    /* general */
    I("VERBOSE", 0, "general", LIVE, LOCAL, USER_BASIC, -1,
      "log what the library and mpirun do (1, 2 for more)"),
    SC("NET", "direct", net_mode, "network", FIXED, ALL_EQ, USER_BASIC,
      "how ranks reach other nodes: direct (a libfabric endpoint per rank) or agent "
      "(the node's NI agent, offload mode)"),
    I("EAGER_LIMIT", -1, "pt2pt", BEFORE_INIT, ALL_EQ, USER_BASIC, -1,
      "the eager size in bytes, at most a channel's packet (larger messages use "
      "rendezvous); -1: each channel's own"),
    I("NO_RMA", 0, "pt2pt", BEFORE_INIT, ALL_EQ, TUNER_DETAIL, E_OFF_ON,
      "on: no single-copy reads; rendezvous goes through pipelined fragments"),
    I("RNDV_COOP", 256 * 1024, "pt2pt", BEFORE_INIT, ALL_EQ, TUNER_DETAIL, -1,
      "bytes from which a large same-node message is copied by both sides at once; 0: off"),
    /* progress */
    I("SPIN", 8000, "progress", BEFORE_INIT, LOCAL, TUNER_BASIC, -1,
      "polls before a waiting rank blocks when ranks do not outnumber cores"),
    I("YIELD_US", 1000, "progress", BEFORE_INIT, LOCAL, TUNER_BASIC, -1,
      "ranks outnumber cores: poll and yield this long without progress, then block "
      "(0: block at once)"),
    I("YIELD_LONG_US", 1000, "progress", BEFORE_INIT, LOCAL, TUNER_DETAIL, -1,
      "three yields in a row that each kept the rank off its core this long, under "
      "foreign load, switch to blocking for 5 ms, doubling up to 100 ms while it lasts "
      "(0: never)"),
    I("SLEEP_US", 100000, "progress", BEFORE_INIT, LOCAL, TUNER_DETAIL, -1,
      "longest single block while waiting, in microseconds (a safety net)"),
    I("HOST_NRANKS", 0, "progress", BEFORE_INIT, LOCAL, DEV_BASIC, -1,
      "ranks on this host, set by mpirun (0: this node's ranks)"),
    I("HOST_CPUS", 0, "progress", BEFORE_INIT, LOCAL, DEV_BASIC, -1,
      "cores the ranks of this host share, set by mpirun (0: this process's affinity)"),
    I("OVERSUBSCRIBED", -1, "progress", BEFORE_INIT, LOCAL, TUNER_BASIC, E_AUTO_OFF_ON,
      "whether ranks outnumber cores (yield, then block; shared memory's eager limit "
      "32 KiB, not 8): auto from the two above"),
    /* shared memory */
    I("SHM_CMA", 1, "shm", BEFORE_INIT, ALL_EQ, TUNER_BASIC, E_OFF_ON,
      "single copy (process_vm_readv) in the shared-memory channel"),
    I("SHM_QUEUE_CELLS", 1024, "shm", BEFORE_INIT, ALL_EQ, TUNER_DETAIL, -1,
      "64-byte lines (two 32-byte queue units each) in each rank's inbound data queue (rounded up to a power of two)"),
    I("SHM_CTRL_CELLS", 256, "shm", BEFORE_INIT, ALL_EQ, TUNER_DETAIL, -1,
      "64-byte lines (two 32-byte queue units each) in each rank's control queue (rounded up to a power of two)"),
    I("SHM_FRAGS", 16, "shm", BEFORE_INIT, ALL_EQ, TUNER_DETAIL, -1,
      "32 KiB bulk fragments per sender (2..1024)"),
    /* network (direct mode) */
    S("OFI_PROVIDER", NULL, "network", BEFORE_INIT, ALL_EQ, USER_BASIC,
      "libfabric provider (net, tcp, tcp;ofi_rxm, udp;ofi_rxd, sockets...); unset: the best "
      "present"),
    S("OFI_IFACE", NULL, "network", BEFORE_INIT, LOCAL, USER_DETAIL,
      "interface (domain) to use, e.g. lo; unset: the first non-loopback one"),
    I("ONE_HOST", 0, "network", BEFORE_INIT, ALL_EQ, DEV_BASIC, E_OFF_ON,
      "set by mpirun when it started every rank on this host (the loopback will do)"),
    I("OFI_RMA", 1, "network", BEFORE_INIT, ALL_EQ, TUNER_BASIC, E_OFF_ON,
      "rendezvous by fi_read and windows by fi_write/fi_read where the provider offers "
      "FI_RMA; off: pipelined rendezvous, active-message windows"),
    I("OFI_ATOMICS", -1, "network", BEFORE_INIT, ALL_EQ, TUNER_DETAIL, E_AUTO_OFF_ON,
      "accumulates by NIC atomics: auto where the provider progresses them itself, on "
      "wherever offered, off never"),
    I("OFI_RX_BUFS", 0, "network", BEFORE_INIT, LOCAL, TUNER_DETAIL, -1,
      "receive buffers of the network channel: multi-receive slabs (not with the net "
      "provider) or one-packet buffers; 0: 4 slabs, or 64 buffers"),
    I("OFI_SLAB", 16, "network", BEFORE_INIT, LOCAL, DEV_DETAIL, -1,
      "largest packets per multi-receive slab"),
    I("OFI_TX_BUFS", 64, "network", BEFORE_INIT, LOCAL, TUNER_DETAIL, -1,
      "send buffers of the network channel"),
    I("OFI_PROBE_S", 0, "network", BEFORE_INIT, LOCAL, USER_DETAIL, -1,
      "seconds: an idle rank probes its peers and ends the job when a probe cannot be sent "
      "this long (0: off)"),
    I("NET_POLL_MIN", 1, "network", BEFORE_INIT, LOCAL, TUNER_DETAIL, -1,
      "adaptive network polling: at least every this many progress calls"),
    I("NET_POLL_MAX", 256, "network", BEFORE_INIT, LOCAL, TUNER_DETAIL, -1,
      "adaptive network polling: at most every this many progress calls"),
    I("NET_NAP_US", 200, "network", BEFORE_INIT, LOCAL, TUNER_DETAIL, -1,
      "longest nap of a rank with shm and network peers when no wake-up fd could be shared"),
    /* one-sided */
    I("RMA_OFI", 1, "rma", BEFORE_INIT, ALL_EQ, TUNER_BASIC, E_OFF_ON,
      "windows spanning nodes use fi_write/fi_read; off: active messages"),
    I("RMA_AM", 0, "rma", BEFORE_INIT, ALL_EQ, TUNER_DETAIL, E_OFF_ON,
      "on: every one-sided operation through active messages, even on one node"),
    I("RMA_AGENT", 1, "rma", BEFORE_INIT, ALL_EQ, TUNER_BASIC, E_OFF_ON,
      "offload mode: one-sided operations across nodes served by the target node's agent; "
      "off: by the target's progress"),
    /* NI agent (offload mode): read by the agent, or shared with it at start */
    S("AGENT_PATH", NULL, "agent", FIXED, LOCAL, USER_DETAIL,
      "the NI agent executable; unset: the installed clumpi-agent"),
    I("AGENT_START_TIMEOUT", 30, "agent", FIXED, LOCAL, USER_DETAIL, -1,
      "seconds the node's first rank waits for its NI agent to start"),
    I("AGENT_MTU", 2048, "agent", FIXED, ALL_EQ, TUNER_BASIC, -1,
      "agent slot (packet) size in bytes, 2048..65536"),
    I("AGENT_POOL", 0, "agent", FIXED, LOCAL, TUNER_DETAIL, -1,
      "agent slot pool; 0: the receives it posts plus 64"),
    I("AGENT_WINDOW", 16, "agent", FIXED, ALL_EQ, TUNER_DETAIL, -1,
      "credits per sending node"),
    I("AGENT_PIO_MAX", -1, "agent", FIXED, LOCAL, TUNER_BASIC, -1,
      "largest send the rank copies into slots (PIO); larger ones are pulled by the agent; "
      "0: every send by DMA; -1: the largest eager message (31744)"),
    I("AGENT_PIO_BW", 0, "agent", FIXED, LOCAL, DEV_DETAIL, -1,
      "emulate a slow NI: rank-to-agent copy bandwidth in MB/s (0: unthrottled)"),
    I("AGENT_DELAY_NS", 0, "agent", FIXED, LOCAL, DEV_DETAIL, -1,
      "emulate a slow NI: delay per packet in nanoseconds"),
    I("AGENT_BULK", 8, "agent", FIXED, ALL_EQ, TUNER_DETAIL, -1,
      "bulk path: landing buffers per node (0: off, rendezvous through slots)"),
    I("AGENT_BULK_CHUNK", 256 * 1024, "agent", FIXED, ALL_EQ, TUNER_DETAIL, -1,
      "bulk path: chunk bytes"),
    I("AGENT_BULK_WINDOW", 4, "agent", FIXED, LOCAL, TUNER_DETAIL, -1,
      "bulk path: chunks in flight per read"),
    I("AGENT_BULK_BOUNCE", 4, "agent", FIXED, LOCAL, TUNER_DETAIL, -1,
      "bulk path: the sending agent's bounce buffers"),
    I("AGENT_SPIN_US", 50, "agent", FIXED, LOCAL, TUNER_DETAIL, -1,
      "agent spin in microseconds before it blocks"),
    I("AGENT_STATS", 0, "agent", FIXED, LOCAL, DEV_BASIC, E_OFF_ON,
      "the agent prints its counters at the end"),
    SC("AGENT_TRANSPORT", "reliable", agent_transport, "agent", FIXED, ALL_EQ, TUNER_BASIC,
       "how the agents talk: reliable (libfabric's reliable endpoints) or dgram (udp "
       "datagrams made reliable by the agents' own protocol; no bulk path)"),
    SC("AGENT_REL", "ni", agent_rel, "agent", FIXED, ALL_EQ, TUNER_BASIC,
       "dgram: who retransmits: ni (the agents, as CLUMPI_AGENT_ARQ says) or host (each "
       "rank's channel, end to end; the agents only forward, and agent-served RMA, "
       "counters, NI reductions and the bulk path are off; the NI broadcast is "
       "repaired from the root's rank)"),
    I("AGENT_ACK_EVERY", 6, "agent", FIXED, LOCAL, TUNER_DETAIL, -1,
      "dgram: an explicit ack after this many datagrams from a peer (else after a short delay)"),
    SC("AGENT_ARQ", "sack", agent_arq, "agent", FIXED, ALL_EQ, TUNER_DETAIL,
       "dgram: retransmission after a loss: sack (selective repeat: the receiver keeps what "
       "came after a gap, the sender resends the rest) or gbn (go-back-N: the window again)"),
    SC("AGENT_PEER_TIMEOUT", "10", positive_seconds, "agent", FIXED, LOCAL, USER_DETAIL,
       "dgram: seconds a peer agent may leave our packets unanswered before the job ends"),
    FAULT("AGENT_LOSS", "dropped"),
    FAULT("AGENT_DUP", "taken twice"),
    FAULT("AGENT_REORDER", "held back behind the next one"),
    I("AGENT_SEED", 1, "agent", FIXED, LOCAL, DEV_DETAIL, -1,
      "dgram fault injection: seed of the agents' choices (each node adds its number)"),
    /* collectives */
    I("COLL_VERBOSE", 0, "collectives", LIVE, LOCAL, USER_BASIC, -1,
      "print which algorithm each collective call ran (1: rank 0, 2: every rank)"),
    I("COLL_SEGSIZE", 32768, "collectives", LIVE, ALL_EQ, TUNER_BASIC, -1,
      "segment size in bytes of pipelined trees"),
    I("COLL_KNOMIAL_K", 4, "collectives", LIVE, ALL_EQ, TUNER_BASIC, -1,
      "k of k-nomial trees (at least 2)"),
    I("COLL_ALLTOALL_WINDOW", 16, "collectives", LIVE, LOCAL, TUNER_DETAIL, -1,
      "outstanding requests of linear alltoall"),
    I("COLL_ALLGATHER_SHORT", 32768, "collectives", LIVE, ALL_EQ, TUNER_BASIC, -1,
      "total result bytes up to which internal allgathers use Bruck's algorithm, ring above"),
    I("COLL_NODE_PPN", 0, "collectives", FIXED, ALL_EQ, DEV_BASIC, -1,
      "testing: treat each k consecutive ranks as one node in the hierarchical algorithms "
      "(0: the real nodes)"),
    S("COLL_TUNING", NULL, "collectives", BEFORE_INIT, ALL_EQ, TUNER_BASIC,
      "file of the collectives' selection table (doc/TUNING.md; bench/coll_tune.sh "
      "writes one); unset: the table built in"),
    COLL("MPI_Barrier", "BARRIER"),
    COLL("MPI_Bcast", "BCAST"),
    COLL("MPI_Gather", "GATHER"),
    COLL("MPI_Gatherv", "GATHERV"),
    COLL("MPI_Scatter", "SCATTER"),
    COLL("MPI_Scatterv", "SCATTERV"),
    COLL("MPI_Allgather", "ALLGATHER"),
    COLL("MPI_Allgatherv", "ALLGATHERV"),
    COLL("MPI_Alltoall", "ALLTOALL"),
    COLL("MPI_Alltoallv", "ALLTOALLV"),
    COLL("MPI_Alltoallw", "ALLTOALLW"),
    COLL("MPI_Reduce", "REDUCE"),
    COLL("MPI_Allreduce", "ALLREDUCE"),
    COLL("MPI_Reduce_scatter", "REDUCE_SCATTER"),
    COLL("MPI_Reduce_scatter_block", "REDUCE_SCATTER_BLOCK"),
    COLL("MPI_Scan", "SCAN"),
    COLL("MPI_Exscan", "EXSCAN"),
    COLL("MPI_Ibarrier", "IBARRIER"),
    COLL("MPI_Ibcast", "IBCAST"),
    COLL("MPI_Ireduce", "IREDUCE"),
    COLL("MPI_Iallreduce", "IALLREDUCE"),
    COLL("MPI_Iallgather", "IALLGATHER"),
    COLL("MPI_Iallgatherv", "IALLGATHERV"),
    /* launcher */
    SC("CONNECT_TIMEOUT", "30", positive_seconds, "launcher", FIXED, LOCAL, USER_DETAIL,
      "seconds (a positive number) remote ranks have to connect to mpirun's PMI server"),
    S("PMI_HOST", NULL, "launcher", FIXED, LOCAL, USER_DETAIL,
      "address remote ranks use to reach mpirun; unset: the first up non-loopback one"),
    /* dynamic processes */
    S("NAMESERVER", NULL, "launcher", LIVE, LOCAL, USER_BASIC,
      "directory of the name service (MPI_Publish_name), shared by the jobs that see each "
      "other's names; unset: /tmp/clumpi-names-<uid>"),
    I("PORT_TIMEOUT", 60, "network", LIVE, LOCAL, USER_BASIC, -1,
      "seconds MPI_Comm_connect waits for the accepting side before MPI_ERR_PORT"),
    I("DYN_SLOTS", 4096, "network", BEFORE_INIT, LOCAL, USER_BASIC, -1,
      "processes of other jobs (spawned, connected, joined) one process may have routes to "
      "at once, at most 4096; a slot is freed when the last communicator reaching its "
      "process is disconnected or freed"),
    I("DYN_PROBE_S", 5, "network", BEFORE_INIT, LOCAL, USER_BASIC, -1,
      "seconds an idle process's 8-byte probe to a connected process of another job may "
      "stay unsent before that process counts as dead (operations with it then fail with "
      "MPI_ERR_OTHER); 0: no probes"),
    I("SPAWN_TIMEOUT", 60, "network", LIVE, LOCAL, USER_BASIC, -1,
      "seconds MPI_Comm_spawn waits for its children to connect under a process manager "
      "other than clumpi's mpirun (Hydra), which does not report their end, before "
      "MPI_ERR_SPAWN"),
};
const int cu_param_count = (int)(sizeof cu_param_defs / sizeof cu_param_defs[0]);
