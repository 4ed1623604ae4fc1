/*
 * bsend.c — buffered sends: MPI_Bsend, MPI_Ibsend, MPI_Buffer_attach/detach.
 *
 * Each buffered message takes a block of the attached buffer: a header
 * (within MPI_BSEND_OVERHEAD) and the packed data, sent from there as bytes.
 * Blocks are kept in address order and placed first-fit; a block is reused
 * once its send has completed. The user's request completes at once.
 */
#include <stdint.h>
#include <stdlib.h>
#include "src/pt2pt.h"

typedef struct bblk {
    struct bblk *next;    /* next block, in address order */
    size_t size;          /* bytes the block takes, header included */
    mpid_request *req;    /* the send of its data */
} bblk;

#define BHDR ((sizeof(bblk) + 15) & ~(size_t)15)
_Static_assert(BHDR + 16 <= MPI_BSEND_OVERHEAD, "block header exceeds MPI_BSEND_OVERHEAD");

static void *attach_addr;
static int attach_size;
static char *bstart, *bend;   /* the usable (aligned) part */
static bblk *blocks;

/* Frees the blocks whose sends are done. */
static void reap(void)
{
    for (bblk **pp = &blocks; *pp;) {
        bblk *b = *pp;
        if (b->req->done) {
            mpid_request_free(b->req);
            *pp = b->next;
        } else {
            pp = &b->next;
        }
    }
}

static bblk *place(size_t need)
{
    char *pos = bstart;
    bblk **pp = &blocks;
    for (; *pp; pp = &(*pp)->next) {
        if ((size_t)((char *)*pp - pos) >= need)
            break;
        pos = (char *)*pp + (*pp)->size;
    }
    if (!*pp && (size_t)(bend - pos) < need)
        return NULL;
    bblk *b = (bblk *)pos;
    b->size = need;
    b->next = *pp;
    *pp = b;
    return b;
}

static size_t bfree_bytes(void)
{
    size_t n = 0;
    char *pos = bstart;
    for (bblk *b = blocks; b; b = b->next) {
        n += (size_t)((char *)b - pos);
        pos = (char *)b + b->size;
    }
    return n + (size_t)(bend - pos);
}

int mpir_bsend(const char *fn, const void *buf, int count, cu_dtype *dt, int dest, int tag,
               mpir_comm *c, mpid_request **out)
{
    MPI_Comm comm = c->handle;
    mpid_request *done = mpid_request_new_other();
    if (!done)
        return mpir_err_comm(comm, mpir_err(MPI_ERR_NO_MEM, fn, "out of requests"));
    done->done = 1;
    done->status.MPI_ERROR = MPI_SUCCESS;
    if (dest == MPI_PROC_NULL) {
        *out = done;
        return MPI_SUCCESS;
    }
    size_t bytes = cu_dtype_bytes(dt, (size_t)count);
    if (!attach_addr) {
        mpid_request_free(done);
        return mpir_err_comm(comm, mpir_err(MPI_ERR_BUFFER, fn,
                                            "no buffer attached (call MPI_Buffer_attach)"));
    }
    size_t need = BHDR + ((bytes + 15) & ~(size_t)15);
    reap();
    bblk *b = place(need);
    if (!b) {
        mpid_progress();
        reap();
        b = place(need);
    }
    if (!b) {
        mpid_request_free(done);
        return mpir_err_comm(comm, mpir_err(MPI_ERR_BUFFER, fn,
                             "attached buffer too small: message of %zu bytes needs %zu "
                             "(with MPI_BSEND_OVERHEAD), %zu of %d bytes free", bytes,
                             bytes + MPI_BSEND_OVERHEAD, bfree_bytes(), attach_size));
    }
    char *data = (char *)b + BHDR;
    if (bytes)
        cu_dtype_pack(buf, (size_t)count, dt, 0, data, bytes);
    int rc = mpid_isend(data, bytes, mpir_dtype_get(MPI_BYTE), dest, tag, &c->dev,
                        MPID_CTX_PT2PT, MPID_SEND_STANDARD, &b->req);
    if (rc) {
        /* Unlink the block we just placed. */
        for (bblk **pp = &blocks; *pp; pp = &(*pp)->next)
            if (*pp == b) {
                *pp = b->next;
                break;
            }
        mpid_request_free(done);
        return mpir_err_comm(comm, mpir_err(rc, fn, "cannot send to rank %d", dest));
    }
    *out = done;
    return MPI_SUCCESS;
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    MPIR_ENTER("MPI_Bsend");
    mpir_comm *c;
    MPIR_GET_COMM("MPI_Bsend", comm, c);
    cu_dtype *dt;
    int rc = mpir_p2p_checks("MPI_Bsend", buf, count, datatype, dest, tag, 0, c, &dt);
    if (rc)
        return mpir_err_comm(comm, rc);
    mpid_request *r;
    rc = mpir_bsend("MPI_Bsend", buf, count, dt, dest, tag, c, &r);
    if (rc)
        return rc;
    mpid_request_free(r);
    return MPI_SUCCESS;
}
MPIR_WEAK(Bsend)

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    MPIR_ENTER("MPI_Ibsend");
    mpir_comm *c;
    MPIR_GET_COMM("MPI_Ibsend", comm, c);
    cu_dtype *dt;
    int rc = mpir_p2p_checks("MPI_Ibsend", buf, count, datatype, dest, tag, 0, c, &dt);
    if (!rc && !request)
        rc = mpir_err(MPI_ERR_ARG, "MPI_Ibsend", "request is NULL");
    if (rc)
        return mpir_err_comm(comm, rc);
    mpid_request *r;
    rc = mpir_bsend("MPI_Ibsend", buf, count, dt, dest, tag, c, &r);
    if (rc)
        return rc;
    return mpir_req_handle("MPI_Ibsend", r, comm, request);
}
MPIR_WEAK(Ibsend)

int PMPI_Buffer_attach(void *buffer, int size)
{
    MPIR_ENTER("MPI_Buffer_attach");
    if (attach_addr)
        return mpir_err_world(mpir_err(MPI_ERR_BUFFER, "MPI_Buffer_attach",
                                       "a buffer is already attached (detach it first)"));
    if (size < 0)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Buffer_attach",
                                       "invalid size %d", size));
    if (!buffer && size > 0)
        return mpir_err_world(mpir_err(MPI_ERR_BUFFER, "MPI_Buffer_attach",
                                       "buffer is NULL with size %d", size));
    attach_addr = buffer ? buffer : (void *)&attach_addr;   /* size 0 still attaches */
    attach_size = size;
    uintptr_t s = ((uintptr_t)buffer + 15) & ~(uintptr_t)15;
    uintptr_t e = (uintptr_t)buffer + (size_t)size;
    bstart = (char *)s;
    bend = (char *)(s <= e ? e : s);
    blocks = NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Buffer_attach)

static int no_blocks(void *arg)
{
    reap();
    return blocks == NULL;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPIR_ENTER("MPI_Buffer_detach");
    if (!buffer_addr || !size)
        return mpir_err_world(mpir_err(MPI_ERR_ARG, "MPI_Buffer_detach", "%s is NULL",
                                       size ? "buffer_addr" : "size"));
    if (!attach_addr) {
        *(void **)buffer_addr = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    /* Buffered messages must be on their way before the memory goes back. */
    if (!no_blocks(NULL))
        mpid_progress_until(no_blocks, NULL);
    *(void **)buffer_addr = attach_addr == (void *)&attach_addr ? NULL : attach_addr;
    *size = attach_size;
    attach_addr = NULL;
    attach_size = 0;
    bstart = bend = NULL;
    return MPI_SUCCESS;
}
MPIR_WEAK(Buffer_detach)

int mpir_pt2pt_finalize(void)
{
    if (!no_blocks(NULL))
        mpid_progress_until(no_blocks, NULL);
    return MPI_SUCCESS;
}
