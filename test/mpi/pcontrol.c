/* np: 1 2
 *
 * pcontrol.c — MPI_Pcontrol: the library accepts every level with any
 * trailing arguments and returns MPI_SUCCESS, before MPI_Init too; and a
 * profiler that defines MPI_Pcontrol itself (as this program does) sees the
 * program's calls and reaches the library's through PMPI_Pcontrol.
 */
#include "mtest.h"

static int seen[4], calls;

/* The "profiler": counts levels 0-3, then calls the library. */
int MPI_Pcontrol(const int level, ...)
{
    calls++;
    if (level >= 0 && level < 4)
        seen[level]++;
    return PMPI_Pcontrol(level);
}

int main(int argc, char **argv)
{
    mt_name = "pcontrol";
    CHECK(PMPI_Pcontrol(1) == MPI_SUCCESS, "PMPI_Pcontrol before MPI_Init failed");
    mt_init(&argc, &argv, "pcontrol");
    CHECK(MPI_Pcontrol(0) == MPI_SUCCESS, "level 0");
    CHECK(MPI_Pcontrol(1) == MPI_SUCCESS, "level 1");
    CHECK(MPI_Pcontrol(2) == MPI_SUCCESS, "level 2");
    CHECK(MPI_Pcontrol(3, "profiler-defined", 42, 1.5) == MPI_SUCCESS, "level 3 with arguments");
    CHECK(PMPI_Pcontrol(-7, 1, 2, 3) == MPI_SUCCESS, "PMPI_Pcontrol(-7, ...)");
    CHECK(calls == 4 && seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1,
          "the interposed MPI_Pcontrol saw %d calls", calls);
    return mt_finish();
}
