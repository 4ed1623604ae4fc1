/* np: 1 2 3 5 8
 * env: CLUMPI_COLL_KNOMIAL_K=3 CLUMPI_NET=direct CLUMPI_AGENT_STATS=Yes
 * env: CLUMPI_TEST_THREADS=1
 *
 * The MPI_T tool information interface (clumpi only: the variables are
 * clumpi's). Before MPI_Init: reference counting, the environment's value
 * of a control variable, a write of a variable read at MPI_Init
 * (CLUMPI_EAGER_LIMIT) that then decides eager versus rendezvous, a
 * malformed value read as MPI_T_ERR_INVALID (not fatal). After:
 * every control variable, performance variable, category and enumeration
 * round-trips between index and name with sane info; a write of
 * CLUMPI_COLL_BCAST changes which algorithm MPI_Bcast runs (the messages
 * each rank sends show it); counters grow by exactly the messages sent and
 * received, per channel and protocol (and, in offload mode, as packets
 * handed to the NI agent), independently in two sessions, with
 * start/stop/reset/readreset/write semantics; the unexpected and posted
 * queue levels and high-water marks; every MPI_T_ERR_* class a caller can
 * provoke. After MPI_Finalize the interface still works.
 * CLUMPI_TEST_THREADS=1: MPI_T_init_thread grants MULTIPLE before MPI_Init,
 * and TOOLS threads use MPI_T (their own sessions, control variables) all
 * the while: from before MPI_Init, during it, and while the main thread
 * communicates under MPI_THREAD_FUNNELED.
 */
#include <pthread.h>
#include "mpit_util.h"

#ifdef CLUMPI
/* MPI_T calls return their error class directly. */
#define T_OK(call)                                                            \
    do {                                                                      \
        int t_rc_ = (call);                                                   \
        CHECK(t_rc_ == MPI_SUCCESS, "%s returned %d", #call, t_rc_);          \
    } while (0)
#define T_FAILS(cls, call)                                                    \
    do {                                                                      \
        int t_rc_ = (call);                                                   \
        CHECK(t_rc_ == (cls), "%s returned %d, expected %s (%d)", #call, t_rc_, \
              #cls, (int)(cls));                                              \
    } while (0)

#define EAGER_CAP 4000   /* written before MPI_Init */

static int cvar_index(const char *name)
{
    int i = -1;
    T_OK(MPI_T_cvar_get_index(name, &i));
    return i;
}

static MPI_T_cvar_handle cvar_handle(const char *name, int *count)
{
    MPI_T_cvar_handle h;
    T_OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, count));
    return h;
}

static int cvar_read_int(const char *name)
{
    int count, v = -12345;
    MPI_T_cvar_handle h = cvar_handle(name, &count);
    CHECK(count == 1, "%s: count %d", name, count);
    T_OK(MPI_T_cvar_read(h, &v));
    T_OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle_free did not reset the handle");
    return v;
}

/* Before MPI_Init: counting, the environment, a write read by MPI_Init. */
static void before_init(void)
{
    int prov = -1, n;
    T_FAILS(MPI_T_ERR_NOT_INITIALIZED, MPI_T_cvar_get_num(&n));
    T_FAILS(MPI_T_ERR_NOT_INITIALIZED, MPI_T_finalize());
    T_FAILS(MPI_T_ERR_INVALID, MPI_T_init_thread(MPI_THREAD_SINGLE, NULL));
    T_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &prov));
    CHECK(prov == MPI_THREAD_MULTIPLE, "provided %d for MULTIPLE", prov);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    CHECK(prov == MPI_THREAD_SINGLE, "provided %d for SINGLE", prov);
    T_OK(MPI_T_finalize());
    T_OK(MPI_T_cvar_get_num(&n));   /* still one init outstanding */
    CHECK(n > 40, "only %d control variables", n);

    /* the value in force: the environment's, else the default */
    const char *k = getenv("CLUMPI_COLL_KNOMIAL_K");
    int want = k && *k ? atoi(k) : 4;
    CHECK(cvar_read_int("CLUMPI_COLL_KNOMIAL_K") == want, "CLUMPI_COLL_KNOMIAL_K: %d, not %d",
          cvar_read_int("CLUMPI_COLL_KNOMIAL_K"), want);
    int count;
    MPI_T_cvar_handle h = cvar_handle("CLUMPI_NET", &count);
    CHECK(count >= 64, "CLUMPI_NET: count %d", count);
    char *net = mt_malloc((size_t)count), *env = getenv("CLUMPI_NET");
    T_OK(MPI_T_cvar_read(h, net));
    CHECK(!strcmp(net, env && *env ? env : "direct"), "CLUMPI_NET reads \"%s\"", net);
    T_FAILS(MPI_T_ERR_CVAR_SET_NEVER, MPI_T_cvar_write(h, "agent"));
    T_OK(MPI_T_cvar_handle_free(&h));
    free(net);
    /* an on/off row spelt yes/no in the environment reads as on/off (1/0) */
    const char *stats = getenv("CLUMPI_AGENT_STATS");
    if (stats && !strcmp(stats, "Yes")) {
        CHECK(cvar_read_int("CLUMPI_AGENT_STATS") == 1, "CLUMPI_AGENT_STATS=Yes reads %d",
              cvar_read_int("CLUMPI_AGENT_STATS"));
    }

    /* read during MPI_Init: writable until then */
    int cap = EAGER_CAP;
    h = cvar_handle("CLUMPI_EAGER_LIMIT", &count);
    T_OK(MPI_T_cvar_write(h, &cap));
    T_OK(MPI_T_cvar_handle_free(&h));
    CHECK(cvar_read_int("CLUMPI_EAGER_LIMIT") == EAGER_CAP, "EAGER_LIMIT not written");
}

/* A string result: length query, truncation, the whole. */
static void check_strings(int i)
{
    char full[256], small[4];
    int len = 0, flen = sizeof full, slen = sizeof small;
    T_OK(MPI_T_cvar_get_info(i, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    T_OK(MPI_T_cvar_get_info(i, full, &flen, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    T_OK(MPI_T_cvar_get_info(i, small, &slen, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(len == (int)strlen(full) + 1 && flen == len, "cvar %d: name lengths %d %d for %s", i,
          len, flen, full);
    CHECK(slen == 4 && !strncmp(small, full, 3) && small[3] == 0, "cvar %d: truncated to %d",
          i, slen);
}

static void check_enum(MPI_T_enum e, const char *what)
{
    int num = -1, len = 64;
    char name[64];
    T_OK(MPI_T_enum_get_info(e, &num, name, &len));
    CHECK(num > 0 && len > 1, "%s: enumeration %s of %d items", what, name, num);
    for (int j = 0; j < num; j++) {
        int v, l = 64;
        char iname[64];
        T_OK(MPI_T_enum_get_item(e, j, &v, iname, &l));
        CHECK(l > 1 && (int)strlen(iname) == l - 1, "%s item %d: name %s", what, j, iname);
    }
    int v;
    T_FAILS(MPI_T_ERR_INVALID_ITEM, MPI_T_enum_get_item(e, num, &v, NULL, NULL));
    T_FAILS(MPI_T_ERR_INVALID_ITEM, MPI_T_enum_get_item(e, -1, &v, NULL, NULL));
}

/* Every variable and category: index <-> name, info, membership. */
static void enumerate(void)
{
    int ncv, npv, ncat;
    T_OK(MPI_T_cvar_get_num(&ncv));
    T_OK(MPI_T_pvar_get_num(&npv));
    T_OK(MPI_T_category_get_num(&ncat));
    CHECK(npv >= 12 && ncat >= 5, "%d pvars, %d categories", npv, ncat);
    int *cv_seen = calloc((size_t)ncv, sizeof(int)), *pv_seen = calloc((size_t)npv, sizeof(int));
    for (int i = 0; i < ncv; i++) {
        char name[128], desc[512];
        int nl = sizeof name, dl = sizeof desc, verb, bind, scope, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum e;
        T_OK(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &e, desc, &dl, &bind, &scope));
        CHECK(!strncmp(name, "CLUMPI_", 7) && dl > 10, "cvar %d: %s: %s", i, name, desc);
        CHECK(verb >= MPI_T_VERBOSITY_USER_BASIC && verb <= MPI_T_VERBOSITY_MPIDEV_ALL,
              "%s: verbosity %d", name, verb);
        CHECK(dt == MPI_INT || dt == MPI_CHAR, "%s: datatype", name);
        CHECK(e == MPI_T_ENUM_NULL || dt == MPI_INT, "%s: enumeration of strings", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: bind %d", name, bind);
        CHECK(scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_LOCAL ||
                  scope == MPI_T_SCOPE_ALL_EQ, "%s: scope %d", name, scope);
        T_OK(MPI_T_cvar_get_index(name, &idx));
        CHECK(idx == i, "%s: index %d, not %d", name, idx, i);
        if (e != MPI_T_ENUM_NULL)
            check_enum(e, name);
        check_strings(i);
        /* a constant one cannot be written; the handle has the right count */
        int count;
        MPI_T_cvar_handle h;
        T_OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        CHECK(count == (dt == MPI_INT ? 1 : 256), "%s: count %d", name, count);
        if (scope == MPI_T_SCOPE_CONSTANT) {
            char buf[256] = "1";
            T_FAILS(MPI_T_ERR_CVAR_SET_NEVER, MPI_T_cvar_write(h, buf));
        }
        T_OK(MPI_T_cvar_handle_free(&h));
    }
    for (int i = 0; i < npv; i++) {
        char name[128], desc[512];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, at, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum e;
        T_OK(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &e, desc, &dl, &bind, &ro,
                                 &cont, &at));
        CHECK(nl > 1 && dl > 10, "pvar %d: %s: %s", i, name, desc);
        CHECK(cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC, "%s: class", name);
        CHECK(dt == MPI_UNSIGNED_LONG_LONG && e == MPI_T_ENUM_NULL, "%s: datatype", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: bind %d", name, bind);
        CHECK((ro == 0 || ro == 1) && (cont == 0 || cont == 1) && (at == 0 || at == 1),
              "%s: flags %d %d %d", name, ro, cont, at);
        CHECK(cls != MPI_T_PVAR_CLASS_COUNTER || (!ro && !cont), "%s: counter flags", name);
        CHECK(cls != MPI_T_PVAR_CLASS_LEVEL || (ro && cont), "%s: level flags", name);
        T_OK(MPI_T_pvar_get_index(name, cls, &idx));
        CHECK(idx == i, "%s: index %d, not %d", name, idx, i);
        int other = cls == MPI_T_PVAR_CLASS_TIMER ? MPI_T_PVAR_CLASS_GENERIC : MPI_T_PVAR_CLASS_TIMER;
        T_FAILS(MPI_T_ERR_INVALID_NAME, MPI_T_pvar_get_index(name, other, &idx));
    }
    for (int c = 0; c < ncat; c++) {
        char name[64], desc[256];
        int nl = sizeof name, dl = sizeof desc, ncv_c, npv_c, nsub, idx = -1;
        T_OK(MPI_T_category_get_info(c, name, &nl, desc, &dl, &ncv_c, &npv_c, &nsub));
        CHECK(dl > 10 && ncv_c + npv_c > 0 && nsub == 0, "category %s: %d %d %d", name, ncv_c,
              npv_c, nsub);
        T_OK(MPI_T_category_get_index(name, &idx));
        CHECK(idx == c, "category %s: index %d", name, idx);
        int *ix = mt_malloc((size_t)(ncv_c + npv_c) * sizeof(int));
        T_OK(MPI_T_category_get_cvars(c, ncv_c, ix));
        for (int j = 0; j < ncv_c; j++) {
            CHECK(ix[j] >= 0 && ix[j] < ncv, "category %s: cvar %d", name, ix[j]);
            cv_seen[ix[j]]++;
        }
        T_OK(MPI_T_category_get_pvars(c, npv_c, ix));
        for (int j = 0; j < npv_c; j++) {
            CHECK(ix[j] >= 0 && ix[j] < npv, "category %s: pvar %d", name, ix[j]);
            pv_seen[ix[j]]++;
        }
        T_OK(MPI_T_category_get_categories(c, 0, NULL));
        free(ix);
    }
    for (int i = 0; i < ncv; i++)
        CHECK(cv_seen[i] == 1, "cvar %d is in %d categories", i, cv_seen[i]);
    for (int i = 0; i < npv; i++)
        CHECK(pv_seen[i] == 1, "pvar %d is in %d categories", i, pv_seen[i]);
    int stamp1 = -1, stamp2 = -2;
    T_OK(MPI_T_category_changed(&stamp1));
    T_OK(MPI_T_category_changed(&stamp2));
    CHECK(stamp1 == stamp2, "category stamp changed without changes");
    free(cv_seen);
    free(pv_seen);
}

/* ---- performance variables ---------------------------------------------- */
typedef struct { MPI_T_pvar_handle h; } pv;

#define CNT MPI_T_PVAR_CLASS_COUNTER

/* Whether world rank r shares this rank's node (the shm channel). */
static int *same_node;

static void find_nodes(void)
{
    MPI_Comm node;
    MPI_Group wg, ng;
    int nsize;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Comm_size(node, &nsize));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Comm_group(node, &ng));
    same_node = calloc((size_t)mt_size, sizeof(int));
    int *in = mt_malloc((size_t)nsize * sizeof(int)), *out = mt_malloc((size_t)nsize * sizeof(int));
    for (int i = 0; i < nsize; i++)
        in[i] = i;
    MPI_OK(MPI_Group_translate_ranks(ng, nsize, in, wg, out));
    for (int i = 0; i < nsize; i++)
        same_node[out[i]] = 1;
    free(in);
    free(out);
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&ng));
    MPI_OK(MPI_Comm_free(&node));
}

static const char *chan_to(int r)
{
    return r == mt_rank ? "self" : same_node[r] ? "shm" : "net";
}

/* Ranks from `from` on stay silent (no message to ranks 0 and 1 may
 * disturb their counts) until rank 1 lets them go; then a barrier. */
static void release(int from)
{
    char b = 0;
    if (mt_rank == 1)
        for (int r = from; r < mt_size; r++)
            MPI_OK(MPI_Send(&b, 1, MPI_BYTE, r, 66, MPI_COMM_WORLD));
    else if (mt_rank >= from)
        MPI_OK(MPI_Recv(&b, 1, MPI_BYTE, 1, 66, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    mt_barrier();
}

/* Counters of messages sent to / arrived from peer, in two sessions. */
static int sender, peer;
static char tbuf[8000];

/* n messages of `bytes` from rank 0 to rank 1. */
static void transfer(int n, int bytes)
{
    for (int i = 0; i < n; i++) {
        if (sender)
            MPI_OK(MPI_Send(tbuf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD));
        else
            MPI_OK(MPI_Recv(tbuf, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
}

/* The receiver has checked its counts: the sender may go on. */
static void go(void)
{
    if (sender)
        MPI_OK(MPI_Recv(tbuf, 1, MPI_BYTE, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    else
        MPI_OK(MPI_Send(tbuf, 1, MPI_BYTE, peer, 6, MPI_COMM_WORLD));
}

static void counters(void)
{
    if (mt_size < 2)
        return;
    peer = mt_rank == 0 ? 1 : 0;
    sender = mt_rank == 0;
    char n_msgs[64], n_bytes[64];
    snprintf(n_msgs, sizeof n_msgs, "%s_msgs_%s", chan_to(peer), sender ? "sent" : "recvd");
    snprintf(n_bytes, sizeof n_bytes, "%s_bytes_%s", chan_to(peer), sender ? "sent" : "recvd");
    MPI_T_pvar_session s1, s2;
    T_OK(MPI_T_pvar_session_create(&s1));
    T_OK(MPI_T_pvar_session_create(&s2));
    MPI_T_pvar_handle m1 = pv_alloc(s1, n_msgs, CNT), b1 = pv_alloc(s1, n_bytes, CNT);
    MPI_T_pvar_handle e1 = pv_alloc(s1, "eager_msgs_sent", CNT);
    MPI_T_pvar_handle r1 = pv_alloc(s1, "rndv_msgs_sent", CNT);
    MPI_T_pvar_handle m2 = pv_alloc(s2, n_msgs, CNT);
    MPI_T_pvar_handle ap = pv_alloc(s1, "agent_pio_sends", CNT);
    MPI_T_pvar_handle ad = pv_alloc(s1, "agent_dma_sends", CNT);
    CHECK(pv_read(s1, m1) == 0, "a counter not started reads %llu", pv_read(s1, m1));
    /* offload mode: a packet to another node goes to the agent (PIO or DMA);
     * the receiver's is its go message */
    const char *net = getenv("CLUMPI_NET");
    int agent = net && !strcmp(net, "agent") && !same_node[peer];
    mt_barrier();
    if (mt_rank < 2) {
        /* the receiver counts from before the sender sends; its go
         * messages are its eager sends */
        if (!sender)
            T_OK(MPI_T_pvar_start(s1, MPI_T_PVAR_ALL_HANDLES));
        go();
        if (sender)
            T_OK(MPI_T_pvar_start(s1, MPI_T_PVAR_ALL_HANDLES));
        transfer(10, 100);   /* eager */
        CHECK(pv_read(s1, m1) == 10 && pv_read(s1, b1) == 1000,
              "%s %llu, %s %llu after 10 x 100 B", n_msgs, pv_read(s1, m1), n_bytes,
              pv_read(s1, b1));
        CHECK(pv_read(s1, e1) == (sender ? 10u : 1u) && pv_read(s1, r1) == 0,
              "eager %llu rndv %llu", pv_read(s1, e1), pv_read(s1, r1));
        CHECK(pv_read(s2, m2) == 0, "session 2 counted while not started");
        CHECK(pv_read(s1, ap) + pv_read(s1, ad) == (agent ? (sender ? 10u : 1u) : 0u),
              "agent sends: %llu PIO, %llu DMA", pv_read(s1, ap), pv_read(s1, ad));
        T_OK(MPI_T_pvar_start(s2, m2));
        go();
        /* above CLUMPI_EAGER_LIMIT (written before MPI_Init): rendezvous */
        transfer(1, 8000);
        CHECK(pv_read(s1, m1) == 11 && pv_read(s1, b1) == 9000 && pv_read(s2, m2) == 1,
              "after 8000 B: %llu %llu, session 2 %llu", pv_read(s1, m1), pv_read(s1, b1),
              pv_read(s2, m2));
        CHECK(pv_read(s1, e1) == (sender ? 10u : 2u) && pv_read(s1, r1) == (sender ? 1u : 0u),
              "8000 B: eager %llu rndv %llu", pv_read(s1, e1), pv_read(s1, r1));
        /* s1 stopped keeps its value while s2 goes on */
        T_OK(MPI_T_pvar_stop(s1, MPI_T_PVAR_ALL_HANDLES));
        go();
        transfer(3, 10);
        CHECK(pv_read(s1, m1) == 11 && pv_read(s2, m2) == 4, "stopped s1 %llu, s2 %llu",
              pv_read(s1, m1), pv_read(s2, m2));
        /* readreset, reset, write: in their own session only */
        unsigned long long v = 0, w = 100;
        T_OK(MPI_T_pvar_readreset(s2, m2, &v));
        CHECK(v == 4 && pv_read(s2, m2) == 0 && pv_read(s1, m1) == 11, "readreset: %llu", v);
        T_OK(MPI_T_pvar_write(s1, m1, &w));
        T_OK(MPI_T_pvar_reset(s1, b1));
        T_OK(MPI_T_pvar_start(s1, m1));
        T_OK(MPI_T_pvar_start(s1, m1));   /* started already: no change */
        go();
        transfer(1, 10);
        CHECK(pv_read(s1, m1) == 101 && pv_read(s1, b1) == 0 && pv_read(s2, m2) == 1,
              "after write 100 and one more: %llu, reset stopped %llu, s2 %llu",
              pv_read(s1, m1), pv_read(s1, b1), pv_read(s2, m2));
        go();   /* the sender's next messages come after these reads */
        T_OK(MPI_T_pvar_reset(s1, MPI_T_PVAR_ALL_HANDLES));
        CHECK(pv_read(s1, m1) == 0 && pv_read(s1, e1) == 0, "reset all: %llu", pv_read(s1, m1));
        /* messages to oneself go to the self channel */
        MPI_T_pvar_handle self = pv_alloc(s2, "self_msgs_sent", CNT);
        T_OK(MPI_T_pvar_start(s2, self));
        MPI_OK(MPI_Sendrecv(tbuf, 5, MPI_BYTE, mt_rank, 3, tbuf + 100, 5, MPI_BYTE, mt_rank, 3,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(pv_read(s2, self) == 1, "self_msgs_sent %llu", pv_read(s2, self));
    }
    release(2);
    T_OK(MPI_T_pvar_handle_free(s1, &m1));
    CHECK(m1 == MPI_T_PVAR_HANDLE_NULL, "pvar handle_free did not reset the handle");
    T_FAILS(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(s2, b1, tbuf));   /* s1's handle */
    T_OK(MPI_T_pvar_session_free(&s1));
    CHECK(s1 == MPI_T_PVAR_SESSION_NULL, "session_free did not reset the session");
    T_OK(MPI_T_pvar_session_free(&s2));
}

/* Unexpected and posted queues on rank 1: levels and high-water marks. */
static void queues(void)
{
    if (mt_size < 2)
        return;
    enum { N = 7, P = 5 };
    MPI_T_pvar_session s;
    T_OK(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle ul = pv_alloc(s, "unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle um = pv_alloc(s, "unexpected_recvq_max", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    MPI_T_pvar_handle pl = pv_alloc(s, "posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle pm = pv_alloc(s, "posted_recvq_max", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    unsigned long long v = 0;
    T_FAILS(MPI_T_ERR_PVAR_NO_STARTSTOP, MPI_T_pvar_start(s, ul));
    T_FAILS(MPI_T_ERR_PVAR_NO_STARTSTOP, MPI_T_pvar_stop(s, pl));
    T_FAILS(MPI_T_ERR_PVAR_NO_WRITE, MPI_T_pvar_write(s, ul, &v));
    T_FAILS(MPI_T_ERR_PVAR_NO_WRITE, MPI_T_pvar_reset(s, ul));
    T_FAILS(MPI_T_ERR_PVAR_NO_WRITE, MPI_T_pvar_readreset(s, pl, &v));
    T_FAILS(MPI_T_ERR_PVAR_NO_ATOMIC, MPI_T_pvar_readreset(s, um, &v));
    char buf[N + P];
    mt_barrier();
    if (mt_rank == 0) {
        MPI_OK(MPI_Recv(buf, 1, MPI_BYTE, 1, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            MPI_OK(MPI_Send(buf + i, 1, MPI_BYTE, 1, 100 + i, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(buf, 1, MPI_BYTE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < P; i++)
            MPI_OK(MPI_Send(buf + i, 1, MPI_BYTE, 1, 200 + i, MPI_COMM_WORLD));
    } else if (mt_rank == 1) {
        unsigned long long u0 = pv_read(s, ul), p0 = pv_read(s, pl);
        T_OK(MPI_T_pvar_start(s, um));
        T_OK(MPI_T_pvar_start(s, pm));
        MPI_OK(MPI_Send(buf, 1, MPI_BYTE, 0, 98, MPI_COMM_WORLD));   /* go */
        int flag = 0;
        while (!flag)   /* in order from one sender: the last one means all */
            MPI_OK(MPI_Iprobe(0, 100 + N - 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(pv_read(s, ul) == u0 + N && pv_read(s, um) == u0 + N,
              "%d unmatched sends: level %llu max %llu (from %llu)", N, pv_read(s, ul),
              pv_read(s, um), u0);
        for (int i = 0; i < N; i++)
            MPI_OK(MPI_Recv(buf + i, 1, MPI_BYTE, 0, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(pv_read(s, ul) == u0 && pv_read(s, um) == u0 + N, "received: level %llu max %llu",
              pv_read(s, ul), pv_read(s, um));
        T_OK(MPI_T_pvar_reset(s, um));
        CHECK(pv_read(s, um) == u0, "reset max: %llu", pv_read(s, um));
        MPI_Request rq[P];
        for (int i = 0; i < P; i++)
            MPI_OK(MPI_Irecv(buf + i, 1, MPI_BYTE, 0, 200 + i, MPI_COMM_WORLD, &rq[i]));
        CHECK(pv_read(s, pl) == p0 + P && pv_read(s, pm) == p0 + P,
              "%d posted: level %llu max %llu (from %llu)", P, pv_read(s, pl), pv_read(s, pm), p0);
        MPI_OK(MPI_Send(buf, 1, MPI_BYTE, 0, 99, MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(P, rq, MPI_STATUSES_IGNORE));
        CHECK(pv_read(s, pl) == p0 && pv_read(s, pm) == p0 + P, "matched: level %llu max %llu",
              pv_read(s, pl), pv_read(s, pm));
        T_OK(MPI_T_pvar_stop(s, pm));
        T_OK(MPI_T_pvar_write(s, pm, &v));
        CHECK(pv_read(s, pm) == 0, "written max: %llu", pv_read(s, pm));
    }
    release(2);
    T_OK(MPI_T_pvar_session_free(&s));   /* frees its handles */
}

/* A write of CLUMPI_COLL_BCAST changes the algorithm of the next MPI_Bcast:
 * "flat" has the root send one message to each rank and no one else send. */
static void bcast_write(void)
{
    MPI_T_pvar_session s;
    T_OK(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle h[3];
    const char *ch[3] = { "self", "shm", "net" };
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "%s_msgs_sent", ch[k]);
        h[k] = pv_alloc(s, name, CNT);
    }
    int count, root = mt_size - 1, x = 0;
    MPI_T_cvar_handle a = cvar_handle("CLUMPI_COLL_BCAST", &count);
    char *algo = mt_malloc((size_t)count);
    T_OK(MPI_T_cvar_write(a, "flat"));
    T_OK(MPI_T_cvar_read(a, algo));
    CHECK(!strcmp(algo, "flat"), "CLUMPI_COLL_BCAST reads \"%s\"", algo);
    mt_barrier();
    T_OK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    MPI_OK(MPI_Bcast(&x, 1, MPI_INT, root, MPI_COMM_WORLD));
    T_OK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    unsigned long long sent = pv_read(s, h[0]) + pv_read(s, h[1]) + pv_read(s, h[2]);
    CHECK(sent == (mt_rank == root ? (unsigned long long)mt_size - 1 : 0),
          "flat bcast: %llu messages sent", sent);
    /* a name that is no algorithm fails the call, as in the environment */
    T_OK(MPI_T_cvar_write(a, "no-such-algorithm"));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_FAILS(MPI_ERR_ARG, MPI_Bcast(&x, 1, MPI_INT, root, MPI_COMM_WORLD));
    T_OK(MPI_T_cvar_write(a, ""));   /* back to the default */
    T_OK(MPI_T_cvar_read(a, algo));
    CHECK(algo[0] == 0, "CLUMPI_COLL_BCAST reads \"%s\" after unset", algo);
    x = mt_rank == root ? 42 : 0;
    MPI_OK(MPI_Bcast(&x, 1, MPI_INT, root, MPI_COMM_WORLD));
    CHECK(x == 42, "bcast after unset: %d", x);
    T_OK(MPI_T_cvar_handle_free(&a));
    T_OK(MPI_T_pvar_session_free(&s));
    free(algo);
}

/* The classes a caller can provoke, not covered above. */
static void errors(void)
{
    int n, i, count, dummy;
    T_OK(MPI_T_cvar_get_num(&n));
    T_FAILS(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL,
                                                         NULL, NULL, NULL));
    T_FAILS(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL,
                                                         NULL, NULL, NULL));
    MPI_T_cvar_handle h;
    T_FAILS(MPI_T_ERR_INVALID_INDEX, MPI_T_cvar_handle_alloc(n, NULL, &h, &count));
    T_FAILS(MPI_T_ERR_INVALID_NAME, MPI_T_cvar_get_index("CLUMPI_NO_SUCH", &i));
    T_FAILS(MPI_T_ERR_INVALID_NAME, MPI_T_cvar_get_index("SHM_FRAGS", &i));
    T_FAILS(MPI_T_ERR_INVALID, MPI_T_cvar_get_index(NULL, &i));
    T_FAILS(MPI_T_ERR_INVALID, MPI_T_cvar_get_num(NULL));
    T_FAILS(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_read((MPI_T_cvar_handle)&dummy, &dummy));
    T_FAILS(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_write(MPI_T_CVAR_HANDLE_NULL, &dummy));
    h = cvar_handle("CLUMPI_EAGER_LIMIT", &count);
    T_FAILS(MPI_T_ERR_CVAR_SET_NOT_NOW, MPI_T_cvar_write(h, &dummy));
    T_FAILS(MPI_T_ERR_INVALID, MPI_T_cvar_read(h, NULL));
    T_OK(MPI_T_cvar_handle_free(&h));
    T_FAILS(MPI_T_ERR_INVALID_HANDLE, MPI_T_cvar_handle_free(&h));
    h = cvar_handle("CLUMPI_COLL_BCAST", &count);
    char *big = mt_malloc((size_t)count + 1);
    memset(big, 'x', (size_t)count);
    big[count] = 0;
    T_FAILS(MPI_T_ERR_INVALID, MPI_T_cvar_write(h, big));
    free(big);
    T_OK(MPI_T_cvar_handle_free(&h));
    h = cvar_handle("CLUMPI_VERBOSE", &count);   /* writable any time: no enumeration */
    T_OK(MPI_T_cvar_read(h, &dummy));
    T_OK(MPI_T_cvar_write(h, &dummy));
    T_OK(MPI_T_cvar_handle_free(&h));
    T_FAILS(MPI_T_ERR_INVALID_HANDLE, MPI_T_enum_get_info((MPI_T_enum)&dummy, &n, NULL, NULL));

    /* handles and sessions run out, and come back */
    enum { MAXH = 1024, MAXS = 64 };
    MPI_T_cvar_handle *hs = mt_malloc(MAXH * sizeof *hs);
    for (i = 0; i < MAXH; i++)
        T_OK(MPI_T_cvar_handle_alloc(0, NULL, &hs[i], &count));
    T_FAILS(MPI_T_ERR_OUT_OF_HANDLES, MPI_T_cvar_handle_alloc(0, NULL, &h, &count));
    for (i = 0; i < MAXH; i++)
        T_OK(MPI_T_cvar_handle_free(&hs[i]));
    free(hs);
    MPI_T_pvar_session ss[MAXS + 1];
    for (i = 0; i < MAXS; i++)
        T_OK(MPI_T_pvar_session_create(&ss[i]));
    T_FAILS(MPI_T_ERR_OUT_OF_SESSIONS, MPI_T_pvar_session_create(&ss[MAXS]));
    for (i = 1; i < MAXS; i++)
        T_OK(MPI_T_pvar_session_free(&ss[i]));
    MPI_T_pvar_session s = ss[0], gone = ss[1];
    MPI_T_pvar_handle p;
    T_FAILS(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_handle_alloc(gone, 0, NULL, &p, &count));
    T_FAILS(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_session_free(&gone));
    T_FAILS(MPI_T_ERR_INVALID_INDEX, MPI_T_pvar_handle_alloc(s, -1, NULL, &p, &count));
    T_OK(MPI_T_pvar_get_num(&n));
    T_FAILS(MPI_T_ERR_INVALID_INDEX, MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL,
                                                         NULL, NULL, NULL, NULL, NULL, NULL));
    T_FAILS(MPI_T_ERR_INVALID_NAME, MPI_T_pvar_get_index("no_such_pvar", CNT, &i));
    T_FAILS(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &dummy));
    T_FAILS(MPI_T_ERR_INVALID_HANDLE, MPI_T_pvar_start(s, (MPI_T_pvar_handle)&dummy));
    p = pv_alloc(s, "progress_passes", CNT);
    T_FAILS(MPI_T_ERR_INVALID_SESSION, MPI_T_pvar_read(gone, p, &dummy));
    T_FAILS(MPI_T_ERR_INVALID, MPI_T_pvar_read(s, p, NULL));
    T_OK(MPI_T_category_get_num(&n));
    T_FAILS(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_info(n, NULL, NULL, NULL, NULL, NULL,
                                                             NULL, NULL));
    T_FAILS(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_cvars(-1, 0, NULL));
    T_FAILS(MPI_T_ERR_INVALID, MPI_T_category_get_pvars(0, -1, NULL));
    T_FAILS(MPI_T_ERR_INVALID_NAME, MPI_T_category_get_index("no-such-category", &i));
    T_OK(MPI_T_pvar_session_free(&s));

    /* the classes are MPI error classes, with their own strings */
    char str[MPI_MAX_ERROR_STRING];
    int len, cls;
    MPI_OK(MPI_Error_class(MPI_T_ERR_INVALID_HANDLE, &cls));
    CHECK(cls == MPI_T_ERR_INVALID_HANDLE, "class of MPI_T_ERR_INVALID_HANDLE: %d", cls);
    MPI_OK(MPI_Error_string(MPI_T_ERR_PVAR_NO_ATOMIC, str, &len));
    CHECK(strstr(str, "MPI_T_ERR_PVAR_NO_ATOMIC") != NULL, "string: %s", str);
}
#endif

#ifdef CLUMPI
static _Atomic int tool_stop;

#define TOOLS 3

/* A tool thread: a control variable read (it keeps the value written
 * before MPI_Init), a session started once, whose progress passes only
 * grow, and a session made and freed on every round. */
static void *tool(void *arg)
{
    (void)arg;
    unsigned long long last = 0;
    int idx = pvar_index("progress_passes", CNT), count;
    MPI_T_cvar_handle ch = cvar_handle("CLUMPI_EAGER_LIMIT", &count);
    MPI_T_pvar_session keep;
    MPI_T_pvar_handle kh;
    T_OK(MPI_T_pvar_session_create(&keep));
    T_OK(MPI_T_pvar_handle_alloc(keep, idx, NULL, &kh, &count));
    T_OK(MPI_T_pvar_start(keep, kh));
    while (!tool_stop) {
        MPI_T_pvar_session s;
        MPI_T_pvar_handle h;
        unsigned long long v;
        T_OK(MPI_T_pvar_session_create(&s));
        T_OK(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
        T_OK(MPI_T_pvar_start(s, h));
        T_OK(MPI_T_pvar_read(s, h, &v));
        T_OK(MPI_T_pvar_session_free(&s));
        T_OK(MPI_T_pvar_read(keep, kh, &v));
        CHECK(v >= last, "tool thread: progress passes went from %llu to %llu", last, v);
        int cap = 0;
        T_OK(MPI_T_cvar_read(ch, &cap));
        CHECK(cap == EAGER_CAP, "tool thread: CLUMPI_EAGER_LIMIT reads %d", cap);
        last = v;
        mt_sleep_ms(1);
    }
    T_OK(MPI_T_pvar_session_free(&keep));
    T_OK(MPI_T_cvar_handle_free(&ch));
    return NULL;
}
#endif

int main(int argc, char **argv)
{
#ifdef CLUMPI
    before_init();
    pthread_t tool_thread[TOOLS];
    int threads = getenv("CLUMPI_TEST_THREADS") != NULL, prov;
    if (threads) {
        for (int t = 0; t < TOOLS; t++)
            CHECK(pthread_create(&tool_thread[t], NULL, tool, NULL) == 0, "pthread_create");
        MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov));
        CHECK(prov == MPI_THREAD_FUNNELED, "provided %d", prov);
        mt_name = "mpit";   /* mt_init's steps, after MPI_Init_thread */
        MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
        MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &mt_size));
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &mt_comm));
    } else {
        mt_init(&argc, &argv, "mpit");
    }
#else
    mt_init(&argc, &argv, "mpit");
#endif
#ifdef CLUMPI
    find_nodes();
    enumerate();
    counters();
    queues();
    bcast_write();
    if (threads) {   /* before errors(), which takes every session */
        tool_stop = 1;
        for (int t = 0; t < TOOLS; t++)
            pthread_join(tool_thread[t], NULL);
    }
    errors();
    free(same_node);
    mt_barrier();
    MPI_OK(MPI_Comm_free(&mt_comm));
    MPI_OK(MPI_Finalize());
    /* after MPI_Finalize: still initialized, and counters still read */
    int n = 0;
    T_OK(MPI_T_pvar_get_num(&n));
    MPI_T_pvar_session s;
    T_OK(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle h = pv_alloc(s, "progress_passes", CNT);
    (void)pv_read(s, h);
    T_OK(MPI_T_finalize());   /* frees the session */
    T_FAILS(MPI_T_ERR_NOT_INITIALIZED, MPI_T_pvar_get_num(&n));
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));   /* again, after MPI_Finalize */
    T_OK(MPI_T_category_get_num(&n));
    T_OK(MPI_T_finalize());
    if (mt_rank == 0)
        printf("PASS %s (%d ranks)\n", mt_name, mt_size);
    return 0;
#else
    return mt_finish();
#endif
}
