/* np: 1 2 3 5
 *
 * Handle and status conversions (MPI-3.1 17.2.4, 17.2.5): c2f/f2c round
 * trips of predefined and created handles of every kind, f2c of garbage,
 * of freed handles and of other kinds' handles (the null handle), statuses
 * of real receives through MPI_Status_c2f/f2c, the ignore values as
 * errors, and MPI_Status_set_elements_x against Get_elements_x/Get_count.
 */
#include "mtest.h"

/* Values no live handle of any kind has. */
static const MPI_Fint garbage[] = { 0, -1, 1, 12345, 0x7fffffff, (MPI_Fint)0x80000000,
                                    0x4cffffff, 0x44ffffff };

#define ROUND_TRIP(Kind, h)                                                   \
    do {                                                                      \
        MPI_Fint f_ = MPI_##Kind##_c2f(h);                                    \
        CHECK(MPI_##Kind##_f2c(f_) == (h), #Kind " round trip of 0x%x gave 0x%x", \
              (unsigned)(h), (unsigned)MPI_##Kind##_f2c(f_));                 \
        CHECK(PMPI_##Kind##_f2c(PMPI_##Kind##_c2f(h)) == (h), "P" #Kind " round trip"); \
    } while (0)

#define GARBAGE(Kind, null)                                                   \
    do {                                                                      \
        for (size_t i_ = 0; i_ < sizeof(garbage) / sizeof(garbage[0]); i_++)  \
            CHECK(MPI_##Kind##_f2c(garbage[i_]) == (null),                    \
                  #Kind "_f2c(0x%x) is not the null handle",                  \
                  (unsigned)garbage[i_]);                                     \
        CHECK(MPI_##Kind##_f2c(MPI_##Kind##_c2f(null)) == (null), #Kind " null"); \
    } while (0)

static void user_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)t;
}

static void user_errh(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

static void handles(void)
{
    /* predefined */
    ROUND_TRIP(Comm, MPI_COMM_WORLD);
    ROUND_TRIP(Comm, MPI_COMM_SELF);
    ROUND_TRIP(Group, MPI_GROUP_EMPTY);
    ROUND_TRIP(Type, MPI_INT);
    ROUND_TRIP(Type, MPI_LONG_DOUBLE_INT);
    ROUND_TRIP(Op, MPI_SUM);
    ROUND_TRIP(Op, MPI_NO_OP);
    ROUND_TRIP(Errhandler, MPI_ERRORS_RETURN);
    ROUND_TRIP(Errhandler, MPI_ERRORS_ARE_FATAL);
    ROUND_TRIP(Info, MPI_INFO_ENV);
    ROUND_TRIP(Message, MPI_MESSAGE_NO_PROC);

    /* created */
    MPI_Comm dup;
    MPI_Group g;
    MPI_Datatype t;
    MPI_Op op;
    MPI_Errhandler eh;
    MPI_Info info;
    MPI_Win win;
    int winbuf[4];
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_group(dup, &g));
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    MPI_OK(MPI_Op_create(user_op, 1, &op));
    MPI_OK(MPI_Comm_create_errhandler(user_errh, &eh));
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Win_create(winbuf, sizeof winbuf, sizeof(int), MPI_INFO_NULL, dup, &win));
    ROUND_TRIP(Comm, dup);
    ROUND_TRIP(Group, g);
    ROUND_TRIP(Type, t);
    ROUND_TRIP(Op, op);
    ROUND_TRIP(Errhandler, eh);
    ROUND_TRIP(Info, info);
    ROUND_TRIP(Win, win);
    /* A Fortran handle is a plain integer: it survives a trip through memory. */
    MPI_Fint saved[3] = { MPI_Comm_c2f(dup), MPI_Type_c2f(t), MPI_Win_c2f(win) };
    int sz;
    MPI_OK(MPI_Comm_size(MPI_Comm_f2c(saved[0]), &sz));
    CHECK(sz == mt_size, "size through a converted communicator: %d", sz);
    MPI_OK(MPI_Type_size(MPI_Type_f2c(saved[1]), &sz));
    CHECK(sz == 3 * (int)sizeof(int), "size through a converted datatype: %d", sz);

    /* requests and messages from real traffic */
    int me = mt_rank, got = -1;
    MPI_Request rq;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, me, 7, dup, &rq));
    ROUND_TRIP(Request, rq);
    MPI_Request back = MPI_Request_f2c(MPI_Request_c2f(rq));
    MPI_OK(MPI_Send(&me, 1, MPI_INT, me, 7, dup));
    MPI_OK(MPI_Wait(&back, MPI_STATUS_IGNORE));
    CHECK(got == me && back == MPI_REQUEST_NULL, "request through conversion: got %d", got);
    MPI_Message msg;
    MPI_OK(MPI_Send(&me, 1, MPI_INT, me, 8, dup));
    MPI_OK(MPI_Mprobe(me, 8, dup, &msg, MPI_STATUS_IGNORE));
    ROUND_TRIP(Message, msg);
    MPI_Message mback = MPI_Message_f2c(MPI_Message_c2f(msg));
    got = -1;
    MPI_OK(MPI_Mrecv(&got, 1, MPI_INT, &mback, MPI_STATUS_IGNORE));
    CHECK(got == me, "message through conversion: got %d", got);

    /* garbage and other kinds' handles give the null handle */
    GARBAGE(Comm, MPI_COMM_NULL);
    GARBAGE(Errhandler, MPI_ERRHANDLER_NULL);
    GARBAGE(Group, MPI_GROUP_NULL);
    GARBAGE(Info, MPI_INFO_NULL);
    GARBAGE(Message, MPI_MESSAGE_NULL);
    GARBAGE(Op, MPI_OP_NULL);
    GARBAGE(Request, MPI_REQUEST_NULL);
    GARBAGE(Type, MPI_DATATYPE_NULL);
    GARBAGE(Win, MPI_WIN_NULL);
    CHECK(MPI_Type_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_DATATYPE_NULL, "comm as type");
    CHECK(MPI_Comm_f2c(MPI_Type_c2f(MPI_INT)) == MPI_COMM_NULL, "type as comm");
    CHECK(MPI_Op_f2c(MPI_Win_c2f(win)) == MPI_OP_NULL, "win as op");

    /* freed handles are invalid */
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Op_free(&op));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Comm_free(&dup));
    CHECK(MPI_Comm_f2c(saved[0]) == MPI_COMM_NULL, "freed comm converts");
    CHECK(MPI_Type_f2c(saved[1]) == MPI_DATATYPE_NULL, "freed type converts");
    CHECK(MPI_Win_f2c(saved[2]) == MPI_WIN_NULL, "freed win converts");
}

static void statuses(void)
{
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    double out[5] = { 1, 2, 3, 4, 5 }, in[8];
    MPI_Status st, st2;
    MPI_OK(MPI_Sendrecv(out, 3 + mt_rank % 3, MPI_DOUBLE, next, 40 + mt_rank, in, 8,
                        MPI_DOUBLE, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_OK(MPI_Status_c2f(&st, f));
    CHECK(f[MPI_F_SOURCE] == prev && f[MPI_F_TAG] == 40 + prev &&
          f[MPI_F_ERROR] == st.MPI_ERROR, "Fortran status: source %d tag %d", f[MPI_F_SOURCE],
          f[MPI_F_TAG]);
    memset(&st2, 0xa5, sizeof st2);
    MPI_OK(MPI_Status_f2c(f, &st2));
    int n = -1;
    MPI_OK(MPI_Get_count(&st2, MPI_DOUBLE, &n));
    CHECK(n == 3 + prev % 3 && st2.MPI_SOURCE == prev && st2.MPI_TAG == 40 + prev,
          "status back from Fortran: count %d source %d", n, st2.MPI_SOURCE);
    int cancelled = 1;
    MPI_OK(MPI_Test_cancelled(&st2, &cancelled));
    CHECK(!cancelled, "converted status says cancelled");
    MPI_OK(MPI_Status_set_cancelled(&st2, 1));
    MPI_OK(MPI_Status_c2f(&st2, f));
    MPI_OK(MPI_Status_f2c(f, &st));
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "cancelled flag lost in conversion");

    MPI_FAILS(MPI_ERR_ARG, MPI_Status_c2f(MPI_STATUS_IGNORE, f));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_c2f(MPI_STATUSES_IGNORE, f));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_c2f(&st, NULL));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_c2f(&st, MPI_F_STATUS_IGNORE));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &st));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f2c(NULL, &st));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f2c(f, MPI_STATUS_IGNORE));
    CHECK(MPI_F_STATUS_IGNORE && MPI_F_STATUSES_IGNORE &&
          MPI_F_STATUS_IGNORE != MPI_F_STATUSES_IGNORE, "the ignore values are not distinct");

    /* the mpi_f08 form: through it and back, every word kept */
    MPI_F08_status f08;
    MPI_Fint f2[MPI_F_STATUS_SIZE];
    memset(&f08, 0xa5, sizeof f08);
    MPI_OK(MPI_Status_c2f08(&st2, &f08));
    CHECK(f08.MPI_SOURCE == prev && f08.MPI_TAG == 40 + prev && f08.MPI_ERROR == st2.MPI_ERROR,
          "mpi_f08 status: source %d tag %d", f08.MPI_SOURCE, f08.MPI_TAG);
    MPI_OK(MPI_Status_f082f(&f08, f2));
    memset(&f08, 0, sizeof f08);
    MPI_OK(MPI_Status_f2f08(f2, &f08));
    memset(&st, 0xa5, sizeof st);
    MPI_OK(MPI_Status_f082c(&f08, &st));
    n = -1;
    cancelled = 0;
    MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(n == 3 + prev % 3 && cancelled && st.MPI_SOURCE == prev && st.MPI_TAG == 40 + prev,
          "status back from mpi_f08: count %d cancelled %d source %d", n, cancelled,
          st.MPI_SOURCE);
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_c2f08(MPI_STATUS_IGNORE, &f08));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_c2f08(&st, MPI_F08_STATUS_IGNORE));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_c2f08(&st, NULL));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f082c(MPI_F08_STATUSES_IGNORE, &st));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f082c(&f08, MPI_STATUS_IGNORE));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f082f(NULL, f2));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f082f(&f08, MPI_F_STATUS_IGNORE));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f2f08(MPI_F_STATUSES_IGNORE, &f08));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_f2f08(f2, MPI_F08_STATUS_IGNORE));
    CHECK(MPI_F08_STATUS_IGNORE && MPI_F08_STATUSES_IGNORE &&
          MPI_F08_STATUS_IGNORE != MPI_F08_STATUSES_IGNORE, "the f08 ignore values are not distinct");

    /* Status_set_elements_x: a struct of 2 ints and a double, 7 elements is
     * two whole structs and one int. */
    struct s { int a[2]; double d; };
    int bl[2] = { 2, 1 };
    MPI_Aint disp[2] = { offsetof(struct s, a), offsetof(struct s, d) };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE }, t;
    MPI_OK(MPI_Type_create_struct(2, bl, disp, types, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_Count want[] = { 0, 1, 3, 6, 7, 3000000000LL };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        MPI_Count e = -1, ee = -1;
        MPI_OK(MPI_Status_set_elements_x(&st, t, want[i]));
        MPI_OK(MPI_Get_elements_x(&st, t, &e));
        CHECK(e == want[i], "set_elements_x(%lld) reads back %lld", want[i], e);
        int c = -2;
        MPI_OK(MPI_Get_count(&st, t, &c));
        int whole = want[i] % 3 == 0 && want[i] / 3 <= 0x7fffffff;
        CHECK(whole ? c == (int)(want[i] / 3) : c == MPI_UNDEFINED,
              "Get_count after set_elements_x(%lld): %d", want[i], c);
        MPI_OK(MPI_Status_set_elements_x(&st, MPI_INT, want[i]));
        MPI_OK(MPI_Get_elements_x(&st, MPI_INT, &ee));
        CHECK(ee == want[i], "set_elements_x(MPI_INT, %lld) reads back %lld", want[i], ee);
    }
    MPI_FAILS(MPI_ERR_COUNT, MPI_Status_set_elements_x(&st, t, -1));
    MPI_FAILS(MPI_ERR_TYPE, MPI_Status_set_elements_x(&st, MPI_DATATYPE_NULL, 1));
    MPI_FAILS(MPI_ERR_ARG, MPI_Status_set_elements_x(MPI_STATUS_IGNORE, t, 1));
    MPI_OK(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "handle_conv");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    handles();
    statuses();
    return mt_finish();
}
