/* np: 1 2
 *
 * Argument checks with MPI_ERRORS_RETURN: an invalid rank gives
 * MPI_ERR_RANK, tag MPI_ERR_TAG, count MPI_ERR_COUNT, datatype MPI_ERR_TYPE,
 * communicator MPI_ERR_COMM (sends, receives, probes), group MPI_ERR_GROUP,
 * request MPI_ERR_REQUEST, null buffer MPI_ERR_BUFFER; Error_class and Error_string agree; a user error
 * handler is called with the code; communication works afterwards. Under
 * clumpi the error string also names the function.
 */
#include "mtest.h"

static int handler_calls, handler_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

/* The error string of rc must be non-empty; under clumpi it must name fn. */
static void check_string(int rc, const char *fn)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    MPI_OK(MPI_Error_string(rc, s, &len));
    CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(s) == len,
          "Error_string(%d): length %d", rc, len);
#ifdef CLUMPI
    CHECK(strstr(s, fn) != NULL, "Error_string '%s' does not name %s", s, fn);
#else
    (void)fn;
#endif
}

#define EXPECT(cls, fn, call)                                                 \
    do {                                                                      \
        int rc_ = (call);                                                     \
        CHECK(rc_ != MPI_SUCCESS, "%s succeeded, expected %s", #call, #cls);  \
        CHECK(mt_class(rc_) == (cls), "%s: class %d, expected %s (%d)", #call, \
              mt_class(rc_), #cls, (int)(cls));                               \
        check_string(rc_, fn);                                                \
    } while (0)

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "errors");
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler is not MPI_ERRORS_ARE_FATAL");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "Comm_get_errhandler after set");

    int buf[16] = {0};
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag;
    MPI_Comm W = MPI_COMM_WORLD;

    /* ranks */
    EXPECT(MPI_ERR_RANK, "MPI_Send", MPI_Send(buf, 1, MPI_INT, mt_size, 0, W));
    EXPECT(MPI_ERR_RANK, "MPI_Send", MPI_Send(buf, 1, MPI_INT, -5, 0, W));
    EXPECT(MPI_ERR_RANK, "MPI_Send", MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, W));
    EXPECT(MPI_ERR_RANK, "MPI_Isend", MPI_Isend(buf, 1, MPI_INT, mt_size + 3, 0, W, &rq));
    EXPECT(MPI_ERR_RANK, "MPI_Recv", MPI_Recv(buf, 1, MPI_INT, mt_size, 0, W, &st));
    EXPECT(MPI_ERR_RANK, "MPI_Irecv", MPI_Irecv(buf, 1, MPI_INT, -7, 0, W, &rq));
    EXPECT(MPI_ERR_RANK, "MPI_Ssend", MPI_Ssend(buf, 1, MPI_INT, mt_size, 0, W));
    EXPECT(MPI_ERR_RANK, "MPI_Probe", MPI_Probe(mt_size, 0, W, &st));
    EXPECT(MPI_ERR_RANK, "MPI_Iprobe", MPI_Iprobe(mt_size, 0, W, &flag, &st));
    EXPECT(MPI_ERR_RANK, "MPI_Send", MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_SELF));

    /* tags */
    EXPECT(MPI_ERR_TAG, "MPI_Send", MPI_Send(buf, 1, MPI_INT, 0, -1, W));
    EXPECT(MPI_ERR_TAG, "MPI_Send", MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, W));
    EXPECT(MPI_ERR_TAG, "MPI_Isend", MPI_Isend(buf, 1, MPI_INT, 0, -100, W, &rq));
    EXPECT(MPI_ERR_TAG, "MPI_Recv", MPI_Recv(buf, 1, MPI_INT, 0, -3, W, &st));
    {
        int *ub;
        MPI_OK(MPI_Comm_get_attr(W, MPI_TAG_UB, &ub, &flag));
        CHECK(flag, "no MPI_TAG_UB");
        if (*ub < 0x7fffffff)
            EXPECT(MPI_ERR_TAG, "MPI_Send", MPI_Send(buf, 1, MPI_INT, 0, *ub + 1, W));
    }

    /* counts */
    EXPECT(MPI_ERR_COUNT, "MPI_Send", MPI_Send(buf, -1, MPI_INT, 0, 0, W));
    EXPECT(MPI_ERR_COUNT, "MPI_Recv", MPI_Recv(buf, -2, MPI_INT, 0, 0, W, &st));
    EXPECT(MPI_ERR_COUNT, "MPI_Irecv", MPI_Irecv(buf, -1, MPI_INT, 0, 0, W, &rq));

    /* datatypes */
    EXPECT(MPI_ERR_TYPE, "MPI_Send", MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, W));
    EXPECT(MPI_ERR_TYPE, "MPI_Recv", MPI_Recv(buf, 1, MPI_DATATYPE_NULL, 0, 0, W, &st));
    {
        MPI_Datatype unc;
        MPI_OK(MPI_Type_contiguous(2, MPI_INT, &unc));
        EXPECT(MPI_ERR_TYPE, "MPI_Send", MPI_Send(buf, 1, unc, 0, 0, W)); /* not committed */
        MPI_OK(MPI_Type_free(&unc));
        int sz;
        EXPECT(MPI_ERR_TYPE, "MPI_Type_size", MPI_Type_size(MPI_DATATYPE_NULL, &sz));
    }

    /* communicators */
    int r;
    EXPECT(MPI_ERR_COMM, "MPI_Send", MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL));
    EXPECT(MPI_ERR_COMM, "MPI_Recv", MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st));
    EXPECT(MPI_ERR_COMM, "MPI_Comm_rank", MPI_Comm_rank(MPI_COMM_NULL, &r));
    EXPECT(MPI_ERR_COMM, "MPI_Comm_size", MPI_Comm_size(MPI_COMM_NULL, &r));

    /* other classes */
    EXPECT(MPI_ERR_GROUP, "MPI_Group_size", MPI_Group_size(MPI_GROUP_NULL, &r));
    EXPECT(MPI_ERR_REQUEST, "MPI_Start", MPI_Start(&rq)); /* rq is MPI_REQUEST_NULL */
    EXPECT(MPI_ERR_BUFFER, "MPI_Send", MPI_Send(NULL, 4, MPI_INT, 0, 0, W));
    {
        MPI_Datatype t;
        int rc = MPI_Type_vector(-1, 1, 1, MPI_INT, &t);
        CHECK(mt_class(rc) == MPI_ERR_COUNT || mt_class(rc) == MPI_ERR_ARG,
              "Type_vector(count -1): class %d, expected MPI_ERR_COUNT or MPI_ERR_ARG", mt_class(rc));
        check_string(rc, "MPI_Type_vector");
    }

    /* Error_class / Error_string on classes */
    for (int c = MPI_SUCCESS; c <= MPI_ERR_TRUNCATE; c++) {
        int cls;
        MPI_OK(MPI_Error_class(c, &cls));
        CHECK(cls == c, "Error_class(%d) = %d", c, cls);
        char s[MPI_MAX_ERROR_STRING];
        int len;
        MPI_OK(MPI_Error_string(c, s, &len));
        CHECK(len > 0, "Error_string(%d) empty", c);
    }

    /* a user handler sees the code; the call still returns it */
    {
        MPI_Errhandler mine;
        MPI_Comm d;
        MPI_OK(MPI_Comm_dup(W, &d));
        MPI_OK(MPI_Comm_create_errhandler(handler, &mine));
        MPI_OK(MPI_Comm_set_errhandler(d, mine));
        int rc = MPI_Send(buf, 1, MPI_INT, mt_size, 0, d);
        CHECK(handler_calls == 1, "user handler called %d times", handler_calls);
        CHECK(mt_class(handler_code) == MPI_ERR_RANK, "user handler got class %d", mt_class(handler_code));
        CHECK(mt_class(rc) == MPI_ERR_RANK, "with a user handler: class %d", mt_class(rc));
        MPI_OK(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER));
        CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "Comm_call_errhandler");
        MPI_OK(MPI_Errhandler_free(&mine));
        MPI_OK(MPI_Comm_free(&d)); /* the handler stays alive until here */
    }

    /* user-defined error classes and codes */
    {
        int cls, code, got;
        MPI_OK(MPI_Add_error_class(&cls));
        MPI_OK(MPI_Add_error_code(cls, &code));
        MPI_OK(MPI_Add_error_string(code, "clumpi test error"));
        MPI_OK(MPI_Error_class(code, &got));
        CHECK(got == cls, "added code's class %d, expected %d", got, cls);
        char s[MPI_MAX_ERROR_STRING];
        int len;
        MPI_OK(MPI_Error_string(code, s, &len));
        CHECK(strcmp(s, "clumpi test error") == 0, "added string '%s'", s);
    }

    /* nothing broke: a real exchange */
    int right = (mt_rank + 1) % mt_size, left = (mt_rank - 1 + mt_size) % mt_size;
    int out = mt_rank, in = -1;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, W, &st));
    CHECK(in == left, "after errors: got %d", in);
    return mt_finish();
}
