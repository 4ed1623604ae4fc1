/*
 * pmi.h — the PMI client. Speaks the PMI-1 wire protocol over the fd named
 * by PMI_FD or the socket of PMI_PORT (set by clumpi's mpirun, MPICH's
 * Hydra, srun --mpi=pmi2 or any PMI-1 process manager); else, when a PMIx
 * launcher set PMIX_NAMESPACE (srun --mpi=pmix, prterun) and configure
 * found OpenPMIx, PMIx (src/util/pmix.c); else the process is a singleton:
 * rank 0 of 1. Under PMIx, spawn is refused and the name service is the
 * host's store, as a singleton's.
 */
#ifndef CU_PMI_H
#define CU_PMI_H

#include <stddef.h>

#define CU_PMI_KEYLEN_MAX 64
#define CU_PMI_VALLEN_MAX 1024

/* Connects through PMI_FD, or PMI_PORT=host:port with PMI_ID (Hydra's
 * -pmi-port mode; with CLUMPI_PMI_SECRET set, as clumpi's mpirun sets it for
 * ranks on other hosts, the secret goes first and a watchdog thread ends
 * the process once mpirun's end of the connection closes; the connect
 * gives up after CLUMPI_CONNECT_TIMEOUT seconds, 30 by default), else to
 * the PMIx server of PMIX_NAMESPACE (an error when built without PMIx),
 * else becomes a singleton. Returns 0 or -1 (with a message
 * on stderr). Calling it again returns the cached answers. */
int  cu_pmi_init(int *rank, int *size, int *appnum);
int  cu_pmi_finalize(void);
/* Tells the process manager to end the job with exit code `code` (msg, if
 * any, goes to stderr first), then _exits with code. */
void cu_pmi_abort(int code, const char *msg) __attribute__((noreturn));
const char *cu_pmi_kvsname(void);
int  cu_pmi_is_singleton(void);

/* Key-value space: put, then cu_pmi_barrier() (which commits), then get. */
/* Keys: 1..CU_PMI_KEYLEN_MAX-1 printable characters without ' ' or '=';
 * values: printable without spaces (hex-encode binary data), shorter than
 * the process manager's vallen_max (at most CU_PMI_VALLEN_MAX-1). */
int  cu_pmi_put(const char *key, const char *value);
int  cu_pmi_get(const char *key, char *value, size_t len);
int  cu_pmi_barrier(void);

/* One command of a spawn request: np processes of argv[0] with arguments
 * argv[1..] (NULL-terminated), and info pairs passed on for the manager to
 * honour or ignore. */
typedef struct cu_pmi_spawn_cmd {
    int np;
    char *const *argv;
    int ninfo;
    const char *const *info_keys, *const *info_vals;
} cu_pmi_spawn_cmd;
/* Asks the process manager to start the ncmd commands as one new job
 * (PMI-1's mcmd=spawn, as clumpi's mpirun and MPICH's Hydra serve it), the
 * pair PARENT_ROOT_PORT_NAME = port in its key-value space. 0, or -1 with
 * why filled (a singleton, a manager that cannot spawn, a missing
 * program); never waits for the new job's processes. */
int  cu_pmi_spawn(const cu_pmi_spawn_cmd *cmds, int ncmd, const char *port, char *why,
                  size_t whylen);

/* The process manager's universe size (get_universe_size), or 0 when it
 * gives none (a singleton: 1). */
int  cu_pmi_universe_size(void);

/* The name service (as MPICH's clients speak it; a singleton uses the
 * store of src/util/names.c itself). service is any string (it travels
 * hex-encoded), port a port name without spaces. 0, -EEXIST (publish: the
 * name is taken), -ENOENT (lookup, unpublish: no such name, or published
 * with another port), -EIO (no answer from the process manager). */
int  cu_pmi_publish(const char *service, const char *port);
int  cu_pmi_lookup(const char *service, char *port, size_t cap);
int  cu_pmi_unpublish(const char *service, const char *port);

/* Node layout from PMI_process_mapping (e.g. "(vector,(0,2,4))"): node_of
 * receives the node index of each of the size ranks. Returns the number of
 * nodes, or -1 on a malformed mapping. */
int  cu_pmi_parse_mapping(const char *mapping, int size, int *node_of);
int  cu_pmi_node_map(int size, int *node_of);   /* fetches and parses it */

/* Parse one PMI-1 line "cmd=x k=v ..." into key/value pairs; exposed for
 * the unit tests and for mpirun's server. Returns the pair count or -1. */
typedef struct { char key[CU_PMI_KEYLEN_MAX]; char val[CU_PMI_VALLEN_MAX]; } cu_pmi_kv;
int  cu_pmi_parse_line(const char *line, cu_pmi_kv *kv, int maxkv);
const char *cu_pmi_find(const cu_pmi_kv *kv, int n, const char *key);

/* Framing of the byte stream into lines, shared by the client and mpirun's
 * server: read() into buf + len (at most CU_PMI_LINE_MAX - len bytes), add
 * the count to len, then take lines out with cu_pmi_linebuf_next. */
#define CU_PMI_LINE_MAX 2048
typedef struct { char buf[CU_PMI_LINE_MAX]; size_t len; int skipping; } cu_pmi_linebuf;
/* 1: one line (without its '\n', NUL-terminated) copied to line; 0: no
 * complete line yet; -1: a malformed line (an embedded NUL, or longer than
 * the buffer or cap) was dropped — the stream resynchronises at the next
 * newline. */
int  cu_pmi_linebuf_next(cu_pmi_linebuf *lb, char *line, size_t cap);

/* Hydra's "(vector,(start,nnodes,ppn),...)" string for a node assignment,
 * runs of consecutive ranks merged. Returns 0, or -1 if it does not fit. */
int  cu_pmi_format_mapping(const int *node_of, int size, char *out, size_t cap);

#endif
