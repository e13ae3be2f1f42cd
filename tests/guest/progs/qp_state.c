// SPDX-License-Identifier: GPL-2.0
/*
 * qp_state DEV: queue pair objects through the stock rxe provider.
 * Checks the capabilities written back at creation, the state machine
 * (legal and illegal transitions), the attributes query_qp returns, flush
 * errors for every outstanding WQE on entering ERR, silent discard on
 * RESET, creation limits, and many QPs with distinct numbers.
 * Prints one line per check group; exits 1 at the first failed check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "check.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static union ibv_gid gid;
static int gid_index = -1;

static struct ibv_qp *make_qp(enum ibv_qp_type type, unsigned int send_wr,
			      unsigned int recv_wr, unsigned int sge,
			      unsigned int inline_data)
{
	struct ibv_qp_init_attr init = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = type,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = recv_wr,
			 .max_send_sge = sge, .max_recv_sge = sge,
			 .max_inline_data = inline_data },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (qp) {
		CHECK(init.cap.max_send_wr >= send_wr, "send_wr %u < %u",
		      init.cap.max_send_wr, send_wr);
		CHECK(init.cap.max_recv_wr >= recv_wr, "recv_wr");
		CHECK(init.cap.max_send_sge >= sge, "send_sge %u < %u",
		      init.cap.max_send_sge, sge);
		CHECK(init.cap.max_inline_data >= inline_data, "inline %u < %u",
		      init.cap.max_inline_data, inline_data);
	}
	return qp;
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
		.qkey = 0x11111111,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return ibv_modify_qp(qp, &a, mask);
}

static int to_rtr(struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dest_qpn, .rq_psn = 0x123456,
		.max_dest_rd_atomic = 4, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = gid, .sgid_index = gid_index,
				      .hop_limit = 64 } },
	};
	int mask = IBV_QP_STATE;

	if (qp->qp_type != IBV_QPT_UD)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return ibv_modify_qp(qp, &a, mask);
}

static int to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .sq_psn = 0xabcdef, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 6, .max_rd_atomic = 4,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return ibv_modify_qp(qp, &a, mask);
}

static enum ibv_qp_state state_of(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;

	CHECK(!ibv_query_qp(qp, &a, IBV_QP_STATE, &i), "query_qp");
	return a.qp_state;
}

static void post_recv(struct ibv_qp *qp, uint64_t wr_id, void *buf)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64,
			       .lkey = 0 };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	CHECK(!ibv_post_recv(qp, &wr, &bad), "post_recv %llu",
	      (unsigned long long)wr_id);
}

/* Expects exactly the flush completions listed, in order, then none. */
static void expect_flush(struct ibv_cq *cq, struct ibv_qp *qp,
			 const uint64_t *ids, int n)
{
	struct ibv_wc wc[8];
	int got = 0, i, r;

	for (i = 0; i < 100 && got < n; i++) {
		r = ibv_poll_cq(cq, 8, wc + got);
		CHECK(r >= 0, "poll_cq");
		got += r;
	}
	CHECK(got == n, "%d flush completions, expected %d", got, n);
	for (i = 0; i < n; i++) {
		CHECK(wc[i].status == IBV_WC_WR_FLUSH_ERR, "status %d",
		      wc[i].status);
		CHECK(wc[i].wr_id == ids[i], "wr_id %llu, expected %llu",
		      (unsigned long long)wc[i].wr_id,
		      (unsigned long long)ids[i]);
		CHECK(wc[i].qp_num == qp->qp_num, "qp_num");
	}
	CHECK(ibv_poll_cq(cq, 8, wc) == 0, "extra completions");
}

static void check_rc_lifecycle(void)
{
	static char buf[4096];
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;
	struct ibv_qp *qp = make_qp(IBV_QPT_RC, 16, 16, 2, 64);
	const uint64_t rids[] = { 100, 101, 102 }, sids[] = { 200, 201 };
	struct ibv_send_wr swr[2], *bad;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 8 };

	CHECK(qp, "create RC QP: %s", strerror(errno));
	CHECK(qp->qp_num > 1 && qp->qp_num <= 0xffffff, "qp_num %u",
	      qp->qp_num);
	CHECK(state_of(qp) == IBV_QPS_RESET, "new QP not in RESET");

	/* Illegal: RESET -> RTR/RTS; INIT with a bad port. */
	CHECK(to_rtr(qp, 0x42) && errno == EINVAL, "RESET->RTR allowed");
	CHECK(to_rts(qp) && errno == EINVAL, "RESET->RTS allowed");
	a.qp_state = IBV_QPS_INIT; a.port_num = 2; a.pkey_index = 0;
	a.qp_access_flags = 0;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT |
			    IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS),
	      "INIT on port 2 allowed");

	CHECK(!to_init(qp), "RESET->INIT: %s", strerror(errno));
	/* INIT -> RTR without the path is missing required attributes. */
	a.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE), "bare INIT->RTR allowed");
	CHECK(!to_rtr(qp, 0x42), "INIT->RTR: %s", strerror(errno));
	CHECK(!to_rts(qp), "RTR->RTS: %s", strerror(errno));

	memset(&a, 0, sizeof(a));
	CHECK(!ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_SQ_PSN | IBV_QP_RQ_PSN | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_CAP, &i), "query_qp");
	CHECK(a.qp_state == IBV_QPS_RTS, "state %d", a.qp_state);
	CHECK(a.path_mtu == IBV_MTU_1024, "path_mtu %d", a.path_mtu);
	CHECK(a.dest_qp_num == 0x42, "dest_qp_num %#x", a.dest_qp_num);
	CHECK(a.rq_psn == 0x123456, "rq_psn %#x", a.rq_psn);
	CHECK(a.sq_psn == 0xabcdef, "sq_psn %#x", a.sq_psn);
	CHECK(a.timeout == 14 && a.retry_cnt == 7 && a.rnr_retry == 6,
	      "timeout %d retry %d rnr %d", a.timeout, a.retry_cnt,
	      a.rnr_retry);
	CHECK(!memcmp(&a.ah_attr.grh.dgid, &gid, sizeof(gid)), "dgid");
	CHECK(a.ah_attr.grh.sgid_index == gid_index, "sgid_index");
	CHECK(i.cap.max_inline_data >= 64, "inline cap");
	printf("rc transitions ok qpn %u\n", qp->qp_num);

	/* Receives posted in RTS flush on ERR, in order. */
	post_recv(qp, 100, buf);
	post_recv(qp, 101, buf);
	post_recv(qp, 102, buf);
	a.qp_state = IBV_QPS_ERR;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "RTS->ERR");
	expect_flush(rcq, qp, rids, 3);

	/* Sends posted in ERR flush too, signalled or not. */
	memset(swr, 0, sizeof(swr));
	swr[0].wr_id = 200; swr[0].opcode = IBV_WR_SEND;
	swr[0].sg_list = &sge; swr[0].num_sge = 1;
	swr[0].send_flags = IBV_SEND_SIGNALED; swr[0].next = &swr[1];
	swr[1] = swr[0]; swr[1].wr_id = 201; swr[1].send_flags = 0;
	swr[1].next = NULL;
	CHECK(!ibv_post_send(qp, swr, &bad), "post_send in ERR: %s",
	      strerror(errno));
	expect_flush(scq, qp, sids, 2);
	printf("flush ok\n");

	/* RESET discards without completions; the QP is usable again. */
	a.qp_state = IBV_QPS_RESET;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "ERR->RESET");
	CHECK(!to_init(qp), "RESET->INIT again");
	post_recv(qp, 300, buf);
	a.qp_state = IBV_QPS_RESET;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "INIT->RESET");
	expect_flush(rcq, qp, NULL, 0);
	CHECK(!to_init(qp) && !to_rtr(qp, 7) && !to_rts(qp), "second bring-up");
	CHECK(state_of(qp) == IBV_QPS_RTS, "not RTS after second bring-up");
	printf("reset ok\n");
	CHECK(!ibv_destroy_qp(qp), "destroy");
}

static void check_other_types(void)
{
	struct ibv_qp *uc = make_qp(IBV_QPT_UC, 8, 8, 1, 0);
	struct ibv_qp *ud = make_qp(IBV_QPT_UD, 8, 8, 1, 0);

	CHECK(uc && ud, "create UC/UD: %s", strerror(errno));
	CHECK(!to_init(uc) && !to_rtr(uc, 9) && !to_rts(uc), "UC bring-up: %s",
	      strerror(errno));
	CHECK(!to_init(ud) && !to_rtr(ud, 0) && !to_rts(ud), "UD bring-up: %s",
	      strerror(errno));
	CHECK(state_of(uc) == IBV_QPS_RTS && state_of(ud) == IBV_QPS_RTS,
	      "UC/UD not RTS");
	CHECK(!ibv_destroy_qp(uc) && !ibv_destroy_qp(ud), "destroy UC/UD");
	printf("uc ud ok\n");
}

static void check_limits(const struct ibv_device_attr *dev)
{
	CHECK(!make_qp(IBV_QPT_RC, dev->max_qp_wr + 1, 1, 1, 0),
	      "send_wr above max_qp_wr accepted");
	CHECK(!make_qp(IBV_QPT_RC, 1, 1, dev->max_sge + 1, 0),
	      "sge above max_sge accepted");
	CHECK(!make_qp(IBV_QPT_RC, 1, 1, 1, 4096), "4096 inline accepted");
	printf("limits ok\n");
}

#define MANY 1000

static void check_many(void)
{
	static struct ibv_qp *qps[MANY];
	int i, j;

	for (i = 0; i < MANY; i++) {
		qps[i] = make_qp(IBV_QPT_RC, 4, 4, 1, 0);
		CHECK(qps[i], "QP %d: %s", i, strerror(errno));
		for (j = 0; j < i; j += 97)
			CHECK(qps[j]->qp_num != qps[i]->qp_num, "qpn reused");
	}
	for (i = 0; i < MANY; i++)
		CHECK(!ibv_destroy_qp(qps[i]), "destroy %d", i);
	printf("many %d ok\n", MANY);
}

/* "hold": MANY QPs created, then wait to be killed holding them. */
static void hold_many(void)
{
	int i;

	for (i = 0; i < MANY; i++)
		CHECK(make_qp(IBV_QPT_RC, 4, 4, 1, 0), "QP %d: %s", i,
		      strerror(errno));
	printf("holding %d QPs\n", MANY);
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	struct ibv_device **list = ibv_get_device_list(NULL), *dev = NULL;
	struct ibv_device_attr dattr;
	int i;

	CHECK((argc == 2 || (argc == 3 && !strcmp(argv[2], "hold"))) && list,
	      "usage: qp_state DEV [hold]");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			dev = list[i];
	CHECK(dev, "no device %s", argv[1]);
	ctx = ibv_open_device(dev);
	CHECK(ctx, "open %s", argv[1]);
	CHECK(!ibv_query_device(ctx, &dattr), "query_device");
	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	CHECK(pd && scq && rcq, "pd/cq");
	/* The IPv4-mapped RoCE v2 GID of the port. */
	for (i = 0; i < 16 && gid_index < 0; i++) {
		union ibv_gid g;

		if (ibv_query_gid(ctx, 1, i, &g))
			continue;
		if (g.raw[10] == 0xff && g.raw[11] == 0xff && !g.raw[0]) {
			gid = g;
			gid_index = i;
		}
	}
	CHECK(gid_index >= 0, "no IPv4 GID");

	if (argc == 3) {
		hold_many();
		return 1;
	}
	check_rc_lifecycle();
	check_other_types();
	check_limits(&dattr);
	check_many();

	ibv_destroy_cq(scq);
	ibv_destroy_cq(rcq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("qp_state all ok\n");
	return 0;
}
