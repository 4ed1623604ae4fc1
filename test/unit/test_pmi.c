/*
 * test_pmi.c — the PMI-1 line framing and parser (well-formed and malformed
 * input), the process-mapping parser and formatter, and the client against
 * a scripted server on a socketpair.
 */
#include "config.h"
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "src/util/pmi.h"

static cu_pmi_kv kv[16];

/* ---- cu_pmi_parse_line -------------------------------------------------- */

Test(parse_line, simple)
{
    int n = cu_pmi_parse_line("cmd=put kvsname=kvs_1 key=a value=b\n", kv, 16);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(kv[0].key, "cmd");
    cr_assert_str_eq(kv[0].val, "put");
    cr_assert_str_eq(cu_pmi_find(kv, n, "key"), "a");
    cr_assert_str_eq(cu_pmi_find(kv, n, "value"), "b");
    cr_assert_null(cu_pmi_find(kv, n, "nope"));
}

Test(parse_line, no_newline_and_extra_spaces)
{
    int n = cu_pmi_parse_line("  cmd=barrier_out   rc=0  ", kv, 16);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(cu_pmi_find(kv, n, "rc"), "0");
}

Test(parse_line, value_with_equals_and_empty_value)
{
    int n = cu_pmi_parse_line("cmd=get_result rc=0 value=a=b=c x=", kv, 16);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(cu_pmi_find(kv, n, "value"), "a=b=c");
    cr_assert_str_eq(cu_pmi_find(kv, n, "x"), "");
}

Test(parse_line, mapping_value)
{
    int n = cu_pmi_parse_line("cmd=get_result rc=0 msg=success value=(vector,(0,2,4))\n", kv, 16);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(cu_pmi_find(kv, n, "value"), "(vector,(0,2,4))");
}

Test(parse_line, msg_with_words)
{
    int n = cu_pmi_parse_line("cmd=get_result rc=-1 msg=key not found", kv, 16);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(cu_pmi_find(kv, n, "msg"), "key not found");
}

Test(parse_line, crlf)
{
    cr_assert_eq(cu_pmi_parse_line("cmd=finalize_ack\r\n", kv, 16), 1);
    cr_assert_str_eq(kv[0].val, "finalize_ack");
}

Test(parse_line, malformed)
{
    cr_assert_eq(cu_pmi_parse_line("", kv, 16), -1);
    cr_assert_eq(cu_pmi_parse_line("\n", kv, 16), -1);
    cr_assert_eq(cu_pmi_parse_line("   ", kv, 16), -1);
    cr_assert_eq(cu_pmi_parse_line("cmd", kv, 16), -1);                 /* no '=' */
    cr_assert_eq(cu_pmi_parse_line("cmd=put key", kv, 16), -1);         /* missing '=' */
    cr_assert_eq(cu_pmi_parse_line("cmd=put =v", kv, 16), -1);          /* empty key */
    cr_assert_eq(cu_pmi_parse_line("key=v cmd=put", kv, 16), -1);       /* cmd not first */
    cr_assert_eq(cu_pmi_parse_line("cmd=put\nkey=v", kv, 16), -1);      /* newline inside */
    cr_assert_eq(cu_pmi_parse_line("cmd=put\tkey=v", kv, 16), -1);      /* control char */
    cr_assert_eq(cu_pmi_parse_line("cmd=a b=1 c=2", kv, 2), -1);        /* too many pairs */
    cr_assert_eq(cu_pmi_parse_line(NULL, kv, 16), -1);
    cr_assert_eq(cu_pmi_parse_line("cmd=x", NULL, 16), -1);
    cr_assert_eq(cu_pmi_parse_line("cmd=x", kv, 0), -1);
}

Test(parse_line, overlong_key_and_value)
{
    char line[4 * CU_PMI_VALLEN_MAX];
    char big[2 * CU_PMI_VALLEN_MAX];
    memset(big, 'k', CU_PMI_KEYLEN_MAX);
    big[CU_PMI_KEYLEN_MAX] = '\0';
    snprintf(line, sizeof line, "cmd=put %s=v", big);
    cr_assert_eq(cu_pmi_parse_line(line, kv, 16), -1);
    big[CU_PMI_KEYLEN_MAX - 1] = '\0';   /* the longest allowed key */
    snprintf(line, sizeof line, "cmd=put %s=v", big);
    cr_assert_eq(cu_pmi_parse_line(line, kv, 16), 2);

    memset(big, 'v', CU_PMI_VALLEN_MAX);
    big[CU_PMI_VALLEN_MAX] = '\0';
    snprintf(line, sizeof line, "cmd=put value=%s", big);
    cr_assert_eq(cu_pmi_parse_line(line, kv, 16), -1);
    big[CU_PMI_VALLEN_MAX - 1] = '\0';
    snprintf(line, sizeof line, "cmd=put value=%s", big);
    cr_assert_eq(cu_pmi_parse_line(line, kv, 16), 2);
    cr_assert_eq(strlen(kv[1].val), CU_PMI_VALLEN_MAX - 1);
}

Test(parse_line, random_bytes_never_crash)
{
    char line[300];
    srand(42);
    for (int it = 0; it < 20000; it++) {
        int len = rand() % (int)(sizeof line - 1);
        for (int i = 0; i < len; i++) {
            /* Mostly protocol characters, so some lines parse. */
            const char alpha[] = "cmd=pu t\n\r=ab ";
            line[i] = rand() % 4 ? alpha[rand() % (int)(sizeof alpha - 1)] : (char)(1 + rand() % 255);
        }
        line[len] = '\0';
        int n = cu_pmi_parse_line(line, kv, 16);
        cr_assert(n == -1 || (n >= 1 && n <= 16));
    }
}

/* ---- cu_pmi_linebuf_next ------------------------------------------------- */

static void feed(cu_pmi_linebuf *lb, const char *s, size_t n)
{
    cr_assert_leq(lb->len + n, sizeof lb->buf);
    memcpy(lb->buf + lb->len, s, n);
    lb->len += n;
}

Test(linebuf, lines_in_pieces)
{
    cu_pmi_linebuf lb = { .len = 0 };
    char line[CU_PMI_LINE_MAX];
    feed(&lb, "cmd=a", 5);
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), 0);   /* no newline yet */
    feed(&lb, "\ncmd=b\ncm", 9);
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), 1);
    cr_assert_str_eq(line, "cmd=a");
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), 1);
    cr_assert_str_eq(line, "cmd=b");
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), 0);
    feed(&lb, "d=c\n", 4);
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), 1);
    cr_assert_str_eq(line, "cmd=c");
}

Test(linebuf, embedded_nul_rejected)
{
    cu_pmi_linebuf lb = { .len = 0 };
    char line[CU_PMI_LINE_MAX];
    feed(&lb, "cmd=a\0b\ncmd=ok\n", 15);
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), -1);
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), 1);
    cr_assert_str_eq(line, "cmd=ok");
}

Test(linebuf, overlong_line_dropped_and_resynced)
{
    cu_pmi_linebuf lb = { .len = 0 };
    char line[CU_PMI_LINE_MAX];
    char junk[CU_PMI_LINE_MAX];
    memset(junk, 'x', sizeof junk);
    feed(&lb, junk, sizeof junk);   /* fills the buffer, no newline */
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), -1);
    cr_assert_eq(lb.len, 0);
    feed(&lb, junk, 100);            /* more of the same line */
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), 0);
    feed(&lb, "xx\ncmd=next\n", 12);
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), 1);   /* the tail is skipped silently */
    cr_assert_str_eq(line, "cmd=next");
}

Test(linebuf, line_longer_than_cap)
{
    cu_pmi_linebuf lb = { .len = 0 };
    char line[8];
    feed(&lb, "cmd=toolong\ncmd=a\n", 18);
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), -1);
    cr_assert_eq(cu_pmi_linebuf_next(&lb, line, sizeof line), 1);
    cr_assert_str_eq(line, "cmd=a");
}

/* Random streams (binary bytes, NULs, newlines, over-long lines) fed in
 * random pieces, with marker lines put in after a newline: every line that
 * comes out is one line shorter than the cap, and every marker comes out,
 * whole and in order, whatever came before it. */
Test(linebuf, fuzz_resyncs_at_every_newline)
{
    static char stream[3 * CU_PMI_LINE_MAX + 4096];
    char line[CU_PMI_LINE_MAX];
    srand(7);
    for (int it = 0; it < 3000; it++) {
        size_t n = 0;
        int marks = 0;
        while (n < sizeof stream - 64) {
            int kind = rand() % 8;
            if (kind == 0) {   /* a marker line */
                n += (size_t)snprintf(stream + n, 64, "\ncmd=mark n=%d\n", marks++);
                continue;
            }
            size_t len = kind == 1 ? (size_t)(CU_PMI_LINE_MAX + rand() % 300) : (size_t)(rand() % 80);
            if (n + len > sizeof stream - 64)
                break;
            for (size_t i = 0; i < len; i++)
                stream[n + i] = kind == 2 ? (char)rand() : "cmd= k=v\n\0x"[rand() % 12];
            n += len;
            if (rand() % 4 == 0)
                break;
        }
        cu_pmi_linebuf lb = { .len = 0 };
        int seen = 0;
        size_t off = 0;
        for (;;) {
            int got;
            while ((got = cu_pmi_linebuf_next(&lb, line, sizeof line)) != 0) {
                if (got < 0)
                    continue;
                cr_assert_lt(strlen(line), sizeof line);
                cr_assert_null(strchr(line, '\n'));
                int k;
                if (sscanf(line, "cmd=mark n=%d", &k) == 1 && !strncmp(line, "cmd=mark n=", 11)) {
                    cr_assert_eq(k, seen, "marker %d came out as the %dth", k, seen);
                    seen++;
                }
            }
            if (off == n)
                break;
            size_t room = sizeof lb.buf - lb.len, piece = 1 + (size_t)rand() % 700;
            if (piece > room)
                piece = room;
            if (piece > n - off)
                piece = n - off;
            memcpy(lb.buf + lb.len, stream + off, piece);
            lb.len += piece;
            off += piece;
        }
        cr_assert_eq(seen, marks, "iteration %d: %d of %d markers", it, seen, marks);
    }
}

/* ---- mappings ----------------------------------------------------------- */

Test(mapping, one_node)
{
    int node_of[8];
    cr_assert_eq(cu_pmi_parse_mapping("(vector,(0,1,8))", 8, node_of), 1);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(node_of[i], 0);
}

Test(mapping, blocks_of_ppn)
{
    int node_of[8], want[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
    cr_assert_eq(cu_pmi_parse_mapping("(vector,(0,2,4))", 8, node_of), 2);
    cr_assert_arr_eq(node_of, want, sizeof want);
}

Test(mapping, wraps_round)
{
    /* Hydra repeats the blocks when ranks remain: 2 nodes x 2, 6 ranks. */
    int node_of[6], want[6] = { 0, 0, 1, 1, 0, 0 };
    cr_assert_eq(cu_pmi_parse_mapping("(vector,(0,2,2))", 6, node_of), 2);
    cr_assert_arr_eq(node_of, want, sizeof want);
}

Test(mapping, several_blocks_and_spaces)
{
    int node_of[7], want[7] = { 0, 0, 1, 1, 2, 3, 3 };
    cr_assert_eq(cu_pmi_parse_mapping(" ( vector , (0,2,2), (2,1,1),(3, 1, 2) ) ", 7, node_of), 4);
    cr_assert_arr_eq(node_of, want, sizeof want);
}

Test(mapping, fewer_ranks_than_mapping)
{
    int node_of[3], want[3] = { 0, 0, 1 };
    cr_assert_eq(cu_pmi_parse_mapping("(vector,(0,4,2))", 3, node_of), 2);
    cr_assert_arr_eq(node_of, want, sizeof want);
}

Test(mapping, malformed)
{
    int node_of[8];
    const char *bad[] = {
        "", "vector", "(vector)", "(vector,)", "(vector,(0,1))", "(vector,(0,1,2)",
        "(vector,(0,1,2)) x", "(vectr,(0,1,2))", "(vector,(0,0,2))", "(vector,(0,1,0))",
        "(vector,(-1,1,2))", "(vector,(a,1,2))", "(vector,(0,1,99999999999))",
        "(vector,(1,1,8))",   /* node 0 never used: ids not dense */
        "(vector,(0,1,2)(1,1,2))",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(cu_pmi_parse_mapping(bad[i], 8, node_of), -1, "accepted '%s'", bad[i]);
    cr_assert_eq(cu_pmi_parse_mapping(NULL, 8, node_of), -1);
    cr_assert_eq(cu_pmi_parse_mapping("(vector,(0,1,8))", 0, node_of), -1);
    cr_assert_eq(cu_pmi_parse_mapping("(vector,(0,1,8))", 8, NULL), -1);
}

Test(mapping, format_roundtrip)
{
    int layouts[][10] = {
        { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        { 0, 0, 0, 0, 1, 1, 1, 1, 2, 2 },
        { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 },
        { 0, 0, 1, 1, 0, 0, 1, 1, 2, 2 },
        { 0, 1, 1, 2, 2, 2, 3, 3, 3, 3 },
    };
    char s[256];
    for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++) {
        int back[10];
        cr_assert_eq(cu_pmi_format_mapping(layouts[k], 10, s, sizeof s), 0);
        cr_assert_gt(cu_pmi_parse_mapping(s, 10, back), 0, "%s", s);
        cr_assert_arr_eq(back, layouts[k], sizeof back, "layout %zu -> %s", k, s);
    }
    cr_assert_eq(cu_pmi_format_mapping(layouts[0], 10, s, sizeof s), 0);
    cr_assert_str_eq(s, "(vector,(0,1,10))");
    cr_assert_eq(cu_pmi_format_mapping(layouts[1], 10, s, sizeof s), 0);
    cr_assert_str_eq(s, "(vector,(0,2,4),(2,1,2))");
    cr_assert_eq(cu_pmi_format_mapping(layouts[2], 10, s, 8), -1);   /* does not fit */
}

/* ---- the client against a scripted server --------------------------------- */

/* Answers like a PMI-1 server: a small KVS, a barrier of one rank.
 * mode 1: garbage replies; mode 2: no PMI_process_mapping. */
static void fake_server(int fd, int mode)
{
    cu_pmi_linebuf lb = { .len = 0 };
    char line[CU_PMI_LINE_MAX], keys[8][CU_PMI_KEYLEN_MAX], vals[8][CU_PMI_VALLEN_MAX];
    int nkeys = 0;
    int bad_reply = mode == 1;
    for (;;) {
        int got;
        while ((got = cu_pmi_linebuf_next(&lb, line, sizeof line)) == 0) {
            ssize_t n = read(fd, lb.buf + lb.len, sizeof lb.buf - lb.len);
            if (n <= 0)
                _exit(0);
            lb.len += (size_t)n;
        }
        cu_pmi_kv k[16];
        int n = cu_pmi_parse_line(line, k, 16);
        if (n < 0)
            _exit(1);
        const char *c = k[0].val;
        char out[CU_PMI_LINE_MAX];
        if (bad_reply) {
            const char junk[] = "cmd=response_to_init rc=0 \0garbage\n";
            if (write(fd, junk, sizeof junk - 1) < 0)
                _exit(1);
            continue;
        }
        if (!strcmp(c, "init"))
            snprintf(out, sizeof out, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
        else if (!strcmp(c, "get_maxes"))
            snprintf(out, sizeof out, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");
        else if (!strcmp(c, "get_appnum"))
            snprintf(out, sizeof out, "cmd=appnum appnum=3\n");
        else if (!strcmp(c, "get_my_kvsname"))
            snprintf(out, sizeof out, "cmd=my_kvsname kvsname=kvs_test rc=0\n");
        else if (!strcmp(c, "put") && nkeys < 8) {
            snprintf(keys[nkeys], sizeof keys[nkeys], "%s", cu_pmi_find(k, n, "key"));
            snprintf(vals[nkeys], sizeof vals[nkeys], "%s", cu_pmi_find(k, n, "value"));
            nkeys++;
            snprintf(out, sizeof out, "cmd=put_result rc=0\n");
        } else if (!strcmp(c, "get")) {
            const char *key = cu_pmi_find(k, n, "key");
            int found = -1;
            for (int i = 0; i < nkeys; i++)
                if (!strcmp(keys[i], key))
                    found = i;
            if (!strcmp(key, "PMI_process_mapping") && mode != 2)
                snprintf(out, sizeof out, "cmd=get_result rc=0 value=(vector,(0,1,1))\n");
            else if (found >= 0)
                snprintf(out, sizeof out, "cmd=get_result rc=0 msg=success value=%s\n", vals[found]);
            else
                snprintf(out, sizeof out, "cmd=get_result rc=-1 msg=key_not_found\n");
        } else if (!strcmp(c, "barrier_in"))
            snprintf(out, sizeof out, "cmd=barrier_out\n");
        else if (!strcmp(c, "finalize"))
            snprintf(out, sizeof out, "cmd=finalize_ack\n");
        else
            _exit(2);
        if (write(fd, out, strlen(out)) < 0)
            _exit(1);
    }
}

static pid_t start_server(int bad)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[1]);
        fake_server(sv[0], bad);
    }
    close(sv[0]);
    char b[16];
    snprintf(b, sizeof b, "%d", sv[1]);
    setenv("PMI_FD", b, 1);
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "1", 1);
    unsetenv("PMI_PORT");
    return pid;
}

Test(client, protocol_round_trip)
{
    pid_t pid = start_server(0);
    int rank = -1, size = -1, appnum = -1;
    cr_assert_eq(cu_pmi_init(&rank, &size, &appnum), 0);
    cr_assert_eq(rank, 0);
    cr_assert_eq(size, 1);
    cr_assert_eq(appnum, 3);
    cr_assert_str_eq(cu_pmi_kvsname(), "kvs_test");
    cr_assert_eq(cu_pmi_is_singleton(), 0);
    cr_assert_eq(cu_pmi_put("mine", "0123abcd"), 0);
    cr_assert_eq(cu_pmi_put("bad key", "x"), -1);
    cr_assert_eq(cu_pmi_put("k", "has space"), -1);
    cr_assert_eq(cu_pmi_barrier(), 0);
    char v[64];
    cr_assert_eq(cu_pmi_get("mine", v, sizeof v), 0);
    cr_assert_str_eq(v, "0123abcd");
    cr_assert_eq(cu_pmi_get("mine", v, 4), -1);    /* does not fit */
    cr_assert_eq(cu_pmi_get("other", v, sizeof v), -1);
    int node_of[1];
    cr_assert_eq(cu_pmi_node_map(1, node_of), 1);
    cr_assert_eq(node_of[0], 0);
    cr_assert_eq(cu_pmi_finalize(), 0);
    int ws;
    waitpid(pid, &ws, 0);
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

Test(client, node_map_without_mapping_uses_host_names)
{
    pid_t pid = start_server(2);
    cr_assert_eq(cu_pmi_init(NULL, NULL, NULL), 0);
    int node_of[1] = { -1 };
    cr_assert_eq(cu_pmi_node_map(1, node_of), 1);
    cr_assert_eq(node_of[0], 0);
    char v[300];
    cr_assert_eq(cu_pmi_get("host-0", v, sizeof v), 0);   /* it published its host */
    cr_assert_eq(cu_pmi_finalize(), 0);
    waitpid(pid, NULL, 0);
}

Test(client, garbage_reply_fails_cleanly)
{
    pid_t pid = start_server(1);
    cr_assert_eq(cu_pmi_init(NULL, NULL, NULL), -1);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

Test(client, bad_environment)
{
    setenv("PMI_FD", "not-a-number", 1);
    cr_assert_eq(cu_pmi_init(NULL, NULL, NULL), -1);
    setenv("PMI_FD", "999", 1);   /* not open */
    cr_assert_eq(cu_pmi_init(NULL, NULL, NULL), -1);
    unsetenv("PMI_FD");
    setenv("PMI_PORT", "nocolon", 1);
    cr_assert_eq(cu_pmi_init(NULL, NULL, NULL), -1);
    unsetenv("PMI_PORT");
}

Test(client, singleton)
{
    unsetenv("PMI_FD");
    unsetenv("PMI_PORT");
    int rank = -1, size = -1;
    cr_assert_eq(cu_pmi_init(&rank, &size, NULL), 0);
    cr_assert_eq(rank, 0);
    cr_assert_eq(size, 1);
    cr_assert_eq(cu_pmi_is_singleton(), 1);
    cr_assert_eq(cu_pmi_put("a", "1"), 0);
    cr_assert_eq(cu_pmi_put("a", "2"), 0);
    cr_assert_eq(cu_pmi_barrier(), 0);
    char v[8];
    cr_assert_eq(cu_pmi_get("a", v, sizeof v), 0);
    cr_assert_str_eq(v, "2");
    cr_assert_eq(cu_pmi_get("b", v, sizeof v), -1);
    int node_of[1] = { -1 };
    cr_assert_eq(cu_pmi_node_map(1, node_of), 1);
    cr_assert_eq(node_of[0], 0);
    cr_assert_eq(cu_pmi_finalize(), 0);
}
