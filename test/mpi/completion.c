/* np: 2 4
 * env: CLUMPI_EAGER_LIMIT=0
 * env: CLUMPI_NO_RMA=1
 * env: CLUMPI_SHM_QUEUE_CELLS=4 CLUMPI_SHM_CTRL_CELLS=4 CLUMPI_SHM_FRAGS=2
 * (env: extra runs with clumpi's protocol variants; other MPIs ignore them)
 *
 * Wait/Test any/some/all: each request completes exactly once with the right
 * status, MPI_REQUEST_NULL entries are skipped, all-null arrays give
 * MPI_UNDEFINED, Test frees a completed request, Request_get_status does not,
 * statuses line up with indices.
 */
#include "mtest.h"

#define PER 8

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "completion");
    int others = mt_size - 1;
    int total = others * PER;
    MPI_Status st;
    int idx, flag, outcount;

    /* All-null arrays. */
    {
        MPI_Request nulls[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        int indices[3];
        MPI_Status sts[3];
        MPI_OK(MPI_Waitany(3, nulls, &idx, &st));
        CHECK(idx == MPI_UNDEFINED, "Waitany on nulls: index %d", idx);
        MPI_OK(MPI_Testany(3, nulls, &idx, &flag, &st));
        CHECK(flag && idx == MPI_UNDEFINED, "Testany on nulls: flag %d index %d", flag, idx);
        MPI_OK(MPI_Waitsome(3, nulls, &outcount, indices, sts));
        CHECK(outcount == MPI_UNDEFINED, "Waitsome on nulls: outcount %d", outcount);
        MPI_OK(MPI_Testsome(3, nulls, &outcount, indices, sts));
        CHECK(outcount == MPI_UNDEFINED, "Testsome on nulls: outcount %d", outcount);
        MPI_OK(MPI_Testall(3, nulls, &flag, sts));
        CHECK(flag, "Testall on nulls: flag 0");
        MPI_OK(MPI_Waitall(3, nulls, sts));
        MPI_OK(MPI_Wait(&nulls[0], &st));
        MPI_OK(MPI_Test(&nulls[0], &flag, &st));
        CHECK(flag, "Test on MPI_REQUEST_NULL: flag 0");
        MPI_OK(MPI_Waitall(0, nulls, MPI_STATUSES_IGNORE));
    }

    if (mt_rank == 0) {
        for (int way = 0; way < 4; way++) {
            int *buf = mt_malloc(sizeof(int) * (size_t)(total + 2) * 4);
            MPI_Request *rq = mt_malloc(sizeof(MPI_Request) * (size_t)(total + 2));
            int *done = calloc((size_t)total + 2, sizeof(int));
            int n = total + 2;
            /* requests: receives from each other rank with tag j, plus two nulls */
            for (int i = 0; i < n; i++) {
                if (i == 0 || i == n / 2) {
                    rq[i] = MPI_REQUEST_NULL;
                    continue;
                }
                int r = i < n / 2 ? i - 1 : i - 2;
                int src = 1 + r % others, tag = r / others;
                MPI_OK(MPI_Irecv(&buf[4 * i], 4, MPI_INT, src, tag, MPI_COMM_WORLD, &rq[i]));
            }
            mt_barrier(); /* posted; now the others send */
            int completed = 0;
            MPI_Status *sts = mt_malloc(sizeof(MPI_Status) * (size_t)n);
            int *ind = mt_malloc(sizeof(int) * (size_t)n);
            MPI_Status *cst = mt_malloc(sizeof(MPI_Status) * (size_t)n);
            int *got = mt_malloc(sizeof(int) * (size_t)n);
            while (completed < total) {
                int ng = 0;
                if (way == 0) {
                    MPI_OK(MPI_Waitany(n, rq, &idx, &st));
                    CHECK(idx != MPI_UNDEFINED, "Waitany: MPI_UNDEFINED with %d pending", total - completed);
                    sts[idx] = st;
                    got[ng++] = idx;
                } else if (way == 1) {
                    MPI_OK(MPI_Testany(n, rq, &idx, &flag, &st));
                    if (flag) {
                        CHECK(idx != MPI_UNDEFINED, "Testany: flag without index");
                        sts[idx] = st;
                        got[ng++] = idx;
                    }
                } else {
                    /* statuses come compacted: cst[j] belongs to ind[j] */
                    if (way == 2)
                        MPI_OK(MPI_Waitsome(n, rq, &outcount, ind, cst));
                    else
                        MPI_OK(MPI_Testsome(n, rq, &outcount, ind, cst));
                    CHECK(outcount != MPI_UNDEFINED && outcount >= (way == 2),
                          "Wait/Testsome: outcount %d with %d pending", outcount, total - completed);
                    for (int j = 0; j < outcount; j++) {
                        got[ng++] = ind[j];
                        sts[ind[j]] = cst[j];
                    }
                }
                for (int j = 0; j < ng; j++) {
                    int i = got[j];
                    CHECK(i >= 0 && i < n && i != 0 && i != n / 2, "completed index %d", i);
                    CHECK(!done[i], "request %d completed twice", i);
                    CHECK(rq[i] == MPI_REQUEST_NULL, "completed request %d not freed", i);
                    done[i] = 1;
                    completed++;
                    int r = i < n / 2 ? i - 1 : i - 2;
                    int src = 1 + r % others, tag = r / others;
                    int *m = &buf[4 * i];
                    CHECK(sts[i].MPI_SOURCE == src && sts[i].MPI_TAG == tag,
                          "way %d index %d: status %d/%d, expected %d/%d", way, i,
                          sts[i].MPI_SOURCE, sts[i].MPI_TAG, src, tag);
                    CHECK(m[0] == src && m[1] == tag && m[2] == way, "way %d index %d: data %d %d %d",
                          way, i, m[0], m[1], m[2]);
                }
            }
            MPI_OK(MPI_Waitany(n, rq, &idx, &st));
            CHECK(idx == MPI_UNDEFINED, "Waitany after all done: index %d", idx);
            free(sts);
            free(cst);
            free(got);
            free(ind);
            free(buf);
            free(rq);
            free(done);
            mt_barrier();
        }
    } else {
        for (int way = 0; way < 4; way++) {
            mt_barrier();
            int m[PER][4];
            MPI_Request rq[PER];
            for (int t = PER - 1; t >= 0; t--) { /* reverse order */
                m[t][0] = mt_rank;
                m[t][1] = t;
                m[t][2] = way;
                m[t][3] = 0;
                MPI_OK(MPI_Isend(m[t], 4, MPI_INT, 0, t, MPI_COMM_WORLD, &rq[t]));
                if (t % 3 == 0)
                    mt_sleep_ms(1);
            }
            if (way % 2) {
                flag = 0;
                while (!flag)
                    MPI_OK(MPI_Testall(PER, rq, &flag, MPI_STATUSES_IGNORE));
            } else {
                MPI_OK(MPI_Waitall(PER, rq, MPI_STATUSES_IGNORE));
            }
            for (int t = 0; t < PER; t++)
                CHECK(rq[t] == MPI_REQUEST_NULL, "Waitall/Testall left request %d", t);
            mt_barrier();
        }
    }

    /* Test frees, Request_get_status does not. Self messages. */
    {
        int a = 11, b = 0;
        MPI_Request s, r;
        MPI_OK(MPI_Irecv(&b, 1, MPI_INT, mt_rank, 77, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Isend(&a, 1, MPI_INT, mt_rank, 77, MPI_COMM_WORLD, &s));
        flag = 0;
        while (!flag)
            MPI_OK(MPI_Request_get_status(r, &flag, &st));
        CHECK(r != MPI_REQUEST_NULL, "Request_get_status freed the request");
        CHECK(st.MPI_SOURCE == mt_rank && st.MPI_TAG == 77, "Request_get_status: status %d/%d",
              st.MPI_SOURCE, st.MPI_TAG);
        MPI_OK(MPI_Test(&r, &flag, &st));
        CHECK(flag && r == MPI_REQUEST_NULL, "Test after completion: flag %d", flag);
        CHECK(b == 11, "self message: %d", b);
        MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }
    return mt_finish();
}
