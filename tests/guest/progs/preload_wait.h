/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the preload libraries (linger, connect_delay): wait the number of
 * milliseconds that an environment variable names, or a default.
 */
#ifndef PRELOAD_WAIT_H
#define PRELOAD_WAIT_H

#include <stdlib.h>
#include <time.h>

static inline void preload_wait(const char *var, long default_ms)
{
	const char *ms = getenv(var);
	long wait_ms = ms ? atol(ms) : default_ms;
	struct timespec ts = {
		.tv_sec = wait_ms / 1000,
		.tv_nsec = (wait_ms % 1000) * 1000000L,
	};

	/* Resumed after a signal, for the time that is left. */
	while (wait_ms > 0 && nanosleep(&ts, &ts))
		;
}

#endif
