// SPDX-License-Identifier: GPL-2.0
/*
 * srq [-r] DEV_A GID_A DEV_B GID_B: shared receive queue semantics, in one
 * process. NQP RC QPs on DEV_A send to NQP RC QPs on DEV_B that share one
 * SRQ (DEV_A and DEV_B may be the same device). Checks:
 *  - create/query: capacity at least what was asked, no limit armed; a
 *    QP on an SRQ reports no receive queue of its own;
 *  - sends from every QP land in the SRQ's WQEs in posting order, bytes
 *    checked, completions name the receiving QP;
 *  - a WQE with more SGEs than the SRQ allows is refused at post time;
 *  - the limit event: armed at 4 with 6 posted, nothing at 5, one
 *    IBV_EVENT_SRQ_LIMIT_REACHED at 3, then disarmed (query says 0);
 *  - resize (ibv_modify_srq IBV_SRQ_MAX_WR) keeps the posted WQEs in
 *    order; shrinking below what is posted is refused;
 *  - empty SRQ: the send waits (RNR, retried for ever) and completes once
 *    a WQE is posted;
 *  - a QP moved to ERR raises IBV_EVENT_QP_LAST_WQE_REACHED and flushes
 *    nothing of the SRQ: the other QPs keep receiving.
 * -r accepts the known deviation of rdma_rxe (6.1): it raises no
 * last-WQE-reached event; reported on a line "rxe quirk: ...".
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "end.h"
#include "prog_args.h"
#include "rc_conn.h"

#define NQP		3
#define MSG		3000	/* bytes per message: three 1024-byte packets */
#define SLOT		4096	/* receive buffer per WQE */
#define NSLOT		64
#define SRQ_WR		16
#define WAIT_MS		30000
#define QUIET_MS	300

/* Each end's cq serves all of its QPs. */
static struct end a, b;
static struct ibv_srq *srq;
static struct ibv_qp *qa[NQP], *qb[NQP];
static uint64_t next_wr_id = 1000;
static unsigned int seed;
static int rxe_quirks;

static void open_dev(struct end *d, const char *name, const char *gid)
{
	end_open(d, name, name, atoi(gid));
	d->cq = ibv_create_cq(d->ctx, 256, NULL, NULL, 0);
	CHECK(d->cq, "%s: create_cq", name);
	d->mr = end_reg_buf(d, &d->buf, NSLOT * SLOT, IBV_ACCESS_LOCAL_WRITE);
}

static struct ibv_qp *make_qp(struct end *d, struct ibv_srq *s)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC, .send_cq = d->cq, .recv_cq = d->cq,
		.srq = s,
		.cap = { .max_send_wr = 64, .max_recv_wr = s ? 0 : 16,
			 .max_send_sge = 1, .max_recv_sge = s ? 0 : 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &init);

	CHECK(qp, "%s: create_qp: %s", d->name, strerror(errno));
	return qp;
}

static void connect_all(void)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .access = IBV_ACCESS_LOCAL_WRITE,
		.rd_atomic = 1, .rnr_retry = 7, .timeout = 14,
	};
	struct conn_end ca, cb;
	int i;

	for (i = 0; i < NQP; i++) {
		qa[i] = make_qp(&a, NULL);
		qb[i] = make_qp(&b, srq);
		ca = end_conn(&a, qa[i], 100 + i);
		cb = end_conn(&b, qb[i], 200 + i);
		conn_connect(&ca, &cb, &p);
	}
}

/* Posts one WQE to the SRQ: slot @slot of b's buffer. Returns its wr_id. */
static uint64_t post_srq(int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(b.buf + (size_t)slot * SLOT),
		.length = SLOT, .lkey = b.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = next_wr_id++, .sg_list = &sge,
				  .num_sge = 1 }, *bad;
	int err;

	memset(b.buf + (size_t)slot * SLOT, 0, SLOT);
	err = ibv_post_srq_recv(srq, &wr, &bad);
	CHECK(!err, "post_srq_recv: %s", strerror(err));
	return wr.wr_id;
}

/* Sends MSG bytes (pattern @s) from qa[@i]; does not wait. */
static void send_from(int i, unsigned int s)
{
	uint8_t *src = a.buf + (size_t)i * SLOT;
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = MSG,
			       .lkey = a.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = s, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int k, err;

	for (k = 0; k < MSG; k++)
		src[k] = (uint8_t)(s * 131 + k * 7);
	err = ibv_post_send(qa[i], &wr, &bad);
	CHECK(!err, "post_send on A's QP %d: %s", i, strerror(err));
}

static void expect_send_done(int i, unsigned int s)
{
	struct ibv_wc wc;

	CHECK(conn_poll(a.cq, &wc, WAIT_MS), "send %u from QP %d: no completion",
	      s, i);
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == s &&
	      wc.qp_num == qa[i]->qp_num,
	      "send %u: completion '%s' wr_id %llu qp %u", s,
	      ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id,
	      wc.qp_num);
}

/* The receive of message @s from QP @i into the WQE @wr_id, slot @slot. */
static void expect_recv(int i, unsigned int s, uint64_t wr_id, int slot)
{
	const uint8_t *dst = b.buf + (size_t)slot * SLOT;
	struct ibv_wc wc;
	int k;

	CHECK(conn_poll(b.cq, &wc, WAIT_MS), "recv of %u: no completion", s);
	CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV,
	      "recv of %u: '%s' opcode %d", s, ibv_wc_status_str(wc.status),
	      wc.opcode);
	CHECK(wc.wr_id == wr_id, "recv of %u took WQE %llu, expected %llu "
	      "(SRQ order)", s, (unsigned long long)wc.wr_id,
	      (unsigned long long)wr_id);
	CHECK(wc.qp_num == qb[i]->qp_num, "recv of %u on QP %u, expected %u",
	      s, wc.qp_num, qb[i]->qp_num);
	CHECK(wc.byte_len == MSG, "recv of %u: byte_len %u", s, wc.byte_len);
	for (k = 0; k < MSG; k++)
		CHECK(dst[k] == (uint8_t)(s * 131 + k * 7),
		      "recv of %u: byte %d is %#x", s, k, dst[k]);
	CHECK(dst[MSG] == 0, "recv of %u: wrote past the message", s);
}

/* One message from QP @i into the next WQE (@wr_id in slot @slot). */
static void transfer(int i, uint64_t wr_id, int slot)
{
	unsigned int s = ++seed;

	send_from(i, s);
	expect_send_done(i, s);
	expect_recv(i, s, wr_id, slot);
}

/* The next async event of b, if one comes within @ms; type or -1. */
static int async_event(int ms, void **element)
{
	return conn_async_event(b.ctx, ms, element);
}

static void test_create_query(void)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	struct ibv_srq_attr attr;
	struct ibv_qp_init_attr qinit;
	struct ibv_qp_attr qattr;

	srq = ibv_create_srq(b.pd, &init);
	CHECK(srq, "create_srq: %s", strerror(errno));
	CHECK(!ibv_query_srq(srq, &attr), "query_srq");
	CHECK(attr.max_wr >= SRQ_WR && attr.max_sge >= 1 && !attr.srq_limit,
	      "query_srq: max_wr %u max_sge %u limit %u", attr.max_wr,
	      attr.max_sge, attr.srq_limit);
	connect_all();
	CHECK(!ibv_query_qp(qb[0], &qattr, IBV_QP_CAP, &qinit), "query_qp");
	CHECK(qinit.srq == srq && qattr.cap.max_recv_wr == 0,
	      "QP on the SRQ: srq %p, max_recv_wr %u", (void *)qinit.srq,
	      qattr.cap.max_recv_wr);
	printf("ok create and query: max_wr %u\n", attr.max_wr);
}

static void test_shared(void)
{
	uint64_t ids[2 * NQP];
	int i;

	for (i = 0; i < 2 * NQP; i++)
		ids[i] = post_srq(i);
	/* Every QP in turn, twice: each takes the SRQ's next WQE. */
	for (i = 0; i < 2 * NQP; i++)
		transfer((i * 2) % NQP, ids[i], i);
	printf("ok %d messages from %d QPs through one SRQ\n", 2 * NQP, NQP);
}

static void test_too_many_sge(void)
{
	struct ibv_sge sge[2] = {
		{ (uintptr_t)b.buf, 16, b.mr->lkey },
		{ (uintptr_t)b.buf + 16, 16, b.mr->lkey },
	};
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = sge, .num_sge = 2 },
			   *bad = NULL;

	CHECK(ibv_post_srq_recv(srq, &wr, &bad) && bad == &wr,
	      "post_srq_recv of 2 SGEs on a 1-SGE SRQ accepted");
	printf("ok 2 SGEs on a 1-SGE SRQ refused\n");
}

static void test_limit(void)
{
	struct ibv_srq_attr attr = { .srq_limit = 4 };
	uint64_t ids[6];
	void *elem;
	int i, ev;

	for (i = 0; i < 6; i++)
		ids[i] = post_srq(i);
	CHECK(!ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT), "arm limit 4");
	transfer(0, ids[0], 0);		/* 5 left */
	ev = async_event(QUIET_MS, &elem);
	CHECK(ev == -1, "event %d with 5 WQEs left, limit 4", ev);
	transfer(1, ids[1], 1);		/* 4 left: not below */
	ev = async_event(QUIET_MS, &elem);
	CHECK(ev == -1, "event %d with 4 WQEs left, limit 4", ev);
	transfer(2, ids[2], 2);		/* 3 left */
	ev = async_event(WAIT_MS, &elem);
	CHECK(ev == IBV_EVENT_SRQ_LIMIT_REACHED && elem == srq,
	      "no SRQ limit event below the limit (got %d)", ev);
	CHECK(!ibv_query_srq(srq, &attr) && attr.srq_limit == 0,
	      "limit still armed after its event: %u", attr.srq_limit);
	transfer(0, ids[3], 3);		/* 2 left, disarmed */
	ev = async_event(QUIET_MS, &elem);
	CHECK(ev == -1, "second limit event %d without re-arming", ev);
	transfer(1, ids[4], 4);
	transfer(2, ids[5], 5);
	printf("ok limit event once, below the limit\n");
}

static void test_resize(void)
{
	struct ibv_srq_attr attr = { .max_wr = 2 };
	uint64_t ids[10];
	int i;

	for (i = 0; i < 10; i++)
		ids[i] = post_srq(i);
	CHECK(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR),
	      "shrinking to 2 with 10 posted accepted");
	attr.max_wr = 200;
	CHECK(!ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR), "resize to 200");
	CHECK(!ibv_query_srq(srq, &attr) && attr.max_wr >= 200,
	      "query after resize: max_wr %u", attr.max_wr);
	for (i = 10; i < 30; i++)
		post_srq(i);	/* more than the old ring held */
	for (i = 0; i < 10; i++)
		transfer(i % NQP, ids[i], i);
	for (i = 10; i < 30; i++)
		transfer(i % NQP, ids[0] + i, i);
	printf("ok resize to %u keeps the posted WQEs in order\n", attr.max_wr);
}

static void test_rnr(void)
{
	unsigned int s = ++seed;
	struct ibv_wc wc;
	uint64_t id;

	send_from(1, s);
	CHECK(!conn_poll(a.cq, &wc, QUIET_MS),
	      "send to an empty SRQ completed ('%s')",
	      ibv_wc_status_str(wc.status));
	id = post_srq(7);
	expect_send_done(1, s);
	expect_recv(1, s, id, 7);
	printf("ok empty SRQ: the sender waits, then completes\n");
}

static void test_last_wqe(void)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc;
	uint64_t id;
	void *elem;
	int ev;

	id = post_srq(9);
	CHECK(!ibv_modify_qp(qb[0], &attr, IBV_QP_STATE), "QP to ERR");
	ev = async_event(rxe_quirks ? QUIET_MS : WAIT_MS, &elem);
	if (ev == -1 && rxe_quirks)
		printf("rxe quirk: no last-WQE-reached event\n");
	else
		CHECK(ev == IBV_EVENT_QP_LAST_WQE_REACHED && elem == qb[0],
		      "no last-WQE-reached event (got %d)", ev);
	CHECK(!conn_poll(b.cq, &wc, QUIET_MS),
	      "a completion on B after one QP's error: wr_id %llu '%s'",
	      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	transfer(2, id, 9);
	printf("ok QP in ERR: last WQE reached, SRQ untouched\n");
}

int main(int argc, char **argv)
{
	int i;

	argv = prog_args(argc, argv, "r", (int *[]){ &rxe_quirks }, 4,
			 "usage: srq [-r] DEV_A GID_A DEV_B GID_B");
	open_dev(&a, argv[0], argv[1]);
	open_dev(&b, argv[2], argv[3]);
	/* Non-blocking: async_event() polls with a deadline. */
	conn_async_nonblock(b.ctx);

	test_create_query();
	test_shared();
	test_too_many_sge();
	test_limit();
	test_resize();
	test_rnr();
	test_last_wqe();

	for (i = 0; i < NQP; i++) {
		CHECK(!ibv_destroy_qp(qa[i]) && !ibv_destroy_qp(qb[i]),
		      "destroy_qp");
	}
	CHECK(!ibv_destroy_srq(srq), "destroy_srq");
	printf("srq all ok\n");
	return 0;
}
