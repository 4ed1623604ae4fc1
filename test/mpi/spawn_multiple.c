/* np: 1 2
 *
 * MPI_Comm_spawn_multiple: the parents start two commands of this program
 * as one job (2 and 3 processes, arguments "one" and "two" through
 * array_of_argv): the children share one MPI_COMM_WORLD of 5, MPI_APPNUM
 * is their command's index, the arguments are their command's; each child
 * sends (appnum, world rank) to the parents' rank 0, which checks all 5;
 * an inter allreduce; disconnect. Errors: count 0 at the root
 * (MPI_ERR_ARG); commands with different wdir (MPI_ERR_SPAWN, every code
 * MPI_ERR_SPAWN).
 */
#include <limits.h>
#include <unistd.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "spawn_multiple");
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) {
        mt_name = "spawn_multiple (child)";
        int *app, flag;
        MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag));
        CHECK(flag && (*app == 0 || *app == 1), "appnum");
        CHECK(mt_size == 5 && (*app == 0) == (mt_rank < 2), "world %d, appnum %d at rank %d",
              mt_size, *app, mt_rank);
        CHECK(argc == 2 && !strcmp(argv[1], *app ? "two" : "one"), "arguments of command %d",
              *app);
        int mine[2] = { *app, mt_rank };
        MPI_OK(MPI_Send(mine, 2, MPI_INT, 0, 4, parent));
        int one = 1, sum = 0, psize;
        MPI_OK(MPI_Comm_remote_size(parent, &psize));
        MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, parent));
        CHECK(sum == psize, "inter allreduce %d", sum);
        MPI_OK(MPI_Comm_disconnect(&parent));
        return mt_finish();
    }
    char self[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(l > 0, "readlink");
    self[l] = 0;
    char *cmds[2] = { self, self };
    char *a1[] = { "one", NULL }, *a2[] = { "two", NULL };
    char **argvs[2] = { a1, a2 };
    int np[2] = { 2, 3 }, codes[5] = { -1, -1, -1, -1, -1 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    MPI_Comm ic;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &ic, codes);
    MPI_OK(rc);
    for (int i = 0; i < 5; i++)
        CHECK(codes[i] == MPI_SUCCESS, "code %d: %d", i, codes[i]);
    int rsize;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    CHECK(rsize == 5, "remote size %d", rsize);
    if (mt_rank == 0) {
        int seen = 0;
        for (int i = 0; i < 5; i++) {
            int got[2];
            MPI_Status st;
            MPI_OK(MPI_Recv(got, 2, MPI_INT, MPI_ANY_SOURCE, 4, ic, &st));
            CHECK(got[1] == st.MPI_SOURCE && got[0] == (got[1] >= 2), "child %d said %d %d",
                  st.MPI_SOURCE, got[0], got[1]);
            seen |= 1 << got[1];
        }
        CHECK(seen == 31, "children seen 0x%x", seen);
    }
    int one = 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == 5, "inter allreduce %d", sum);
    MPI_OK(MPI_Comm_disconnect(&ic));

    MPI_FAILS(MPI_ERR_ARG, MPI_Comm_spawn_multiple(0, cmds, argvs, np, infos, 0, MPI_COMM_WORLD,
                                                   &ic, MPI_ERRCODES_IGNORE));
    MPI_OK(MPI_Info_create(&infos[1]));
    MPI_OK(MPI_Info_set(infos[1], "wdir", "/tmp"));
    for (int i = 0; i < 5; i++)
        codes[i] = -1;
    MPI_FAILS(MPI_ERR_SPAWN, MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0,
                                                     MPI_COMM_WORLD, &ic, codes));
    CHECK(ic == MPI_COMM_NULL, "failed spawn gave a communicator");
    for (int i = 0; i < 5; i++)   /* at every rank: the root's count */
        CHECK(codes[i] == MPI_ERR_SPAWN, "failed spawn: code %d is %d", i, codes[i]);
    MPI_OK(MPI_Info_free(&infos[1]));
    return mt_finish();
}
