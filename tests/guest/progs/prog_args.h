/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the guest test programs: their command line. */
#ifndef SROCE_TEST_PROG_ARGS_H
#define SROCE_TEST_PROG_ARGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/*
 * The options @opts (getopt(3) letters; "l:" for one that takes a number)
 * into the ints @val points to: *val[i] for the i-th letter, set to 1 for
 * a flag that is given, to the number for an option. An unknown option,
 * or other than @nargs arguments after the options, fails with @usage.
 * Returns those arguments. First makes stdout line buffered: the "ok ..."
 * lines of a program that fails or times out show how far it got, in
 * order with its FAIL line.
 */
static inline char **prog_args(int argc, char **argv, const char *opts,
			       int *const val[], int nargs, const char *usage)
{
	const char *at, *p;
	int opt, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, opts)) != -1) {
		at = opt != ':' && opt != '?' ? strchr(opts, opt) : NULL;
		CHECK(at, "%s", usage);
		for (i = 0, p = opts; p < at; p++)
			i += *p != ':';
		*val[i] = at[1] == ':' ? atoi(optarg) : 1;
	}
	CHECK(argc - optind == nargs, "%s", usage);
	return argv + optind;
}

#endif /* SROCE_TEST_PROG_ARGS_H */
