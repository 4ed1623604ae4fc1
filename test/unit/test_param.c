/*
 * test_param.c — the table of runtime parameters (src/util/param_table.c)
 * and its reader (src/util/param.c) on their own: every row is well formed;
 * a value comes from a write, else the environment, else the default;
 * suffixes and int range; a malformed value or an unknown name is fatal;
 * cached readers see a write.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "src/util/param.h"

static const char *const categories[] = {
    "general", "pt2pt", "progress", "shm", "network", "rma", "agent", "collectives", "launcher",
};

Test(param, rows_are_well_formed)
{
    cr_assert_gt(cu_param_count, 40);
    for (int i = 0; i < cu_param_count; i++) {
        const cu_param_def *d = &cu_param_defs[i];
        cr_assert(!strncmp(d->name, "CLUMPI_", 7) && strlen(d->name) > 7, "row %d: %s", i,
                  d->name);
        for (const char *c = d->name; *c; c++)
            cr_assert((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_',
                      "%s: not an environment variable name", d->name);
        cr_assert(d->desc && strlen(d->desc) > 10, "%s: no description", d->name);
        int known = 0;
        for (size_t c = 0; c < sizeof categories / sizeof categories[0]; c++)
            known |= !strcmp(d->category, categories[c]);
        cr_assert(known, "%s: category %s", d->name, d->category);
        cr_assert_eq(cu_param_find(d->name), i, "%s is not found at its own row", d->name);
        cr_assert_eq(cu_param_find(d->name + 7), i, "%s without the prefix", d->name);
        cr_assert(d->level >= CU_LVL_USER_BASIC && d->level <= CU_LVL_DEV_ALL, "%s", d->name);
        if (d->type == CU_PARAM_STR) {
            cr_assert_eq(d->enum_id, -1, "%s: a string with an enumeration", d->name);
            cr_assert(!d->sdef || strlen(d->sdef) < CU_PARAM_STR_MAX, "%s", d->name);
        } else {
            cr_assert(d->idef >= INT_MIN && d->idef <= INT_MAX, "%s: default", d->name);
        }
        if (d->enum_id >= 0) {
            cr_assert_lt(d->enum_id, cu_param_nenums, "%s", d->name);
            const cu_param_enum *e = &cu_param_enums[d->enum_id];
            int has_default = 0;
            for (int k = 0; k < e->nitems; k++)
                has_default |= e->items[k].value == d->idef;
            cr_assert(has_default, "%s: default %ld is not in %s", d->name, d->idef, e->name);
        }
    }
}

Test(param, every_name_once)
{
    for (int i = 0; i < cu_param_count; i++)
        for (int j = i + 1; j < cu_param_count; j++)
            cr_assert(strcmp(cu_param_defs[i].name, cu_param_defs[j].name), "%s twice",
                      cu_param_defs[i].name);
    cr_assert_eq(cu_param_find("NO_SUCH_PARAMETER"), -1);
    cr_assert_eq(cu_param_find(NULL), -1);
}

Test(param, default_environment_write)
{
    unsetenv("CLUMPI_SHM_FRAGS");
    cr_assert_eq(cu_param_int("SHM_FRAGS"), cu_param_defs[cu_param_find("SHM_FRAGS")].idef);
    setenv("CLUMPI_SHM_FRAGS", "7", 1);
    cr_assert_eq(cu_param_int("SHM_FRAGS"), 7);
    setenv("CLUMPI_SHM_FRAGS", "", 1);   /* empty: unset */
    cr_assert_eq(cu_param_int("SHM_FRAGS"), 16);
    setenv("CLUMPI_SHM_FRAGS", "7", 1);
    unsigned gen = cu_param_gen;
    cr_assert_eq(cu_param_set_int(cu_param_find("SHM_FRAGS"), 9), 0);
    cr_assert_neq(cu_param_gen, gen);
    cr_assert_eq(cu_param_int("CLUMPI_SHM_FRAGS"), 9, "a write goes over the environment");
    cr_assert_eq(cu_param_set_str(cu_param_find("SHM_FRAGS"), ""), 0);
    cr_assert_eq(cu_param_int("SHM_FRAGS"), 16, "an empty write returns to the default");

    unsetenv("CLUMPI_NET");
    cr_assert_str_eq(cu_param_str("NET"), "direct");
    setenv("CLUMPI_NET", "agent", 1);
    cr_assert_str_eq(cu_param_str("NET"), "agent");
    unsetenv("CLUMPI_OFI_PROVIDER");
    cr_assert_null(cu_param_str("OFI_PROVIDER"), "no default: NULL");
    char big[CU_PARAM_STR_MAX + 1];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    cr_assert_eq(cu_param_set_str(cu_param_find("NET"), big), -1, "too long");
    big[CU_PARAM_STR_MAX - 1] = 0;
    cr_assert_eq(cu_param_set_str(cu_param_find("NET"), big), 0, "longest that fits");
    cr_assert_eq(cu_param_set_str(-1, "x"), -1);
    cr_assert_eq(cu_param_set_str(cu_param_count, "x"), -1);
}

Test(param, suffixes_and_range)
{
    int i = cu_param_find("RNDV_COOP");
    long v;
    const struct { const char *text; long want; int ok; } cases[] = {
        { "12", 12, 1 }, { "0x10", 16, 1 }, { "-3", -3, 1 }, { "4k", 4096, 1 },
        { "2M", 2 << 20, 1 }, { "1g", 1L << 30, 1 }, { "2g", 0, 0 }, { "3000000000", 0, 0 },
        { "12x", 0, 0 }, { "k", 0, 0 }, { "1kb", 0, 0 }, { "-2147483648", INT_MIN, 1 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cr_assert_eq(cu_param_set_str(i, cases[k].text), 0);
        int rc = cu_param_try_int_at(i, &v);
        cr_assert_eq(rc == 0, cases[k].ok, "%s", cases[k].text);
        if (cases[k].ok)
            cr_assert_eq(v, cases[k].want, "%s: %ld", cases[k].text, v);
    }
    cu_param_set_str(i, NULL);
}

Test(param, enum_spellings)
{
    int cma = cu_param_find("SHM_CMA"), over = cu_param_find("OVERSUBSCRIBED");
    long v;
    const struct { int idx; const char *text; long want; int ok; } cases[] = {
        { cma, "0", 0, 1 }, { cma, "1", 1, 1 }, { cma, "off", 0, 1 }, { cma, "ON", 1, 1 },
        { cma, "no", 0, 1 }, { cma, "Yes", 1, 1 }, { cma, "false", 0, 1 }, { cma, "TRUE", 1, 1 },
        { cma, "2", 0, 0 }, { cma, "-1", 0, 0 }, { cma, "auto", 0, 0 }, { cma, "onn", 0, 0 },
        { over, "-1", -1, 1 }, { over, "auto", -1, 1 }, { over, "yes", 1, 1 },
        { over, "no", 0, 1 }, { over, "2", 0, 0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cr_assert_eq(cu_param_set_str(cases[k].idx, cases[k].text), 0);
        int rc = cu_param_try_int_at(cases[k].idx, &v);
        cr_assert_eq(rc == 0, cases[k].ok, "%s", cases[k].text);
        if (cases[k].ok)
            cr_assert_eq(v, cases[k].want, "%s: %ld", cases[k].text, v);
    }
    cu_param_set_str(cma, NULL);
    cu_param_set_str(over, NULL);
    cr_assert(cu_param_in_enum(cma, 1) && !cu_param_in_enum(cma, 2));
    cr_assert(cu_param_in_enum(cu_param_find("SPIN"), 12345), "no enumeration: any value");
}

Test(param, check_all_finds_an_unread_malformed_value, .exit_code = 1)
{
    setenv("CLUMPI_AGENT_STATS", "maybe", 1);
    cu_param_check_all();
}

Test(param, check_all_passes_good_values)
{
    setenv("CLUMPI_AGENT_STATS", "true", 1);
    setenv("CLUMPI_NET", "agent", 1);
    cu_param_check_all();
    unsetenv("CLUMPI_AGENT_STATS");
    unsetenv("CLUMPI_NET");
}

Test(param, malformed_is_fatal, .exit_code = 1)
{
    setenv("CLUMPI_SPIN", "lots", 1);
    cu_param_int("SPIN");
}

Test(param, unknown_name_is_fatal, .exit_code = 1)
{
    cu_param_int("NO_SUCH_PARAMETER");
}

Test(param, cache_sees_a_write)
{
    static cu_param_cache c;
    unsetenv("CLUMPI_COLL_SEGSIZE");
    cr_assert_eq(cu_param_cached(&c, "COLL_SEGSIZE"), 32768);
    setenv("CLUMPI_COLL_SEGSIZE", "1000", 1);   /* not a write: stays cached */
    cr_assert_eq(cu_param_cached(&c, "COLL_SEGSIZE"), 32768);
    cr_assert_eq(cu_param_set_int(cu_param_find("COLL_SEGSIZE"), 4096), 0);
    cr_assert_eq(cu_param_cached(&c, "COLL_SEGSIZE"), 4096);
}
