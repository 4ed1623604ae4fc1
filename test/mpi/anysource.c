/* np: 2 4 8
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * env: CLUMPI_EAGER_LIMIT=32768
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * ANY_SOURCE storms: every rank but 0 sends many messages of mixed sizes
 * (inline, eager, rendezvous) to rank 0, which receives them all with
 * MPI_ANY_SOURCE / MPI_ANY_TAG. Each message must arrive exactly once, with
 * its data intact, and the messages of one sender in the order sent. Then the
 * same with receives pre-posted before the senders start, and an all-to-all
 * where every rank receives from everyone with ANY_SOURCE.
 */
#include "mtest.h"

#define NMSG 300

/* Size of message seq from src: mostly small, some eager-sized, a few large. */
static size_t msg_size(int src, int seq)
{
    if (seq % 97 == 13)
        return 200000 + (size_t)src * 11;
    if (seq % 11 == 5)
        return 20000 + (size_t)(seq * 7 + src);
    return (size_t)((seq * 37 + src * 5) % 300) + 8;
}

/* The first 8 bytes carry src and seq; the rest is a pattern. */
static void make_msg(unsigned char *b, int src, int seq)
{
    size_t n = msg_size(src, seq);
    mt_fill(b, n, (unsigned)(src * 1000 + seq));
    memcpy(b, &src, 4);
    memcpy(b + 4, &seq, 4);
}

static void check_msg(const unsigned char *b, const MPI_Status *st, int *next)
{
    int src, seq, count;
    memcpy(&src, b, 4);
    memcpy(&seq, b + 4, 4);
    CHECK(src == st->MPI_SOURCE, "message claims source %d, status says %d", src, st->MPI_SOURCE);
    CHECK(src > 0 && src < mt_size, "bad source %d", src);
    CHECK(seq == next[src], "from %d: got seq %d, expected %d (lost, duplicated or reordered)",
          src, seq, next[src]);
    CHECK(st->MPI_TAG == seq % 1000, "from %d seq %d: tag %d", src, seq, st->MPI_TAG);
    size_t n = msg_size(src, seq);
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == (int)n, "from %d seq %d: count %d, expected %zu", src, seq, count, n);
    /* the pattern past the header */
    for (size_t i = 8; i < n; i++)
        CHECK(b[i] == mt_byte(i, (unsigned)(src * 1000 + seq)),
              "from %d seq %d: byte %zu corrupt", src, seq, i);
    next[src]++;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "anysource");
    size_t maxn = 200000 + (size_t)mt_size * 11 + 64;
    int *next = calloc((size_t)mt_size, sizeof(int));

    /* Phase 1: blocking storm into rank 0. */
    if (mt_rank == 0) {
        unsigned char *b = mt_malloc(maxn);
        for (int i = 0; i < NMSG * (mt_size - 1); i++) {
            MPI_Status st;
            MPI_OK(MPI_Recv(b, (int)maxn, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            check_msg(b, &st, next);
        }
        for (int s = 1; s < mt_size; s++)
            CHECK(next[s] == NMSG, "phase 1: %d messages from %d", next[s], s);
        int flag;
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "phase 1: an extra message is pending");
        free(b);
    } else {
        unsigned char *b = mt_malloc(maxn);
        for (int seq = 0; seq < NMSG; seq++) {
            make_msg(b, mt_rank, seq);
            MPI_OK(MPI_Send(b, (int)msg_size(mt_rank, seq), MPI_BYTE, 0, seq % 1000, MPI_COMM_WORLD));
        }
        free(b);
    }
    mt_barrier();

    /* Phase 2: rank 0 pre-posts all receives (ANY_SOURCE) before anyone sends;
     * senders use Isend windows. Completion through Waitany. */
    int per = 64;
    if (mt_rank == 0) {
        int total = per * (mt_size - 1);
        unsigned char **bufs = malloc(sizeof(*bufs) * (size_t)total);
        MPI_Request *rq = malloc(sizeof(*rq) * (size_t)total);
        for (int i = 0; i < total; i++) {
            bufs[i] = mt_malloc(maxn);
            MPI_OK(MPI_Irecv(bufs[i], (int)maxn, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                             MPI_COMM_WORLD, &rq[i]));
        }
        mt_barrier(); /* receives are posted */
        memset(next, 0, sizeof(int) * (size_t)mt_size);
        /* Posted receives match in posting order, so per-sender order holds
         * when we check them in index order. */
        MPI_Status *st = malloc(sizeof(*st) * (size_t)total);
        MPI_OK(MPI_Waitall(total, rq, st));
        for (int i = 0; i < total; i++)
            check_msg(bufs[i], &st[i], next);
        for (int s = 1; s < mt_size; s++)
            CHECK(next[s] == per, "phase 2: %d messages from %d", next[s], s);
        for (int i = 0; i < total; i++)
            free(bufs[i]);
        free(bufs);
        free(rq);
        free(st);
    } else {
        unsigned char **bufs = malloc(sizeof(*bufs) * (size_t)per);
        MPI_Request *rq = malloc(sizeof(*rq) * (size_t)per);
        mt_barrier();
        for (int seq = 0; seq < per; seq++) {
            bufs[seq] = mt_malloc(msg_size(mt_rank, seq));
            make_msg(bufs[seq], mt_rank, seq);
            MPI_OK(MPI_Isend(bufs[seq], (int)msg_size(mt_rank, seq), MPI_BYTE, 0, seq % 1000,
                             MPI_COMM_WORLD, &rq[seq]));
        }
        MPI_OK(MPI_Waitall(per, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < per; i++)
            free(bufs[i]);
        free(bufs);
        free(rq);
    }
    mt_barrier();

    /* Phase 3: all-to-all, everyone receives from anyone. */
    {
        int rounds = 20;
        int n = mt_size - 1;
        int *in = mt_malloc(sizeof(int) * 4 * (size_t)(n ? n : 1));
        int *out = mt_malloc(sizeof(int) * 4 * (size_t)(n ? n : 1));
        MPI_Request *rq = mt_malloc(sizeof(*rq) * 2 * (size_t)(n ? n : 1));
        int *seen = mt_malloc(sizeof(int) * (size_t)mt_size);
        for (int r = 0; r < rounds; r++) {
            int k = 0;
            for (int i = 0; i < n; i++)
                MPI_OK(MPI_Irecv(&in[4 * i], 4, MPI_INT, MPI_ANY_SOURCE, r, MPI_COMM_WORLD, &rq[k++]));
            for (int i = 0, d = 0; d < mt_size; d++) {
                if (d == mt_rank)
                    continue;
                out[4 * i] = mt_rank;
                out[4 * i + 1] = r;
                out[4 * i + 2] = d;
                out[4 * i + 3] = mt_rank * 1000 + d + r;
                MPI_OK(MPI_Isend(&out[4 * i], 4, MPI_INT, d, r, MPI_COMM_WORLD, &rq[k++]));
                i++;
            }
            MPI_Status *st = mt_malloc(sizeof(MPI_Status) * (size_t)(k ? k : 1));
            MPI_OK(MPI_Waitall(k, rq, st));
            memset(seen, 0, sizeof(int) * (size_t)mt_size);
            for (int i = 0; i < n; i++) {
                int *m = &in[4 * i];
                CHECK(m[0] == st[i].MPI_SOURCE && m[1] == r && m[2] == mt_rank &&
                      m[3] == m[0] * 1000 + mt_rank + r,
                      "phase 3 round %d: bad message {%d,%d,%d,%d} from %d", r, m[0], m[1],
                      m[2], m[3], st[i].MPI_SOURCE);
                CHECK(seen[m[0]]++ == 0, "phase 3 round %d: two messages from %d", r, m[0]);
            }
            free(st);
        }
        free(in);
        free(out);
        free(rq);
        free(seen);
    }

    free(next);
    return mt_finish();
}
