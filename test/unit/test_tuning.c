/*
 * test_tuning.c — the tuning table's parser and lookup (coll/tuning.c) on
 * their own, with two made-up operations: a good table's rows and the rules
 * for rank counts, node counts, oversubscription and sizes not measured;
 * each kind of bad line refused naming the file and line.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "coll/tuning.h"

static const char *const ops[] = { "bcast", "allreduce" };
static const char *const algos[] = { "binomial", "binary", "ring" };

static int op_id(const char *name)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(name, ops[i]))
            return i;
    return -1;
}

static int algo_id(int op, const char *name, char *valid, size_t len)
{
    (void)op;
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, algos[i]))
            return i;
    snprintf(valid, len, "binomial, binary, ring");
    return -1;
}

static const coll_tuning_names names = { 2, op_id, algo_id };
enum { BCAST, ALLREDUCE };
enum { BINOMIAL, BINARY, RING };

static const char good[] =
    "# a comment line\n"
    "\n"
    "bcast 1 2 0 0-1023 binomial   # a comment after a row\n"
    "bcast 1 2 0 1k- binary\n"
    "bcast 1 8 * 0- ring\n"
    "bcast 2 4 1 0-64k binary\n"
    "bcast 2 4 1 65537- ring\n"
    "bcast 1 4 1 16 binary\n"
    "allreduce\t1  16 1 0-4M\tring\r\n"
    "allreduce 1 4 1 0- binomial";   /* no newline at the end */

Test(tuning, good_table)
{
    coll_tuning t;
    char err[512] = "";
    cr_assert_eq(coll_tuning_parse(good, "good", &names, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.nrows, 8);
    cr_assert_eq(t.first[BCAST], 0);
    cr_assert_eq(t.first[ALLREDUCE], 6);
    cr_assert_eq(t.first[2], 8);
    const coll_tuning_row *r = &t.rows[t.first[ALLREDUCE]];
    cr_assert_eq(r->ranks, 4);   /* sorted by ranks */
    cr_assert_eq(r->hi, SIZE_MAX);
    cr_assert_eq(r[1].hi, 4u << 20);
    cr_assert_eq(r[1].line, 9);
    coll_tuning_free(&t);
}

Test(tuning, lookup_rules)
{
    coll_tuning t;
    char err[512] = "";
    cr_assert_eq(coll_tuning_parse(good, "good", &names, &t, err, sizeof err), 0, "%s", err);
    /* exact rank count, the range holding the size, the open range */
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 2, 1, 0, 0), BINOMIAL);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 2, 1, 0, 1023), BINOMIAL);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 2, 1, 0, 1024), BINARY);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 2, 1, 0, SIZE_MAX), BINARY);
    /* in two steps (select.c keeps the group per communicator) */
    int g = coll_tuning_group(&t, BCAST, 2, 1, 0);
    cr_assert_eq(t.rows[g].ranks, 2);
    cr_assert_eq(t.rows[g].lo, 0);
    cr_assert_eq(coll_tuning_in_group(&t, g, 1023), BINOMIAL);
    cr_assert_eq(coll_tuning_in_group(&t, g, 1024), BINARY);
    cr_assert_eq(coll_tuning_group(&t, BCAST, 17, 1, 1), -1);
    cr_assert_eq(coll_tuning_in_group(&t, -1, 0), -1);
    /* oversubscribed: rows of that regime only (8 ranks' '*' holds both);
     * the nearest rank count within a factor of two; the nearest group
     * decides even when it has no row for the size */
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 3, 1, 1, 0), -1);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 4, 1, 1, 16), BINARY);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 6, 1, 1, 16), RING);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 5, 1, 1, 16), BINARY);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 16, 1, 1, 16), RING);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 17, 1, 1, 16), -1);    /* past 2x of 8 */
    /* not oversubscribed: 2 and 8 ('*') qualify */
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 3, 1, 0, 0), BINOMIAL);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 6, 1, 0, 0), RING);
    /* several nodes: only rows of several nodes; the regime is missing
     * there, so any oversubscription is taken */
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 4, 2, 1, 65536), BINARY);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 4, 3, 0, 65537), RING);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 4, 2, 1, 65536 + 1), RING);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 2, 2, 1, 0), BINARY);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 9, 2, 1, 0), -1);
    /* allreduce: past the closed range, no row */
    cr_assert_eq(coll_tuning_lookup(&t, ALLREDUCE, 16, 1, 1, 4u << 20), RING);
    cr_assert_eq(coll_tuning_lookup(&t, ALLREDUCE, 16, 1, 1, (4u << 20) + 1), -1);
    cr_assert_eq(coll_tuning_lookup(&t, ALLREDUCE, 4, 2, 1, 0), -1);
    cr_assert_eq(coll_tuning_lookup(&t, 2, 4, 1, 1, 0), -1);
    coll_tuning_free(&t);
}

Test(tuning, empty_table)
{
    coll_tuning t;
    char err[512] = "";
    cr_assert_eq(coll_tuning_parse("# nothing\n\n", "empty", &names, &t, err, sizeof err), 0);
    cr_assert_eq(t.nrows, 0);
    cr_assert_eq(coll_tuning_lookup(&t, BCAST, 2, 1, 0, 0), -1);
    coll_tuning_free(&t);
}

static void refused(const char *text, const char *want)
{
    coll_tuning t;
    char err[512] = "";
    cr_assert_eq(coll_tuning_parse(text, "my.tbl", &names, &t, err, sizeof err), -1,
                 "accepted: %s", text);
    cr_assert(strstr(err, want), "\"%s\": message \"%s\" lacks \"%s\"", text, err, want);
    cr_assert_null(t.rows);
    cr_assert_eq(t.nrows, 0);
}

Test(tuning, bad_lines)
{
    refused("bcast 1 2 0 0- binomial\nbcast 1 2 0 binomial\n", "my.tbl:2: too few fields");
    refused("bcast 1 2 0 0- binomial x\n", "my.tbl:1: too many fields");
    refused("# c\nbcst 1 2 0 0- binomial\n", "my.tbl:2: unknown operation 'bcst'");
    refused("allreduce 1 2 0 0- fast\n",
            "my.tbl:1: allreduce has no algorithm 'fast'; valid: binomial, binary, ring");
    refused("bcast 0 2 0 0- ring\n", "my.tbl:1: nodes '0' is not a positive number");
    refused("bcast 1 two 0 0- ring\n", "my.tbl:1: ranks 'two'");
    refused("bcast 1 -2 0 0- ring\n", "my.tbl:1: ranks '-2'");
    refused("bcast 1 2 yes 0- ring\n", "my.tbl:1: oversub 'yes' is not 0, 1 or *");
    refused("bcast 1 2 0 9-3 ring\n", "my.tbl:1: bytes '9-3'");
    refused("bcast 1 2 0 -3 ring\n", "my.tbl:1: bytes '-3'");
    refused("bcast 1 2 0 1x ring\n", "my.tbl:1: bytes '1x'");
    refused("bcast 1 2 0 99999999999999999999- ring\n", "my.tbl:1: bytes");
    refused("bcast 1 2 0 0-100 ring\nbcast 1 4 0 0- ring\nbcast 1 2 0 100- binary\n",
            "my.tbl:3: bytes overlap the row of line 1");
    char longline[2048];
    memset(longline, 'x', sizeof longline - 1);
    longline[sizeof longline - 1] = 0;
    refused(longline, "my.tbl:1: line longer than");
}

Test(tuning, files)
{
    coll_tuning t;
    char err[512] = "", path[] = "/tmp/test_tuning_XXXXXX";
    cr_assert_eq(coll_tuning_load("/nonexistent/table", &names, &t, err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent/table: No such file"), "%s", err);
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(good, f);
    fputs("\nbcast 1 2 0 0- nope\n", f);
    fclose(f);
    cr_assert_eq(coll_tuning_load(path, &names, &t, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s:11: bcast has no algorithm 'nope'", path);
    cr_assert(strstr(err, want), "%s", err);
    f = fopen(path, "w");
    fputs(good, f);
    fclose(f);
    cr_assert_eq(coll_tuning_load(path, &names, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.nrows, 8);
    coll_tuning_free(&t);
    unlink(path);
}
