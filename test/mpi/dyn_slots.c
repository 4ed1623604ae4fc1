/* np: 2 3 5 8
 *
 * Routing slots of processes of other jobs are counted per process and
 * freed: the lower half of the ranks (A) accepts and the upper half (B)
 * connects, over their own intracommunicators, with CLUMPI_DYN_SLOTS 8
 * (at most 4 remote processes a cycle): 40 connect/disconnect cycles
 * (every third ends with MPI_Comm_free instead) must all work, which they
 * cannot if a freed communicator keeps its slots. Each cycle checks
 * traffic both ways (a value per remote process, the source checked). Then
 * two intercommunicators at once between the same groups: the MPI_T pvar
 * dyn_slots (processes of other jobs routed) must be the remote group's
 * size with both alive (one slot per process, not one per connection),
 * traffic must flow on both, and on the second after the first is
 * disconnected; after both, dyn_slots is 0 again and dyn_slots_max is the
 * remote size.
 */
#include "mtest.h"

#define CYCLES 40

static int side, lsize, rsize;

/* Every process sends its rank to every remote process (tag t) and checks
 * what it gets. */
static void traffic(MPI_Comm ic, int t)
{
    int me, *in = mt_malloc((size_t)rsize * sizeof(int));
    MPI_OK(MPI_Comm_rank(ic, &me));
    MPI_Request *q = mt_malloc((size_t)rsize * 2 * sizeof *q);
    int out = side * 1000 + me * 10 + t % 10;
    for (int j = 0; j < rsize; j++) {
        MPI_OK(MPI_Irecv(&in[j], 1, MPI_INT, j, t, ic, &q[j]));
        MPI_OK(MPI_Isend(&out, 1, MPI_INT, j, t, ic, &q[rsize + j]));
    }
    MPI_OK(MPI_Waitall(2 * rsize, q, MPI_STATUSES_IGNORE));
    for (int j = 0; j < rsize; j++)
        CHECK(in[j] == (1 - side) * 1000 + j * 10 + t % 10, "tag %d: from remote %d got %d",
              t, j, in[j]);
    free(in);
    free(q);
}

static MPI_T_pvar_session sess;

/* A started handle of pvar name of class cls. */
static MPI_T_pvar_handle pvar_handle(const char *name, int cls)
{
    int idx, count;
    MPI_T_pvar_handle h;
    MPI_OK(MPI_T_pvar_get_index(name, cls, &idx));
    MPI_OK(MPI_T_pvar_handle_alloc(sess, idx, NULL, &h, &count));
    if (cls == MPI_T_PVAR_CLASS_HIGHWATERMARK)
        MPI_OK(MPI_T_pvar_start(sess, h));
    return h;
}

static unsigned long long pvar_read(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    MPI_OK(MPI_T_pvar_read(sess, h, &v));
    return v;
}

static MPI_Comm join(MPI_Comm half, const char *port)
{
    MPI_Comm ic;
    if (side == 0)
        MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &ic));
    else
        MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &ic));
    return ic;
}

int main(int argc, char **argv)
{
    setenv("CLUMPI_DYN_SLOTS", "8", 1);
    mt_init(&argc, &argv, "dyn_slots");
    int provided;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int na = mt_size / 2;
    side = mt_rank >= na;
    lsize = side ? mt_size - na : na;
    rsize = mt_size - lsize;
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, side, mt_rank, &half));
    char port[MPI_MAX_PORT_NAME] = "";
    if (mt_rank == 0)
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
    MPI_OK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    for (int i = 0; i < CYCLES; i++) {
        MPI_Comm ic = join(half, port);
        traffic(ic, i);
        if (i % 3 == 2) {   /* freed without disconnect: the traffic ended above */
            MPI_OK(MPI_Barrier(ic));
            MPI_OK(MPI_Comm_free(&ic));
        } else {
            MPI_OK(MPI_Comm_disconnect(&ic));
        }
    }
    MPI_OK(MPI_T_pvar_session_create(&sess));
    MPI_T_pvar_handle live = pvar_handle("dyn_slots", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle most = pvar_handle("dyn_slots_max", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    unsigned long long n = pvar_read(live);
    CHECK(n == 0, "dyn_slots %llu after the cycles", n);
    MPI_Comm ic1 = join(half, port), ic2 = join(half, port);
    n = pvar_read(live);
    CHECK(n == (unsigned long long)rsize, "dyn_slots %llu with two connections to %d "
          "processes", n, rsize);
    traffic(ic1, 1);
    traffic(ic2, 2);
    MPI_OK(MPI_Comm_disconnect(&ic1));
    traffic(ic2, 3);
    n = pvar_read(live);
    CHECK(n == (unsigned long long)rsize, "dyn_slots %llu after the first disconnect", n);
    MPI_OK(MPI_Comm_disconnect(&ic2));
    n = pvar_read(live);
    CHECK(n == 0, "dyn_slots %llu after both disconnects", n);
    n = pvar_read(most);
    CHECK(n == (unsigned long long)rsize, "dyn_slots_max %llu, expected %d", n, rsize);
    MPI_OK(MPI_T_pvar_handle_free(sess, &live));
    MPI_OK(MPI_T_pvar_handle_free(sess, &most));
    MPI_OK(MPI_T_pvar_session_free(&sess));
    MPI_OK(MPI_Comm_free(&half));
    if (mt_rank == 0)
        MPI_OK(MPI_Close_port(port));
    MPI_OK(MPI_T_finalize());
    return mt_finish();
}
