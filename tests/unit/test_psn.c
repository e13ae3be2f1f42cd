// SPDX-License-Identifier: GPL-2.0
/* 24-bit PSN arithmetic, mostly around the wrap. */
#include <sroce/psn.h>
#include "unit.h"

static void add_sub_wrap(void)
{
	CHECK_EQ(sroce_psn_add(0xffffff, 1), 0);
	CHECK_EQ(sroce_psn_add(0xfffffe, 5), 3);
	CHECK_EQ(sroce_psn_add(5, 0xffffff), 4);
	CHECK_EQ(sroce_psn_add(0x123456, 0x1000000), 0x123456);
	CHECK_EQ(sroce_psn_sub(0, 1), 0xffffff);
	CHECK_EQ(sroce_psn_sub(3, 5), 0xfffffe);
	CHECK_EQ(sroce_psn_mask(0x1234567), 0x234567);
	CHECK_EQ(sroce_psn_mask(0xffffffff), 0xffffff);
}

static void diff_values(void)
{
	CHECK_EQ_S(sroce_psn_diff(5, 3), 2);
	CHECK_EQ_S(sroce_psn_diff(3, 5), -2);
	CHECK_EQ_S(sroce_psn_diff(0, 0xffffff), 1);
	CHECK_EQ_S(sroce_psn_diff(0xffffff, 0), -1);
	CHECK_EQ_S(sroce_psn_diff(2, 0xfffffe), 4);
	CHECK_EQ_S(sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	CHECK_EQ_S(sroce_psn_diff(0x800000, 0), -0x800000);
	CHECK_EQ_S(sroce_psn_diff(0, 0x800000), -0x800000);
	CHECK_EQ_S(sroce_psn_diff(0, 0x800001), 0x7fffff);
	CHECK_EQ_S(sroce_psn_diff(0x123456, 0x123456), 0);
	/* Bits above 24 are not part of a PSN. */
	CHECK_EQ_S(sroce_psn_diff(0x1000005, 5), 0);
	CHECK_EQ_S(sroce_psn_diff(0xff000001, 0xab000000), 1);
}

static void ordering(void)
{
	CHECK(sroce_psn_before(0xfffff0, 0x10));
	CHECK(!sroce_psn_after(0xfffff0, 0x10));
	CHECK(sroce_psn_after(0x10, 0xfffff0));
	CHECK(!sroce_psn_before(0x10, 0xfffff0));
	CHECK(!sroce_psn_before(7, 7));
	CHECK(!sroce_psn_after(7, 7));
	CHECK(sroce_psn_before_eq(7, 7));
	CHECK(sroce_psn_after_eq(7, 7));
	CHECK(sroce_psn_before_eq(0xffffff, 0));
	CHECK(!sroce_psn_after_eq(0xffffff, 0));
	CHECK(sroce_psn_after_eq(0, 0xffffff));
	/* Just under half the space ahead is still "after". */
	CHECK(sroce_psn_after(0x7fffff, 0));
	CHECK(sroce_psn_before(0x800000, 0));
}

/* diff(add(a, d), a) == d for every representable distance. */
static void roundtrip_random(void)
{
	int i;

	for (i = 0; i < 100000; i++) {
		u32 a = unit_rand(1u << 24);
		s32 d = (s32)unit_rand(1u << 24) - 0x800000;

		CHECK_EQ_S(sroce_psn_diff(sroce_psn_add(a, (u32)d), a), d);
		CHECK_EQ(sroce_psn_sub(sroce_psn_add(a, (u32)d), (u32)d), a);
		CHECK_EQ(sroce_psn_before(a, sroce_psn_add(a, (u32)d)), d > 0);
	}
}

UNIT_MAIN(UNIT_CASE(add_sub_wrap), UNIT_CASE(diff_values),
	  UNIT_CASE(ordering), UNIT_CASE(roundtrip_random))
