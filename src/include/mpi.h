/*
 * mpi.h — the public interface of clumpi, an MPI library for clusters of
 * multiprocessors. MPI-3.1, C bindings.
 *
 * Handles are integers (as in MPICH): the high byte names the kind of object,
 * the rest indexes that kind's table, so a wrong or stale handle is caught by a
 * bounds check rather than a wild pointer. Index 0 of every kind is its null
 * handle. Every MPI_ function also exists as PMPI_ for profiling tools.
 */
#ifndef CLUMPI_MPI_H
#define CLUMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here is the library's interface: it stays visible
 * to programs though the library is built with -fvisibility=hidden. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define MPI_VERSION    3
#define MPI_SUBVERSION 1
#define CLUMPI         1
#define CLUMPI_VERSION "0.1.0"

/* ---- basic types ------------------------------------------------------ */
typedef intptr_t  MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int       MPI_Fint;

typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Message;
typedef int MPI_Win;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    /* implementation part: bytes received and the cancelled flag */
    int       clumpi_cancelled;
    MPI_Count clumpi_count;
} MPI_Status;

/* ---- handle kinds (high byte of a handle) ----------------------------- */
#define CLUMPI_KIND_COMM       0x44
#define CLUMPI_KIND_GROUP      0x48
#define CLUMPI_KIND_DATATYPE   0x4c
#define CLUMPI_KIND_OP         0x58
#define CLUMPI_KIND_REQUEST    0x2c
#define CLUMPI_KIND_ERRHANDLER 0x54
#define CLUMPI_KIND_INFO       0x1c
#define CLUMPI_KIND_MESSAGE    0x2d
#define CLUMPI_KIND_WIN        0x20
#define CLUMPI_HANDLE(kind, idx) ((int)(((unsigned)(kind) << 24) | (unsigned)(idx)))

/* ---- null and predefined handles -------------------------------------- */
#define MPI_COMM_NULL       CLUMPI_HANDLE(CLUMPI_KIND_COMM, 0)
#define MPI_COMM_WORLD      CLUMPI_HANDLE(CLUMPI_KIND_COMM, 1)
#define MPI_COMM_SELF       CLUMPI_HANDLE(CLUMPI_KIND_COMM, 2)

#define MPI_GROUP_NULL      CLUMPI_HANDLE(CLUMPI_KIND_GROUP, 0)
#define MPI_GROUP_EMPTY     CLUMPI_HANDLE(CLUMPI_KIND_GROUP, 1)

#define MPI_REQUEST_NULL    CLUMPI_HANDLE(CLUMPI_KIND_REQUEST, 0)
#define MPI_MESSAGE_NULL    CLUMPI_HANDLE(CLUMPI_KIND_MESSAGE, 0)
#define MPI_MESSAGE_NO_PROC CLUMPI_HANDLE(CLUMPI_KIND_MESSAGE, 1)
#define MPI_INFO_NULL       CLUMPI_HANDLE(CLUMPI_KIND_INFO, 0)
#define MPI_INFO_ENV        CLUMPI_HANDLE(CLUMPI_KIND_INFO, 1)
#define MPI_WIN_NULL        CLUMPI_HANDLE(CLUMPI_KIND_WIN, 0)

#define MPI_ERRHANDLER_NULL CLUMPI_HANDLE(CLUMPI_KIND_ERRHANDLER, 0)
#define MPI_ERRORS_ARE_FATAL CLUMPI_HANDLE(CLUMPI_KIND_ERRHANDLER, 1)
#define MPI_ERRORS_RETURN   CLUMPI_HANDLE(CLUMPI_KIND_ERRHANDLER, 2)

#define MPI_OP_NULL  CLUMPI_HANDLE(CLUMPI_KIND_OP, 0)
#define MPI_MAX      CLUMPI_HANDLE(CLUMPI_KIND_OP, 1)
#define MPI_MIN      CLUMPI_HANDLE(CLUMPI_KIND_OP, 2)
#define MPI_SUM      CLUMPI_HANDLE(CLUMPI_KIND_OP, 3)
#define MPI_PROD     CLUMPI_HANDLE(CLUMPI_KIND_OP, 4)
#define MPI_LAND     CLUMPI_HANDLE(CLUMPI_KIND_OP, 5)
#define MPI_BAND     CLUMPI_HANDLE(CLUMPI_KIND_OP, 6)
#define MPI_LOR      CLUMPI_HANDLE(CLUMPI_KIND_OP, 7)
#define MPI_BOR      CLUMPI_HANDLE(CLUMPI_KIND_OP, 8)
#define MPI_LXOR     CLUMPI_HANDLE(CLUMPI_KIND_OP, 9)
#define MPI_BXOR     CLUMPI_HANDLE(CLUMPI_KIND_OP, 10)
#define MPI_MINLOC   CLUMPI_HANDLE(CLUMPI_KIND_OP, 11)
#define MPI_MAXLOC   CLUMPI_HANDLE(CLUMPI_KIND_OP, 12)
#define MPI_REPLACE  CLUMPI_HANDLE(CLUMPI_KIND_OP, 13)
#define MPI_NO_OP    CLUMPI_HANDLE(CLUMPI_KIND_OP, 14)
#define CLUMPI_OP_BUILTIN_COUNT 15

/* Predefined datatypes. The index order is the table order in
 * src/util/dtype_builtin.c: keep the two in step. */
#define CLUMPI_DT(i) CLUMPI_HANDLE(CLUMPI_KIND_DATATYPE, i)
#define MPI_DATATYPE_NULL          CLUMPI_DT(0)
#define MPI_CHAR                   CLUMPI_DT(1)
#define MPI_SIGNED_CHAR            CLUMPI_DT(2)
#define MPI_UNSIGNED_CHAR          CLUMPI_DT(3)
#define MPI_BYTE                   CLUMPI_DT(4)
#define MPI_SHORT                  CLUMPI_DT(5)
#define MPI_UNSIGNED_SHORT         CLUMPI_DT(6)
#define MPI_INT                    CLUMPI_DT(7)
#define MPI_UNSIGNED               CLUMPI_DT(8)
#define MPI_LONG                   CLUMPI_DT(9)
#define MPI_UNSIGNED_LONG          CLUMPI_DT(10)
#define MPI_LONG_LONG_INT          CLUMPI_DT(11)
#define MPI_LONG_LONG              MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG     CLUMPI_DT(12)
#define MPI_FLOAT                  CLUMPI_DT(13)
#define MPI_DOUBLE                 CLUMPI_DT(14)
#define MPI_LONG_DOUBLE            CLUMPI_DT(15)
#define MPI_WCHAR                  CLUMPI_DT(16)
#define MPI_C_BOOL                 CLUMPI_DT(17)
#define MPI_INT8_T                 CLUMPI_DT(18)
#define MPI_INT16_T                CLUMPI_DT(19)
#define MPI_INT32_T                CLUMPI_DT(20)
#define MPI_INT64_T                CLUMPI_DT(21)
#define MPI_UINT8_T                CLUMPI_DT(22)
#define MPI_UINT16_T               CLUMPI_DT(23)
#define MPI_UINT32_T               CLUMPI_DT(24)
#define MPI_UINT64_T               CLUMPI_DT(25)
#define MPI_AINT                   CLUMPI_DT(26)
#define MPI_COUNT                  CLUMPI_DT(27)
#define MPI_OFFSET                 CLUMPI_DT(28)
#define MPI_C_FLOAT_COMPLEX        CLUMPI_DT(29)
#define MPI_C_COMPLEX              MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX       CLUMPI_DT(30)
#define MPI_C_LONG_DOUBLE_COMPLEX  CLUMPI_DT(31)
#define MPI_PACKED                 CLUMPI_DT(32)
#define MPI_FLOAT_INT              CLUMPI_DT(33)
#define MPI_DOUBLE_INT             CLUMPI_DT(34)
#define MPI_LONG_INT               CLUMPI_DT(35)
#define MPI_2INT                   CLUMPI_DT(36)
#define MPI_SHORT_INT              CLUMPI_DT(37)
#define MPI_LONG_DOUBLE_INT        CLUMPI_DT(38)
/* Fortran's, usable from C too (MPI-3.1 17.2.5): INTEGER and LOGICAL are
 * int, REAL float, DOUBLE PRECISION double, as gfortran's default kinds. */
#define MPI_CHARACTER               CLUMPI_DT(39)
#define MPI_LOGICAL                 CLUMPI_DT(40)
#define MPI_INTEGER                 CLUMPI_DT(41)
#define MPI_REAL                    CLUMPI_DT(42)
#define MPI_DOUBLE_PRECISION        CLUMPI_DT(43)
#define MPI_COMPLEX                 CLUMPI_DT(44)
#define MPI_DOUBLE_COMPLEX          CLUMPI_DT(45)
#define MPI_2INTEGER                CLUMPI_DT(46)
#define MPI_2REAL                   CLUMPI_DT(47)
#define MPI_2DOUBLE_PRECISION       CLUMPI_DT(48)
#define MPI_INTEGER1                CLUMPI_DT(49)
#define MPI_INTEGER2                CLUMPI_DT(50)
#define MPI_INTEGER4                CLUMPI_DT(51)
#define MPI_INTEGER8                CLUMPI_DT(52)
#define MPI_REAL4                   CLUMPI_DT(53)
#define MPI_REAL8                   CLUMPI_DT(54)
#define MPI_COMPLEX8                CLUMPI_DT(55)
#define MPI_COMPLEX16               CLUMPI_DT(56)
/* The optional kinds this library does not have are null (MPI-3.1 3.2.2). */
#define MPI_INTEGER16              MPI_DATATYPE_NULL
#define MPI_REAL2                  MPI_DATATYPE_NULL
#define MPI_REAL16                 MPI_DATATYPE_NULL
#define MPI_COMPLEX4               MPI_DATATYPE_NULL
#define MPI_COMPLEX32              MPI_DATATYPE_NULL
#define CLUMPI_DT_BUILTIN_COUNT    57

/* ---- error classes ----------------------------------------------------- */
#define MPI_SUCCESS          0
#define MPI_ERR_BUFFER       1
#define MPI_ERR_COUNT        2
#define MPI_ERR_TYPE         3
#define MPI_ERR_TAG          4
#define MPI_ERR_COMM         5
#define MPI_ERR_RANK         6
#define MPI_ERR_REQUEST      7
#define MPI_ERR_ROOT         8
#define MPI_ERR_GROUP        9
#define MPI_ERR_OP           10
#define MPI_ERR_TOPOLOGY     11
#define MPI_ERR_DIMS         12
#define MPI_ERR_ARG          13
#define MPI_ERR_UNKNOWN      14
#define MPI_ERR_TRUNCATE     15
#define MPI_ERR_OTHER        16
#define MPI_ERR_INTERN       17
#define MPI_ERR_IN_STATUS    18
#define MPI_ERR_PENDING      19
#define MPI_ERR_KEYVAL       20
#define MPI_ERR_NO_MEM       21
#define MPI_ERR_BASE         22
#define MPI_ERR_INFO_KEY     23
#define MPI_ERR_INFO_VALUE   24
#define MPI_ERR_INFO_NOKEY   25
#define MPI_ERR_SPAWN        26
#define MPI_ERR_PORT         27
#define MPI_ERR_SERVICE      28
#define MPI_ERR_NAME         29
#define MPI_ERR_WIN          30
#define MPI_ERR_SIZE         31
#define MPI_ERR_DISP         32
#define MPI_ERR_INFO         33
#define MPI_ERR_LOCKTYPE     34
#define MPI_ERR_ASSERT       35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC     37
#define MPI_ERR_RMA_RANGE    38
#define MPI_ERR_RMA_ATTACH   39
#define MPI_ERR_RMA_SHARED   40
#define MPI_ERR_RMA_FLAVOR   41
#define MPI_ERR_FILE         42
#define MPI_ERR_NOT_SAME     43
#define MPI_ERR_AMODE        44
#define MPI_ERR_UNSUPPORTED_DATAREP  45
#define MPI_ERR_UNSUPPORTED_OPERATION 46
#define MPI_ERR_NO_SUCH_FILE 47
#define MPI_ERR_FILE_EXISTS  48
#define MPI_ERR_BAD_FILE     49
#define MPI_ERR_ACCESS       50
#define MPI_ERR_NO_SPACE     51
#define MPI_ERR_QUOTA        52
#define MPI_ERR_READ_ONLY    53
#define MPI_ERR_FILE_IN_USE  54
#define MPI_ERR_DUP_DATAREP  55
#define MPI_ERR_CONVERSION   56
#define MPI_ERR_IO           57
/* the tool information interface's classes (MPI_T_*, returned directly) */
#define MPI_T_ERR_MEMORY            58
#define MPI_T_ERR_NOT_INITIALIZED   59
#define MPI_T_ERR_CANNOT_INIT       60
#define MPI_T_ERR_INVALID_INDEX     61
#define MPI_T_ERR_INVALID_ITEM      62
#define MPI_T_ERR_INVALID_HANDLE    63
#define MPI_T_ERR_OUT_OF_HANDLES    64
#define MPI_T_ERR_OUT_OF_SESSIONS   65
#define MPI_T_ERR_INVALID_SESSION   66
#define MPI_T_ERR_CVAR_SET_NOT_NOW  67
#define MPI_T_ERR_CVAR_SET_NEVER    68
#define MPI_T_ERR_PVAR_NO_STARTSTOP 69
#define MPI_T_ERR_PVAR_NO_WRITE     70
#define MPI_T_ERR_PVAR_NO_ATOMIC    71
#define MPI_T_ERR_INVALID_NAME      72
#define MPI_T_ERR_INVALID           73
#define MPI_ERR_LASTCODE     0x3fffffff

/* ---- other constants --------------------------------------------------- */
#define MPI_ANY_SOURCE   (-2)
#define MPI_PROC_NULL    (-1)
#define MPI_ROOT         (-3)
#define MPI_ANY_TAG      (-1)
#define MPI_UNDEFINED    (-32766)
#define MPI_KEYVAL_INVALID 0x24000000

#define MPI_MAX_PROCESSOR_NAME  256
#define MPI_MAX_ERROR_STRING    512
#define MPI_MAX_OBJECT_NAME     128
#define MPI_MAX_INFO_KEY        255
#define MPI_MAX_INFO_VAL        1024
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_PORT_NAME       256
#define MPI_BSEND_OVERHEAD      96

#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* results of Comm_compare and Group_compare */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* topology kinds */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3

/* Comm_split_type */
#define MPI_COMM_TYPE_SHARED 1

/* predefined attribute keys */
#define MPI_TAG_UB           0x64400001
#define MPI_HOST             0x64400003
#define MPI_IO               0x64400005
#define MPI_WTIME_IS_GLOBAL  0x64400007
#define MPI_UNIVERSE_SIZE    0x64400009
#define MPI_LASTUSEDCODE     0x6440000b
#define MPI_APPNUM           0x6440000d

/* datatype combiners (Type_get_envelope) */
#define MPI_COMBINER_NAMED          1
#define MPI_COMBINER_DUP            2
#define MPI_COMBINER_CONTIGUOUS     3
#define MPI_COMBINER_VECTOR         4
#define MPI_COMBINER_HVECTOR        5
#define MPI_COMBINER_INDEXED        6
#define MPI_COMBINER_HINDEXED       7
#define MPI_COMBINER_INDEXED_BLOCK  8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT         10
#define MPI_COMBINER_SUBARRAY       11
#define MPI_COMBINER_DARRAY         12
#define MPI_COMBINER_RESIZED        13
#define MPI_COMBINER_F90_REAL       14
#define MPI_COMBINER_F90_COMPLEX    15
#define MPI_COMBINER_F90_INTEGER    16

/* type classes (Type_match_size) */
#define MPI_TYPECLASS_REAL    1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

#define MPI_ORDER_C       56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK     121
#define MPI_DISTRIBUTE_CYCLIC    122
#define MPI_DISTRIBUTE_NONE      123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* special addresses */
#define MPI_BOTTOM            ((void *)0)
#define MPI_IN_PLACE          ((void *)-1)
#define MPI_STATUS_IGNORE     ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE   ((MPI_Status *)0)
/* Real objects, not small integer casts: GCC's array-parameter checks
 * (-Wstringop-overread) warn when (int *)2 is passed as const int[]. */
extern int MPIX_UNWEIGHTED_OBJ[1], MPIX_WEIGHTS_EMPTY_OBJ[1];
#define MPI_UNWEIGHTED        (MPIX_UNWEIGHTED_OBJ)
#define MPI_WEIGHTS_EMPTY     (MPIX_WEIGHTS_EMPTY_OBJ)
#define MPI_ERRCODES_IGNORE   ((int *)0)
#define MPI_ARGV_NULL         ((char **)0)
#define MPI_ARGVS_NULL        ((char ***)0)

/* ---- callback types ---------------------------------------------------- */
typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int MPI_Comm_copy_attr_function(MPI_Comm, int, void *, void *, void *, int *);
typedef int MPI_Comm_delete_attr_function(MPI_Comm, int, void *, void *);
typedef int MPI_Type_copy_attr_function(MPI_Datatype, int, void *, void *, void *, int *);
typedef int MPI_Type_delete_attr_function(MPI_Datatype, int, void *, void *);
typedef void MPI_User_function(void *, void *, int *, MPI_Datatype *);

/* Predefined attribute callbacks: functions under the standard's own names;
 * the macros of the same names let programs test for them with #ifdef. */
int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_COMM_DUP_FN(MPI_Comm, int, void *, void *, void *, int *);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void *, void *);
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void *, void *, void *, int *);
int MPI_TYPE_DUP_FN(MPI_Datatype, int, void *, void *, void *, int *);
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void *, void *);
#define MPI_COMM_NULL_COPY_FN   MPI_COMM_NULL_COPY_FN
#define MPI_COMM_DUP_FN         MPI_COMM_DUP_FN
#define MPI_COMM_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
#define MPI_TYPE_NULL_COPY_FN   MPI_TYPE_NULL_COPY_FN
#define MPI_TYPE_DUP_FN         MPI_TYPE_DUP_FN
#define MPI_TYPE_NULL_DELETE_FN MPI_TYPE_NULL_DELETE_FN
/* The deprecated communicator callbacks of MPI-1 (MPI-3.1 section 15.2):
 * the same C signatures as the MPI_Comm_ ones, and the same functions. */
typedef int MPI_Copy_function(MPI_Comm, int, void *, void *, void *, int *);
typedef int MPI_Delete_function(MPI_Comm, int, void *, void *);
#define MPI_NULL_COPY_FN   MPI_COMM_NULL_COPY_FN
#define MPI_DUP_FN         MPI_COMM_DUP_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
/* Generalized requests (MPI-3.1 section 12.2). */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

/* Each prototype is declared twice: MPI_x and the profiling PMPI_x. */
#define CLUMPI_API(ret, name, args) ret MPI_##name args; ret PMPI_##name args

/* ---- environment ------------------------------------------------------- */
CLUMPI_API(int, Init, (int *argc, char ***argv));
CLUMPI_API(int, Init_thread, (int *argc, char ***argv, int required, int *provided));
CLUMPI_API(int, Finalize, (void));
CLUMPI_API(int, Initialized, (int *flag));
CLUMPI_API(int, Finalized, (int *flag));
CLUMPI_API(int, Abort, (MPI_Comm comm, int errorcode));
CLUMPI_API(int, Get_version, (int *version, int *subversion));
CLUMPI_API(int, Get_library_version, (char *version, int *resultlen));
CLUMPI_API(int, Get_processor_name, (char *name, int *resultlen));
CLUMPI_API(double, Wtime, (void));
CLUMPI_API(double, Wtick, (void));
CLUMPI_API(int, Query_thread, (int *provided));
CLUMPI_API(int, Is_thread_main, (int *flag));
CLUMPI_API(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
CLUMPI_API(int, Free_mem, (void *base));
CLUMPI_API(int, Pcontrol, (const int level, ...));

/* ---- errors ------------------------------------------------------------ */
CLUMPI_API(int, Error_string, (int errorcode, char *string, int *resultlen));
CLUMPI_API(int, Error_class, (int errorcode, int *errorclass));
CLUMPI_API(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler));
CLUMPI_API(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
CLUMPI_API(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler));
CLUMPI_API(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode));
CLUMPI_API(int, Errhandler_free, (MPI_Errhandler *errhandler));
CLUMPI_API(int, Add_error_class, (int *errorclass));
CLUMPI_API(int, Add_error_code, (int errorclass, int *errorcode));
CLUMPI_API(int, Add_error_string, (int errorcode, const char *string));

/* ---- groups ------------------------------------------------------------ */
CLUMPI_API(int, Group_size, (MPI_Group group, int *size));
CLUMPI_API(int, Group_rank, (MPI_Group group, int *rank));
CLUMPI_API(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]));
CLUMPI_API(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result));
CLUMPI_API(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
CLUMPI_API(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
CLUMPI_API(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
CLUMPI_API(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
CLUMPI_API(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
CLUMPI_API(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
CLUMPI_API(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
CLUMPI_API(int, Group_free, (MPI_Group *group));

/* ---- communicators ----------------------------------------------------- */
CLUMPI_API(int, Comm_size, (MPI_Comm comm, int *size));
CLUMPI_API(int, Comm_rank, (MPI_Comm comm, int *rank));
CLUMPI_API(int, Comm_group, (MPI_Comm comm, MPI_Group *group));
CLUMPI_API(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result));
CLUMPI_API(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
CLUMPI_API(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm));
CLUMPI_API(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request));
CLUMPI_API(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
CLUMPI_API(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));
CLUMPI_API(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
CLUMPI_API(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm));
CLUMPI_API(int, Comm_free, (MPI_Comm *comm));
CLUMPI_API(int, Comm_test_inter, (MPI_Comm comm, int *flag));
CLUMPI_API(int, Comm_remote_size, (MPI_Comm comm, int *size));
CLUMPI_API(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group));
CLUMPI_API(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm));
CLUMPI_API(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm));
CLUMPI_API(int, Comm_set_name, (MPI_Comm comm, const char *comm_name));
CLUMPI_API(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen));
CLUMPI_API(int, Comm_set_info, (MPI_Comm comm, MPI_Info info));
CLUMPI_API(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used));

/* ---- process creation and management (MPI-3.1 chapter 10) --------------
 * Spawned jobs are started by the process manager (clumpi's mpirun runs one
 * more mpirun for each; info keys host, wdir, path are honoured). Ports
 * are TCP sockets at the opening process; other jobs are reached
 * over the network channel (in offload mode, a direct endpoint of each
 * rank's beside the agent). */
CLUMPI_API(int, Open_port, (MPI_Info info, char *port_name));
CLUMPI_API(int, Close_port, (const char *port_name));
CLUMPI_API(int, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm));
CLUMPI_API(int, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm));
CLUMPI_API(int, Comm_disconnect, (MPI_Comm *comm));
CLUMPI_API(int, Comm_join, (int fd, MPI_Comm *intercomm));
CLUMPI_API(int, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]));
CLUMPI_API(int, Comm_spawn_multiple, (int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]));
CLUMPI_API(int, Comm_get_parent, (MPI_Comm *parent));
CLUMPI_API(int, Publish_name, (const char *service_name, MPI_Info info, const char *port_name));
CLUMPI_API(int, Lookup_name, (const char *service_name, MPI_Info info, char *port_name));
CLUMPI_API(int, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name));

/* ---- attributes -------------------------------------------------------- */
CLUMPI_API(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn, int *keyval, void *extra_state));
CLUMPI_API(int, Comm_free_keyval, (int *keyval));
CLUMPI_API(int, Comm_set_attr, (MPI_Comm comm, int keyval, void *attribute_val));
CLUMPI_API(int, Comm_get_attr, (MPI_Comm comm, int keyval, void *attribute_val, int *flag));
CLUMPI_API(int, Comm_delete_attr, (MPI_Comm comm, int keyval));
CLUMPI_API(int, Type_create_keyval, (MPI_Type_copy_attr_function *copy_fn, MPI_Type_delete_attr_function *delete_fn, int *keyval, void *extra_state));
CLUMPI_API(int, Type_free_keyval, (int *keyval));
CLUMPI_API(int, Type_set_attr, (MPI_Datatype type, int keyval, void *attribute_val));
CLUMPI_API(int, Type_get_attr, (MPI_Datatype type, int keyval, void *attribute_val, int *flag));
CLUMPI_API(int, Type_delete_attr, (MPI_Datatype type, int keyval));
/* deprecated (MPI-3.1 section 15.2): communicator attributes as in MPI-1 */
CLUMPI_API(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state));
CLUMPI_API(int, Keyval_free, (int *keyval));
CLUMPI_API(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val));
CLUMPI_API(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag));
CLUMPI_API(int, Attr_delete, (MPI_Comm comm, int keyval));

/* ---- topologies -------------------------------------------------------- */
CLUMPI_API(int, Dims_create, (int nnodes, int ndims, int dims[]));
CLUMPI_API(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart));
CLUMPI_API(int, Cartdim_get, (MPI_Comm comm, int *ndims));
CLUMPI_API(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]));
CLUMPI_API(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank));
CLUMPI_API(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]));
CLUMPI_API(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest));
CLUMPI_API(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm));
CLUMPI_API(int, Topo_test, (MPI_Comm comm, int *status));
CLUMPI_API(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank));
CLUMPI_API(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph));
CLUMPI_API(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank));
CLUMPI_API(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges));
CLUMPI_API(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
CLUMPI_API(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors));
CLUMPI_API(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
CLUMPI_API(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph));
CLUMPI_API(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph));
CLUMPI_API(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted));
CLUMPI_API(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[], int destweights[]));

/* ---- info -------------------------------------------------------------- */
CLUMPI_API(int, Info_create, (MPI_Info *info));
CLUMPI_API(int, Info_set, (MPI_Info info, const char *key, const char *value));
CLUMPI_API(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag));
CLUMPI_API(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag));
CLUMPI_API(int, Info_get_nkeys, (MPI_Info info, int *nkeys));
CLUMPI_API(int, Info_get_nthkey, (MPI_Info info, int n, char *key));
CLUMPI_API(int, Info_delete, (MPI_Info info, const char *key));
CLUMPI_API(int, Info_dup, (MPI_Info info, MPI_Info *newinfo));
CLUMPI_API(int, Info_free, (MPI_Info *info));

/* ---- point-to-point ---------------------------------------------------- */
CLUMPI_API(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
CLUMPI_API(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status));
CLUMPI_API(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
CLUMPI_API(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
CLUMPI_API(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
CLUMPI_API(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status));
CLUMPI_API(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status));
CLUMPI_API(int, Buffer_attach, (void *buffer, int size));
CLUMPI_API(int, Buffer_detach, (void *buffer_addr, int *size));
CLUMPI_API(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status));
CLUMPI_API(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status));
CLUMPI_API(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status));
CLUMPI_API(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status));
CLUMPI_API(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status));
CLUMPI_API(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request));
CLUMPI_API(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Start, (MPI_Request *request));
CLUMPI_API(int, Startall, (int count, MPI_Request array_of_requests[]));

/* ---- completion -------------------------------------------------------- */
CLUMPI_API(int, Wait, (MPI_Request *request, MPI_Status *status));
CLUMPI_API(int, Test, (MPI_Request *request, int *flag, MPI_Status *status));
CLUMPI_API(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]));
CLUMPI_API(int, Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]));
CLUMPI_API(int, Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status));
CLUMPI_API(int, Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status));
CLUMPI_API(int, Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]));
CLUMPI_API(int, Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]));
CLUMPI_API(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status));
CLUMPI_API(int, Request_free, (MPI_Request *request));
CLUMPI_API(int, Cancel, (MPI_Request *request));
CLUMPI_API(int, Test_cancelled, (const MPI_Status *status, int *flag));
CLUMPI_API(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count));
CLUMPI_API(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count));
CLUMPI_API(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
CLUMPI_API(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count));
CLUMPI_API(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count));
CLUMPI_API(int, Status_set_cancelled, (MPI_Status *status, int flag));
CLUMPI_API(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request));
CLUMPI_API(int, Grequest_complete, (MPI_Request request));

/* ---- datatypes --------------------------------------------------------- */
CLUMPI_API(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype));
CLUMPI_API(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype));
CLUMPI_API(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype));
CLUMPI_API(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
CLUMPI_API(int, Type_commit, (MPI_Datatype *datatype));
CLUMPI_API(int, Type_free, (MPI_Datatype *datatype));
CLUMPI_API(int, Type_size, (MPI_Datatype datatype, int *size));
CLUMPI_API(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
CLUMPI_API(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
CLUMPI_API(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
CLUMPI_API(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
CLUMPI_API(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
CLUMPI_API(int, Type_set_name, (MPI_Datatype datatype, const char *type_name));
CLUMPI_API(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen));
CLUMPI_API(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner));
CLUMPI_API(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]));
CLUMPI_API(int, Get_address, (const void *location, MPI_Aint *address));
CLUMPI_API(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp));
CLUMPI_API(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));
CLUMPI_API(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm));
CLUMPI_API(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm));
CLUMPI_API(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));
CLUMPI_API(int, Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position));
CLUMPI_API(int, Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype));
CLUMPI_API(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));

/* ---- collectives ------------------------------------------------------ */
CLUMPI_API(int, Barrier, (MPI_Comm comm));
CLUMPI_API(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
CLUMPI_API(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
CLUMPI_API(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
CLUMPI_API(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
CLUMPI_API(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm));
CLUMPI_API(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
CLUMPI_API(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
CLUMPI_API(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
CLUMPI_API(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
CLUMPI_API(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));

/* ---- reductions and reduction ops ------------------------------------ */
CLUMPI_API(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm));
CLUMPI_API(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
CLUMPI_API(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
CLUMPI_API(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
CLUMPI_API(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
CLUMPI_API(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
CLUMPI_API(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));
CLUMPI_API(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op));
CLUMPI_API(int, Op_free, (MPI_Op *op));
CLUMPI_API(int, Op_commutative, (MPI_Op op, int *commute));

/* ---- nonblocking collectives ------------------------------------------- */
CLUMPI_API(int, Ibarrier, (MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));

/* ---- neighborhood collectives (Cartesian and distributed-graph comms) --- */
CLUMPI_API(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
CLUMPI_API(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
CLUMPI_API(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
CLUMPI_API(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
CLUMPI_API(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
CLUMPI_API(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
CLUMPI_API(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));

/* ---- handle and status conversion (MPI-3.1 17.2.4, 17.2.5) -------------
 * Handles are integers, so a Fortran handle is the C handle's value; f2c of
 * a value that names no live object of the kind gives the null handle.
 * A Fortran status is MPI_F_STATUS_SIZE MPI_Fints: MPI_SOURCE, MPI_TAG and
 * MPI_ERROR at the MPI_F_* indices, then the implementation part. */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE      0
#define MPI_F_TAG         1
#define MPI_F_ERROR       2
/* The Fortran MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE as C sees them:
 * global variables (MPI-3.1 17.2.5), each the address of a distinct object. */
extern MPI_Fint *MPI_F_STATUS_IGNORE;
extern MPI_Fint *MPI_F_STATUSES_IGNORE;
CLUMPI_API(MPI_Fint, Comm_c2f, (MPI_Comm comm));
CLUMPI_API(MPI_Comm, Comm_f2c, (MPI_Fint comm));
CLUMPI_API(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler));
CLUMPI_API(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler));
CLUMPI_API(MPI_Fint, Group_c2f, (MPI_Group group));
CLUMPI_API(MPI_Group, Group_f2c, (MPI_Fint group));
CLUMPI_API(MPI_Fint, Info_c2f, (MPI_Info info));
CLUMPI_API(MPI_Info, Info_f2c, (MPI_Fint info));
CLUMPI_API(MPI_Fint, Message_c2f, (MPI_Message message));
CLUMPI_API(MPI_Message, Message_f2c, (MPI_Fint message));
CLUMPI_API(MPI_Fint, Op_c2f, (MPI_Op op));
CLUMPI_API(MPI_Op, Op_f2c, (MPI_Fint op));
CLUMPI_API(MPI_Fint, Request_c2f, (MPI_Request request));
CLUMPI_API(MPI_Request, Request_f2c, (MPI_Fint request));
CLUMPI_API(MPI_Fint, Type_c2f, (MPI_Datatype datatype));
CLUMPI_API(MPI_Datatype, Type_f2c, (MPI_Fint datatype));
CLUMPI_API(MPI_Fint, Win_c2f, (MPI_Win win));
CLUMPI_API(MPI_Win, Win_f2c, (MPI_Fint win));
CLUMPI_API(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status));
CLUMPI_API(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status));
/* The mpi_f08 module's TYPE(MPI_Status) as C sees it (MPI-3.1 17.2.5): the
 * integer status array's layout, so every conversion keeps every word. Its
 * ignore values are the mpi_f08 module's MPI_STATUS(ES)_IGNORE. */
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint clumpi_hidden[MPI_F_STATUS_SIZE - 3];
} MPI_F08_status;
extern MPI_F08_status *MPI_F08_STATUS_IGNORE;
extern MPI_F08_status *MPI_F08_STATUSES_IGNORE;
CLUMPI_API(int, Status_c2f08, (const MPI_Status *c_status, MPI_F08_status *f08_status));
CLUMPI_API(int, Status_f082c, (const MPI_F08_status *f08_status, MPI_Status *c_status));
CLUMPI_API(int, Status_f082f, (const MPI_F08_status *f08_status, MPI_Fint *f_status));
CLUMPI_API(int, Status_f2f08, (const MPI_Fint *f_status, MPI_F08_status *f08_status));

/* ---- one-sided communication (MPI-3.1 chapter 11) ---------------------- */
/* window attribute keys (MPI_Win_get_attr) */
#define MPI_WIN_BASE          0x66400001
#define MPI_WIN_SIZE          0x66400003
#define MPI_WIN_DISP_UNIT     0x66400005
#define MPI_WIN_CREATE_FLAVOR 0x66400007
#define MPI_WIN_MODEL         0x66400009
#define MPI_WIN_FLAVOR_CREATE   1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC  3
#define MPI_WIN_FLAVOR_SHARED   4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED  2
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED    235
/* assertions (bits) */
#define MPI_MODE_NOCHECK   1024
#define MPI_MODE_NOSTORE   2048
#define MPI_MODE_NOPUT     4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
typedef void MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef int MPI_Win_copy_attr_function(MPI_Win, int, void *, void *, void *, int *);
typedef int MPI_Win_delete_attr_function(MPI_Win, int, void *, void *);
int MPI_WIN_NULL_COPY_FN(MPI_Win, int, void *, void *, void *, int *);
int MPI_WIN_DUP_FN(MPI_Win, int, void *, void *, void *, int *);
int MPI_WIN_NULL_DELETE_FN(MPI_Win, int, void *, void *);
#define MPI_WIN_NULL_COPY_FN   MPI_WIN_NULL_COPY_FN
#define MPI_WIN_DUP_FN         MPI_WIN_DUP_FN
#define MPI_WIN_NULL_DELETE_FN MPI_WIN_NULL_DELETE_FN

CLUMPI_API(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win));
CLUMPI_API(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
CLUMPI_API(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
CLUMPI_API(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr));
CLUMPI_API(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win));
CLUMPI_API(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size));
CLUMPI_API(int, Win_detach, (MPI_Win win, const void *base));
CLUMPI_API(int, Win_free, (MPI_Win *win));
CLUMPI_API(int, Win_get_group, (MPI_Win win, MPI_Group *group));
CLUMPI_API(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag));
CLUMPI_API(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val));
CLUMPI_API(int, Win_delete_attr, (MPI_Win win, int win_keyval));
CLUMPI_API(int, Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state));
CLUMPI_API(int, Win_free_keyval, (int *win_keyval));
CLUMPI_API(int, Win_set_name, (MPI_Win win, const char *win_name));
CLUMPI_API(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen));
CLUMPI_API(int, Win_create_errhandler, (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler));
CLUMPI_API(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler));
CLUMPI_API(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler));
CLUMPI_API(int, Win_call_errhandler, (MPI_Win win, int errorcode));
CLUMPI_API(int, Win_set_info, (MPI_Win win, MPI_Info info));
CLUMPI_API(int, Win_get_info, (MPI_Win win, MPI_Info *info_used));
CLUMPI_API(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
CLUMPI_API(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
CLUMPI_API(int, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
CLUMPI_API(int, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
CLUMPI_API(int, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win));
CLUMPI_API(int, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win));
CLUMPI_API(int, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
CLUMPI_API(int, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
CLUMPI_API(int, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
CLUMPI_API(int, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
CLUMPI_API(int, Win_fence, (int assert, MPI_Win win));
CLUMPI_API(int, Win_post, (MPI_Group group, int assert, MPI_Win win));
CLUMPI_API(int, Win_start, (MPI_Group group, int assert, MPI_Win win));
CLUMPI_API(int, Win_complete, (MPI_Win win));
CLUMPI_API(int, Win_wait, (MPI_Win win));
CLUMPI_API(int, Win_test, (MPI_Win win, int *flag));
CLUMPI_API(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win));
CLUMPI_API(int, Win_unlock, (int rank, MPI_Win win));
CLUMPI_API(int, Win_lock_all, (int assert, MPI_Win win));
CLUMPI_API(int, Win_unlock_all, (MPI_Win win));
CLUMPI_API(int, Win_flush, (int rank, MPI_Win win));
CLUMPI_API(int, Win_flush_all, (MPI_Win win));
CLUMPI_API(int, Win_flush_local, (int rank, MPI_Win win));
CLUMPI_API(int, Win_flush_local_all, (MPI_Win win));
CLUMPI_API(int, Win_sync, (MPI_Win win));


/* ---- MPI_T: the tool information interface (MPI-3.1 14.3) ---------------
 * Control variables are the CLUMPI_* parameters, performance variables the
 * device's counters. Usable before MPI_Init and after MPI_Finalize between
 * MPI_T_init_thread and MPI_T_finalize; errors are returned as MPI_T_ERR_*
 * classes, without error handlers. */
typedef struct clumpi_T_enum *MPI_T_enum;
typedef struct clumpi_T_cvar *MPI_T_cvar_handle;
typedef struct clumpi_T_pvar *MPI_T_pvar_handle;
typedef struct clumpi_T_session *MPI_T_pvar_session;
#define MPI_T_ENUM_NULL          ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL   ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL   ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_ALL_HANDLES   ((MPI_T_pvar_handle)-1)
#define MPI_T_PVAR_SESSION_NULL  ((MPI_T_pvar_session)0)

#define MPI_T_VERBOSITY_USER_BASIC    1
#define MPI_T_VERBOSITY_USER_DETAIL   2
#define MPI_T_VERBOSITY_USER_ALL      3
#define MPI_T_VERBOSITY_TUNER_BASIC   4
#define MPI_T_VERBOSITY_TUNER_DETAIL  5
#define MPI_T_VERBOSITY_TUNER_ALL     6
#define MPI_T_VERBOSITY_MPIDEV_BASIC  7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 8
#define MPI_T_VERBOSITY_MPIDEV_ALL    9

#define MPI_T_BIND_NO_OBJECT      0
#define MPI_T_BIND_MPI_COMM       1
#define MPI_T_BIND_MPI_DATATYPE   2
#define MPI_T_BIND_MPI_ERRHANDLER 3
#define MPI_T_BIND_MPI_FILE       4
#define MPI_T_BIND_MPI_GROUP      5
#define MPI_T_BIND_MPI_OP         6
#define MPI_T_BIND_MPI_REQUEST    7
#define MPI_T_BIND_MPI_WIN        8
#define MPI_T_BIND_MPI_MESSAGE    9
#define MPI_T_BIND_MPI_INFO       10

#define MPI_T_SCOPE_CONSTANT 0
#define MPI_T_SCOPE_READONLY 1
#define MPI_T_SCOPE_LOCAL    2
#define MPI_T_SCOPE_GROUP    3
#define MPI_T_SCOPE_GROUP_EQ 4
#define MPI_T_SCOPE_ALL      5
#define MPI_T_SCOPE_ALL_EQ   6

#define MPI_T_PVAR_CLASS_STATE         0
#define MPI_T_PVAR_CLASS_LEVEL         1
#define MPI_T_PVAR_CLASS_SIZE          2
#define MPI_T_PVAR_CLASS_PERCENTAGE    3
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 4
#define MPI_T_PVAR_CLASS_LOWWATERMARK  5
#define MPI_T_PVAR_CLASS_COUNTER       6
#define MPI_T_PVAR_CLASS_AGGREGATE     7
#define MPI_T_PVAR_CLASS_TIMER         8
#define MPI_T_PVAR_CLASS_GENERIC       9

CLUMPI_API(int, T_init_thread, (int required, int *provided));
CLUMPI_API(int, T_finalize, (void));
CLUMPI_API(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len));
CLUMPI_API(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name,
                                  int *name_len));
CLUMPI_API(int, T_cvar_get_num, (int *num_cvar));
CLUMPI_API(int, T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity,
                                  MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                                  int *desc_len, int *bind, int *scope));
CLUMPI_API(int, T_cvar_get_index, (const char *name, int *cvar_index));
CLUMPI_API(int, T_cvar_handle_alloc, (int cvar_index, void *obj_handle,
                                      MPI_T_cvar_handle *handle, int *count));
CLUMPI_API(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle));
CLUMPI_API(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf));
CLUMPI_API(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf));
CLUMPI_API(int, T_pvar_get_num, (int *num_pvar));
CLUMPI_API(int, T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity,
                                  int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                                  char *desc, int *desc_len, int *bind, int *readonly,
                                  int *continuous, int *atomic));
CLUMPI_API(int, T_pvar_get_index, (const char *name, int var_class, int *pvar_index));
CLUMPI_API(int, T_pvar_session_create, (MPI_T_pvar_session *session));
CLUMPI_API(int, T_pvar_session_free, (MPI_T_pvar_session *session));
CLUMPI_API(int, T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index,
                                      void *obj_handle, MPI_T_pvar_handle *handle, int *count));
CLUMPI_API(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle));
CLUMPI_API(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle));
CLUMPI_API(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle));
CLUMPI_API(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf));
CLUMPI_API(int, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                               const void *buf));
CLUMPI_API(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle));
CLUMPI_API(int, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                   void *buf));
CLUMPI_API(int, T_category_get_num, (int *num_cat));
CLUMPI_API(int, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc,
                                      int *desc_len, int *num_cvars, int *num_pvars,
                                      int *num_categories));
CLUMPI_API(int, T_category_get_index, (const char *name, int *cat_index));
CLUMPI_API(int, T_category_get_cvars, (int cat_index, int len, int indices[]));
CLUMPI_API(int, T_category_get_pvars, (int cat_index, int len, int indices[]));
CLUMPI_API(int, T_category_get_categories, (int cat_index, int len, int indices[]));
CLUMPI_API(int, T_category_changed, (int *stamp));

/* ---- MPIX: clumpi extensions --------------------------------------------
 * Shared counters: a 64-bit integer owned by one rank of a communicator,
 * that any member may fetch-and-add at any time (Verstoep et al.'s F&A, the
 * sequencer of a totally ordered broadcast). In offload mode across nodes
 * (CLUMPI_NET=agent) the owner's node agent holds it and serves every
 * request itself, so the owner rank may compute without calling MPI;
 * otherwise it lives in an RMA window at the owner (MPI_Fetch_and_op).
 * Operations on one counter are atomic and totally ordered; the sum wraps
 * modulo 2^64 like MPI_SUM's.
 *   MPIX_Counter_create  collective over comm: a new counter holding
 *                        `initial`, owned by comm rank `owner`.
 *   MPIX_Counter_fetch_and_add  *old = the value, then value += add.
 *   MPIX_Counter_free    collective over the creating comm's members; sets
 *                        *counter to MPIX_COUNTER_NULL. The counter keeps
 *                        working if comm is freed first.
 * Errors go to MPI_COMM_WORLD's error handler (the creating comm's for
 * create). Every function has a PMPIX_ twin for tools. */
typedef int MPIX_Counter;
#define MPIX_COUNTER_NULL ((MPIX_Counter)0)
#define CLUMPI_APIX(ret, name, args) ret MPIX_##name args; ret PMPIX_##name args
CLUMPI_APIX(int, Counter_create, (MPI_Comm comm, int owner, long long initial, MPIX_Counter *counter));
CLUMPI_APIX(int, Counter_fetch_and_add, (MPIX_Counter counter, long long add, long long *old));
CLUMPI_APIX(int, Counter_free, (MPIX_Counter *counter));
#undef CLUMPI_APIX

#undef CLUMPI_API

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* CLUMPI_MPI_H */
