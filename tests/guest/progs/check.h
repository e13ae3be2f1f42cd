/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the guest test programs: stop at the first failed check. */
#ifndef SROCE_TEST_CHECK_H
#define SROCE_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

/* Prints where and why, then exits 1: the case reports the message. */
#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, "\n");					\
		exit(1);						\
	}								\
} while (0)

#endif /* SROCE_TEST_CHECK_H */
