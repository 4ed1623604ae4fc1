/* np: 1 2 3 4 5 7 8
 *
 * Intercommunicators over several splits of MPI_COMM_WORLD into two groups of
 * unequal sizes (rank % 3 == 0 against the rest, rank 0 against the rest,
 * the last rank against the rest): MPI_Intercomm_create, the local and remote
 * sizes and groups, point-to-point both ways (specific and MPI_ANY_SOURCE
 * receives, probes, status MPI_SOURCE naming the remote rank), merge with
 * both orders of `high` and with equal values, dup (congruent, isolated),
 * split (inter form, with MPI_COMM_NULL where a side is empty), create
 * (inter form), compare, names and attributes, and the error classes of
 * misuse. On even against odd ranks: a user error handler passed from
 * local_comm to the intercommunicator and its merge, and an
 * intercommunicator freed with operations pending.
 */
#include "mtest.h"

/* The scheme-th way of cutting world into sides 0 and 1, or -1 when a side
 * would be empty. */
static int side_of(int scheme, int r, int n)
{
    switch (scheme) {
    case 0: return r % 3 == 0 ? 0 : 1;
    case 1: return r == 0 ? 0 : 1;
    case 3: return r % 2;
    default: return r == n - 1 ? 0 : 1;
    }
}

/* World ranks of a side, in increasing order; returns the count. */
static int members(int scheme, int side, int n, int *out)
{
    int k = 0;
    for (int r = 0; r < n; r++)
        if (side_of(scheme, r, n) == side)
            out[k++] = r;
    return k;
}

/* The world ranks of a group, through MPI_Group_translate_ranks. */
static void world_of(MPI_Group g, int *out)
{
    MPI_Group wg;
    int n;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_size(g, &n));
    int *idx = malloc((size_t)n * sizeof(int) + 1);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_OK(MPI_Group_translate_ranks(g, n, idx, wg, out));
    free(idx);
    MPI_OK(MPI_Group_free(&wg));
}

static void check_groups(MPI_Comm ic, int nl, const int *lw, int nr, const int *rw)
{
    int flag, n, w[16];
    MPI_Group g;
    MPI_OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "test_inter is false on an intercommunicator");
    MPI_OK(MPI_Comm_size(ic, &n));
    CHECK(n == nl, "local size %d, expected %d", n, nl);
    MPI_OK(MPI_Comm_remote_size(ic, &n));
    CHECK(n == nr, "remote size %d, expected %d", n, nr);
    MPI_OK(MPI_Comm_group(ic, &g));
    world_of(g, w);
    for (int i = 0; i < nl; i++)
        CHECK(w[i] == lw[i], "local group rank %d is world %d, expected %d", i, w[i], lw[i]);
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Comm_remote_group(ic, &g));
    world_of(g, w);
    for (int i = 0; i < nr; i++)
        CHECK(w[i] == rw[i], "remote group rank %d is world %d, expected %d", i, w[i], rw[i]);
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Comm_rank(ic, &n));
    CHECK(lw[n] == mt_rank, "local rank %d is world %d, not me (%d)", n, lw[n], mt_rank);
}

/* Every process sends its world rank and the destination's rank to every
 * remote rank; receives by ANY_SOURCE check MPI_SOURCE against rw. Then a
 * specific-source exchange with probes. */
static void traffic(MPI_Comm ic, int nr, const int *rw, int tag)
{
    int me;
    MPI_OK(MPI_Comm_rank(ic, &me));
    MPI_Request *rq = malloc((size_t)nr * sizeof *rq);
    int (*out)[2] = malloc((size_t)nr * sizeof *out);
    char *seen = calloc((size_t)nr, 1);
    for (int r = 0; r < nr; r++) {
        out[r][0] = mt_rank;
        out[r][1] = r;
        MPI_OK(MPI_Isend(out[r], 2, MPI_INT, r, tag, ic, &rq[r]));
    }
    for (int i = 0; i < nr; i++) {
        int in[2], cnt;
        MPI_Status st;
        MPI_OK(MPI_Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, tag, ic, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < nr, "MPI_SOURCE %d outside remote size %d",
              st.MPI_SOURCE, nr);
        CHECK(st.MPI_TAG == tag, "MPI_TAG %d, expected %d", st.MPI_TAG, tag);
        MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt == 2, "count %d", cnt);
        CHECK(!seen[st.MPI_SOURCE], "remote rank %d sent twice", st.MPI_SOURCE);
        seen[st.MPI_SOURCE] = 1;
        CHECK(in[0] == rw[st.MPI_SOURCE], "from remote rank %d: world %d, expected %d",
              st.MPI_SOURCE, in[0], rw[st.MPI_SOURCE]);
        CHECK(in[1] == me, "addressed to local rank %d, I am %d", in[1], me);
    }
    MPI_OK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
    /* specific sources, probed first, in reverse order of arrival */
    for (int r = 0; r < nr; r++)
        MPI_OK(MPI_Isend(&out[r][0], 1, MPI_INT, r, tag + 1, ic, &rq[r]));
    for (int r = nr - 1; r >= 0; r--) {
        MPI_Status st;
        int v = -1, flag = 0;
        MPI_OK(MPI_Probe(r, tag + 1, ic, &st));
        CHECK(st.MPI_SOURCE == r, "probe source %d, expected %d", st.MPI_SOURCE, r);
        MPI_OK(MPI_Iprobe(r, tag + 1, ic, &flag, &st));
        CHECK(flag && st.MPI_SOURCE == r, "iprobe after probe: flag %d source %d", flag,
              st.MPI_SOURCE);
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, r, tag + 1, ic, &st));
        CHECK(v == rw[r] && st.MPI_SOURCE == r, "from %d: %d (source %d), expected %d", r, v,
              st.MPI_SOURCE, rw[r]);
    }
    MPI_OK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
    /* matched probes and persistent requests address the remote group too */
    for (int r = 0; r < nr; r++)
        MPI_OK(MPI_Send_init(&out[r][0], 1, MPI_INT, r, tag + 2, ic, &rq[r]));
    MPI_OK(MPI_Startall(nr, rq));
    for (int i = 0; i < nr; i++) {
        MPI_Message msg;
        MPI_Status st;
        int v = -1;
        MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, tag + 2, ic, &msg, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < nr, "mprobe source %d", st.MPI_SOURCE);
        MPI_OK(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
        CHECK(v == rw[st.MPI_SOURCE], "mrecv from %d: %d, expected %d", st.MPI_SOURCE, v,
              rw[st.MPI_SOURCE]);
    }
    MPI_OK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
    for (int r = 0; r < nr; r++)
        MPI_OK(MPI_Request_free(&rq[r]));
    /* ranks name the remote group: one past its end is invalid */
    int x = 0;
    MPI_FAILS(MPI_ERR_RANK, MPI_Send(&x, 1, MPI_INT, nr, tag, ic));
    MPI_FAILS(MPI_ERR_RANK, MPI_Recv(&x, 1, MPI_INT, nr, tag, ic, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, tag, ic));
    free(rq);
    free(out);
    free(seen);
}

/* Merges with the given high values and checks the rank order. */
static void check_merge(MPI_Comm ic, int side, int high0, int high1, int nl, const int *lw,
                        int nr, const int *rw)
{
    MPI_Comm m;
    int n = nl + nr, me, flag, w[16], all[16];
    MPI_OK(MPI_Intercomm_merge(ic, side == 0 ? high0 : high1, &m));
    MPI_OK(MPI_Comm_test_inter(m, &flag));
    CHECK(!flag, "a merged communicator is an intracommunicator");
    MPI_OK(MPI_Comm_size(m, &me));
    CHECK(me == n, "merged size %d, expected %d", me, n);
    MPI_OK(MPI_Comm_rank(m, &me));
    /* everyone learns the order by rank in the merged communicator */
    MPI_OK(MPI_Allgather(&mt_rank, 1, MPI_INT, all, 1, MPI_INT, m));
    MPI_Group g;
    MPI_OK(MPI_Comm_group(m, &g));
    world_of(g, w);
    MPI_OK(MPI_Group_free(&g));
    for (int i = 0; i < n; i++)
        CHECK(w[i] == all[i], "merged rank %d: group says world %d, allgather %d", i, w[i],
              all[i]);
    int local_first;
    if (high0 != high1)
        local_first = (side == 0 ? high0 : high1) == 0;
    else   /* either order, but one group as a block, consistently */
        local_first = all[0] == lw[0];
    const int *a = local_first ? lw : rw, *b = local_first ? rw : lw;
    int na = local_first ? nl : nr;
    for (int i = 0; i < n; i++) {
        int expect = i < na ? a[i] : b[i - na];
        CHECK(all[i] == expect, "merged (high %d/%d) rank %d is world %d, expected %d", high0,
              high1, i, all[i], expect);
    }
    MPI_OK(MPI_Comm_free(&m));
}

/* The sub-list of world ranks w (n of them) whose index has parity par, in
 * reverse order (the split below uses key = -rank). */
static int odd_even(const int *w, int n, int par, int *out)
{
    int k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (i % 2 == par)
            out[k++] = w[i];
    return k;
}

static void scheme_test(int scheme)
{
    int n = mt_size, lw[16], rw[16];
    int side = side_of(scheme, mt_rank, n);
    int nl = members(scheme, side, n, lw), nr = members(scheme, 1 - side, n, rw);
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, side, mt_rank, &local));
    /* both leaders name a bad remote leader: every member learns the class */
    MPI_Comm bad;
    MPI_FAILS(MPI_ERR_RANK, MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, mt_size, 40, &bad));
    MPI_FAILS(MPI_ERR_RANK, MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, lw[0], 40, &bad));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rw[0], 40 + scheme, &ic));
    check_groups(ic, nl, lw, nr, rw);
    traffic(ic, nr, rw, 5);

    /* merges: both orders of high, then equal values */
    check_merge(ic, side, 0, 1, nl, lw, nr, rw);
    check_merge(ic, side, 1, 0, nl, lw, nr, rw);
    check_merge(ic, side, 1, 1, nl, lw, nr, rw);

    /* dup: congruent, carries attributes, isolated from its parent */
    int key, res;
    void *val;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_OK(MPI_Comm_set_attr(ic, key, (void *)(intptr_t)10));
    MPI_OK(MPI_Comm_set_name(ic, "inter"));
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(ic, &d));
    check_groups(d, nl, lw, nr, rw);
    MPI_OK(MPI_Comm_compare(ic, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare(ic, dup) = %d", res);
    MPI_OK(MPI_Comm_compare(ic, ic, &res));
    CHECK(res == MPI_IDENT, "compare(ic, ic) = %d", res);
    MPI_OK(MPI_Comm_compare(ic, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_UNEQUAL, "compare(ic, world) = %d", res);
    MPI_OK(MPI_Comm_compare(ic, local, &res));
    CHECK(res == MPI_UNEQUAL, "compare(ic, local) = %d", res);
    MPI_OK(MPI_Comm_get_attr(d, key, &val, &res));
    CHECK(res && (intptr_t)val == 10, "dup's attribute: flag %d value %ld", res, (long)(intptr_t)val);
    char name[MPI_MAX_OBJECT_NAME];
    MPI_OK(MPI_Comm_get_name(ic, name, &res));
    CHECK(!strcmp(name, "inter"), "name '%s'", name);
    {
        /* the same tag on ic and on its dup: each message arrives on its own */
        int peer = 0, a = 1, b = 2, x, y;
        MPI_Request r2[2];
        MPI_OK(MPI_Isend(&a, 1, MPI_INT, peer, 9, ic, &r2[0]));
        MPI_OK(MPI_Isend(&b, 1, MPI_INT, peer, 9, d, &r2[1]));
        int me;
        MPI_OK(MPI_Comm_rank(ic, &me));
        if (me == 0)
            for (int r = 0; r < nr; r++) {
                MPI_OK(MPI_Recv(&y, 1, MPI_INT, r, 9, d, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Recv(&x, 1, MPI_INT, r, 9, ic, MPI_STATUS_IGNORE));
                CHECK(x == 1 && y == 2, "dup not isolated: %d on ic, %d on dup", x, y);
            }
        MPI_OK(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
    }
    traffic(d, nr, rw, 6);
    MPI_OK(MPI_Comm_free(&d));

    /* dup_with_info: the hints given, the error handler inherited */
    MPI_Info info, used;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "clumpi_test_hint", "yes"));
    MPI_OK(MPI_Comm_dup_with_info(ic, info, &d));
    MPI_OK(MPI_Info_free(&info));
    check_groups(d, nl, lw, nr, rw);
    MPI_OK(MPI_Comm_get_info(d, &used));
    MPI_OK(MPI_Info_get(used, "clumpi_test_hint", MPI_MAX_INFO_VAL, name, &res));
    CHECK(res && !strcmp(name, "yes"), "dup_with_info's hint: flag %d '%s'", res, name);
    MPI_OK(MPI_Info_free(&used));
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_get_errhandler(d, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "the dup's error handler is not its parent's");
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_FAILS(MPI_ERR_RANK, MPI_Send(&res, 1, MPI_INT, -3, 0, d));
    traffic(d, nr, rw, 7);
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free_keyval(&key));

    /* split by local rank parity, reversed: a side without that parity
     * leaves the other side's members with MPI_COMM_NULL */
    int me;
    MPI_OK(MPI_Comm_rank(ic, &me));
    MPI_Comm s;
    MPI_OK(MPI_Comm_split(ic, me % 2, -me, &s));
    int sl[16], sr[16];
    int snl = odd_even(lw, nl, me % 2, sl), snr = odd_even(rw, nr, me % 2, sr);
    if (snr == 0) {
        CHECK(s == MPI_COMM_NULL, "split: no remote member of color %d, yet a communicator",
              me % 2);
    } else {
        CHECK(s != MPI_COMM_NULL, "split: color %d has members on both sides", me % 2);
        check_groups(s, snl, sl, snr, sr);
        traffic(s, snr, sr, 7);
        MPI_OK(MPI_Comm_free(&s));
    }
    /* one whole side passes MPI_UNDEFINED: nobody gets a communicator */
    MPI_OK(MPI_Comm_split(ic, side == 0 ? MPI_UNDEFINED : 3, 0, &s));
    CHECK(s == MPI_COMM_NULL, "split with an undefined side gave a communicator");

    /* create: the even local ranks of each side */
    MPI_Group lg, eg;
    MPI_OK(MPI_Comm_group(ic, &lg));
    int ev[16], ne = 0;
    for (int i = 0; i < nl; i += 2)
        ev[ne++] = i;
    MPI_OK(MPI_Group_incl(lg, ne, ev, &eg));
    MPI_OK(MPI_Comm_create(ic, eg, &s));
    if (me % 2) {
        CHECK(s == MPI_COMM_NULL, "create: local rank %d is not in the group", me);
    } else {
        int cl[16], cr[16], ncl = 0, ncr = 0;
        for (int i = 0; i < nl; i += 2)
            cl[ncl++] = lw[i];
        for (int i = 0; i < nr; i += 2)
            cr[ncr++] = rw[i];
        check_groups(s, ncl, cl, ncr, cr);
        traffic(s, ncr, cr, 8);
        MPI_OK(MPI_Comm_free(&s));
    }
    /* a group with members outside the local group */
    MPI_Group wg;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_FAILS(MPI_ERR_GROUP, MPI_Comm_create(ic, wg, &s));
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&eg));
    MPI_OK(MPI_Group_free(&lg));

    /* misuse: operations that need an intracommunicator, and the reverse */
    MPI_FAILS(MPI_ERR_COMM, MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 1, &bad));
    MPI_FAILS(MPI_ERR_COMM, MPI_Comm_create_group(ic, MPI_GROUP_EMPTY, 0, &bad));
    MPI_FAILS(MPI_ERR_COMM, MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &bad));
    MPI_FAILS(MPI_ERR_COMM, MPI_Intercomm_merge(local, 0, &bad));
    MPI_FAILS(MPI_ERR_COMM, MPI_Comm_remote_size(local, &res));
    MPI_FAILS(MPI_ERR_COMM, MPI_Comm_remote_group(local, &lg));
    MPI_FAILS(MPI_ERR_ARG, MPI_Intercomm_merge(ic, 0, NULL));
    int dims[1] = { 1 }, periods[1] = { 0 }, one = 0, buf[2];
    MPI_FAILS(MPI_ERR_COMM, MPI_Cart_create(ic, 1, dims, periods, 0, &bad));
    MPI_FAILS(MPI_ERR_COMM, MPI_Dist_graph_create_adjacent(ic, 1, &one, MPI_UNWEIGHTED, 1, &one,
                                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &bad));
    MPI_Win win;
    MPI_FAILS(MPI_ERR_COMM, MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, ic, &win));
    MPI_FAILS(MPI_ERR_COMM, MPI_Win_allocate(8, 1, MPI_INFO_NULL, ic, &val, &win));
    MPI_FAILS(MPI_ERR_COMM, MPI_Win_create_dynamic(MPI_INFO_NULL, ic, &win));
    MPI_FAILS(MPI_ERR_COMM, MPI_Neighbor_allgather(buf, 1, MPI_INT, buf + 1, 1, MPI_INT, ic));
    MPI_Request nreq;
    MPI_FAILS(MPI_ERR_COMM, MPI_Ineighbor_alltoall(buf, 1, MPI_INT, buf + 1, 1, MPI_INT, ic, &nreq));

    MPI_OK(MPI_Comm_free(&ic));
    CHECK(ic == MPI_COMM_NULL, "Comm_free did not reset the handle");
    MPI_OK(MPI_Comm_free(&local));
}

static int eh_calls;

/* A user error handler that counts its calls (and returns). */
static void count_eh(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    eh_calls++;
}

/* The error handler of local_comm passes to MPI_Intercomm_create's result
 * and from there to its merge (MPI-3.1 8.3: a new communicator takes its
 * parent's); then the intercommunicator is freed with a receive, a send,
 * an MPI_Ibcast and an MPI_Comm_idup still pending, which complete
 * normally afterwards (MPI-3.1 6.4.3). */
static void inherit_and_free(void)
{
    int side = side_of(3, mt_rank, mt_size), lw[16], rw[16];
    members(3, side, mt_size, lw);
    int nr = members(3, 1 - side, mt_size, rw);
    MPI_Comm local, ic, m, d;
    MPI_Errhandler eh, got;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, side, mt_rank, &local));
    MPI_OK(MPI_Comm_create_errhandler(count_eh, &eh));
    MPI_OK(MPI_Comm_set_errhandler(local, eh));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rw[0], 60, &ic));
    MPI_OK(MPI_Comm_get_errhandler(ic, &got));
    CHECK(got == eh, "Intercomm_create's result lacks local_comm's error handler");
    MPI_OK(MPI_Errhandler_free(&got));
    eh_calls = 0;
    int x = 0, rc = MPI_Send(&x, 1, MPI_INT, nr, 0, ic), cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK && eh_calls == 1, "a bad rank on the intercommunicator: class %d, "
          "handler called %d times", cls, eh_calls);
    MPI_OK(MPI_Intercomm_merge(ic, side, &m));
    MPI_OK(MPI_Comm_get_errhandler(m, &got));
    CHECK(got == eh, "the merge lacks the intercommunicator's error handler");
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Comm_free(&m));

    int me, in = -1, out = 100 + mt_rank, b[3] = { -1, -1, -1 };
    MPI_OK(MPI_Comm_rank(ic, &me));
    MPI_Request r[4] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                         MPI_REQUEST_NULL };
    if (me == 0) {   /* the two leaders swap a message */
        MPI_OK(MPI_Irecv(&in, 1, MPI_INT, 0, 61, ic, &r[0]));
        MPI_OK(MPI_Isend(&out, 1, MPI_INT, 0, 61, ic, &r[1]));
    }
    if (side == 1)
        b[0] = b[1] = b[2] = 42 + lw[0];
    int root = side == 0 ? 0 : me == 0 ? MPI_ROOT : MPI_PROC_NULL;
    MPI_OK(MPI_Ibcast(b, 3, MPI_INT, root, ic, &r[2]));
    MPI_OK(MPI_Comm_idup(ic, &d, &r[3]));
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    if (me == 0)
        CHECK(in == 100 + rw[0], "the leaders' message after the free: %d, not %d", in,
              100 + rw[0]);
    if (side == 0)
        CHECK(b[0] == 42 + rw[0] && b[2] == 42 + rw[0], "Ibcast after the free: %d %d", b[0],
              b[2]);
    int one = 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d));
    CHECK(sum == nr, "Allreduce on the idup of a freed intercommunicator: %d, not %d", sum, nr);
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Errhandler_free(&eh));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "intercomm");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int flag, x;
    MPI_Comm bad;
    MPI_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(!flag, "MPI_COMM_WORLD is an intercommunicator");
    MPI_FAILS(MPI_ERR_COMM, MPI_Comm_remote_size(MPI_COMM_WORLD, &x));
    MPI_FAILS(MPI_ERR_COMM, MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &bad));
    MPI_FAILS(MPI_ERR_RANK, MPI_Intercomm_create(MPI_COMM_SELF, 1, MPI_COMM_WORLD, 0, 1, &bad));
    MPI_FAILS(MPI_ERR_TAG, MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, -5, &bad));
    MPI_FAILS(MPI_ERR_ARG, MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, 1, NULL));
    /* the leader's own checks: a remote leader inside the local group, a
     * bad peer communicator (MPI_COMM_SELF has one member: the leader) */
    MPI_FAILS(MPI_ERR_RANK, MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, mt_rank, 1, &bad));
    MPI_FAILS(MPI_ERR_RANK, MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, mt_size, 1, &bad));
    MPI_FAILS(MPI_ERR_COMM, MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_NULL, 0, 1, &bad));
    if (mt_size >= 2) {
        for (int scheme = 0; scheme < 3; scheme++)
            scheme_test(scheme);
        inherit_and_free();
    }
    mt_finish();
    return 0;
}
