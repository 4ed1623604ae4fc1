/* np: 4 8
 * env: CLUMPI_OFI_SLAB=2
 * env: CLUMPI_NO_RMA=1
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Many-to-one incast with a slow receiver: every rank but 0 keeps a window
 * of nonblocking sends of mixed sizes (1 byte to the eager limit and past
 * it) going to rank 0, which receives them with MPI_ANY_SOURCE and now and
 * then stops receiving for a moment, so that the senders' socket buffers
 * fill and packets reach it in pieces, from several connections at once.
 * Every message must arrive once, intact, in per-sender order.
 *
 * Across emulated nodes this is what broke the network channel's receive
 * slabs (netmod/ofi/progress.c, rx_slab_done): libfabric 1.17's net
 * provider released a slab while a packet carved from it for another
 * connection was still filling (the channel no longer gives that provider
 * slabs; nodes.sh runs this with tcp;ofi_rxm too). CLUMPI_OFI_SLAB=2 makes
 * slabs small, so they are released and reposted often.
 */
#include "mtest.h"

#define NMSG 600
#define WINDOW 32

/* Size of message seq from src: small, ~1 KiB segments, odd sizes around
 * 64 KiB (the network channel's packet and eager limit) and a few larger. */
static size_t msg_size(int src, int seq)
{
    switch (seq % 8) {
    case 0: return 1;
    case 1: return 1025;
    case 2: return (size_t)(seq * 13 + src) % 4000 + 8;
    case 3: return 65536 - 64 + (size_t)(seq + src) % 128;
    case 4: return 1024;
    case 5: return seq % 40 == 5 ? 150001 : 3001;
    case 6: return 16384 + (size_t)src;
    default: return 40000 + (size_t)seq;
    }
}

static unsigned seed_of(int src, int seq)
{
    return (unsigned)(src * 7919 + seq);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "incast");
    size_t maxn = 150001 + 64;
    if (mt_rank == 0) {
        int *next = calloc((size_t)mt_size, sizeof(int));
        unsigned char *b = mt_malloc(maxn);
        int total = NMSG * (mt_size - 1);
        for (int i = 0; i < total; i++) {
            MPI_Status st;
            int count;
            if (i % 64 == 63)
                mt_sleep_ms(2);   /* let the senders' buffers fill */
            MPI_OK(MPI_Recv(b, (int)maxn, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                            &st));
            int src = st.MPI_SOURCE, seq = st.MPI_TAG;
            CHECK(src > 0 && src < mt_size, "bad source %d", src);
            CHECK(seq == next[src], "from %d: got seq %d, expected %d (lost, duplicated or "
                  "reordered)", src, seq, next[src]);
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            size_t n = msg_size(src, seq);
            CHECK(count == (int)n, "from %d seq %d: count %d, expected %zu", src, seq, count, n);
            long bad = mt_verify(b, n, seed_of(src, seq));
            CHECK(bad < 0, "from %d seq %d (%zu bytes): byte %ld corrupt", src, seq, n, bad);
            next[src]++;
        }
        int flag;
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "an extra message is pending");
        free(b);
        free(next);
    } else {
        unsigned char *bufs[WINDOW];
        MPI_Request rq[WINDOW];
        for (int w = 0; w < WINDOW; w++) {
            bufs[w] = mt_malloc(maxn);
            rq[w] = MPI_REQUEST_NULL;
        }
        for (int seq = 0; seq < NMSG; seq++) {
            int w = seq % WINDOW;
            MPI_OK(MPI_Wait(&rq[w], MPI_STATUS_IGNORE));
            size_t n = msg_size(mt_rank, seq);
            mt_fill(bufs[w], n, seed_of(mt_rank, seq));
            MPI_OK(MPI_Isend(bufs[w], (int)n, MPI_BYTE, 0, seq, MPI_COMM_WORLD, &rq[w]));
        }
        MPI_OK(MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE));
        for (int w = 0; w < WINDOW; w++)
            free(bufs[w]);
    }
    return mt_finish();
}
