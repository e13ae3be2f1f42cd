/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A memfd that holds a data pattern (data_pattern.h): file-backed pages
 * that nothing has mapped yet, for the ODP programs. Needs _GNU_SOURCE
 * (memfd_create) before the first include of the program.
 */
#ifndef SROCE_TEST_PATTERN_MEMFD_H
#define SROCE_TEST_PATTERN_MEMFD_H

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "data_pattern.h"

/* A memfd of @len bytes of pattern @seed (@seed < 0: zeros). */
static inline int pattern_memfd(size_t len, int seed)
{
	uint8_t chunk[16384];
	size_t off, n;
	ssize_t w;
	int fd;

	fd = memfd_create("pattern", MFD_CLOEXEC);
	CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	CHECK(!ftruncate(fd, len), "ftruncate: %s", strerror(errno));
	for (off = 0; seed >= 0 && off < len; off += w) {
		n = len - off < sizeof(chunk) ? len - off : sizeof(chunk);
		fill_pattern(chunk, n, seed, off);
		w = write(fd, chunk, n);
		CHECK(w > 0, "write to the memfd: %s", strerror(errno));
	}
	return fd;
}

#endif
