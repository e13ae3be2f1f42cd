/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit test harness. A test binary lists its cases with
 * UNIT_MAIN(); each case is a void function that uses the CHECK macros,
 * which record the first failure and return from the case.
 * The binary prints "PASS <prefix><case>" or "FAIL <prefix><case>: why"
 * (prefix from argv[1], default "unit/") and exits 1 if any case failed.
 */
#ifndef _UNIT_H
#define _UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

static char unit_reason[512];
static int unit_failed;

#define UNIT_FAIL(fmt, ...)						\
	do {								\
		snprintf(unit_reason, sizeof(unit_reason),		\
			 "%s:%d: " fmt, __FILE__, __LINE__,		\
			 ##__VA_ARGS__);				\
		unit_failed = 1;					\
		return;							\
	} while (0)

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			UNIT_FAIL("check failed: %s", #cond);		\
	} while (0)

/* Exact comparison of two integers of any width (unsigned view). */
#define CHECK_EQ(a, b)							\
	do {								\
		unsigned long long _a = (a), _b = (b);			\
		if (_a != _b)						\
			UNIT_FAIL("%s == %s: got 0x%llx, want 0x%llx",	\
				  #a, #b, _a, _b);			\
	} while (0)

#define CHECK_EQ_S(a, b)						\
	do {								\
		long long _a = (a), _b = (b);				\
		if (_a != _b)						\
			UNIT_FAIL("%s == %s: got %lld, want %lld",	\
				  #a, #b, _a, _b);			\
	} while (0)

#define CHECK_MEM(a, b, n)						\
	do {								\
		size_t _i, _n = (n);					\
		const unsigned char *_a = (const void *)(a);		\
		const unsigned char *_b = (const void *)(b);		\
		for (_i = 0; _i < _n; _i++)				\
			if (_a[_i] != _b[_i])				\
				UNIT_FAIL("%s vs %s: byte %zu is 0x%02x, " \
					  "want 0x%02x", #a, #b, _i,	\
					  _a[_i], _b[_i]);		\
	} while (0)

/* Run a helper that may fail and stop the case if it did. */
#define CALL(expr)							\
	do {								\
		expr;							\
		if (unit_failed)					\
			return;						\
	} while (0)

/* Deterministic xorshift64*, so failures reproduce. */
static uint64_t unit_rng_state = 0x9e3779b97f4a7c15ull;

static inline void unit_seed(uint64_t seed)
{
	unit_rng_state = seed ? seed : 1;
}

static inline uint64_t unit_rand64(void)
{
	unit_rng_state ^= unit_rng_state >> 12;
	unit_rng_state ^= unit_rng_state << 25;
	unit_rng_state ^= unit_rng_state >> 27;
	return unit_rng_state * 0x2545f4914f6cdd1dull;
}

/* Uniform-enough value in [0, n). */
static inline uint32_t unit_rand(uint32_t n)
{
	return n ? (uint32_t)((unit_rand64() >> 32) % n) : 0;
}

static inline void unit_fill(void *p, size_t len)
{
	unsigned char *b = p;

	while (len--)
		*b++ = (unsigned char)unit_rand64();
}

struct unit_case {
	const char *name;
	void (*fn)(void);
};

#define UNIT_CASE(f)	{ #f, f }

#define UNIT_MAIN(...)							\
int main(int argc, char **argv)						\
{									\
	static const struct unit_case cases[] = { __VA_ARGS__ };	\
	const char *prefix = argc > 1 ? argv[1] : "unit/";		\
	size_t i;							\
	int failures = 0;						\
									\
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {	\
		unit_failed = 0;					\
		unit_reason[0] = 0;					\
		unit_seed(0x5eed0000ull + i);				\
		cases[i].fn();						\
		if (unit_failed) {					\
			failures++;					\
			printf("FAIL %s%s: %s\n", prefix,		\
			       cases[i].name,				\
			       unit_reason);				\
		} else {						\
			printf("PASS %s%s\n", prefix, cases[i].name);	\
		}							\
		fflush(stdout);						\
	}								\
	return failures ? 1 : 0;					\
}

#endif /* _UNIT_H */
