/* np: 1 2 3 4
 * env: CLUMPI_NET=agent
 * env: CLUMPI_COLL_BARRIER=shm CLUMPI_COLL_BCAST=shm CLUMPI_COLL_GATHER=shm
 * env: CLUMPI_COLL_SCATTER=shm CLUMPI_COLL_ALLGATHER=shm CLUMPI_COLL_ALLTOALL=shm
 * env: CLUMPI_COLL_REDUCE=shm CLUMPI_COLL_ALLREDUCE=shm
 *
 * Intercommunicators whose groups hold one process twice. Every process
 * connects to itself (MPI_THREAD_MULTIPLE: thread 0 accepts on a duplicate
 * of MPI_COMM_WORLD, thread 1 connects on another) and merges the sides
 * into m: 2n ranks, each process twice, thread t's rank t * n + its world
 * rank. Then, in both threads of every process, over m:
 *  - with n >= 2, MPI_Intercomm_create between the halves of m by the
 *    parity of the world rank (each process twice in both groups), and
 *    between the even half and the odd processes' thread 0 (twice against
 *    once), and MPI_Comm_accept/connect between the halves;
 *  - MPI_Comm_spawn of 2 children of this program, MPI_Comm_connect to a
 *    port the children accept on, MPI_Comm_accept of the children
 *    connecting;
 *  - MPI_Comm_accept on m while a third thread of world rank 0 connects
 *    over MPI_COMM_SELF: that process would be in the intercommunicator
 *    three times, and both sides fail with MPI_ERR_UNSUPPORTED_OPERATION.
 * Over each intercommunicator, from both groups: point-to-point with
 * MPI_ANY_SOURCE and MPI_ANY_TAG, by source and tag, and in rendezvous;
 * every intercommunicator collective with each group as the root's side
 * (root first and last), some in their nonblocking forms; then
 * Intercomm_merge in both orders, Comm_dup and Comm_split of it with
 * traffic. Every value names its sender and receiver by identity (a member
 * of m: its rank in m; a child: 1000 + its rank), so a message delivered
 * to the process's other member is caught, and every result is compared
 * with a reference computed here. Forced by name (the CLUMPI_COLL_* env
 * lines), the node area's (shm) algorithms run where they can; over a
 * communicator holding a process twice or a child the default runs instead
 * (forced allreduce shm hung there, waiting in the area for itself).
 */
#include <limits.h>
#include <pthread.h>
#include <unistd.h>
#include "mtest.h"

#define MAXM 16
#define CHILD_ID 1000
#define NCHILD 2

/* An intercommunicator and the identities of its two groups' members. */
typedef struct {
    MPI_Comm ic;
    int g;            /* my group: 0 or 1 */
    int me;           /* my rank in it */
    int n[2];
    int id[2][MAXM];
} inter_t;

static char port[MPI_MAX_PORT_NAME];
static MPI_Comm parent[2];
static int nw, wr;    /* world size and rank */
static char self_path[PATH_MAX];

/* What member `from` sends member `to`, element k. */
static int val(int from, int to, int k)
{
    return (from * 4096 + to * 8 + k) % 1000003;
}

#define MY(x) ((x)->id[(x)->g][(x)->me])
#define RN(x) ((x)->n[1 - (x)->g])
#define RID(x, j) ((x)->id[1 - (x)->g][j])

static void check_shape(const inter_t *x)
{
    int flag = 0, ls = 0, rs = 0, me = -1;
    MPI_OK(MPI_Comm_test_inter(x->ic, &flag));
    MPI_OK(MPI_Comm_size(x->ic, &ls));
    MPI_OK(MPI_Comm_remote_size(x->ic, &rs));
    MPI_OK(MPI_Comm_rank(x->ic, &me));
    CHECK(flag && ls == x->n[x->g] && rs == RN(x) && me == x->me,
          "member %d: inter %d, size %d (want %d), remote %d (want %d), rank %d (want %d)",
          MY(x), flag, ls, x->n[x->g], rs, RN(x), me, x->me);
}

/* Point-to-point both ways: to every remote member with a tag of my own,
 * received with wildcards; again, received by source and tag in reverse
 * order; and a rendezvous-sized message along a ring of the two groups. */
static void p2p(const inter_t *x, int round)
{
    int rs = RN(x), ls = x->n[x->g], my = MY(x);
    int out[2 * MAXM], in[2 * MAXM];
    MPI_Request q[4 * MAXM];
    MPI_Status st[4 * MAXM];
    for (int j = 0; j < rs; j++)
        MPI_OK(MPI_Irecv(&in[j], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, x->ic, &q[j]));
    for (int j = 0; j < rs; j++) {
        out[j] = val(my, RID(x, j), round);
        MPI_OK(MPI_Isend(&out[j], 1, MPI_INT, j, 100 + my % 7, x->ic, &q[rs + j]));
    }
    MPI_OK(MPI_Waitall(2 * rs, q, st));
    unsigned seen = 0;
    for (int j = 0; j < rs; j++) {
        int s = st[j].MPI_SOURCE;
        CHECK(s >= 0 && s < rs && in[j] == val(RID(x, s), my, round) &&
              st[j].MPI_TAG == 100 + RID(x, s) % 7,
              "member %d round %d: got %d tag %d from rank %d", my, round, in[j],
              st[j].MPI_TAG, s);
        seen |= 1u << s;
    }
    CHECK(seen == (1u << rs) - 1, "member %d round %d: sources %#x", my, round, seen);
    MPI_OK(MPI_Barrier(x->ic));   /* no message of the next round meets a wildcard */

    for (int j = rs - 1; j >= 0; j--)
        MPI_OK(MPI_Irecv(&in[j], 1, MPI_INT, j, 200 + x->me % 3, x->ic, &q[j]));
    for (int j = 0; j < rs; j++) {
        out[j] = val(my, RID(x, j), round + 1);
        MPI_OK(MPI_Isend(&out[j], 1, MPI_INT, j, 200 + j % 3, x->ic, &q[rs + j]));
    }
    MPI_OK(MPI_Waitall(2 * rs, q, st));
    for (int j = 0; j < rs; j++)
        CHECK(in[j] == val(RID(x, j), my, round + 1) && st[j].MPI_SOURCE == j,
              "member %d round %d: by source %d got %d from %d", my, round, j, in[j],
              st[j].MPI_SOURCE);

    /* I send to remote rank me % rs; so I hear from every j with j % ls == me */
    size_t big = 100000 + 3;
    char *sb = mt_malloc(big), *rb = mt_malloc(big * (size_t)rs);
    mt_fill(sb, big, (unsigned)val(my, RID(x, x->me % rs), round));
    int k = 0;
    for (int j = 0; j < rs; j++)
        if (j % ls == x->me)
            MPI_OK(MPI_Irecv(rb + (size_t)j * big, (int)big, MPI_BYTE, j, 300, x->ic, &q[k++]));
    MPI_OK(MPI_Isend(sb, (int)big, MPI_BYTE, x->me % rs, 300, x->ic, &q[k++]));
    MPI_OK(MPI_Waitall(k, q, MPI_STATUSES_IGNORE));
    for (int j = 0; j < rs; j++)
        if (j % ls == x->me) {
            long bad = mt_verify(rb + (size_t)j * big, big, (unsigned)val(RID(x, j), my, round));
            CHECK(bad < 0, "member %d round %d: large message from rank %d: byte %ld", my,
                  round, j, bad);
        }
    free(sb);
    free(rb);
}

/* Sum over group G's members of val(member, to, k). */
static int gsum(const inter_t *x, int G, int to, int k)
{
    int s = 0;
    for (int j = 0; j < x->n[G]; j++)
        s += val(x->id[G][j], to, k);
    return s;
}

/* The rooted collectives with root r of group G (blocking, or nonblocking
 * where nb). */
static void rooted(const inter_t *x, int G, int r, int nb, int seed)
{
    int mine = x->g == G, isroot = mine && x->me == r, rs = RN(x), my = MY(x);
    int root = mine ? (isroot ? MPI_ROOT : MPI_PROC_NULL) : r;
    int rid = x->id[G][r];
    int b[3], big[3 * MAXM], cnt[MAXM], dsp[MAXM], one[3];
    MPI_Request q = MPI_REQUEST_NULL;

    for (int k = 0; k < 3; k++)
        b[k] = isroot ? val(rid, seed, k) : -1;
    if (nb) {
        MPI_OK(MPI_Ibcast(b, 3, MPI_INT, root, x->ic, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Bcast(b, 3, MPI_INT, root, x->ic));
    }
    for (int k = 0; k < 3; k++)
        CHECK(b[k] == (mine && !isroot ? -1 : val(rid, seed, k)),
              "member %d: bcast from %d of group %d: [%d] = %d", my, r, G, k, b[k]);

    /* gather: 2 ints from each member of the other group to the root */
    for (int k = 0; k < 2; k++)
        one[k] = val(my, rid, seed + k);
    for (int j = 0; j < 2 * rs; j++)
        big[j] = -1;
    if (nb) {
        MPI_OK(MPI_Igather(one, 2, MPI_INT, big, 2, MPI_INT, root, x->ic, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Gather(one, 2, MPI_INT, big, 2, MPI_INT, root, x->ic));
    }
    for (int j = 0; isroot && j < rs; j++)
        for (int k = 0; k < 2; k++)
            CHECK(big[2 * j + k] == val(RID(x, j), my, seed + k),
                  "member %d: gather from rank %d: %d", my, j, big[2 * j + k]);

    /* gatherv: j % 3 ints from remote rank j, packed backwards */
    int tot = 0;
    for (int j = rs - 1; j >= 0; j--) {
        cnt[j] = j % 3;
        dsp[j] = tot;
        tot += cnt[j];
    }
    int mc = mine ? 0 : x->me % 3;
    for (int j = 0; j < 3 * MAXM; j++)
        big[j] = -1;
    MPI_OK(MPI_Gatherv(one, mc, MPI_INT, big, cnt, dsp, MPI_INT, root, x->ic));
    for (int j = 0; isroot && j < rs; j++)
        for (int k = 0; k < cnt[j]; k++)
            CHECK(big[dsp[j] + k] == val(RID(x, j), my, seed + k),
                  "member %d: gatherv from rank %d: %d", my, j, big[dsp[j] + k]);

    /* scatter: 2 ints to each member of the other group */
    for (int j = 0; isroot && j < rs; j++)
        for (int k = 0; k < 2; k++)
            big[2 * j + k] = val(my, RID(x, j), seed + k + 5);
    one[0] = one[1] = -1;
    MPI_OK(MPI_Scatter(big, 2, MPI_INT, one, 2, MPI_INT, root, x->ic));
    for (int k = 0; !mine && k < 2; k++)
        CHECK(one[k] == val(rid, my, seed + k + 5), "member %d: scatter [%d] = %d", my, k,
              one[k]);

    /* scatterv: the same counts and displacements as gatherv */
    for (int j = 0; isroot && j < rs; j++)
        for (int k = 0; k < cnt[j]; k++)
            big[dsp[j] + k] = val(my, RID(x, j), seed + k + 9);
    one[0] = one[1] = -1;
    if (nb) {
        MPI_OK(MPI_Iscatterv(big, cnt, dsp, MPI_INT, one, mc, MPI_INT, root, x->ic, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Scatterv(big, cnt, dsp, MPI_INT, one, mc, MPI_INT, root, x->ic));
    }
    for (int k = 0; k < mc; k++)
        CHECK(one[k] == val(rid, my, seed + k + 9), "member %d: scatterv [%d] = %d", my, k,
              one[k]);

    /* reduce: the other group's sum at the root */
    for (int k = 0; k < 3; k++) {
        one[k] = val(my, rid, seed + k);
        b[k] = -1;
    }
    if (nb) {
        MPI_OK(MPI_Ireduce(one, b, 3, MPI_INT, MPI_SUM, root, x->ic, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Reduce(one, b, 3, MPI_INT, MPI_SUM, root, x->ic));
    }
    for (int k = 0; isroot && k < 3; k++)
        CHECK(b[k] == gsum(x, 1 - G, rid, seed + k), "member %d: reduce [%d] = %d, want %d",
              my, k, b[k], gsum(x, 1 - G, rid, seed + k));
}

/* The collectives without a root. */
static void unrooted(const inter_t *x, int nb, int seed)
{
    int rs = RN(x), ls = x->n[x->g], my = MY(x);
    int s[MAXM * MAXM], r[MAXM * MAXM], sc[MAXM], sd[MAXM], rc[MAXM], rd[MAXM];
    int sdb[MAXM], rdb[MAXM];
    MPI_Datatype ts[MAXM], tr[MAXM];
    MPI_Request q = MPI_REQUEST_NULL;

    int two[2] = { val(my, 0, seed), val(my, 0, seed + 1) };
    for (int j = 0; j < 2 * rs; j++)
        r[j] = -1;
    if (nb) {
        MPI_OK(MPI_Iallgather(two, 2, MPI_INT, r, 2, MPI_INT, x->ic, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Allgather(two, 2, MPI_INT, r, 2, MPI_INT, x->ic));
    }
    for (int j = 0; j < 2 * rs; j++)
        CHECK(r[j] == val(RID(x, j / 2), 0, seed + j % 2), "member %d: allgather [%d] = %d",
              my, j, r[j]);

    /* allgatherv: remote rank j gives j % 2 + 1 ints */
    int tot = 0;
    for (int j = 0; j < rs; j++) {
        rc[j] = j % 2 + 1;
        rd[j] = tot;
        tot += rc[j];
    }
    for (int j = 0; j < tot; j++)
        r[j] = -1;
    MPI_OK(MPI_Allgatherv(two, x->me % 2 + 1, MPI_INT, r, rc, rd, MPI_INT, x->ic));
    for (int j = 0; j < rs; j++)
        for (int k = 0; k < rc[j]; k++)
            CHECK(r[rd[j] + k] == val(RID(x, j), 0, seed + k),
                  "member %d: allgatherv from %d: %d", my, j, r[rd[j] + k]);

    /* alltoall: 2 ints to each remote member */
    for (int j = 0; j < rs; j++)
        for (int k = 0; k < 2; k++) {
            s[2 * j + k] = val(my, RID(x, j), seed + k);
            r[2 * j + k] = -1;
        }
    if (nb) {
        MPI_OK(MPI_Ialltoall(s, 2, MPI_INT, r, 2, MPI_INT, x->ic, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Alltoall(s, 2, MPI_INT, r, 2, MPI_INT, x->ic));
    }
    for (int j = 0; j < rs; j++)
        for (int k = 0; k < 2; k++)
            CHECK(r[2 * j + k] == val(RID(x, j), my, seed + k),
                  "member %d: alltoall from %d: %d", my, j, r[2 * j + k]);

    /* alltoallv and alltoallw: (from + to) % 3 ints from member from to to */
    int st = 0, rt = 0;
    for (int j = 0; j < rs; j++) {
        sc[j] = (my + RID(x, j)) % 3;
        rc[j] = (RID(x, j) + my) % 3;
        sd[j] = st;
        rd[j] = rt;
        sdb[j] = st * (int)sizeof(int);
        rdb[j] = rt * (int)sizeof(int);
        ts[j] = tr[j] = MPI_INT;
        for (int k = 0; k < sc[j]; k++)
            s[st + k] = val(my, RID(x, j), seed + 20 + k);
        st += sc[j];
        rt += rc[j];
    }
    for (int w = 0; w < 2; w++) {
        for (int j = 0; j < rt; j++)
            r[j] = -1;
        if (w)
            MPI_OK(MPI_Alltoallw(s, sc, sdb, ts, r, rc, rdb, tr, x->ic));
        else
            MPI_OK(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, x->ic));
        for (int j = 0; j < rs; j++)
            for (int k = 0; k < rc[j]; k++)
                CHECK(r[rd[j] + k] == val(RID(x, j), my, seed + 20 + k),
                      "member %d: alltoall%c from %d: %d", my, w ? 'w' : 'v', j, r[rd[j] + k]);
    }

    /* allreduce: the other group's sum */
    int three[3], res[3];
    for (int k = 0; k < 3; k++) {
        three[k] = val(my, 0, seed + k);
        res[k] = -1;
    }
    if (nb) {
        MPI_OK(MPI_Iallreduce(three, res, 3, MPI_INT, MPI_SUM, x->ic, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Allreduce(three, res, 3, MPI_INT, MPI_SUM, x->ic));
    }
    for (int k = 0; k < 3; k++)
        CHECK(res[k] == gsum(x, 1 - x->g, 0, seed + k), "member %d: allreduce [%d] = %d", my,
              k, res[k]);

    /* reduce_scatter_block: vectors of ls * rs ints, rs to each member of
     * the group that receives them; reduce_scatter: vectors of T ints in
     * both groups, cut unevenly among the members of the receiving one */
    for (int e = 0; e < ls * rs; e++)
        s[e] = val(my, e, seed);
    for (int e = 0; e < rs; e++)
        r[e] = -1;
    MPI_OK(MPI_Reduce_scatter_block(s, r, rs, MPI_INT, MPI_SUM, x->ic));
    for (int e = 0; e < rs; e++)
        CHECK(r[e] == gsum(x, 1 - x->g, x->me * rs + e, seed),
              "member %d: reduce_scatter_block [%d] = %d", my, e, r[e]);
    int first = 0, T = 2 * ls * rs + 1;
    for (int i = 0; i < ls; i++) {
        rc[i] = T / ls + (i < T % ls);
        first += i < x->me ? rc[i] : 0;
    }
    for (int e = 0; e < T; e++) {
        s[e] = val(my, e, seed + 3);
        r[e] = -1;
    }
    if (nb) {
        MPI_OK(MPI_Ireduce_scatter(s, r, rc, MPI_INT, MPI_SUM, x->ic, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Reduce_scatter(s, r, rc, MPI_INT, MPI_SUM, x->ic));
    }
    for (int e = 0; e < rc[x->me]; e++)
        CHECK(r[e] == gsum(x, 1 - x->g, first + e, seed + 3),
              "member %d: reduce_scatter [%d] = %d", my, e, r[e]);

    if (nb) {
        MPI_OK(MPI_Ibarrier(x->ic, &q));
        MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Barrier(x->ic));
    }
}

static void collectives(const inter_t *x, int seed)
{
    for (int nb = 0; nb < 2; nb++) {
        for (int G = 0; G < 2; G++) {
            rooted(x, G, 0, nb, seed++);
            if (x->n[G] > 1)
                rooted(x, G, x->n[G] - 1, nb, seed++);
        }
        unrooted(x, nb, seed++);
    }
}

/* Over intracommunicator m whose rank r is member ids[r]: a value to every
 * rank received with wildcards (one to myself among them) and an
 * Allreduce and Allgather of the identities. */
static void intra(MPI_Comm m, const int *ids, int n, int seed)
{
    int mr = -1, size = 0;
    MPI_OK(MPI_Comm_rank(m, &mr));
    MPI_OK(MPI_Comm_size(m, &size));
    CHECK(size == n, "member %d: merged size %d, want %d", ids[mr], size, n);
    int out[2 * MAXM], in[2 * MAXM], all[2 * MAXM], my = ids[mr];
    MPI_Request q[4 * MAXM];
    MPI_Status st[4 * MAXM];
    for (int j = 0; j < n; j++)
        MPI_OK(MPI_Irecv(&in[j], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, m, &q[j]));
    for (int j = 0; j < n; j++) {
        out[j] = val(my, ids[j], seed);
        MPI_OK(MPI_Isend(&out[j], 1, MPI_INT, j, my % 5, m, &q[n + j]));
    }
    MPI_OK(MPI_Waitall(2 * n, q, st));
    for (int j = 0; j < n; j++) {
        int s = st[j].MPI_SOURCE;
        CHECK(s >= 0 && s < n && in[j] == val(ids[s], my, seed) && st[j].MPI_TAG == ids[s] % 5,
              "member %d: merged, got %d tag %d from %d", my, in[j], st[j].MPI_TAG, s);
    }
    MPI_OK(MPI_Allgather(&my, 1, MPI_INT, all, 1, MPI_INT, m));
    for (int j = 0; j < n; j++)
        CHECK(all[j] == ids[j], "member %d: merged rank %d is member %d, want %d", my, j,
              all[j], ids[j]);
    int sum = 0, ref = 0;
    MPI_OK(MPI_Allreduce(&my, &sum, 1, MPI_INT, MPI_SUM, m));
    for (int j = 0; j < n; j++)
        ref += ids[j];
    CHECK(sum == ref, "member %d: merged allreduce %d, want %d", my, sum, ref);
}

/* Everything over x, then over its merges, a duplicate and a split. */
static void run_all(inter_t *x, int seed)
{
    MPI_Comm_set_errhandler(x->ic, MPI_ERRORS_RETURN);
    check_shape(x);
    p2p(x, seed);
    collectives(x, seed + 10);

    for (int h = 0; h < 2; h++) {   /* group h comes first */
        MPI_Comm m;
        int ids[2 * MAXM], n = 0;
        MPI_OK(MPI_Intercomm_merge(x->ic, x->g != h, &m));
        for (int G = h, k = 0; k < 2; k++, G = 1 - G)
            for (int j = 0; j < x->n[G]; j++)
                ids[n++] = x->id[G][j];
        intra(m, ids, n, seed + 40 + h);
        MPI_Comm d;
        MPI_OK(MPI_Comm_dup(m, &d));
        intra(d, ids, n, seed + 42 + h);
        MPI_OK(MPI_Comm_free(&d));
        MPI_OK(MPI_Comm_free(&m));
    }

    inter_t d = *x;
    MPI_OK(MPI_Comm_dup(x->ic, &d.ic));
    check_shape(&d);
    p2p(&d, seed + 50);
    unrooted(&d, 0, seed + 52);
    MPI_OK(MPI_Comm_free(&d.ic));

    /* split by the parity of the rank, reversed by key, in both groups */
    inter_t s = { .g = x->g };
    for (int G = 0; G < 2; G++)
        for (int j = x->n[G] - 1; j >= 0; j--)
            if (j % 2 == x->me % 2) {
                if (G == x->g && j == x->me)
                    s.me = s.n[G];
                s.id[G][s.n[G]++] = x->id[G][j];
            }
    MPI_OK(MPI_Comm_split(x->ic, x->me % 2, -x->me, &s.ic));
    CHECK((s.ic == MPI_COMM_NULL) == (s.n[1 - x->g] == 0), "member %d: split gave %s", MY(x),
          s.ic == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (s.ic != MPI_COMM_NULL) {
        check_shape(&s);
        p2p(&s, seed + 60);
        rooted(&s, 1, 0, 0, seed + 62);
        unrooted(&s, 1, seed + 63);
        MPI_OK(MPI_Comm_free(&s.ic));
    }
}

/* The members of m's half of parity c (m rank r is world rank r % nw). */
static int half(int c, int only_thread0, int *ids)
{
    int n = 0;
    for (int r = 0; r < (only_thread0 ? nw : 2 * nw); r++)
        if ((r % nw) % 2 == c)
            ids[n++] = r;
    return n;
}

static int index_of(const int *ids, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == v)
            return i;
    return -1;
}

/* MPI_Intercomm_create and accept/connect between m's halves (n >= 2). */
static void halves(MPI_Comm m, int t, int seed)
{
    int mr = t * nw + wr, c = wr % 2;
    MPI_Comm h;
    MPI_OK(MPI_Comm_split(m, c, mr, &h));

    inter_t x = { .g = c };
    for (int G = 0; G < 2; G++)
        x.n[G] = half(G, 0, x.id[G]);
    x.me = index_of(x.id[c], x.n[c], mr);
    MPI_OK(MPI_Intercomm_create(h, 0, m, 1 - c, 5, &x.ic));
    run_all(&x, seed);
    MPI_OK(MPI_Comm_free(&x.ic));

    /* the even half against the odd processes' thread 0 */
    MPI_Comm o;
    int oc = c == 0 ? 0 : t == 0 ? 1 : MPI_UNDEFINED;
    MPI_OK(MPI_Comm_split(m, oc, mr, &o));
    if (o != MPI_COMM_NULL) {
        inter_t y = { .g = c };
        y.n[0] = half(0, 0, y.id[0]);
        y.n[1] = half(1, 1, y.id[1]);
        y.me = index_of(y.id[c], y.n[c], mr);
        MPI_OK(MPI_Intercomm_create(o, 0, m, 1 - c, 6, &y.ic));
        run_all(&y, seed + 100);
        MPI_OK(MPI_Comm_free(&y.ic));
        MPI_OK(MPI_Comm_free(&o));
    }

    /* accept on the even half, connect on the odd */
    char p[MPI_MAX_PORT_NAME] = "";
    if (mr == 0)
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, p));
    MPI_OK(MPI_Bcast(p, MPI_MAX_PORT_NAME, MPI_CHAR, 0, m));
    x.ic = MPI_COMM_NULL;
    if (c == 0)
        MPI_OK(MPI_Comm_accept(p, MPI_INFO_NULL, 0, h, &x.ic));
    else
        MPI_OK(MPI_Comm_connect(p, MPI_INFO_NULL, 0, h, &x.ic));
    run_all(&x, seed + 200);
    MPI_OK(MPI_Comm_disconnect(&x.ic));
    if (mr == 0)
        MPI_OK(MPI_Close_port(p));
    MPI_OK(MPI_Comm_free(&h));
}

/* The parents' and the children's view of an intercommunicator between
 * them: group 0 the parents (m), group 1 the children. */
static void spawn_view(inter_t *x, int child, int me)
{
    x->g = child;
    x->me = me;
    x->n[0] = 2 * nw;
    x->n[1] = NCHILD;
    for (int r = 0; r < 2 * nw; r++)
        x->id[0][r] = r;
    for (int r = 0; r < NCHILD; r++)
        x->id[1][r] = CHILD_ID + r;
}

/* A port of root's in comm (of one group of x) sent to the other group's
 * rank 0 over x, which broadcasts it over its own comm. */
static void share_port(const inter_t *x, MPI_Comm comm, int opener, char *p)
{
    int me;
    MPI_OK(MPI_Comm_rank(comm, &me));
    if (opener && me == 0) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, p));
        MPI_OK(MPI_Send(p, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 9, x->ic));
    } else if (!opener && me == 0) {
        MPI_OK(MPI_Recv(p, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 9, x->ic, MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_Bcast(p, MPI_MAX_PORT_NAME, MPI_CHAR, 0, comm));
}

/* After the spawn, over the parent intercommunicator s: the parents
 * connect to the children's port, then the children to the parents'. comm
 * is m for the parents, MPI_COMM_WORLD for the children. */
static void ports(inter_t *s, MPI_Comm comm, int seed)
{
    int child = s->g;
    char p[MPI_MAX_PORT_NAME] = "";
    for (int round = 0; round < 2; round++) {
        int accepting = child == (round == 0);   /* round 0: the children accept */
        inter_t x = *s;
        share_port(s, comm, accepting, p);
        if (accepting)
            MPI_OK(MPI_Comm_accept(p, MPI_INFO_NULL, 0, comm, &x.ic));
        else
            MPI_OK(MPI_Comm_connect(p, MPI_INFO_NULL, 0, comm, &x.ic));
        run_all(&x, seed + 100 * round);
        MPI_OK(MPI_Comm_disconnect(&x.ic));
        int me;
        MPI_OK(MPI_Comm_rank(comm, &me));
        if (accepting && me == 0)
            MPI_OK(MPI_Close_port(p));
    }
}

static char tport[MPI_MAX_PORT_NAME];

static void *third(void *arg)
{
    (void)arg;
    MPI_Comm ic = MPI_COMM_NULL;
    MPI_FAILS(MPI_ERR_UNSUPPORTED_OPERATION,
              MPI_Comm_connect(tport, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
    return NULL;
}

/* m accepts world rank 0 once more: refused on both sides. */
static void thrice(MPI_Comm m, int mr)
{
    pthread_t th;
    if (mr == 0) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, tport));
        CHECK(pthread_create(&th, NULL, third, NULL) == 0, "pthread_create");
    }
    MPI_Comm ic = MPI_COMM_NULL;
    MPI_OK(MPI_Comm_set_errhandler(m, MPI_ERRORS_RETURN));
    MPI_FAILS(MPI_ERR_UNSUPPORTED_OPERATION, MPI_Comm_accept(tport, MPI_INFO_NULL, 0, m, &ic));
    CHECK(ic == MPI_COMM_NULL, "member %d: a communicator from a refused accept", mr);
    if (mr == 0) {
        pthread_join(th, NULL);
        MPI_OK(MPI_Close_port(tport));
    }
}

static void *thread_main(void *arg)
{
    int t = (int)(long)arg, mr = -1;
    MPI_Comm ic, m;
    if (t == 0)
        MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, parent[0], &ic));
    else
        MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, parent[1], &ic));
    MPI_OK(MPI_Intercomm_merge(ic, t, &m));
    MPI_OK(MPI_Comm_rank(m, &mr));
    CHECK(mr == t * nw + wr, "thread %d: rank %d in the merged self-connection", t, mr);

    if (nw >= 2)
        halves(m, t, 1000);

    inter_t s;
    char *argv[] = { "child", NULL };
    int codes[NCHILD];
    spawn_view(&s, 0, mr);
    MPI_OK(MPI_Comm_spawn(self_path, argv, NCHILD, MPI_INFO_NULL, 0, m, &s.ic, codes));
    for (int i = 0; i < NCHILD; i++)
        CHECK(codes[i] == MPI_SUCCESS, "spawn: code %d of child %d", codes[i], i);
    run_all(&s, 2000);
    ports(&s, m, 3000);
    MPI_OK(MPI_Comm_disconnect(&s.ic));

    thrice(m, mr);
    MPI_OK(MPI_Comm_free(&m));
    MPI_OK(MPI_Comm_disconnect(&ic));
    return NULL;
}

static int child_main(void)
{
    inter_t s;
    int me;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_get_parent(&s.ic));
    CHECK(s.ic != MPI_COMM_NULL, "child %d: no parent", me);
    MPI_OK(MPI_Comm_remote_size(s.ic, &nw));
    nw /= 2;   /* the parents' world */
    spawn_view(&s, 1, me);
    run_all(&s, 2000);
    ports(&s, MPI_COMM_WORLD, 3000);
    MPI_OK(MPI_Comm_disconnect(&s.ic));
    return mt_finish();
}

int main(int argc, char **argv)
{
    mt_init_multiple(&argc, &argv, "twice_held");
    if (argc > 1 && !strcmp(argv[1], "child"))
        return child_main();
    ssize_t l = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    CHECK(l > 0, "readlink /proc/self/exe");
    self_path[l] = 0;
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &nw));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wr));
    CHECK(2 * nw <= MAXM, "at most %d processes", MAXM / 2);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent[0]));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent[1]));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    if (wr == 0)
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
    MPI_OK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    pthread_t th[2];
    for (long t = 0; t < 2; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    if (wr == 0)
        MPI_OK(MPI_Close_port(port));
    MPI_OK(MPI_Comm_free(&parent[0]));
    MPI_OK(MPI_Comm_free(&parent[1]));
    return mt_finish();
}
