// SPDX-License-Identifier: GPL-2.0
/*
 * pd_alloc DEVICE [COUNT]: open an RDMA device with libibverbs, check its
 * device and port attributes, allocate COUNT (default 1000) protection
 * domains, check their handles are distinct, free them all, and print a
 * summary the test case checks:
 *
 *   device sroce0 max_pd 1048576 phys_port_cnt 1
 *   port 1 state PORT_ACTIVE link_layer Ethernet active_mtu 3
 *   allocated 1000 distinct 1000 freed 1000
 *
 * Exit 0 only if every step worked.
 */
#include <infiniband/verbs.h>

#include "open_device.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_context *ctx;
	struct ibv_pd **pds;
	unsigned int *handles;
	int count, i, allocated = 0, freed = 0, distinct = 0, ret = 1;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s DEVICE [COUNT]\n", argv[0]);
		return 2;
	}
	count = argc == 3 ? atoi(argv[2]) : 1000;
	if (count <= 0)
		return 2;

	ctx = open_by_name(argv[1]);
	if (!ctx) {
		fprintf(stderr, "cannot open device %s\n", argv[1]);
		return 1;
	}
	if (ibv_query_device(ctx, &dattr)) {
		perror("ibv_query_device");
		goto out_close;
	}
	printf("device %s max_pd %d phys_port_cnt %u\n", argv[1], dattr.max_pd,
	       dattr.phys_port_cnt);
	if (ibv_query_port(ctx, 1, &pattr)) {
		perror("ibv_query_port");
		goto out_close;
	}
	printf("port 1 state %s link_layer %s active_mtu %d\n",
	       ibv_port_state_str(pattr.state),
	       pattr.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "other",
	       pattr.active_mtu);
	if (dattr.max_pd < count) {
		fprintf(stderr, "max_pd %d < %d\n", dattr.max_pd, count);
		goto out_close;
	}

	pds = calloc(count, sizeof(*pds));
	handles = calloc(count, sizeof(*handles));
	if (!pds || !handles)
		goto out_close;
	for (i = 0; i < count; i++) {
		pds[i] = ibv_alloc_pd(ctx);
		if (!pds[i]) {
			perror("ibv_alloc_pd");
			break;
		}
		handles[i] = pds[i]->handle;
		allocated++;
	}
	qsort(handles, allocated, sizeof(*handles), cmp_u32);
	for (i = 0; i < allocated; i++)
		if (i == 0 || handles[i] != handles[i - 1])
			distinct++;
	for (i = 0; i < allocated; i++) {
		if (ibv_dealloc_pd(pds[i]))
			perror("ibv_dealloc_pd");
		else
			freed++;
	}
	printf("allocated %d distinct %d freed %d\n", allocated, distinct, freed);
	ret = !(allocated == count && distinct == count && freed == count);
	free(pds);
	free(handles);
out_close:
	if (ibv_close_device(ctx)) {
		perror("ibv_close_device");
		ret = 1;
	}
	return ret;
}
