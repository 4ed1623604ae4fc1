/* np: 1 2 3
 *
 * MPI_Comm_spawn: parents (1, 2, 3) spawn 2, 1, 4 children of this
 * program, the last parent as root, with arguments (one holding a space)
 * and the info key wdir. Parents: MPI_UNIVERSE_SIZE at least their number
 * and the same everywhere; MPI_Comm_get_parent is MPI_COMM_NULL,
 * every errcode MPI_SUCCESS. Children: the parent intercommunicator, the
 * arguments, the working directory, MPI_APPNUM 0. Both: data both ways
 * (each process to one remote process, checked against the pattern), a
 * broadcast from the parents' root and an inter allreduce,
 * Intercomm_merge (parents first), a collective on the merged
 * communicator, its SHARED split (my own job's processes on my node
 * only), disconnect. Then the
 * parents' error classes: a missing program (MPI_ERR_SPAWN, every errcode
 * MPI_ERR_SPAWN, intercomm MPI_COMM_NULL), a bad root (MPI_ERR_ROOT),
 * maxprocs 0 at the root (MPI_ERR_ARG).
 * For test/mpi/spawn_fail.sh: "spawn abort" has the children call
 * MPI_Abort once connected while the parents wait for them (the whole job
 * must end); "spawn singleton", run without mpirun, expects MPI_ERR_SPAWN.
 */
#include <limits.h>
#include <unistd.h>
#include "mtest.h"

static void talk(MPI_Comm ic, int side)
{
    int me, lsize, rsize;
    MPI_OK(MPI_Comm_rank(ic, &me));
    MPI_OK(MPI_Comm_size(ic, &lsize));
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    size_t n = 70000;
    unsigned char *s = mt_malloc(n), *r = mt_malloc(n);
    mt_fill(s, n, (unsigned)(side * 100 + me));
    MPI_Request q;
    MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, me % rsize, 9, ic, &q));
    for (int j = me; j < rsize; j += lsize) {
        MPI_OK(MPI_Recv(r, (int)n, MPI_BYTE, j, 9, ic, MPI_STATUS_IGNORE));
        long bad = mt_verify(r, n, (unsigned)((1 - side) * 100 + j));
        CHECK(bad < 0, "side %d: from remote %d byte %ld wrong", side, j, bad);
    }
    MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    free(s);
    free(r);
    /* the parents' last rank broadcasts to the children */
    int v = side == 0 && me == lsize - 1 ? 777 : -1;
    int root = side == 0 ? (me == lsize - 1 ? MPI_ROOT : MPI_PROC_NULL) : rsize - 1;
    MPI_OK(MPI_Bcast(&v, 1, MPI_INT, root, ic));
    if (side == 1)
        CHECK(v == 777, "bcast from the parents: %d", v);
    int one = 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == rsize, "inter allreduce %d, expected %d", sum, rsize);
    MPI_Comm m;
    MPI_OK(MPI_Intercomm_merge(ic, side, &m));
    int mr, ms;
    MPI_OK(MPI_Comm_rank(m, &mr));
    MPI_OK(MPI_Comm_size(m, &ms));
    CHECK(ms == lsize + rsize && mr == (side ? rsize + me : me), "merged %d of %d", mr, ms);
    int total = 0;
    MPI_OK(MPI_Allreduce(&mr, &total, 1, MPI_INT, MPI_SUM, m));
    /* SHARED split of parents and children: only my own job shares memory
     * with me, all of it that is on my node */
    MPI_Comm sh, wsh;
    int shsize, wshsize;
    MPI_OK(MPI_Comm_split_type(m, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &sh));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &wsh));
    MPI_OK(MPI_Comm_size(sh, &shsize));
    MPI_OK(MPI_Comm_size(wsh, &wshsize));
    CHECK(shsize == wshsize, "SHARED split of the merged comm: %d, of my world: %d", shsize,
          wshsize);
    MPI_OK(MPI_Comm_free(&sh));
    MPI_OK(MPI_Comm_free(&wsh));
    CHECK(total == ms * (ms - 1) / 2, "merged allreduce %d", total);
    MPI_OK(MPI_Comm_free(&m));
    MPI_OK(MPI_Comm_disconnect(&ic));
    CHECK(ic == MPI_COMM_NULL, "disconnect left the handle");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "spawn");
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL && argc == 2 && !strcmp(argv[1], "abort")) {
        mt_sleep_ms(200);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (parent != MPI_COMM_NULL) {
        mt_name = "spawn (child)";
        CHECK(argc == 3 && !strcmp(argv[1], "child") && !strcmp(argv[2], "a b"),
              "child arguments: %d", argc);
        char cwd[PATH_MAX];
        CHECK(getcwd(cwd, sizeof cwd) && !strcmp(cwd, "/tmp"), "wdir: %s", cwd);
        int flag, *appnum;
        MPI_OK(MPI_Comm_test_inter(parent, &flag));
        CHECK(flag, "the parent communicator is not an intercommunicator");
        /* MPI-3.1 10.5.3: 0 for the children of MPI_Comm_spawn */
        MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
        CHECK(flag && *appnum == 0, "child MPI_APPNUM: flag %d value %d", flag,
              flag ? *appnum : -1);
        talk(parent, 1);
        MPI_OK(MPI_Comm_get_parent(&parent));
        CHECK(parent == MPI_COMM_NULL, "get_parent after disconnect");
        return mt_finish();
    }
    char self[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(l > 0, "readlink /proc/self/exe");
    self[l] = 0;
    int nc = mt_size == 2 ? 1 : mt_size + 1, root = mt_size - 1;
    /* MPI_UNIVERSE_SIZE: mpirun's cores or slots, never below the world,
     * the same at every rank */
    int *usize, uflag, umin = 0, umax = 0;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &uflag));
    CHECK(uflag && *usize >= mt_size, "MPI_UNIVERSE_SIZE %d with %d ranks", uflag ? *usize : -1,
          mt_size);
    MPI_OK(MPI_Allreduce(usize, &umin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(usize, &umax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(umin == umax, "MPI_UNIVERSE_SIZE differs between ranks: %d..%d", umin, umax);
    if (argc == 2 && !strcmp(argv[1], "abort")) {
        char *aargv[] = { "abort", NULL };
        MPI_Comm ic;
        MPI_OK(MPI_Comm_spawn(self, aargv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                              MPI_ERRCODES_IGNORE));
        int x;
        MPI_Recv(&x, 1, MPI_INT, 0, 0, ic, MPI_STATUS_IGNORE);   /* never comes */
        MT_FAIL("the children's abort did not end the job");
    }
    if (argc == 2 && !strcmp(argv[1], "singleton")) {
        MPI_Comm ic;
        int code = -1;
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        MPI_FAILS(MPI_ERR_SPAWN, MPI_Comm_spawn(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                                                MPI_COMM_WORLD, &ic, &code));
        CHECK(code == MPI_ERR_SPAWN && ic == MPI_COMM_NULL, "singleton spawn: code %d", code);
        return mt_finish();
    }
    char *cargv[] = { "child", "a b", NULL };
    int codes[8];
    for (int i = 0; i < 8; i++)
        codes[i] = -1;
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "wdir", "/tmp"));
    MPI_OK(MPI_Info_set(info, "soft", "1:4"));   /* ignored, as allowed */
    MPI_Comm ic;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Comm_spawn(self, cargv, nc, info, root, MPI_COMM_WORLD, &ic, codes);
    MPI_OK(rc);
    for (int i = 0; i < nc; i++)
        CHECK(codes[i] == MPI_SUCCESS, "errcode %d: %d", i, codes[i]);
    int rsize;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    CHECK(rsize == nc, "%d children, expected %d", rsize, nc);
    talk(ic, 0);

    /* error classes */
    for (int i = 0; i < 8; i++)
        codes[i] = -1;
    MPI_FAILS(MPI_ERR_SPAWN, MPI_Comm_spawn("/nonexistent/clumpi-no-such-program", MPI_ARGV_NULL,
                                            2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes));
    CHECK(ic == MPI_COMM_NULL && codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN,
          "failed spawn: intercomm 0x%x, codes %d %d", (unsigned)ic, codes[0], codes[1]);
    MPI_FAILS(MPI_ERR_ROOT, MPI_Comm_spawn(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, mt_size,
                                           MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE));
    MPI_FAILS(MPI_ERR_ARG, MPI_Comm_spawn(self, MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0,
                                          MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE));
    MPI_OK(MPI_Info_free(&info));
    return mt_finish();
}
