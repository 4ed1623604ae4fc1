/* np: 1 2 3 4 8
 * env: CLUMPI_RMA_AM=1
 *
 * ops.c — every one-sided operation under every synchronization mode
 * (fence, post/start/complete/wait, lock/unlock, lock_all + flush) on
 * windows made by Win_create and by Win_allocate, with derived types on
 * either side (vector origin / contiguous target and the reverse), the ops
 * SUM, REPLACE and NO_OP, and transfers larger than one packet. Each rank
 * puts into the next and checks, in its own window and in its fetched
 * results, what a local reference computes. CLUMPI_RMA_AM=1 sends every
 * operation as active messages (the path used between nodes).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L 60000                 /* ints in the large put and accumulate */
#define NW (64 + 3 * L)         /* window ints per rank */

static int rank, size;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL ops rank %d line %d: ", rank, \
    __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

enum { FENCE, PSCW, LOCK, LOCKALL, NSYNC };
static const char *sync_names[] = { "fence", "pscw", "lock", "lock_all+flush" };

static int init_val(int r, int i) { return r * 1000 + i % 1000; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int t = (rank + 1) % size, o = (rank + size - 1) % size;
    MPI_Group world, tg, og;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &t, &tg);
    MPI_Group_incl(world, 1, &o, &og);
    MPI_Datatype vec2, vec3, tvec;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec2);   /* origin: every other int */
    MPI_Type_vector(4, 1, 3, MPI_INT, &vec3);   /* target: every third int */
    MPI_Type_vector(L / 2, 1, 2, MPI_INT, &tvec);
    MPI_Type_commit(&vec2);
    MPI_Type_commit(&vec3);
    MPI_Type_commit(&tvec);
    int *src = malloc(sizeof(int) * 2 * L), *big = malloc(sizeof(int) * L);
    int *own = malloc(sizeof(int) * NW);
    for (int i = 0; i < L; i++)
        big[i] = rank * 7 + i;
    for (int i = 0; i < 2 * L; i++)
        src[i] = rank * 100 + 50 + i % 100;

    for (int flavor = 0; flavor < 2; flavor++) {
        MPI_Win win;
        int *w;
        if (flavor == 0) {
            w = own;
            MPI_Win_create(w, sizeof(int) * NW, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Win_allocate(sizeof(int) * NW, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w,
                             &win);
        }
        for (int sync = 0; sync < NSYNC; sync++) {
            for (int i = 0; i < NW; i++)
                w[i] = init_val(rank, i);
            MPI_Barrier(MPI_COMM_WORLD);
            int put8[8], get4[4] = { 0 }, gacc = -1, noop = -1, fop = -1, cas = -1;
            int one5 = 5, three = 3, mine = rank, cmp = init_val(t, 47), rep = rank * 7;
            int inc[4], rg[2] = { 0 }, rp = rank * 11, gbig0 = -1;
            for (int k = 0; k < 8; k++)
                put8[k] = rank * 100 + k;
            for (int k = 0; k < 4; k++)
                inc[k] = rank + 1;
            if (sync == FENCE)
                MPI_Win_fence(0, win);
            else if (sync == PSCW) {
                MPI_Win_post(og, 0, win);
                MPI_Win_start(tg, 0, win);
            } else if (sync == LOCK)
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
            else
                MPI_Win_lock_all(0, win);

            MPI_Put(put8, 8, MPI_INT, t, 0, 8, MPI_INT, win);
            MPI_Put(src, 1, vec2, t, 8, 4, MPI_INT, win);
            MPI_Put(src + 20, 4, MPI_INT, t, 16, 1, vec3, win);
            MPI_Accumulate(inc, 4, MPI_INT, t, 32, 4, MPI_INT, MPI_SUM, win);
            MPI_Accumulate(&rep, 1, MPI_INT, t, 36, 1, MPI_INT, MPI_REPLACE, win);
            MPI_Get(get4, 4, MPI_INT, t, 40, 4, MPI_INT, win);
            MPI_Get_accumulate(&one5, 1, MPI_INT, &gacc, 1, MPI_INT, t, 44, 1, MPI_INT, MPI_SUM,
                               win);
            MPI_Get_accumulate(NULL, 0, MPI_INT, &noop, 1, MPI_INT, t, 45, 1, MPI_INT, MPI_NO_OP,
                               win);
            MPI_Fetch_and_op(&three, &fop, MPI_INT, t, 46, MPI_SUM, win);
            MPI_Compare_and_swap(&mine, &cmp, &cas, MPI_INT, t, 47, win);
            /* larger than a packet: contiguous put, accumulate into a
             * strided target, get of a strided target into a vector */
            MPI_Put(big, L, MPI_INT, t, 64, L, MPI_INT, win);
            MPI_Accumulate(src, L / 2, MPI_INT, t, 64 + L, 1, tvec, MPI_SUM, win);
            MPI_Get(&gbig0, 1, MPI_INT, t, 64 + 2 * L + 5, 1, MPI_INT, win);
            if (sync == LOCK || sync == LOCKALL) {
                MPI_Request rq[2];
                MPI_Rput(&rp, 1, MPI_INT, t, 48, 1, MPI_INT, win, &rq[0]);
                MPI_Rget(rg, 2, MPI_INT, t, 50, 2, MPI_INT, win, &rq[1]);
                MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
                CHECK(rg[0] == init_val(t, 50) && rg[1] == init_val(t, 51),
                      "%s: Rget read %d %d", sync_names[sync], rg[0], rg[1]);
            }

            if (sync == FENCE)
                MPI_Win_fence(0, win);
            else if (sync == PSCW) {
                MPI_Win_complete(win);
                MPI_Win_wait(win);
            } else if (sync == LOCK)
                MPI_Win_unlock(t, win);
            else {
                MPI_Win_flush(t, win);
                CHECK(fop == init_val(t, 46), "%s: fetch_and_op before unlock_all fetched %d",
                      sync_names[sync], fop);
                MPI_Win_unlock_all(win);
            }
            MPI_Barrier(MPI_COMM_WORLD);

            const char *sn = sync_names[sync];
            const char *fl = flavor ? "allocate" : "create";
            for (int k = 0; k < 8; k++)
                CHECK(w[k] == o * 100 + k, "%s/%s: put w[%d]=%d", fl, sn, k, w[k]);
            for (int k = 0; k < 4; k++)
                CHECK(w[8 + k] == o * 100 + 50 + 2 * k, "%s/%s: vector-origin put w[%d]=%d", fl,
                      sn, 8 + k, w[8 + k]);
            for (int k = 0; k < 4; k++)
                CHECK(w[16 + 3 * k] == o * 100 + 70 + k, "%s/%s: vector-target put w[%d]=%d",
                      fl, sn, 16 + 3 * k, w[16 + 3 * k]);
            CHECK(w[17] == init_val(rank, 17), "%s/%s: vector-target put wrote a gap", fl, sn);
            for (int k = 0; k < 4; k++)
                CHECK(w[32 + k] == init_val(rank, 32 + k) + o + 1, "%s/%s: acc w[%d]=%d", fl, sn,
                      32 + k, w[32 + k]);
            CHECK(w[36] == o * 7, "%s/%s: replace w[36]=%d", fl, sn, w[36]);
            for (int k = 0; k < 4; k++)
                CHECK(get4[k] == init_val(t, 40 + k), "%s/%s: get[%d]=%d", fl, sn, k, get4[k]);
            CHECK(w[44] == init_val(rank, 44) + 5 && gacc == init_val(t, 44),
                  "%s/%s: get_accumulate w=%d result=%d", fl, sn, w[44], gacc);
            CHECK(w[45] == init_val(rank, 45) && noop == init_val(t, 45),
                  "%s/%s: NO_OP w=%d result=%d", fl, sn, w[45], noop);
            CHECK(w[46] == init_val(rank, 46) + 3 && fop == init_val(t, 46),
                  "%s/%s: fetch_and_op w=%d result=%d", fl, sn, w[46], fop);
            CHECK(w[47] == o && cas == init_val(t, 47), "%s/%s: cas w=%d result=%d", fl, sn,
                  w[47], cas);
            if (sync == LOCK || sync == LOCKALL)
                CHECK(w[48] == o * 11, "%s/%s: Rput w[48]=%d", fl, sn, w[48]);
            for (int i = 0; i < L; i++)
                CHECK(w[64 + i] == o * 7 + i, "%s/%s: large put w[%d]=%d", fl, sn, 64 + i,
                      w[64 + i]);
            for (int i = 0; i < L; i++) {
                int want = init_val(rank, 64 + L + i) + (i % 2 ? 0 : o * 100 + 50 + (i / 2) % 100);
                CHECK(w[64 + L + i] == want, "%s/%s: strided acc w[%d]=%d want %d", fl, sn,
                      64 + L + i, w[64 + L + i], want);
            }
            CHECK(gbig0 == init_val(t, 64 + 2 * L + 5), "%s/%s: get %d", fl, sn, gbig0);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        MPI_Win_free(&win);
    }
    MPI_Type_free(&vec2);
    MPI_Type_free(&vec3);
    MPI_Type_free(&tvec);
    MPI_Group_free(&tg);
    MPI_Group_free(&og);
    MPI_Group_free(&world);
    free(src);
    free(big);
    free(own);
    if (rank == 0)
        printf("ops: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
