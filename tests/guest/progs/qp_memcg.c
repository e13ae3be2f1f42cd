// SPDX-License-Identifier: GPL-2.0
/*
 * qp_memcg DEVICE MAX WR: creates up to MAX RC QPs of WR send and receive
 * WRs each (rings, shadow copies: a few MiB per QP) until one fails,
 * destroys them all, then prints what happened:
 *
 *   created 9 errno 12 (Cannot allocate memory)
 *
 * errno 0 means all MAX were created. Nothing is allocated between the
 * failure and the destroys: run in a memory cgroup at its limit, this
 * process must not need a page before it has given the QPs' back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "open_device.h"

#define MAX_QPS	256

static struct ibv_qp *qps[MAX_QPS];

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = { .qp_type = IBV_QPT_RC };
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int max, i, n, err = 0;

	CHECK(argc == 4, "usage: qp_memcg DEVICE MAX WR");
	max = atoi(argv[2]);
	CHECK(max > 0 && max <= MAX_QPS, "MAX 1..%d", MAX_QPS);
	ctx = open_by_name(argv[1]);
	CHECK(ctx, "open %s", argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK(pd && cq, "pd/cq");
	init.send_cq = cq;
	init.recv_cq = cq;
	init.cap.max_send_wr = atoi(argv[3]);
	init.cap.max_recv_wr = init.cap.max_send_wr;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;

	for (n = 0; n < max; n++) {
		qps[n] = ibv_create_qp(pd, &init);
		if (!qps[n]) {
			err = errno;
			break;
		}
	}
	for (i = 0; i < n; i++)
		CHECK(!ibv_destroy_qp(qps[i]), "destroy QP %d", i);
	printf("created %d errno %d (%s)\n", n, err, strerror(err));
	CHECK(!ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd), "destroy cq/pd");
	ibv_close_device(ctx);
	return 0;
}
