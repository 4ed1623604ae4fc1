/* np: 1 2 3 4 5 7 8
 *
 * MPI_Comm_idup on intra- and intercommunicators: it does not block (rank 0
 * receives, before waiting, a synchronous send that rank 1 makes before its
 * own idup); attributes are copied at the call; several idups and blocking
 * creations in flight at once, with members whose context counters differ,
 * give communicators whose traffic never crosses; the intercommunicator
 * form keeps both groups; bad arguments give their error classes.
 */
#include "mtest.h"

/* Sends one int on each of the n communicators c[] to `to` (all with tag 3)
 * and receives from `from` in reverse order: each message must arrive on
 * the communicator it was sent on. Ranks are in each c[i]. */
static void isolated(int n, const MPI_Comm *c, int to, int from)
{
    MPI_Request *rq = malloc((size_t)n * sizeof *rq);
    int *v = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) {
        v[i] = 1000 * i + mt_rank;
        MPI_OK(MPI_Isend(&v[i], 1, MPI_INT, to, 3, c[i], &rq[i]));
    }
    for (int i = n - 1; i >= 0; i--) {
        int x;
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, from, 3, c[i], MPI_STATUS_IGNORE));
        CHECK(x / 1000 == i, "communicator %d received a message sent on %d", i, x / 1000);
    }
    MPI_OK(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
    free(rq);
    free(v);
}

static void intra_tests(void)
{
    int n = mt_size, me = mt_rank, res, flag;
    MPI_Comm a, b, c;
    MPI_Request r[2];

    /* does not block: rank 1 is in MPI_Ssend until rank 0 receives */
    if (me == 1)
        MPI_OK(MPI_Ssend(&me, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &r[0]));
    if (me == 0 && n > 1) {
        int x;
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(x == 1, "got %d", x);
    }
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(r[0] == MPI_REQUEST_NULL, "the request is not freed");
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, a, &res));
    CHECK(res == MPI_CONGRUENT, "compare(world, idup) = %d", res);
    MPI_OK(MPI_Comm_test_inter(a, &flag));
    CHECK(!flag, "idup of an intracommunicator is an intercommunicator");
    MPI_OK(MPI_Barrier(a));
    MPI_OK(MPI_Comm_free(&a));

    /* attributes as at the call */
    int key;
    void *val;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(intptr_t)5));
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &r[0]));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(intptr_t)6));
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_get_attr(a, key, &val, &flag));
    CHECK(flag && (intptr_t)val == 5, "attribute flag %d value %ld, expected 5", flag,
          (long)(intptr_t)val);
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    MPI_OK(MPI_Comm_free_keyval(&key));

    /* counters apart: the odd ranks make communicators of their own first */
    MPI_Group wg, odd, even;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int ranks[2][8], nr[2] = { 0, 0 };
    for (int i = 0; i < n; i++)
        ranks[i % 2][nr[i % 2]++] = i;
    MPI_OK(MPI_Group_incl(wg, nr[0], ranks[0], &even));
    MPI_OK(MPI_Group_incl(wg, nr[1], ranks[1], &odd));
    MPI_Comm own[3] = { MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL };
    if (me % 2)
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, odd, 7, &own[i]));
    /* two idups and a blocking dup in flight; the even ranks meanwhile make
     * communicators of their own from their lower counters */
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &r[0]));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r[1]));
    MPI_Comm ev[4];
    if (me % 2 == 0)
        for (int i = 0; i < 4; i++)
            MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, even, 8, &ev[i]));
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    MPI_Comm all[4] = { MPI_COMM_WORLD, a, b, c };
    isolated(4, all, (me + 1) % n, (me + n - 1) % n);
    if (me % 2 == 0) {
        /* the even ranks' communicators against the idups: ranks in ev are
         * positions among the even ranks */
        int ne = nr[0], pos = me / 2;
        MPI_Comm mix[6] = { ev[0], ev[1], ev[2], ev[3], MPI_COMM_NULL, MPI_COMM_NULL };
        mix[4] = a;
        mix[5] = c;
        /* the same peers: positions among the even ranks in ev, world ranks
         * in a and c */
        MPI_Request q[12];
        int v[6], k = 0, to = (pos + 1) % ne, from = (pos + ne - 1) % ne;
        for (int i = 0; i < 6; i++) {
            v[i] = 1000 * i + me;
            MPI_OK(MPI_Isend(&v[i], 1, MPI_INT, i < 4 ? to : 2 * to, 4, mix[i], &q[k++]));
        }
        for (int i = 5; i >= 0; i--) {
            int x;
            MPI_OK(MPI_Recv(&x, 1, MPI_INT, i < 4 ? from : 2 * from, 4, mix[i],
                            MPI_STATUS_IGNORE));
            CHECK(x / 1000 == i, "communicator %d received a message sent on %d", i, x / 1000);
        }
        MPI_OK(MPI_Waitall(k, q, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 4; i++)
            MPI_OK(MPI_Comm_free(&ev[i]));
    } else {
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Comm_free(&own[i]));
    }
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Group_free(&odd));
    MPI_OK(MPI_Group_free(&even));
    MPI_OK(MPI_Group_free(&wg));

    /* bad arguments */
    MPI_FAILS(MPI_ERR_ARG, MPI_Comm_idup(MPI_COMM_WORLD, NULL, &r[0]));
    MPI_FAILS(MPI_ERR_ARG, MPI_Comm_idup(MPI_COMM_WORLD, &a, NULL));
    MPI_FAILS(MPI_ERR_COMM, MPI_Comm_idup(MPI_COMM_NULL, &a, &r[0]));
    /* freeing the request of a pending collective is refused */
    MPI_OK(MPI_Comm_idup(MPI_COMM_SELF, &a, &r[0]));
    MPI_FAILS(MPI_ERR_REQUEST, MPI_Request_free(&r[0]));
    if (n > 1) {
        /* freeing it before completion (erroneous) is refused: it is not
         * complete before rank 0 takes part; its handler is world's */
        MPI_Comm p;
        MPI_Request pr;
        if (me == 0)
            MPI_OK(MPI_Recv(NULL, 0, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &p, &pr));
        if (me == 1) {
            MPI_FAILS(MPI_ERR_COMM, MPI_Comm_free(&p));
            MPI_OK(MPI_Send(NULL, 0, MPI_INT, 0, 9, MPI_COMM_WORLD));
        }
        MPI_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Comm_free(&p));
    }
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_free(&a));
}

static void inter_tests(void)
{
    int me = mt_rank, side = me % 2, res, flag;
    MPI_Comm local, ic, d;
    MPI_Request r;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, side, me, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - side, 11, &ic));
    int lsize, rsize, lrank;
    MPI_OK(MPI_Comm_size(ic, &lsize));
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    MPI_OK(MPI_Comm_rank(ic, &lrank));
    /* traffic on the parent while the idup is pending */
    MPI_OK(MPI_Comm_idup(ic, &d, &r));
    int x = me, y;
    MPI_Request s;
    MPI_OK(MPI_Isend(&x, 1, MPI_INT, lrank % rsize, 2, ic, &s));
    /* remote rank j sent to local rank j % lsize */
    for (int j = lrank; j < rsize; j += lsize) {
        MPI_Status st;
        MPI_OK(MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 2, ic, &st));
        CHECK(st.MPI_SOURCE % lsize == lrank && y == 2 * st.MPI_SOURCE + 1 - side,
              "from remote rank %d: %d", st.MPI_SOURCE, y);
    }
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_test_inter(d, &flag));
    CHECK(flag, "idup of an intercommunicator is not one");
    MPI_OK(MPI_Comm_compare(ic, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare(ic, idup) = %d", res);
    MPI_OK(MPI_Comm_remote_size(d, &res));
    CHECK(res == rsize, "remote size %d, expected %d", res, rsize);
    /* both ways: every local rank to every remote rank, on d and on ic */
    for (int t = 0; t < rsize; t++) {
        int v[2] = { 100 + me, 200 + me };
        MPI_Request q[2];
        MPI_OK(MPI_Isend(&v[0], 1, MPI_INT, t, 5, ic, &q[0]));
        MPI_OK(MPI_Isend(&v[1], 1, MPI_INT, t, 5, d, &q[1]));
        MPI_Status st;
        int got;
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, d, &st));
        CHECK(got >= 200 && (got - 200) % 2 == 1 - side, "on the idup: %d from %d", got,
              st.MPI_SOURCE);
        CHECK(got - 200 == 2 * st.MPI_SOURCE + 1 - side, "world %d is not remote rank %d",
              got - 200, st.MPI_SOURCE);
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 5, ic, MPI_STATUS_IGNORE));
        CHECK(got == 100 + 2 * st.MPI_SOURCE + 1 - side, "on the parent: %d", got);
        MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    }
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "idup");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    intra_tests();
    if (mt_size >= 2)
        inter_tests();
    mt_finish();
    return 0;
}
