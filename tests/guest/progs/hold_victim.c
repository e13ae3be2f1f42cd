// SPDX-License-Identifier: GPL-2.0
/*
 * hold_victim [-n N] DEV_A GID_A DEV_B GID_B: N RC QP pairs, A_i on DEV_A
 * and B_i on DEV_B (RoCE v2 GID table indexes GID_A and GID_B, path MTU
 * 4096), that must keep working while someone else floods every A_i with
 * packets ahead of its receive PSN (tests/guest/hold-bound.sh). Once all
 * pairs are in RTS and every A_i has NRECV receive WQEs posted, it prints
 * one line per A_i and then "ready N":
 *
 *   qp QPN RQ_PSN
 *
 * and waits for a line "go" on stdin. Then each B_i sends A_i, starting
 * at that RQ_PSN: a SEND of 4096 bytes, an RDMA WRITE of 8192 bytes (two
 * packets), a SEND of 4096 and a SEND of 100 bytes, each its own pattern
 * (pair and message: no two alike). Checked: every completion on both
 * sides (status, opcode, QP, order, length), that no receive WQE beyond
 * the three the SENDs need is consumed, every byte received or written
 * and the untouched ones around them, and all QPs still in RTS. A packet
 * of the flood that A_i took for one of B_i's shows up there.
 * The PSNs of a few pairs wrap within the flood's range and B's messages.
 * Prints "ok ..." per check and "hold_victim all ok"; exits 1 at the
 * first failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "end.h"
#include "prog_args.h"
#include "rc_conn.h"

#define MAX_PAIRS	512
#define MSG		4096		/* a SEND, a receive WQE's buffer */
#define WRITE_LEN	8192
#define SHORT_LEN	100
#define NRECV		4		/* per A_i; the SENDs use three */
#define NSEND		4		/* WRs per B_i */
#define WAIT_MS		60000		/* for a completion that must come */
#define QUIET_MS	500		/* for one that must not */
#define USAGE		"usage: hold_victim [-n N] DEV_A GID_A DEV_B GID_B"

/*
 * A's memory, per pair: the NRECV receive buffers, then the WRITE's
 * target, GUARD bytes of FILL before and after each. B's: the sources.
 */
#define A_RECV_AT(k)	(GUARD + (k) * (MSG + GUARD))
#define A_WRITE_AT	A_RECV_AT(NRECV)
#define A_SLOT		(A_WRITE_AT + WRITE_LEN + GUARD)
#define B_SLOT		(3 * MSG + WRITE_LEN)

/* What B_i sends, in order; recv: the receive WQE it uses (-1: none). */
static const struct msg {
	enum ibv_wr_opcode op;
	enum ibv_wc_opcode wc_op;
	uint32_t len;
	size_t src;		/* offset in B's slot */
	int recv;
} msgs[NSEND] = {
	{ IBV_WR_SEND, IBV_WC_SEND, MSG, 0, 0 },
	{ IBV_WR_RDMA_WRITE, IBV_WC_RDMA_WRITE, WRITE_LEN, MSG, -1 },
	{ IBV_WR_SEND, IBV_WC_SEND, MSG, MSG + WRITE_LEN, 1 },
	{ IBV_WR_SEND, IBV_WC_SEND, SHORT_LEN, 2 * MSG + WRITE_LEN, 2 },
};
#define NUSED		3		/* receive WQEs the SENDs use */

struct pair {
	struct ibv_qp *a, *b;
	uint32_t psn;		/* B's send PSN: A's receive PSN */
	int recv_next;		/* A's next receive completion */
	int send_next;		/* B's next send completion */
};

static struct pair pairs[MAX_PAIRS];
static int npairs = 256;

/*
 * Byte @j of message @m of pair @p: a hash of all three, so that no two
 * messages of the run look alike, nor any of them like a run of one
 * byte (the flood's payload).
 */
static uint8_t msg_byte(unsigned int p, unsigned int m, size_t j)
{
	uint32_t x = p * 0x9e3779b1u + m * 0x85ebca77u +
		     (uint32_t)(j >> 2) * 0xc2b2ae3du + 1;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	x *= 0x297a2d39u;
	x ^= x >> 15;
	return x >> (8 * (j & 3));
}

/* B_i's send PSN; pairs 1 and 2 wrap within the flood, 3 in B's messages. */
static uint32_t psn_of(int i)
{
	switch (i) {
	case 1:
		return 0xffffff - 50;
	case 2:
		return 0xffffff;
	case 3:
		return 0xfffffe;
	}
	return (0x5a0000 + (uint32_t)i * 0x1f3d7) & 0xffffff;
}

static struct ibv_qp *make_qp(struct end *e, struct ibv_cq *cq,
			      uint32_t send_wr, uint32_t recv_wr)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = send_wr, .max_recv_wr = recv_wr,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &init);

	CHECK(qp, "%s: create_qp: %s", e->name, strerror(errno));
	return qp;
}

static int pair_of(uint32_t qpn, int b_side)
{
	int i;

	for (i = 0; i < npairs; i++)
		if ((b_side ? pairs[i].b : pairs[i].a)->qp_num == qpn)
			return i;
	CHECK(0, "completion for qpn %#x, which is no %s QP of ours", qpn,
	      b_side ? "B" : "A");
	return -1;
}

static void post_recvs(struct end *a, int i)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	int k;

	for (k = 0; k < NRECV; k++) {
		sge.addr = (uintptr_t)(a->buf + (size_t)i * A_SLOT +
				       A_RECV_AT(k));
		sge.length = MSG;
		sge.lkey = a->mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i * NRECV + k;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		CHECK(!ibv_post_recv(pairs[i].a, &wr, &bad),
		      "pair %d: post_recv %d", i, k);
	}
}

/* B_i's NSEND WRs, all signalled, in one post. */
static void post_sends(struct end *a, struct end *b, int i)
{
	struct ibv_send_wr wr[NSEND], *bad;
	struct ibv_sge sge[NSEND];
	uint8_t *src = b->buf + (size_t)i * B_SLOT;
	int m;
	size_t j;

	memset(wr, 0, sizeof(wr));
	for (m = 0; m < NSEND; m++) {
		for (j = 0; j < msgs[m].len; j++)
			src[msgs[m].src + j] = msg_byte(i, m, j);
		sge[m].addr = (uintptr_t)(src + msgs[m].src);
		sge[m].length = msgs[m].len;
		sge[m].lkey = b->mr->lkey;
		wr[m].wr_id = (uint64_t)i * NSEND + m;
		wr[m].sg_list = &sge[m];
		wr[m].num_sge = 1;
		wr[m].opcode = msgs[m].op;
		wr[m].send_flags = IBV_SEND_SIGNALED;
		if (msgs[m].op == IBV_WR_RDMA_WRITE) {
			wr[m].wr.rdma.remote_addr = (uintptr_t)(a->buf +
				(size_t)i * A_SLOT + A_WRITE_AT);
			wr[m].wr.rdma.rkey = a->mr->rkey;
		}
		wr[m].next = m + 1 < NSEND ? &wr[m + 1] : NULL;
	}
	CHECK(!ibv_post_send(pairs[i].b, wr, &bad), "pair %d: post_send", i);
}

/* Every send completion of every B_i: success, in order, right opcode. */
static void expect_sends(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int n, i;

	for (n = 0; n < npairs * NSEND; n++) {
		CHECK(conn_poll(cq, &wc, WAIT_MS),
		      "B: %d of %d send completions in %d ms", n,
		      npairs * NSEND, WAIT_MS);
		i = pair_of(wc.qp_num, 1);
		CHECK(wc.status == IBV_WC_SUCCESS,
		      "pair %d: B send %d completed '%s' (%d)", i,
		      pairs[i].send_next, ibv_wc_status_str(wc.status),
		      wc.status);
		CHECK(pairs[i].send_next < NSEND,
		      "pair %d: more than %d send completions", i, NSEND);
		CHECK(wc.wr_id == (uint64_t)i * NSEND + pairs[i].send_next,
		      "pair %d: send completion wr_id %llu, expected %llu", i,
		      (unsigned long long)wc.wr_id,
		      (unsigned long long)i * NSEND + pairs[i].send_next);
		CHECK(wc.opcode == msgs[pairs[i].send_next].wc_op,
		      "pair %d: send %d completion opcode %d, expected %d", i,
		      pairs[i].send_next, wc.opcode,
		      msgs[pairs[i].send_next].wc_op);
		pairs[i].send_next++;
	}
}

/* The receive completions: NUSED per A_i, then nothing more. */
static void expect_recvs(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int n, i, k, m;

	for (n = 0; n < npairs * NUSED; n++) {
		CHECK(conn_poll(cq, &wc, WAIT_MS),
		      "A: %d of %d receive completions in %d ms", n,
		      npairs * NUSED, WAIT_MS);
		i = pair_of(wc.qp_num, 0);
		k = pairs[i].recv_next;
		CHECK(wc.status == IBV_WC_SUCCESS,
		      "pair %d: A receive %d completed '%s' (%d)", i, k,
		      ibv_wc_status_str(wc.status), wc.status);
		CHECK(k < NUSED, "pair %d: receive completion %d: one more "
		      "than B sent SENDs (wr_id %llu, %u bytes)", i, k,
		      (unsigned long long)wc.wr_id, wc.byte_len);
		for (m = 0; msgs[m].recv != k; m++)
			;
		CHECK(wc.wr_id == (uint64_t)i * NRECV + k,
		      "pair %d: receive completion wr_id %llu, expected %llu",
		      i, (unsigned long long)wc.wr_id,
		      (unsigned long long)i * NRECV + k);
		CHECK(wc.opcode == IBV_WC_RECV && !(wc.wc_flags & IBV_WC_WITH_IMM),
		      "pair %d: receive %d opcode %d flags %#x", i, k,
		      wc.opcode, wc.wc_flags);
		CHECK(wc.byte_len == msgs[m].len,
		      "pair %d: receive %d of %u bytes, B sent %u", i, k,
		      wc.byte_len, msgs[m].len);
		pairs[i].recv_next++;
	}
	conn_expect_no_wc(cq, "A", "receive WQE no SEND was for", QUIET_MS);
}

/* The @n bytes at @p are message @m of pair @i. */
static void check_msg(const uint8_t *p, size_t n, int i, int m)
{
	size_t j;

	for (j = 0; j < n; j++)
		CHECK(p[j] == msg_byte(i, m, j),
		      "pair %d (A qpn %#x): message %d byte %zu is %#x, "
		      "expected %#x", i, pairs[i].a->qp_num, m, j, p[j],
		      msg_byte(i, m, j));
}

/* Every byte of A's memory: the messages where they belong, FILL elsewhere. */
static void check_memory(struct end *a)
{
	char what[64];
	int i, m, k;

	for (i = 0; i < npairs; i++) {
		uint8_t *slot = a->buf + (size_t)i * A_SLOT;

		snprintf(what, sizeof(what), "pair %d A memory", i);
		check_untouched(slot, GUARD, what);
		for (k = 0; k < NRECV; k++) {
			uint8_t *p = slot + A_RECV_AT(k);
			uint32_t len = 0;

			for (m = 0; m < NSEND; m++)
				if (msgs[m].recv == k) {
					len = msgs[m].len;
					check_msg(p, len, i, m);
				}
			snprintf(what, sizeof(what),
				 "pair %d receive buffer %d past %u bytes", i,
				 k, len);
			check_untouched(p + len, MSG - len + GUARD, what);
		}
		check_msg(slot + A_WRITE_AT, WRITE_LEN, i, 1);
		snprintf(what, sizeof(what), "pair %d after the WRITE", i);
		check_untouched(slot + A_WRITE_AT + WRITE_LEN, GUARD, what);
	}
}

int main(int argc, char **argv)
{
	/*
	 * Every SEND finds its receive WQE posted: an RNR NAK means that
	 * something else took one, and B_i's SEND fails on it at once.
	 */
	struct conn_params cp = {
		.mtu = IBV_MTU_4096, .access = IBV_ACCESS_REMOTE_WRITE,
		.rd_atomic = 1, .rnr_retry = 1, .timeout = 16,
	};
	struct end a = { 0 }, b = { 0 };
	struct ibv_cq *acq, *bcq;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	char line[64];
	int i;

	argv = prog_args(argc, argv, "n:", (int *[]){ &npairs }, 4, USAGE);
	CHECK(npairs > 0 && npairs <= MAX_PAIRS, "N: 1..%d", MAX_PAIRS);
	end_open(&a, "A", argv[0], atoi(argv[1]));
	end_open(&b, "B", argv[2], atoi(argv[3]));
	end_check_port(&a, cp.mtu);
	end_check_port(&b, cp.mtu);
	a.mr = end_reg_buf(&a, &a.buf, (size_t)npairs * A_SLOT,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	b.mr = end_reg_buf(&b, &b.buf, (size_t)npairs * B_SLOT,
			   IBV_ACCESS_LOCAL_WRITE);
	/* Room for every WQE to complete: a wrong one must not overrun. */
	acq = ibv_create_cq(a.ctx, npairs * NRECV + 16, NULL, NULL, 0);
	bcq = ibv_create_cq(b.ctx, npairs * NSEND + 16, NULL, NULL, 0);
	CHECK(acq && bcq, "create_cq: %s", strerror(errno));

	for (i = 0; i < npairs; i++) {
		struct pair *p = &pairs[i];
		struct conn_end ca, cb;

		p->a = make_qp(&a, acq, 1, NRECV);
		p->b = make_qp(&b, bcq, NSEND, 1);
		p->psn = psn_of(i);
		ca = end_conn(&a, p->a, (0x10000 + (uint32_t)i * 7919) & 0xffffff);
		cb = end_conn(&b, p->b, p->psn);
		conn_connect(&ca, &cb, &cp);
		post_recvs(&a, i);
	}
	for (i = 0; i < npairs; i++) {
		CHECK(!ibv_query_qp(pairs[i].a, &qa, IBV_QP_RQ_PSN, &qi),
		      "pair %d: query_qp", i);
		CHECK(qa.rq_psn == pairs[i].psn, "pair %d: rq_psn %#x, not %#x",
		      i, qa.rq_psn, pairs[i].psn);
		printf("qp %u %u\n", pairs[i].a->qp_num, qa.rq_psn);
	}
	printf("ready %d\n", npairs);
	fflush(stdout);

	CHECK(fgets(line, sizeof(line), stdin), "stdin closed before \"go\"");
	CHECK(!strcmp(line, "go\n"), "\"%s\" on stdin, not \"go\"", line);

	for (i = 0; i < npairs; i++)
		post_sends(&a, &b, i);
	expect_sends(bcq);
	printf("ok %d x %d send completions (SEND, WRITE, SEND, SEND)\n",
	       npairs, NSEND);
	expect_recvs(acq);
	printf("ok %d x %d receive completions, no more in %d ms\n", npairs,
	       NUSED, QUIET_MS);
	check_memory(&a);
	printf("ok every byte: %d x %u bytes sent and written, FILL around\n",
	       npairs, 2 * MSG + SHORT_LEN + WRITE_LEN);
	for (i = 0; i < npairs; i++) {
		CHECK(conn_qp_state(pairs[i].a) == IBV_QPS_RTS &&
		      conn_qp_state(pairs[i].b) == IBV_QPS_RTS,
		      "pair %d: a QP left RTS", i);
	}
	printf("ok %d QPs in RTS\n", 2 * npairs);

	for (i = 0; i < npairs; i++)
		CHECK(!ibv_destroy_qp(pairs[i].a) && !ibv_destroy_qp(pairs[i].b),
		      "pair %d: destroy_qp", i);
	CHECK(!ibv_destroy_cq(acq) && !ibv_destroy_cq(bcq), "destroy_cq");
	CHECK(!ibv_dereg_mr(a.mr) && !ibv_dereg_mr(b.mr), "dereg_mr");
	CHECK(!ibv_dealloc_pd(a.pd) && !ibv_dealloc_pd(b.pd), "dealloc_pd");
	ibv_close_device(a.ctx);
	ibv_close_device(b.ctx);
	free(a.buf);
	free(b.buf);
	printf("hold_victim all ok\n");
	return 0;
}
