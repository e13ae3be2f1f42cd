// SPDX-License-Identifier: GPL-2.0
/*
 * limits DEV GID_INDEX [KERNEL_PDS]: the device's reported limits are
 * the enforced ones, and running into one is a clean error. KERNEL_PDS:
 * PDs kernel users (the MAD layer) hold on the device; each also holds
 * the DMA MR the core creates for it (the device has no local DMA lkey),
 * and both count against the device's limits.
 *  - every size limit (WRs, SGEs, inline data, CQEs, SRQ WRs and SGEs)
 *    is accepted exactly at the reported value and refused one above it
 *    with EINVAL;
 *  - PDs, AHs, SRQs, MWs (when the device has them) are created up to
 *    the reported maximum, the next one fails with ENOMEM, and after
 *    freeing one a new one can be created; everything is freed;
 *  - thousands of QPs (4096: each has two mapped rings, and a process
 *    may only map so much) and 2048 CQs at once;
 *  - more than 65536 MRs registered and freed in a row, and MRs up to the
 *    reported maximum (all on one page) then ENOMEM;
 *  - the largest message (port max_msg_sz) is at least 1 GiB.
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "open_device.h"

static struct ibv_context *ctx;
static struct ibv_device_attr dev;
static struct ibv_pd *pd;
static int kernel_pds;
static struct ibv_cq *cq;
static int gid_index;
static char page[4096] __attribute__((aligned(4096)));

/* Seconds since the start, for the progress lines. */
static double elapsed(void)
{
	static struct timespec t0;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!t0.tv_sec)
		t0 = t;
	return (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9;
}

static struct ibv_qp *try_qp(struct ibv_qp_cap cap)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = cap,
	};

	return ibv_create_qp(pd, &init);
}

/* @what at its limit works; one more fails with EINVAL. */
#define AT_LIMIT(what, make, undo, over) do {				\
	void *o_ = (make);						\
	CHECK(o_, "%s at the limit: %s", what, strerror(errno));	\
	undo;								\
	errno = 0;							\
	o_ = (over);							\
	CHECK(!o_ && errno == EINVAL, "%s over the limit: %s (%s)",	\
	      what, o_ ? "created" : "refused", strerror(errno));	\
	printf("[%6.1fs] ok %s: limit enforced\n", elapsed(), what);	\
} while (0)

static void sizes(void)
{
	struct ibv_qp_cap base = { .max_send_wr = 1, .max_recv_wr = 1,
				   .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_qp_cap c;
	struct ibv_qp *qp;
	struct ibv_cq *tcq;
	struct ibv_srq *srq;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1,
						  .max_sge = 1 } };

	c = base;
	c.max_send_wr = dev.max_qp_wr;
	qp = try_qp(c);
	CHECK(qp, "max_send_wr at the limit: %s", strerror(errno));
	ibv_destroy_qp(qp);
	c.max_send_wr = dev.max_qp_wr + 1;
	errno = 0;
	CHECK(!try_qp(c) && errno == EINVAL, "max_send_wr + 1: %s",
	      strerror(errno));
	printf("[%6.1fs] ok max_send_wr %d\n", elapsed(), dev.max_qp_wr);

	c = base;
	c.max_recv_wr = dev.max_qp_wr;
	AT_LIMIT("max_recv_wr", qp = try_qp(c), ibv_destroy_qp(qp),
		 (c.max_recv_wr++, try_qp(c)));
	c = base;
	c.max_send_sge = dev.max_sge;
	AT_LIMIT("max_send_sge", qp = try_qp(c), ibv_destroy_qp(qp),
		 (c.max_send_sge++, try_qp(c)));
	c = base;
	c.max_recv_sge = dev.max_sge;
	AT_LIMIT("max_recv_sge", qp = try_qp(c), ibv_destroy_qp(qp),
		 (c.max_recv_sge++, try_qp(c)));

	/* Inline data: no device attribute; at least 512 bytes promised. */
	c = base;
	c.max_inline_data = 512;
	qp = try_qp(c);
	CHECK(qp, "512 bytes of inline data: %s", strerror(errno));
	CHECK(!ibv_destroy_qp(qp), "destroy");
	c.max_inline_data = 1u << 20;
	CHECK(!try_qp(c), "1 MiB of inline data accepted");
	printf("[%6.1fs] ok inline data: 512 accepted, 1 MiB refused\n", elapsed());

	AT_LIMIT("max_cqe", tcq = ibv_create_cq(ctx, dev.max_cqe, NULL, NULL, 0),
		 ibv_destroy_cq(tcq),
		 ibv_create_cq(ctx, dev.max_cqe + 1, NULL, NULL, 0));

	sa.attr.max_wr = dev.max_srq_wr;
	srq = ibv_create_srq(pd, &sa);
	CHECK(srq, "max_srq_wr at the limit: %s", strerror(errno));
	ibv_destroy_srq(srq);
	sa.attr.max_wr = dev.max_srq_wr + 1;
	errno = 0;
	CHECK(!ibv_create_srq(pd, &sa) && errno == EINVAL,
	      "max_srq_wr + 1: %s", strerror(errno));
	sa.attr.max_wr = 1;
	sa.attr.max_sge = dev.max_srq_sge + 1;
	CHECK(!ibv_create_srq(pd, &sa), "max_srq_sge + 1 accepted");
	printf("[%6.1fs] ok max_srq_wr %d, max_srq_sge %d\n", elapsed(),
	       dev.max_srq_wr, dev.max_srq_sge);
}

/*
 * Up to @max objects (those the process already has count too: the
 * first failure must come exactly at @max - @have), then ENOMEM; one
 * freed, one more works.
 */
static void count_limit(const char *what, int max, int have,
			void *(*make)(void), void (*undo)(void *))
{
	void **objs = calloc(max + 1, sizeof(*objs));
	int n = 0, i;

	CHECK(objs, "out of memory");
	while (n <= max) {
		objs[n] = make();
		if (!objs[n])
			break;
		n++;
	}
	CHECK(n == max - have && errno == ENOMEM,
	      "%s: %d created (limit %d, %d held before), then '%s'", what,
	      n, max, have, strerror(errno));
	undo(objs[n - 1]);
	objs[n - 1] = make();
	CHECK(objs[n - 1], "%s: none after freeing one: %s", what,
	      strerror(errno));
	for (i = 0; i < n; i++)
		undo(objs[i]);
	free(objs);
	printf("[%6.1fs] ok %s: %d, then ENOMEM\n", elapsed(), what, max);
}

static void *make_pd(void) { return ibv_alloc_pd(ctx); }
static void undo_pd(void *o) { CHECK(!ibv_dealloc_pd(o), "dealloc_pd"); }

static void *make_ah(void)
{
	struct ibv_ah_attr a = { .is_global = 1, .port_num = 1 };

	CHECK(!ibv_query_gid(ctx, 1, gid_index, &a.grh.dgid), "query_gid");
	a.grh.sgid_index = gid_index;
	a.grh.hop_limit = 1;
	return ibv_create_ah(pd, &a);
}
static void undo_ah(void *o) { CHECK(!ibv_destroy_ah(o), "destroy_ah"); }

static void *make_srq(void)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 1, .max_sge = 1 } };

	return ibv_create_srq(pd, &a);
}
static void undo_srq(void *o) { CHECK(!ibv_destroy_srq(o), "destroy_srq"); }

static void *make_mw(void) { return ibv_alloc_mw(pd, IBV_MW_TYPE_1); }
static void undo_mw(void *o) { CHECK(!ibv_dealloc_mw(o), "dealloc_mw"); }

static void *make_mr(void)
{
	return ibv_reg_mr(pd, page, sizeof(page), IBV_ACCESS_LOCAL_WRITE);
}
static void undo_mr(void *o) { CHECK(!ibv_dereg_mr(o), "dereg_mr"); }

static void many_qps_cqs(void)
{
	struct ibv_qp_cap c = { .max_send_wr = 1, .max_recv_wr = 1,
				.max_send_sge = 1, .max_recv_sge = 1 };
	static struct ibv_qp *qps[4096];
	static struct ibv_cq *cqs[2048];
	int i;

	for (i = 0; i < 4096; i++) {
		qps[i] = try_qp(c);
		CHECK(qps[i], "QP %d: %s", i, strerror(errno));
	}
	for (i = 0; i < 2048; i++) {
		cqs[i] = ibv_create_cq(ctx, 1, NULL, NULL, 0);
		CHECK(cqs[i], "CQ %d: %s", i, strerror(errno));
	}
	for (i = 0; i < 4096; i++)
		CHECK(!ibv_destroy_qp(qps[i]), "destroy QP %d", i);
	for (i = 0; i < 2048; i++)
		CHECK(!ibv_destroy_cq(cqs[i]), "destroy CQ %d", i);
	printf("[%6.1fs] ok 4096 QPs and 2048 CQs at once\n", elapsed());
}

static void mr_churn(void)
{
	int i;

	for (i = 0; i < 70000; i++) {
		struct ibv_mr *mr = make_mr();

		CHECK(mr, "MR %d of 70000 in a row: %s", i, strerror(errno));
		undo_mr(mr);
	}
	printf("[%6.1fs] ok 70000 MRs registered and freed in a row\n", elapsed());
}

int main(int argc, char **argv)
{
	struct ibv_port_attr port;

	/* Line by line: a case that times out still shows how far it got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	elapsed();
	CHECK(argc == 3 || argc == 4, "usage: limits DEV GID_INDEX [KERNEL_PDS]");
	ctx = open_by_name(argv[1]);
	CHECK(ctx, "no device %s", argv[1]);
	gid_index = atoi(argv[2]);
	kernel_pds = argc > 3 ? atoi(argv[3]) : 0;
	CHECK(!ibv_query_device(ctx, &dev), "query_device");
	CHECK(!ibv_query_port(ctx, 1, &port), "query_port");
	CHECK(port.max_msg_sz >= (1u << 30), "max_msg_sz %u < 1 GiB",
	      port.max_msg_sz);
	printf("[%6.1fs] ok max_msg_sz %u\n", elapsed(), port.max_msg_sz);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	CHECK(pd && cq, "pd/cq");

	sizes();
	many_qps_cqs();
	mr_churn();
	count_limit("PDs", dev.max_pd, 1 + kernel_pds, make_pd, undo_pd);
	count_limit("AHs", dev.max_ah, 0, make_ah, undo_ah);
	count_limit("SRQs", dev.max_srq, 0, make_srq, undo_srq);
	if (dev.max_mw)
		count_limit("MWs", dev.max_mw, 0, make_mw, undo_mw);
	count_limit("MRs", dev.max_mr, kernel_pds, make_mr, undo_mr);

	CHECK(!ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd), "cleanup");
	printf("limits all ok\n");
	return 0;
}
