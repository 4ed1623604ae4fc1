/* np: 2
 * env: CLUMPI_OVERSUBSCRIBED=0
 * env: CLUMPI_OVERSUBSCRIBED=1
 * env: CLUMPI_OVERSUBSCRIBED=0 CLUMPI_SHM_CMA=0
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * clumpi's shared-memory eager limit follows the host: 8 KiB while every
 * rank has a core (a larger message waits for its receive and is read
 * once), 32 KiB when ranks outnumber cores (the sender goes on), and
 * 32 KiB again on a route whose single-copy reads are refused (after its
 * first rendezvous). Seen from outside: whether a standard Isend of 8 KiB
 * and of 16 KiB completes before the receiver posts its receive. Every
 * byte is checked; the limits only under clumpi with CLUMPI_OVERSUBSCRIBED
 * set.
 */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

/* Whether rank 0's Isend of n bytes completed within 200 ms, while rank 1
 * holds its receive back until then. */
static int early(size_t n, unsigned seed)
{
    unsigned char *b = mt_malloc(n);
    int done = 0;
    if (mt_rank == 0) {
        MPI_Request q;
        mt_fill(b, n, seed);
        MPI_OK(MPI_Isend(b, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &q));
        for (int i = 0; i < 200 && !done; i++) {
            MPI_OK(MPI_Test(&q, &done, MPI_STATUS_IGNORE));
            if (!done)
                mt_sleep_ms(1);
        }
        mt_barrier();
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        mt_barrier();
        MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        long bad = mt_verify(b, n, seed);
        CHECK(bad < 0, "%zu bytes: byte %ld wrong", n, bad);
    }
    free(b);
    return done;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "eager_regime");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_OK(MPI_Get_library_version(lib, &len));
    const char *ov = getenv("CLUMPI_OVERSUBSCRIBED"), *cma = getenv("CLUMPI_SHM_CMA");
    int check = strstr(lib, "clumpi") != NULL && ov != NULL && mt_rank == 0;
    int busy = ov && atoi(ov) == 1, reads = !(cma && atoi(cma) == 0);

    int e8 = early(8192, 1);
    int e16 = early(16384, 2);
    int e16b = early(16384, 3);
    if (check) {
        CHECK(e8, "8 KiB: not sent eagerly");
        CHECK(e16 == busy, "16 KiB: %s",
              e16 ? "eager, expected rendezvous" : "rendezvous, expected eager");
        /* refused reads: the first one learnt it, the next goes eager */
        CHECK(e16b == (busy || !reads), "second 16 KiB: %s",
              e16b ? "eager, expected rendezvous" : "rendezvous, expected eager");
    }
    return mt_finish();
}
