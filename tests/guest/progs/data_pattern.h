/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the guest test programs that check transferred bytes: a
 * pattern that a transfer cannot fake by shifting or repeating bytes, and
 * the untouched memory (FILL) around a transfer, which must stay so.
 */
#ifndef SROCE_TEST_DATA_PATTERN_H
#define SROCE_TEST_DATA_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#define FILL		0xee	/* what untouched memory holds */
#define GUARD		64	/* checked bytes on each side of a transfer */

/* The byte at index @i of pattern @seed: not periodic in 256 or any MTU. */
static inline uint8_t pattern_byte(unsigned int seed, size_t i)
{
	return (uint8_t)(i * 131 + seed * 59 + (i >> 9) + (i >> 17) * 7);
}

/* Bytes @first to @first + @n - 1 of pattern @seed, to @p. */
static inline void fill_pattern(uint8_t *p, size_t n, unsigned int seed,
				size_t first)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = pattern_byte(seed, first + i);
}

/* The @n bytes at @p are bytes @first on of pattern @seed. */
static inline void check_pattern(const uint8_t *p, size_t n,
				 unsigned int seed, size_t first,
				 const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		CHECK(p[i] == pattern_byte(seed, first + i),
		      "%s: byte %zu is %#x, expected %#x", what, first + i,
		      p[i], pattern_byte(seed, first + i));
}

/* The @n bytes at @p are all still FILL. */
static inline void check_untouched(const uint8_t *p, size_t n,
				   const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		CHECK(p[i] == FILL, "%s: untouched byte %zu is %#x", what, i,
		      p[i]);
}

/* FILL over the @n bytes at @p and the GUARD bytes on each side. */
static inline void fill_guarded(uint8_t *p, size_t n)
{
	memset(p - GUARD, FILL, n + 2 * GUARD);
}

/* The GUARD bytes on each side of the @n at @p are still FILL. */
static inline void check_guards(const uint8_t *p, size_t n, const char *what)
{
	check_untouched(p - GUARD, GUARD, what);
	check_untouched(p + n, GUARD, what);
}

/* Pattern @seed from its start in the @n bytes at @p, FILL around them. */
static inline void check_guarded_pattern(const uint8_t *p, size_t n,
					 unsigned int seed, const char *what)
{
	check_untouched(p - GUARD, GUARD, what);
	check_pattern(p, n, seed, 0, what);
	check_untouched(p + n, GUARD, what);
}

/* The @len bytes at @p are all zero (memory never written: fresh pages). */
static inline void check_zero(const uint8_t *p, size_t len, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		CHECK(!p[i], "%s: byte %zu of %zu that must be zero is %#x",
		      what, i, len, p[i]);
}

/* Bytes @first on of pattern @seed in the @n at @p, GUARD zeros around. */
static inline void check_pattern_in_zeros(const uint8_t *p, size_t n,
					  unsigned int seed, size_t first,
					  const char *what)
{
	check_zero(p - GUARD, GUARD, what);
	check_pattern(p, n, seed, first, what);
	check_zero(p + n, GUARD, what);
}

#endif /* SROCE_TEST_DATA_PATTERN_H */
