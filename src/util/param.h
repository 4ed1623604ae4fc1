/*
 * param.h — runtime parameters: one table (param_table.c) names every
 * CLUMPI_* variable the library, mpirun and the NI agent read, with its
 * type, default, description, category and when it may change. Values come
 * from a write through cu_param_set (the MPI_T control variables), else the
 * environment, else the table's default. Leaf code: plain C types only.
 */
#ifndef CU_PARAM_H
#define CU_PARAM_H

#include <stddef.h>

typedef enum { CU_PARAM_INT, CU_PARAM_STR } cu_param_type;

/* When the library reads a parameter, so when a write can take effect. */
typedef enum {
    CU_PARAM_FIXED,        /* read at start-up, or by another process (mpirun, the agent) */
    CU_PARAM_BEFORE_INIT,  /* read during MPI_Init or later: writable until MPI_Init */
    CU_PARAM_LIVE,         /* read again after every write: writable at any time */
} cu_param_when;

/* Who must agree on a writable value: this process, or every process. */
typedef enum { CU_PARAM_LOCAL, CU_PARAM_ALL_EQ } cu_param_agree;

/* Audience, in MPI_T's order: user, tuner, developer x basic, detail, all. */
typedef enum {
    CU_LVL_USER_BASIC, CU_LVL_USER_DETAIL, CU_LVL_USER_ALL,
    CU_LVL_TUNER_BASIC, CU_LVL_TUNER_DETAIL, CU_LVL_TUNER_ALL,
    CU_LVL_DEV_BASIC, CU_LVL_DEV_DETAIL, CU_LVL_DEV_ALL,
} cu_param_level;

/* Named values of an integer parameter (MPI_T enumerations). */
typedef struct { int value; const char *name; } cu_param_item;
typedef struct {
    const char *name;
    int nitems;
    const cu_param_item *items;
} cu_param_enum;

typedef struct {
    const char *name;          /* the environment variable, "CLUMPI_..." */
    cu_param_type type;
    long idef;                 /* CU_PARAM_INT: default */
    const char *sdef;          /* CU_PARAM_STR: default, NULL when unset */
    const char *category;
    cu_param_when when;
    cu_param_agree agree;
    cu_param_level level;
    int enum_id;               /* index in cu_param_enums, or -1 */
    const char *desc;
    /* CU_PARAM_STR: NULL when the text is a valid value, else what is
     * accepted; a NULL check accepts any text. */
    const char *(*check)(const char *text);
} cu_param_def;

#define CU_PARAM_STR_MAX 256   /* longest string value, terminator included */

extern const cu_param_def cu_param_defs[];
extern const int cu_param_count;
extern const cu_param_enum cu_param_enums[];
extern const int cu_param_nenums;

/* Bumped by every cu_param_set: readers that cache a LIVE value compare it
 * with the generation they read at (never 0, so a zeroed cache is stale). */
extern unsigned cu_param_gen;

/* Index of CLUMPI_<name> ("SHM_FRAGS") or of a full name ("CLUMPI_SHM_FRAGS")
 * in the table, or -1. */
int cu_param_find(const char *name);

/* CLUMPI_<name> as an integer (accepts k/m/g suffixes), or the table's
 * default when unset. A malformed or out-of-range (int) value is a fatal
 * error naming the variable, and so is a name missing from the table. */
long        cu_param_int(const char *name);
/* CLUMPI_<name> as a string, or the table's default (may be NULL). */
const char *cu_param_str(const char *name);

/* The value in force of parameter idx: an integer or a string. */
long        cu_param_int_at(int idx);
const char *cu_param_str_at(int idx);
/* The same integer without the fatal error: 0, or -1 when malformed. An
 * enumerated row takes its values, as numbers or by name; "on" and "off"
 * are also spelt yes/true and no/false (any case). */
int         cu_param_try_int_at(int idx, long *out);
/* Whether v is a value of parameter idx's enumeration (or it has none). */
int         cu_param_in_enum(int idx, long v);

/* Check the value in force of every parameter: a malformed one ends the
 * process with one line naming the variable, the value and what is
 * accepted. */
void cu_param_check_all(void);
/* Check NAME=value as the environment would give it: a parameter's malformed
 * value is fatal as above; a CLUMPI_* name that is neither a parameter nor
 * one of the launcher's own variables warns, naming the closest parameter. */
void cu_param_check_var(const char *name, const char *value);
/* cu_param_check_var's warning for every CLUMPI_* variable of env. */
void cu_param_warn_unknown(char **env);

/* Set parameter idx for this process (over the environment): an integer,
 * or a string (NULL or "" returns to the default). 0, or -1 when the
 * value does not fit (string longer than CU_PARAM_STR_MAX - 1) or memory
 * runs out. Does not check `when`: the caller does. */
int cu_param_set_int(int idx, long v);
int cu_param_set_str(int idx, const char *s);

/* A cached integer parameter, re-read after any write. */
typedef struct { unsigned gen; long v; } cu_param_cache;
static inline long cu_param_cached(cu_param_cache *c, const char *name)
{
    if (__builtin_expect(c->gen != cu_param_gen, 0)) {
        c->v = cu_param_int(name);
        c->gen = cu_param_gen;
    }
    return c->v;
}

#endif
