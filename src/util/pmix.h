/*
 * pmix.h — the PMIx side of the PMI client (src/util/pmi.c), on OpenPMIx:
 * used when a PMIx launcher (srun --mpi=pmix, prterun) started the process,
 * which it tells through PMIX_NAMESPACE/PMIX_RANK. Only pmi.c calls these;
 * it checks keys and values first and keeps the API of pmi.h.
 */
#ifndef CU_PMIX_H
#define CU_PMIX_H

#include <stddef.h>

/* 1 when the environment holds a PMIx server's variables. */
int  cu_pmix_offered(void);
/* 0, or -1 with a message on stderr. nspace receives the namespace. */
int  cu_pmix_init(int *rank, int *size, int *appnum, char *nspace, size_t cap);
int  cu_pmix_finalize(void);
void cu_pmix_abort(int code, const char *msg);
int  cu_pmix_put(const char *key, const char *value);
/* The value some rank put under key before the last fence. */
int  cu_pmix_get(const char *key, char *value, size_t len);
/* A fence that commits our puts and collects everyone's. */
int  cu_pmix_fence(void);
int  cu_pmix_universe_size(void);
/* node_of from each rank's PMIX_NODEID, renumbered densely in rank order;
 * the node count, or -1 when the server gives no node ids. */
int  cu_pmix_node_map(int size, int *node_of);

#endif
