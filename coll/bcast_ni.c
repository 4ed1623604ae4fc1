/*
 * bcast_ni.c — NI-forwarded broadcast (Verstoep et al. §4.2, §7.4): the root
 * hands its message to its agent packet by packet; agents deliver each
 * packet once to their node's members and forward it to their children in
 * a binary or binomial tree over nodes, with no rank polling in between.
 * Large messages pipeline packet by packet. A noncontiguous type is
 * packed on the way in and unpacked on the way out (every rank must take
 * the same path whatever its type map).
 * host-packet-* is the comparison of Verstoep et al. (l-sdma-hmc): the same
 * packets and agents, but the forwarding done by one rank per node in its
 * own progress (netmod/agent/agent_mc_rank.c).
 * Under CLUMPI_AGENT_REL=host (Verstoep et al.'s l-hrx) the agents keep no
 * copies and the tree may lose packets; the repair is end to end from the
 * root's rank, which keeps the message (the caller's buffer) until every
 * other rank has said which packets it holds: a rank reports once it has
 * all or none came for a timeout, and the root sends the ones it lacks
 * straight to it (bcast_repair).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll_impl.h"
#include "coll/ni.h"

/* The packets of msg (bytes, in packets of pkt) whose bits in map are
 * clear, in order: their bytes, and copied to (pack) or from (!pack) tmp
 * unless it is NULL. */
static size_t missing(const uint8_t *map, size_t pkt, size_t bytes, char *msg, char *tmp,
                      int pack)
{
    size_t n = 0;
    for (size_t off = 0, i = 0; off < bytes; off += pkt, i++) {
        if (map[i / 8] >> (i % 8) & 1)
            continue;
        size_t l = bytes - off < pkt ? bytes - off : pkt;
        if (tmp)
            memcpy(pack ? tmp + n : msg + off, pack ? msg + off : tmp + n, l);
        n += l;
    }
    return n;
}

/* The end-to-end repair under REL=host of the broadcast of p (bytes, in
 * packets of pkt) through the lossy tree: each rank but the root sends
 * the root a bit per packet it holds (its ack, made reliable by the ranks'
 * channels like any message) and, if some are missing, takes them in one
 * message from the root. Point-to-point rather than through the tree
 * again: every rank repaired in one round trip, only the ranks that lack
 * packets get them, and no new tree round that may itself lose some. The
 * root takes the reports in rank order (non-overtaking keeps a rank's
 * report of its next broadcast behind this one). */
static int bcast_repair(char *p, size_t bytes, int root, int shape, const mpid_comm *comm)
{
    size_t pkt = mpid_offload_pkt_bytes(), mapb = ((bytes + pkt - 1) / pkt + 7) / 8;
    uint8_t *map = calloc(mapb, 1);
    char *tmp = NULL;
    if (!map)
        return MPI_ERR_NO_MEM;
    int rc = mpid_offload_bcast(p, bytes, root, shape, comm, comm->rank == root ? NULL : map);
    if (rc < 0) {
        free(map);
        return coll_ni_err(rc);
    }
    if (comm->rank != root) {
        int lacks = rc;
        rc = coll_send(map, mapb, coll_byte(), root, COLL_TAG_BCAST, comm);
        if (rc == MPI_SUCCESS && lacks) {
            size_t n = missing(map, pkt, bytes, p, NULL, 0);
            if (!(tmp = malloc(n)))
                rc = MPI_ERR_NO_MEM;
            else if ((rc = coll_recv(tmp, n, coll_byte(), root, COLL_TAG_BCAST, comm)) ==
                     MPI_SUCCESS)
                missing(map, pkt, bytes, p, tmp, 0);
        }
    } else {
        for (int r = 0; r < comm->size && rc == MPI_SUCCESS; r++) {
            if (r == root ||
                (rc = coll_recv(map, mapb, coll_byte(), r, COLL_TAG_BCAST, comm)) != MPI_SUCCESS)
                continue;
            size_t n = missing(map, pkt, bytes, p, NULL, 1);
            if (n && !tmp && !(tmp = malloc(bytes)))
                rc = MPI_ERR_NO_MEM;
            else if (n)
                rc = coll_send(tmp, missing(map, pkt, bytes, p, tmp, 1), coll_byte(), r,
                               COLL_TAG_BCAST, comm);
        }
    }
    free(tmp);
    free(map);
    return rc;
}

static int bcast_ni(void *buf, size_t count, const cu_dtype *dt, int root,
                    const mpid_comm *comm, int shape)
{
    size_t bytes = cu_dtype_bytes(dt, count);
    if (comm->size <= 1 || bytes == 0)
        return MPI_SUCCESS;
    /* host-packet's forwarding ranks would need the repair before they
     * forward: it keeps the host tree under REL=host */
    int lossy = !(shape & MPID_TREE_HOST) && mpid_offload_lossy(comm);
    if (!lossy && !mpid_offload_usable(comm)) {
        coll_ni_fallback_note("broadcast", shape, comm, root, coll_ni_why_not(comm));
        return (shape & MPID_TREE_SHAPE) == MPID_TREE_BINARY
                   ? coll_bcast_binary(buf, count, dt, root, comm)
                                        : coll_bcast_binomial(buf, count, dt, root, comm);
    }
    char *p = (char *)buf + dt->true_lb, *tmp = NULL;
    if (!cu_dtype_is_contig(dt)) {
        if (!(tmp = malloc(bytes)))
            return MPI_ERR_NO_MEM;
        if (comm->rank == root)
            cu_dtype_pack(buf, count, dt, 0, tmp, bytes);
        p = tmp;
    }
    int rc = lossy ? bcast_repair(p, bytes, root, shape, comm)
                   : coll_ni_err(mpid_offload_bcast(p, bytes, root, shape, comm, NULL));
    if (tmp) {
        if (rc == MPI_SUCCESS && comm->rank != root)
            cu_dtype_unpack(buf, count, dt, 0, tmp, bytes);
        free(tmp);
    }
    return rc;
}

int coll_bcast_ni_binary(void *buf, size_t count, const cu_dtype *dt, int root,
                         const mpid_comm *comm)
{
    return bcast_ni(buf, count, dt, root, comm, MPID_TREE_BINARY);
}

int coll_bcast_ni_binomial(void *buf, size_t count, const cu_dtype *dt, int root,
                           const mpid_comm *comm)
{
    return bcast_ni(buf, count, dt, root, comm, MPID_TREE_BINOMIAL);
}

int coll_bcast_host_packet_binary(void *buf, size_t count, const cu_dtype *dt, int root,
                                  const mpid_comm *comm)
{
    return bcast_ni(buf, count, dt, root, comm, MPID_TREE_BINARY | MPID_TREE_HOST);
}

int coll_bcast_host_packet_binomial(void *buf, size_t count, const cu_dtype *dt, int root,
                                    const mpid_comm *comm)
{
    return bcast_ni(buf, count, dt, root, comm, MPID_TREE_BINOMIAL | MPID_TREE_HOST);
}
