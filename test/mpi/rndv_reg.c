/* np: 2 3 5
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 *
 * Rendezvous memory exposure (clumpi only: reads the device's counters).
 * Across nodes the sender registers each message's memory under a fresh key
 * for the receiver's fi_read and ends the registration at FIN or CTS. Here
 * every rank sends to the next and receives from the previous, from buffers
 * allocated, filled and freed per message (the allocator hands the same
 * addresses back with new contents: a stale registration or a key of an
 * earlier message would deliver old bytes or fail), many at once to one
 * peer with receives posted in reverse (keys kept with unexpected RTS),
 * contiguous and strided (the span and the iovec list exposed), sizes just
 * past the eager limit, odd and 1 MiB. At the end no exposure may be left
 * open (a leak), and each must have been matched by its end.
 */
#include "mtest.h"
#include "mpid/mpidi.h"

#define NFLIGHT 16
static const size_t sizes[] = {65537, 200003, 1 << 20, 3 * 65536 - 5, 131072};
#define NS (sizeof sizes / sizeof sizes[0])

static unsigned seed_of(int round, int k, int rank)
{
    return (unsigned)(round * 1009 + k * 31 + rank * 7 + 1);
}

/* One message of n bytes to next, one from prev, each from a fresh buffer. */
static void one_round(int round, size_t n, int next, int prev)
{
    char *s = mt_malloc(n), *r = mt_malloc(n);
    mt_fill(s, n, seed_of(round, 0, mt_rank));
    memset(r, 0xee, n);
    MPI_Request q[2];
    MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, prev, round, MPI_COMM_WORLD, &q[0]));
    MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, next, round, MPI_COMM_WORLD, &q[1]));
    MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    long bad = mt_verify(r, n, seed_of(round, 0, prev));
    CHECK(bad < 0, "round %d, %zu bytes from %d: byte %ld wrong", round, n, prev, bad);
    free(s);
    free(r);
}

/* NFLIGHT messages at once from NFLIGHT buffers; receives posted last
 * tag first, after the RTS arrived (unexpected). */
static void in_flight(int round, size_t n, int next, int prev)
{
    mt_in_flight(round, NFLIGHT, n, next, prev, 0, seed_of);
}

/* Strided send (blocks of 4 KiB, every other one) into a contiguous receive. */
static void strided(int round, int nblk, int next, int prev)
{
    const int blk = 4096;
    size_t n = (size_t)nblk * blk;
    char *s = mt_malloc(2 * n), *packed = mt_malloc(n), *r = mt_malloc(n);
    mt_fill(s, 2 * n, seed_of(round, 1, mt_rank));
    MPI_Datatype vt;
    MPI_OK(MPI_Type_vector(nblk, blk, 2 * blk, MPI_BYTE, &vt));
    MPI_OK(MPI_Type_commit(&vt));
    MPI_Request q[2];
    MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, prev, round, MPI_COMM_WORLD, &q[0]));
    MPI_OK(MPI_Isend(s, 1, vt, next, round, MPI_COMM_WORLD, &q[1]));
    MPI_OK(MPI_Type_free(&vt));   /* still in use by the send */
    MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    /* the reference: the previous rank's strided bytes */
    char *ref = mt_malloc(2 * n);
    mt_fill(ref, 2 * n, seed_of(round, 1, prev));
    for (int b = 0; b < nblk; b++)
        memcpy(packed + (size_t)b * blk, ref + (size_t)2 * b * blk, (size_t)blk);
    CHECK(memcmp(packed, r, n) == 0, "strided round %d, %d blocks from %d: data wrong", round,
          nblk, prev);
    free(ref);
    free(s);
    free(packed);
    free(r);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "rndv_reg");
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    if (mt_size > 1) {
        for (int round = 0; round < 40; round++)
            one_round(round, sizes[round % NS], next, prev);
        for (int round = 0; round < 3; round++)
            in_flight(100 + round, sizes[round % NS], next, prev);
        for (int round = 0; round < 6; round++)
            strided(200 + round, 17 + 40 * round, next, prev);
    }
    mt_barrier();
    /* Every exposure ended: FIN or CTS came for each send. */
    CHECK(mpid_rndv_stats.live == 0, "%ld rendezvous exposures still open (of %lu made)",
          mpid_rndv_stats.live, mpid_rndv_stats.exposed);
    /* Toward another node with reads on, the reads went through exposures. */
    mpid_dest *d = &mpid_st.dests[next];
    if (mt_size > 1 && d->ch && d->ch->net_rma && !getenv("CLUMPI_NO_RMA") &&
        !getenv("CLUMPI_OFI_RMA") && !getenv("CLUMPI_OFI_PROVIDER"))
        CHECK(mpid_rndv_stats.exposed >= 40, "only %lu exposures for %d rendezvous sends",
              mpid_rndv_stats.exposed, 40 + 3 * NFLIGHT + 6);
    return mt_finish();
}
