/*
 * coll.h — collective algorithms over the device's point-to-point. Every
 * function is collective over comm and uses its collective context
 * (MPID_CTX_COLL), so collective and user traffic never match each other.
 * The MPI layer calls these; they call only mpid.h.
 */
#ifndef COLL_H
#define COLL_H

#include "mpid/mpid.h"

int coll_barrier(const mpid_comm *comm);
int coll_bcast(void *buf, size_t count, const cu_dtype *dt, int root,
               const mpid_comm *comm);
int coll_allgather(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                   void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                   const mpid_comm *comm);

/* coll_allgather with the caller's tag instead of the internal one:
 * MPI_Comm_create_group runs it among the group's members on the parent's
 * collective context, where the user's tag keeps concurrent calls apart. */
int coll_allgather_tag(const void *sendbuf, size_t sendcount, const cu_dtype *sendtype,
                       void *recvbuf, size_t recvcount, const cu_dtype *recvtype,
                       const mpid_comm *comm, int tag);

/* comm is being freed: drops what the collectives keep for it (the node
 * areas of the shared-memory algorithms). Local, no message. */
void coll_comm_free(const mpid_comm *comm);

/* MPI_Init: reads the collectives' tuning table (CLUMPI_COLL_TUNING, else
 * the built-in coll/tuning_default.txt); a bad table ends the job with a
 * line naming the file and line. */
void coll_select_init(void);
/* MPI_Finalize: frees the table. */
void coll_select_finalize(void);

/* MPI_Finalize: releases the work buffers kept between calls. */
void coll_finalize(void);

#endif
