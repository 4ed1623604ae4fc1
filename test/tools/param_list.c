/*
 * param_list.c — prints every row of src/util/param_table.c as
 * "NAME<TAB>DEFAULT", the default as doc/TUNING.md shows it: an integer
 * (with its enumeration's name, "-1 (auto)"), a string, or "(unset)" for
 * a string without one. Used by test/tuning_doc.sh.
 */
#include <stdio.h>
#include "src/util/param.h"

int main(void)
{
    for (int i = 0; i < cu_param_count; i++) {
        const cu_param_def *d = &cu_param_defs[i];
        printf("%s\t", d->name);
        if (d->type == CU_PARAM_STR) {
            printf("%s\n", d->sdef ? d->sdef : "(unset)");
            continue;
        }
        printf("%ld", d->idef);
        /* an enumerated default other than off/on shows its name */
        if (d->enum_id >= 0 && cu_param_enums[d->enum_id].nitems > 2)
            for (int k = 0; k < cu_param_enums[d->enum_id].nitems; k++)
                if (cu_param_enums[d->enum_id].items[k].value == d->idef)
                    printf(" (%s)", cu_param_enums[d->enum_id].items[k].name);
        printf("\n");
    }
    return 0;
}
