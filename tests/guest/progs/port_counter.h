/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the guest test programs: read a port counter of a device. */
#ifndef SROCE_TEST_PORT_COUNTER_H
#define SROCE_TEST_PORT_COUNTER_H

#include <stdio.h>

/* Port 1's counter @name of device @dev, or -1 if it has none (rxe). */
static inline long long port_counter(const char *dev, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

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
