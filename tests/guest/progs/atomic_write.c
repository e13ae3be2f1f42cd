// SPDX-License-Identifier: GPL-2.0
/*
 * atomic_write [-r] DEV_A GID_A DEV_B GID_B: RDMA ATOMIC WRITE (IBTA 1.5,
 * posted with ibv_wr_atomic_write), from a QP on DEV_A to memory behind
 * a QP on DEV_B, in one process. Checks:
 *  - 8 bytes land as given, the bytes around them untouched; the sender's
 *    completion says IBV_WC_ATOMIC_WRITE;
 *  - 100 in a row, the last one is what remains; after an RDMA WRITE to
 *    the same place, the atomic write (posted later) wins;
 *  - an MR without remote write access: IBV_WC_REM_ACCESS_ERR, and the
 *    responder's QP reports IBV_EVENT_QP_ACCESS_ERR;
 *  - a misaligned address: IBV_WC_REM_INV_REQ_ERR, and the responder's
 *    QP reports IBV_EVENT_QP_REQ_ERR.
 * -r: rdma_rxe (6.1) has no atomic write; the first one must fail with a
 * local error, reported as "rxe quirk: ...", and nothing else is run.
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "end.h"
#include "prog_args.h"
#include "rc_conn.h"

#define BUF		4096
#define AT		256		/* the target word in the remote buffer */
#define WAIT_MS		30000

/* mr: local and remote write; ro_mr: the same memory, remote read only. */
static struct end a, b;
static uint32_t psn = 0x100;

static void open_dev(struct end *d, const char *name, const char *gid)
{
	end_open(d, name, name, atoi(gid));
	d->cq = ibv_create_cq(d->ctx, 256, NULL, NULL, 0);
	CHECK(d->cq, "%s: create_cq", name);
	d->mr = end_reg_buf(d, &d->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	d->ro_mr = ibv_reg_mr(d->pd, d->buf, BUF, IBV_ACCESS_REMOTE_READ);
	CHECK(d->ro_mr, "%s: reg_mr: %s", name, strerror(errno));
}

/* A fresh connected pair (the error checks leave theirs in ERR). */
static void connect_pair(void)
{
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_RC, .send_cq = a.cq, .recv_cq = a.cq,
		.cap = { .max_send_wr = 128, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = a.pd,
		.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct ibv_qp_init_attr binit = {
		.qp_type = IBV_QPT_RC, .send_cq = b.cq, .recv_cq = b.cq,
		.cap = init.cap,
	};
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .rd_atomic = 1, .rnr_retry = 7,
		.timeout = 14,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ,
	};

	if (a.qp) {
		CHECK(!ibv_destroy_qp(a.qp) && !ibv_destroy_qp(b.qp),
		      "destroy_qp");
	}
	a.qp = ibv_create_qp_ex(a.ctx, &init);
	CHECK(a.qp, "create_qp_ex with atomic write: %s", strerror(errno));
	a.qpx = ibv_qp_to_qp_ex(a.qp);
	b.qp = ibv_create_qp(b.pd, &binit);
	CHECK(a.qpx && b.qp, "qp_ex / B's QP");
	a.sq_psn = psn;
	b.sq_psn = psn + 1;
	psn += 0x1000;
	end_connect(&a, &b, &p);
}

static void post_atomic_write(uint64_t wr_id, uint32_t rkey, uint64_t addr,
			      uint64_t value)
{
	struct ibv_qp_ex *qx = a.qpx;
	int err;

	ibv_wr_start(qx);
	qx->wr_id = wr_id;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, rkey, addr, &value);
	err = ibv_wr_complete(qx);
	CHECK(!err, "atomic write post: %s", strerror(err));
}

static void post_rdma_write(uint64_t wr_id, uint64_t addr, uint64_t value)
{
	struct ibv_qp_ex *qx = a.qpx;
	int err;

	memcpy(a.buf, &value, sizeof(value));
	ibv_wr_start(qx);
	qx->wr_id = wr_id;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, b.mr->rkey, addr);
	ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf, sizeof(value));
	err = ibv_wr_complete(qx);
	CHECK(!err, "rdma write post: %s", strerror(err));
}

/* wr_id from 1000 on: RDMA WRITEs; below: atomic writes. */
static void expect_wc(uint64_t wr_id, enum ibv_wc_status status,
		      const char *what)
{
	struct ibv_wc wc;

	conn_expect_wc(a.cq, a.qp, a.name, what, &wc, wr_id, status,
		       wr_id < 1000 ? IBV_WC_ATOMIC_WRITE : IBV_WC_RDMA_WRITE,
		       WAIT_MS);
}

static uint64_t remote_word(void)
{
	uint64_t v;

	memcpy(&v, b.buf + AT, sizeof(v));
	return v;
}

/* All of B's buffer but the target word is untouched. */
static void check_rest_untouched(const char *what)
{
	check_untouched(b.buf, AT, what);
	check_untouched(b.buf + AT + 8, BUF - AT - 8, what);
}

int main(int argc, char **argv)
{
	uint64_t base, v = 0x0123456789abcdefull;
	int rxe = 0, i, ev;
	void *elem;

	argv = prog_args(argc, argv, "r", (int *[]){ &rxe }, 4,
			 "usage: atomic_write [-r] DEV_A GID_A DEV_B GID_B");
	open_dev(&a, argv[0], argv[1]);
	open_dev(&b, argv[2], argv[3]);
	base = (uintptr_t)b.buf;
	conn_async_nonblock(b.ctx);
	connect_pair();

	post_atomic_write(1, b.mr->rkey, base + AT, v);
	if (rxe) {
		struct ibv_wc wc;

		CHECK(conn_poll(a.cq, &wc, WAIT_MS), "no completion");
		CHECK(wc.status != IBV_WC_SUCCESS,
		      "rdma_rxe 6.1 executed an atomic write?");
		printf("rxe quirk: no atomic write (%s)\n",
		       ibv_wc_status_str(wc.status));
		printf("atomic_write all ok\n");
		return 0;
	}
	expect_wc(1, IBV_WC_SUCCESS, "atomic write");
	CHECK(remote_word() == v, "remote word %#llx, wrote %#llx",
	      (unsigned long long)remote_word(), (unsigned long long)v);
	check_rest_untouched("atomic write");
	printf("ok atomic write lands, opcode IBV_WC_ATOMIC_WRITE\n");

	for (i = 0; i < 100; i++)
		post_atomic_write(100 + i, b.mr->rkey, base + AT, v + i);
	for (i = 0; i < 100; i++)
		expect_wc(100 + i, IBV_WC_SUCCESS, "atomic write in a row");
	CHECK(remote_word() == v + 99, "after 100: %#llx",
	      (unsigned long long)remote_word());
	post_rdma_write(1000, base + AT, 7);
	post_atomic_write(2, b.mr->rkey, base + AT, 42);
	expect_wc(1000, IBV_WC_SUCCESS, "rdma write");
	expect_wc(2, IBV_WC_SUCCESS, "atomic write after rdma write");
	CHECK(remote_word() == 42, "write then atomic write: %#llx",
	      (unsigned long long)remote_word());
	check_rest_untouched("in a row");
	printf("ok 100 in a row and after an RDMA WRITE: in order\n");

	post_atomic_write(3, b.ro_mr->rkey, base + AT, 5);
	expect_wc(3, IBV_WC_REM_ACCESS_ERR, "read-only MR");
	CHECK(remote_word() == 42, "read-only MR written");
	ev = conn_async_event(b.ctx, WAIT_MS, &elem);
	CHECK(ev == IBV_EVENT_QP_ACCESS_ERR && elem == b.qp,
	      "read-only MR: responder's async event %d, not QP_ACCESS_ERR",
	      ev);
	printf("ok MR without remote write: remote access error, "
	       "QP access error event\n");

	connect_pair();
	post_atomic_write(4, b.mr->rkey, base + AT + 4, 5);
	expect_wc(4, IBV_WC_REM_INV_REQ_ERR, "misaligned");
	CHECK(remote_word() == 42, "misaligned write landed");
	check_rest_untouched("misaligned");
	ev = conn_async_event(b.ctx, WAIT_MS, &elem);
	CHECK(ev == IBV_EVENT_QP_REQ_ERR && elem == b.qp,
	      "misaligned: responder's async event %d, not QP_REQ_ERR", ev);
	printf("ok misaligned: remote invalid request, QP request error "
	       "event\n");

	CHECK(!ibv_destroy_qp(a.qp) && !ibv_destroy_qp(b.qp), "destroy_qp");
	printf("atomic_write all ok\n");
	return 0;
}
