/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the guest test programs: open an RDMA device by its name. */
#ifndef SROCE_TEST_OPEN_DEVICE_H
#define SROCE_TEST_OPEN_DEVICE_H

#include <string.h>
#include <infiniband/verbs.h>

/* The opened device, or NULL if there is no device of that name. */
static inline struct ibv_context *open_by_name(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

#endif /* SROCE_TEST_OPEN_DEVICE_H */
