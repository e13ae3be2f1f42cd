// SPDX-License-Identifier: GPL-2.0
/*
 * ah_basic: address handles through the stock rxe provider.
 *
 *   ah_basic DEV create SGID_INDEX DEST [noglobal]
 *	create one AH on port 1 to DEST (an IPv4 address, used as its
 *	IPv4-mapped GID, or an IPv6 address) and destroy it; "noglobal"
 *	leaves out the GRH. Prints "create ok MS" or
 *	"create fail ERRNO (message) MS", MS being the time creation took;
 *	exits 0 only if creation succeeded.
 *   ah_basic DEV many SGID_INDEX DEST COUNT
 *	create COUNT AHs to DEST, then destroy them all. Prints
 *	"created N destroyed N"; exits 0 only if both are COUNT.
 *   ah_basic DEV hold SGID_INDEX DEST COUNT
 *	create COUNT AHs, print "holding N" and wait to be killed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "open_device.h"

/* DEST as a GID: IPv4 becomes ::ffff:a.b.c.d. */
static int parse_gid(const char *dest, union ibv_gid *gid)
{
	struct in_addr a4;

	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, dest, &a4) == 1) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &a4, 4);
		return 0;
	}
	return inet_pton(AF_INET6, dest, gid->raw) == 1 ? 0 : -1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	struct ibv_ah_attr attr = { .port_num = 1, .is_global = 1 };
	struct ibv_context *ctx;
	struct ibv_ah **ahs;
	struct ibv_pd *pd;
	const char *mode;
	int count = 1, i, created = 0, destroyed = 0, ret = 1;
	double t0;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: %s DEV create|many|hold SGID_INDEX DEST [noglobal|COUNT]\n",
			argv[0]);
		return 2;
	}
	mode = argv[2];
	attr.grh.sgid_index = atoi(argv[3]);
	attr.grh.hop_limit = 64;
	if (parse_gid(argv[4], &attr.grh.dgid)) {
		fprintf(stderr, "bad address %s\n", argv[4]);
		return 2;
	}
	if (!strcmp(mode, "create")) {
		if (argc == 6) {
			if (strcmp(argv[5], "noglobal"))
				return 2;
			attr.is_global = 0;
		}
	} else if (!strcmp(mode, "many") || !strcmp(mode, "hold")) {
		if (argc != 6)
			return 2;
		count = atoi(argv[5]);
		if (count <= 0)
			return 2;
	} else {
		return 2;
	}

	ctx = open_by_name(argv[1]);
	if (!ctx) {
		fprintf(stderr, "cannot open device %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	ahs = calloc(count, sizeof(*ahs));
	if (!pd || !ahs) {
		perror("ibv_alloc_pd");
		goto out_close;
	}

	if (!strcmp(mode, "create")) {
		t0 = now_ms();
		errno = 0;
		ahs[0] = ibv_create_ah(pd, &attr);
		if (ahs[0]) {
			printf("create ok %.0f\n", now_ms() - t0);
			ret = 0;
			if (ibv_destroy_ah(ahs[0])) {
				perror("ibv_destroy_ah");
				ret = 1;
			}
		} else {
			printf("create fail %d (%s) %.0f\n", errno,
			       strerror(errno), now_ms() - t0);
		}
		goto out_pd;
	}

	for (i = 0; i < count; i++) {
		ahs[i] = ibv_create_ah(pd, &attr);
		if (!ahs[i]) {
			perror("ibv_create_ah");
			break;
		}
		created++;
	}
	if (!strcmp(mode, "hold")) {
		printf("holding %d\n", created);
		fflush(stdout);
		for (;;)
			pause();
	}
	for (i = 0; i < created; i++) {
		if (ibv_destroy_ah(ahs[i]))
			perror("ibv_destroy_ah");
		else
			destroyed++;
	}
	printf("created %d destroyed %d\n", created, destroyed);
	ret = !(created == count && destroyed == count);
out_pd:
	if (ibv_dealloc_pd(pd)) {
		perror("ibv_dealloc_pd");
		ret = 1;
	}
out_close:
	free(ahs);
	if (ibv_close_device(ctx)) {
		perror("ibv_close_device");
		ret = 1;
	}
	return ret;
}
