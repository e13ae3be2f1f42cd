/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the guest test programs: read a port counter of a device. */
#ifndef SROCE_TEST_PORT_COUNTER_H
#define SROCE_TEST_PORT_COUNTER_H

#include <stdio.h>
#include <time.h>

/*
 * Port 1's counter @name of device @dev, or -1 if it has none (rxe). The
 * core reads a device's counters again only once the values it read last
 * are 10 ms old: the wait makes the value at least as new as the call,
 * or a read just after a transfer could show the values from before it
 * (and a check that a counter did not move could not fail).
 */
static inline long long port_counter(const char *dev, const char *name)
{
	struct timespec cache_age = { 0, 20 * 1000000L };
	char path[256];
	long long v = -1;
	FILE *f;

	nanosleep(&cache_age, NULL);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

#endif
