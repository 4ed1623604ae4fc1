/* test_agent_flow.c — the NI agent's credit flow control and slot pool
 * (netmod/agent/agent_flow.c, agent_slots.c), driven without a network. */
#include <errno.h>
#include <criterion/criterion.h>
#include "netmod/agent/agent_flow.h"
#include "netmod/agent/agent_slots.h"

Test(agent_flow, window_then_block_in_order)
{
    agt_flow f;
    cr_assert_eq(agt_flow_init(&f, 3, 4), 0);
    agt_pend p[8];
    for (int i = 0; i < 4; i++)
        cr_assert_eq(agt_flow_admit(&f, 1, &p[i]), 1, "packet %d within the window", i);
    for (int i = 4; i < 8; i++)
        cr_assert_eq(agt_flow_admit(&f, 1, &p[i]), 0, "packet %d must wait", i);
    cr_assert_eq(f.stalls, 4);
    /* other destinations are not held up */
    cr_assert_eq(agt_flow_admit(&f, 2, &p[0]), 1);
    cr_assert_null(agt_flow_next(&f, 1));
    agt_flow_credit(&f, 1, 3);
    cr_assert_eq(agt_flow_next(&f, 1), &p[4]);
    cr_assert_eq(agt_flow_next(&f, 1), &p[5]);
    cr_assert_eq(agt_flow_next(&f, 1), &p[6]);
    cr_assert_null(agt_flow_next(&f, 1), "credits used up");
    /* a new packet does not overtake the blocked one */
    agt_flow_credit(&f, 1, 0);
    agt_pend q;
    cr_assert_eq(agt_flow_admit(&f, 1, &q), 0);
    agt_flow_credit(&f, 1, 2);
    cr_assert_eq(agt_flow_next(&f, 1), &p[7]);
    cr_assert_eq(agt_flow_next(&f, 1), &q);
    agt_flow_fini(&f);
}

Test(agent_flow, half_window_ack_and_piggyback)
{
    agt_flow f;
    cr_assert_eq(agt_flow_init(&f, 2, 8), 0);
    cr_assert_eq(agt_flow_released(&f, 0), 0);
    cr_assert_eq(agt_flow_released(&f, 0), 0);
    cr_assert_eq(agt_flow_released(&f, 0), 0);
    cr_assert_eq(agt_flow_released(&f, 0), 1, "W/2 released: explicit ack due");
    cr_assert_eq(agt_flow_take_owed(&f, 0), 4);
    cr_assert_eq(agt_flow_take_owed(&f, 0), 0, "piggybacked credits are taken once");
    cr_assert_eq(agt_flow_released(&f, 1), 0, "counts are per node");
    agt_flow_fini(&f);   /* agt_flow_init clears f: it would lose the arrays */
    cr_assert_eq(agt_flow_init(&f, 2, 1), -EINVAL);
}

Test(agent_slots, pool_exhaustion_and_refcount)
{
    agt_slots p;
    cr_assert_eq(agt_slots_init(&p, 4, 2048), 0);
    int k[4];
    for (int i = 0; i < 4; i++) {
        k[i] = agt_slot_get(&p);
        cr_assert_geq(k[i], 0);
        for (int j = 0; j < i; j++)
            cr_assert_neq(k[i], k[j], "a slot is handed out once");
        agt_slot_mem(&p, (uint32_t)k[i])[2047] = (char)i;   /* whole MTU usable */
    }
    cr_assert_eq(agt_slot_get(&p), -1, "pool exhausted");
    /* multicast: delivered to the host and forwarded to two children */
    agt_slot_ref(&p, (uint32_t)k[2]);
    agt_slot_ref(&p, (uint32_t)k[2]);
    cr_assert_eq(agt_slot_put(&p, (uint32_t)k[2]), 0);
    cr_assert_eq(agt_slot_put(&p, (uint32_t)k[2]), 0);
    cr_assert_eq(agt_slot_get(&p), -1, "still held");
    cr_assert_eq(agt_slot_put(&p, (uint32_t)k[2]), 1, "last holder frees it");
    cr_assert_eq(agt_slot_get(&p), k[2]);
    cr_assert_eq(agt_slot_put(&p, (uint32_t)k[0]), 1);
    cr_assert_lt(agt_slot_put(&p, (uint32_t)k[0]), 0, "double free is refused");
    agt_slots_fini(&p);
}

Test(agent_flow, train_takes_all_credits_or_none)
{
    agt_flow f;
    cr_assert_eq(agt_flow_init(&f, 2, 8), 0);
    cr_assert_eq(agt_flow_admit_n(&f, 1, 5), 1, "5 of 8 credits");
    cr_assert_eq(agt_flow_admit_n(&f, 1, 4), 0, "3 left: not all at once");
    cr_assert_eq(f.credits[1], 3, "a refused train takes nothing");
    agt_pend p[4];
    for (int i = 0; i < 3; i++)
        cr_assert_eq(agt_flow_admit(&f, 1, &p[i]), 1);
    cr_assert_eq(agt_flow_admit(&f, 1, &p[3]), 0, "out of credits: queued");
    agt_flow_credit(&f, 1, 8);
    cr_assert_eq(agt_flow_admit_n(&f, 1, 2), 0, "a train never overtakes a queued packet");
    cr_assert_eq(agt_flow_next(&f, 1), &p[3]);
    cr_assert_eq(agt_flow_admit_n(&f, 1, 7), 1);
    cr_assert_eq(f.credits[1], 0);
    cr_assert_eq(agt_flow_admit_n(&f, 0, 8), 1, "credits are per node");
    agt_flow_fini(&f);
}

Test(agent_slots, reserve_for_arriving_packets)
{
    agt_slots p;
    cr_assert_eq(agt_slots_init(&p, 4, 2048), 0);
    p.reserve = 2;
    cr_assert_eq(agt_slot_avail(&p), 2);
    int a = agt_slot_get(&p), b = agt_slot_get(&p);
    cr_assert(a >= 0 && b >= 0);
    cr_assert_eq(agt_slot_get(&p), -1, "the reserve is not handed out");
    cr_assert_eq(agt_slot_avail(&p), 0);
    int r1 = agt_slot_get_rx(&p), r2 = agt_slot_get_rx(&p);
    cr_assert(r1 >= 0 && r2 >= 0, "arriving packets take the reserve");
    cr_assert_eq(agt_slot_get_rx(&p), -1, "empty");
    cr_assert_eq(agt_slot_put(&p, (uint32_t)r1), 1);
    cr_assert_eq(agt_slot_get(&p), -1, "a freed slot refills the reserve first");
    agt_slots_fini(&p);
}
