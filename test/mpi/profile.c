/* np: 1 2 3
 *
 * profile.c — the profiling interface (MPI-3.1 section 14.2): a tool that
 * defines MPI_x (as this program does for the calls below) sees every call
 * the program makes, and none the library makes of its own: MPI_Win_create,
 * MPI_Win_fence, MPI_Win_free, MPI_Win_get_group, MPI_Comm_compare,
 * MPI_Comm_get_info, a neighborhood collective on a Cartesian communicator,
 * a nonblocking barrier, MPI_Comm_disconnect and the MPIX_Counter calls are
 * built on barriers, allgathers, duplicates, group and info calls inside
 * the library.
 */
#include "mtest.h"

enum { BARRIER, BCAST, ALLGATHER, COMM_DUP, COMM_FREE, COMM_GROUP, GROUP_COMPARE,
       INFO_CREATE, TOPO_TEST, CART_SHIFT, COMM_GET_ATTR, WIN_FREE, NCALLS };
static const char *const names[NCALLS] = {
    "MPI_Barrier", "MPI_Bcast", "MPI_Allgather", "MPI_Comm_dup", "MPI_Comm_free",
    "MPI_Comm_group", "MPI_Group_compare", "MPI_Info_create", "MPI_Topo_test",
    "MPI_Cart_shift", "MPI_Comm_get_attr", "MPI_Win_free"};
static int seen[NCALLS];

/* The "tool": counts each call, then calls the library. */
int MPI_Barrier(MPI_Comm comm)
{
    seen[BARRIER]++;
    return PMPI_Barrier(comm);
}
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    seen[BCAST]++;
    return PMPI_Bcast(buf, count, type, root, comm);
}
int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    seen[ALLGATHER]++;
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    seen[COMM_DUP]++;
    return PMPI_Comm_dup(comm, newcomm);
}
int MPI_Comm_free(MPI_Comm *comm)
{
    seen[COMM_FREE]++;
    return PMPI_Comm_free(comm);
}
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    seen[COMM_GROUP]++;
    return PMPI_Comm_group(comm, group);
}
int MPI_Group_compare(MPI_Group a, MPI_Group b, int *result)
{
    seen[GROUP_COMPARE]++;
    return PMPI_Group_compare(a, b, result);
}
int MPI_Info_create(MPI_Info *info)
{
    seen[INFO_CREATE]++;
    return PMPI_Info_create(info);
}
int MPI_Topo_test(MPI_Comm comm, int *status)
{
    seen[TOPO_TEST]++;
    return PMPI_Topo_test(comm, status);
}
int MPI_Cart_shift(MPI_Comm comm, int dir, int disp, int *src, int *dst)
{
    seen[CART_SHIFT]++;
    return PMPI_Cart_shift(comm, dir, disp, src, dst);
}
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag)
{
    seen[COMM_GET_ATTR]++;
    return PMPI_Comm_get_attr(comm, keyval, val, flag);
}
int MPI_Win_free(MPI_Win *win)
{
    seen[WIN_FREE]++;
    return PMPI_Win_free(win);
}

/* Each wrapped call is seen exactly as often as this program made it. */
static void expect(const int *want, const char *after)
{
    for (int i = 0; i < NCALLS; i++)
        CHECK(seen[i] == want[i], "after %s the tool saw %d calls of %s, the program made %d",
              after, seen[i], names[i], want[i]);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "profile");
    int want[NCALLS] = {0};
    memset(seen, 0, sizeof seen);

    /* The program's own calls reach the tool. */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    want[BARRIER]++;
    int v = mt_rank == 0 ? 42 : -1;
    MPI_OK(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    want[BCAST]++;
    CHECK(v == 42, "MPI_Bcast through the tool gave %d", v);
    expect(want, "the program's own calls");

    /* A window: created, fenced, asked for its group, freed. */
    int *mem = mt_malloc(sizeof(int) * (size_t)mt_size);
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, (MPI_Aint)sizeof(int) * mt_size, (int)sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_fence(0, win));
    int one = mt_rank + 1;
    MPI_OK(MPI_Put(&one, 1, MPI_INT, (mt_rank + 1) % mt_size, mt_rank, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    int from = (mt_rank - 1 + mt_size) % mt_size;
    CHECK(mem[from] == from + 1, "the put from %d left %d", from, mem[from]);
    MPI_Group wg, cg;
    MPI_OK(MPI_Win_get_group(win, &wg));
    MPI_OK(MPI_Win_free(&win));
    want[WIN_FREE]++;
    free(mem);
    expect(want, "a window's life");

    /* Communicators compared and asked for their info. */
    int cmp;
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_IDENT, "MPI_Comm_compare(world, world) = %d", cmp);
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &cg));
    want[COMM_GROUP]++;
    MPI_OK(MPI_Group_compare(wg, cg, &cmp));
    want[GROUP_COMPARE]++;
    CHECK(cmp == MPI_IDENT, "the window's group against the world's: %d", cmp);
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&cg));
    MPI_Info info;
    MPI_OK(MPI_Comm_get_info(MPI_COMM_WORLD, &info));
    MPI_OK(MPI_Info_free(&info));
    expect(want, "comparisons and info");

    /* A ring as a periodic Cartesian communicator: each rank gathers its
     * two neighbours' ranks. */
    MPI_Comm ring;
    int dims[1] = {mt_size}, periods[1] = {1}, nb[2];
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    MPI_OK(MPI_Neighbor_allgather(&mt_rank, 1, MPI_INT, nb, 1, MPI_INT, ring));
    CHECK(nb[0] == (mt_rank - 1 + mt_size) % mt_size && nb[1] == (mt_rank + 1) % mt_size,
          "neighbours %d %d", nb[0], nb[1]);
    MPI_Request rq;
    MPI_OK(MPI_Ibarrier(ring, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_disconnect(&ring));
    expect(want, "a neighborhood collective, a nonblocking barrier and a disconnect");

    /* A shared counter: every rank adds its rank + 1 once. */
    MPIX_Counter k;
    long long old;
    MPI_OK(MPIX_Counter_create(MPI_COMM_WORLD, 0, 0, &k));
    MPI_OK(MPIX_Counter_fetch_and_add(k, mt_rank + 1, &old));
    MPI_OK(MPIX_Counter_free(&k));
    CHECK(old >= 0 && old <= (long long)mt_size * (mt_size + 1) / 2 - (mt_rank + 1),
          "the counter held %lld before my add", old);
    expect(want, "a counter's life");

    memset(seen, 0, sizeof seen);
    return mt_finish();
}
