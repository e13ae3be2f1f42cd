/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet Sequence Number arithmetic. PSNs are 24-bit counters that wrap,
 * so ordering is only meaningful within half the space (2^23): a PSN is
 * "after" another when the forward distance to it is less than 2^23.
 */
#ifndef _SROCE_PSN_H
#define _SROCE_PSN_H

#include <sroce/wire_types.h>

#define SROCE_PSN_BITS	24
#define SROCE_PSN_MASK	0x00ffffffu

static inline u32 sroce_psn_mask(u32 psn)
{
	return psn & SROCE_PSN_MASK;
}

static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

static inline u32 sroce_psn_sub(u32 psn, u32 n)
{
	return (psn - n) & SROCE_PSN_MASK;
}

/*
 * a - b as a signed 24-bit value in [-2^23, 2^23). Shifting the 24-bit
 * difference into the top of a 32-bit word and back sign-extends it.
 */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << (32 - SROCE_PSN_BITS)) >> (32 - SROCE_PSN_BITS);
}

static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

static inline bool sroce_psn_after(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) > 0;
}

static inline bool sroce_psn_before_eq(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) <= 0;
}

static inline bool sroce_psn_after_eq(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) >= 0;
}

#endif /* _SROCE_PSN_H */
