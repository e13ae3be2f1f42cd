/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by rc_data.c and uc_data.c, which test a connected pair of QPs
 * between ends "A" and "B" (end.h) given as DEV_A GID_A DEV_B GID_B MTU:
 * setting the pair up, work requests posted by ibv_post_send or, where
 * the QP has an ibv_qp_ex (rc_data -x), by the ibv_wr_* API, and the
 * transfers both check byte by byte with the bytes around them
 * (data_pattern.h): SENDs from two SGEs into a receive WQE of three SGEs
 * of odd lengths, RDMA WRITEs with and without immediate data.
 *
 * Where things lie in each end's buffer, and how long to wait, is the
 * program's: it defines before including this header
 *  SRC_OFF	where the sources of SENDs and WRITEs lie (from SRC_OFF + 3);
 *  RECV_AT	where post_recv3's receive WQE starts (GUARD bytes before);
 *  RECV_CAP	the length of its three SGEs together (above RSGE0 + RSGE1;
 *		3 * GUARD bytes after them);
 *  WRITE_AT	where write_check's WRITEs land (GUARD bytes around);
 *  WAIT_MS	how long to wait for a completion that must come;
 *  QUIET_MS	and for one that must not.
 */
#ifndef SROCE_TEST_DATA_XFER_H
#define SROCE_TEST_DATA_XFER_H

#if !defined(SRC_OFF) || !defined(RECV_AT) || !defined(RECV_CAP) || \
	!defined(WRITE_AT) || !defined(WAIT_MS) || !defined(QUIET_MS)
#error "define SRC_OFF, RECV_AT, RECV_CAP, WRITE_AT, WAIT_MS and QUIET_MS first"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "end.h"
#include "rc_conn.h"

/* post_recv3's first two SGEs: odd lengths; the third takes the rest. */
#define RSGE0		97
#define RSGE1		1031
#define RO_SIZE		8192		/* each end's ro_buf */

/* One work request, posted by either API. */
struct op {
	enum ibv_wr_opcode opcode;
	uint64_t wr_id;
	unsigned int flags;		/* IBV_SEND_* */
	struct ibv_sge sge[3];
	int num_sge;
	uint32_t imm;			/* host order */
	uint64_t raddr;
	uint32_t rkey;
};

/*
 * @e's CQ and a QP of @type on it: @max_wr WRs of 3 SGEs each way (or
 * e->max_send_sge to send) and @max_inline bytes inline. By ibv_create_qp_ex() for the ibv_wr_*
 * opcodes @send_ops (e->qpx then), by ibv_create_qp() if there are none.
 */
static inline void create_qp(struct end *e, enum ibv_qp_type type,
			     uint32_t max_wr, uint32_t max_inline,
			     uint64_t send_ops)
{
	struct ibv_qp_cap want = {
		.max_send_wr = max_wr, .max_recv_wr = max_wr,
		.max_send_sge = e->max_send_sge ? e->max_send_sge : 3,
		.max_recv_sge = 3,
		.max_inline_data = max_inline,
	};
	struct ibv_qp_cap got;

	e->cq = ibv_create_cq(e->ctx, 4 * max_wr, NULL, NULL, 0);
	CHECK(e->cq, "%s: create_cq: %s", e->name, strerror(errno));
	if (send_ops) {
		struct ibv_qp_init_attr_ex init = {
			.qp_type = type,
			.send_cq = e->cq, .recv_cq = e->cq, .cap = want,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = e->pd, .send_ops_flags = send_ops,
		};

		e->qp = ibv_create_qp_ex(e->ctx, &init);
		CHECK(e->qp, "%s: create_qp_ex: %s", e->name, strerror(errno));
		e->qpx = ibv_qp_to_qp_ex(e->qp);
		CHECK(e->qpx, "%s: no ibv_qp_ex", e->name);
		got = init.cap;
	} else {
		struct ibv_qp_init_attr init = {
			.qp_type = type,
			.send_cq = e->cq, .recv_cq = e->cq, .cap = want,
		};

		e->qp = ibv_create_qp(e->pd, &init);
		CHECK(e->qp, "%s: create_qp: %s", e->name, strerror(errno));
		got = init.cap;
	}
	CHECK(got.max_send_wr >= max_wr && got.max_recv_wr >= max_wr &&
	      got.max_send_sge >= want.max_send_sge && got.max_recv_sge >= 3,
	      "%s: caps %u/%u wr %u/%u sge", e->name, got.max_send_wr,
	      got.max_recv_wr, got.max_send_sge, got.max_recv_sge);
	CHECK(got.max_inline_data >= max_inline, "%s: max_inline_data %u < %u",
	      e->name, got.max_inline_data, max_inline);
}

/*
 * Ends @a ("A") and @b ("B") from the arguments DEV_A GID_A DEV_B GID_B
 * MTU at @argv: their ports checked for that path MTU (returned; *@mtu is
 * its bytes), A sending from PSN @psn_a, B from 0x123456; each with
 * @buf_size bytes in buf, registered with @access, and RO_SIZE bytes in
 * ro_buf, with @ro_access.
 */
static inline enum ibv_mtu setup_pair(char **argv, struct end *a,
				      struct end *b, uint32_t psn_a,
				      unsigned int *mtu, size_t buf_size,
				      unsigned int access,
				      unsigned int ro_access)
{
	enum ibv_mtu path_mtu = conn_parse_mtu(argv[4], mtu);
	struct end *e[2] = { a, b };
	int i;

	for (i = 0; i < 2; i++) {
		end_open(e[i], i ? "B" : "A", argv[2 * i],
			 atoi(argv[2 * i + 1]));
		end_check_port(e[i], path_mtu);
		e[i]->sq_psn = i ? 0x123456 : psn_a;
		e[i]->mr = end_reg_buf(e[i], &e[i]->buf, buf_size, access);
		e[i]->ro_mr = end_reg_buf(e[i], &e[i]->ro_buf, RO_SIZE,
					  ro_access);
	}
	return path_mtu;
}

static inline void destroy_pair(struct end *a, struct end *b)
{
	struct end *e[2] = { a, b };
	int i;

	for (i = 0; i < 2; i++) {
		CHECK(!ibv_destroy_qp(e[i]->qp), "%s: destroy_qp", e[i]->name);
		CHECK(!ibv_destroy_cq(e[i]->cq), "%s: destroy_cq", e[i]->name);
		e[i]->qp = NULL;
		e[i]->qpx = NULL;
		e[i]->cq = NULL;
	}
}

/* The keys of a registered, then deregistered MR: nothing has them. */
static inline void stale_keys(struct end *e, uint32_t *lkey, uint32_t *rkey)
{
	struct ibv_mr *mr = ibv_reg_mr(e->pd, e->ro_buf, RO_SIZE,
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE);

	CHECK(mr, "reg_mr: %s", strerror(errno));
	*lkey = mr->lkey;
	*rkey = mr->rkey;
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
}

static inline void post_legacy(struct end *e, struct op *ops, int n)
{
	struct ibv_send_wr *wr = calloc(n, sizeof(*wr)), *bad = NULL;
	int i, err;

	CHECK(wr, "out of memory");
	for (i = 0; i < n; i++) {
		wr[i].wr_id = ops[i].wr_id;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].sg_list = ops[i].sge;
		wr[i].num_sge = ops[i].num_sge;
		wr[i].opcode = ops[i].opcode;
		wr[i].send_flags = ops[i].flags;
		wr[i].imm_data = htonl(ops[i].imm);
		wr[i].wr.rdma.remote_addr = ops[i].raddr;
		wr[i].wr.rdma.rkey = ops[i].rkey;
	}
	err = ibv_post_send(e->qp, wr, &bad);
	CHECK(!err, "%s: ibv_post_send of %d WRs (failed at WR %ld): %s",
	      e->name, n, bad ? (long)(bad - wr) : -1L, strerror(err));
	free(wr);
}

static inline void post_wr_api(struct end *e, struct op *ops, int n)
{
	struct ibv_qp_ex *qpx = e->qpx;
	int i, err;

	ibv_wr_start(qpx);
	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];

		CHECK(o->num_sge <= 1, "one SGE per WR with the ibv_wr_* API");
		qpx->wr_id = o->wr_id;
		/* The rxe ABI has no other way to say "inline" to the kernel. */
		qpx->wr_flags = o->flags;
		switch (o->opcode) {
		case IBV_WR_SEND:
			ibv_wr_send(qpx);
			break;
		case IBV_WR_SEND_WITH_IMM:
			ibv_wr_send_imm(qpx, htonl(o->imm));
			break;
		case IBV_WR_RDMA_WRITE:
			ibv_wr_rdma_write(qpx, o->rkey, o->raddr);
			break;
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			ibv_wr_rdma_write_imm(qpx, o->rkey, o->raddr,
					      htonl(o->imm));
			break;
		case IBV_WR_RDMA_READ:
			ibv_wr_rdma_read(qpx, o->rkey, o->raddr);
			break;
		default:
			CHECK(0, "opcode %d", o->opcode);
		}
		if (!o->num_sge)
			ibv_wr_set_sge_list(qpx, 0, NULL);
		else if (o->flags & IBV_SEND_INLINE)
			ibv_wr_set_inline_data(qpx,
					       (void *)(uintptr_t)o->sge[0].addr,
					       o->sge[0].length);
		else
			ibv_wr_set_sge(qpx, o->sge[0].lkey, o->sge[0].addr,
				       o->sge[0].length);
	}
	err = ibv_wr_complete(qpx);
	CHECK(!err, "%s: ibv_wr_complete of %d WRs: %s", e->name, n,
	      strerror(err));
}

/* @n ops in one post: by the ibv_wr_* API if e has an ibv_qp_ex. */
static inline void post_ops(struct end *e, struct op *ops, int n)
{
	if (e->qpx)
		post_wr_api(e, ops, n);
	else
		post_legacy(e, ops, n);
}

static inline void post_one(struct end *e, struct op *op)
{
	post_ops(e, op, 1);
}

static inline void post_recv_sges(struct end *e, uint64_t wr_id,
				  struct ibv_sge *sge, int n)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge,
				  .num_sge = n }, *bad;
	int err;

	err = ibv_post_recv(e->qp, &wr, &bad);
	CHECK(!err, "%s: ibv_post_recv: %s", e->name, strerror(err));
}

/* The next completion on e: wr_id, status and (if successful) opcode. */
static inline void expect_wc(struct end *e, struct ibv_wc *wc,
			     const char *what, uint64_t wr_id,
			     enum ibv_wc_status status,
			     enum ibv_wc_opcode opcode)
{
	conn_expect_wc(e->cq, e->qp, e->name, what, wc, wr_id, status, opcode,
		       WAIT_MS);
}

static inline void expect_no_wc(struct end *e, const char *what)
{
	conn_expect_no_wc(e->cq, e->name, what, QUIET_MS);
}

static inline struct ibv_sge sge_at(struct end *e, size_t off, uint32_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)(e->buf + off), .length = len,
			     .lkey = e->mr->lkey };
	return s;
}

/*
 * The receive WQE of three odd SGEs at RECV_AT, with GUARD bytes of FILL
 * between and around them; the whole area is reset to FILL.
 */
static inline void post_recv3(struct end *e, uint64_t wr_id)
{
	struct ibv_sge sge[3];

	memset(e->buf + RECV_AT - GUARD, FILL, RECV_CAP + 4 * GUARD);
	sge[0] = sge_at(e, RECV_AT, RSGE0);
	sge[1] = sge_at(e, RECV_AT + RSGE0 + GUARD, RSGE1);
	sge[2] = sge_at(e, RECV_AT + RSGE0 + RSGE1 + 2 * GUARD,
			RECV_CAP - RSGE0 - RSGE1);
	post_recv_sges(e, wr_id, sge, 3);
}

/* Pattern seed over the first len bytes of post_recv3's SGEs, FILL after. */
static inline void check_recv3(struct end *e, size_t len, unsigned int seed,
			       const char *what)
{
	const size_t at[3] = { RECV_AT, RECV_AT + RSGE0 + GUARD,
			       RECV_AT + RSGE0 + RSGE1 + 2 * GUARD };
	const size_t cap[3] = { RSGE0, RSGE1, RECV_CAP - RSGE0 - RSGE1 };
	size_t done = 0, n;
	int i;

	check_untouched(e->buf + RECV_AT - GUARD, GUARD, what);
	for (i = 0; i < 3; i++) {
		n = len - done < cap[i] ? len - done : cap[i];
		check_pattern(e->buf + at[i], n, seed, done, what);
		check_untouched(e->buf + at[i] + n, cap[i] - n + GUARD, what);
		done += n;
	}
}

/*
 * The source of a len-byte transfer: pattern seed in two pieces at
 * SRC_OFF + 3 and, after a GUARD gap, the rest (one piece if len < 2 or
 * with the ibv_wr_* API).
 */
static inline int src_sges(struct end *e, struct ibv_sge *sge, uint32_t len,
			   unsigned int seed)
{
	uint32_t first = len / 3 + 1;
	size_t off = SRC_OFF + 3;

	if (!len)
		return 0;
	if (len < 2 || e->qpx) {
		fill_pattern(e->buf + off, len, seed, 0);
		sge[0] = sge_at(e, off, len);
		return 1;
	}
	fill_pattern(e->buf + off, first, seed, 0);
	fill_pattern(e->buf + off + first + GUARD, len - first, seed, first);
	sge[0] = sge_at(e, off, first);
	sge[1] = sge_at(e, off + first + GUARD, len - first);
	return 2;
}

/*
 * Waits (up to about WAIT_MS) for the last of the len bytes at p to be
 * that of pattern seed: all that tells a UC WRITE without immediate data
 * has arrived.
 */
static inline void await_pattern_end(const uint8_t *p, uint32_t len,
				     unsigned int seed)
{
	struct timespec nap = { 0, 1000000 };
	int i;

	for (i = 0; i < WAIT_MS && len &&
	     p[len - 1] != pattern_byte(seed, len - 1); i++)
		nanosleep(&nap, NULL);
}

/* One SEND (with immediate if imm) from s to r of len bytes. */
static inline void send_check(struct end *s, struct end *r, uint32_t len,
			      unsigned int seed, int with_imm,
			      const char *what)
{
	struct op op = {
		.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.wr_id = seed, .flags = IBV_SEND_SIGNALED,
		.imm = 0xc0de0000u + seed,
	};
	struct ibv_wc wc;

	post_recv3(r, 1000 + seed);
	op.num_sge = src_sges(s, op.sge, len, seed);
	post_one(s, &op);
	expect_wc(s, &wc, what, seed, IBV_WC_SUCCESS, IBV_WC_SEND);
	expect_wc(r, &wc, what, 1000 + seed, IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc.byte_len == len, "%s: byte_len %u", what, wc.byte_len);
	if (with_imm) {
		CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "%s: wc_flags %#x", what,
		      wc.wc_flags);
		CHECK(ntohl(wc.imm_data) == op.imm, "%s: imm %#x, expected %#x",
		      what, ntohl(wc.imm_data), op.imm);
	} else {
		CHECK(!(wc.wc_flags & IBV_WC_WITH_IMM), "%s: wc_flags %#x",
		      what, wc.wc_flags);
	}
	check_recv3(r, len, seed, what);
	printf("ok %s\n", what);
}

/*
 * SENDs of 0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 7 and @biggest bytes
 * from a to b, with immediate data, and one from b to a.
 */
static inline void test_send(struct end *a, struct end *b, uint32_t mtu,
			     uint32_t biggest)
{
	const uint32_t sizes[] = { 0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 7,
				   biggest };
	char what[80];
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(what, sizeof(what), "send %u bytes", sizes[i]);
		send_check(a, b, sizes[i], 1 + i, 0, what);
	}
	send_check(a, b, mtu + 5, 20, 1, "send with imm");
	send_check(a, b, 0, 21, 1, "send with imm 0 bytes");
	snprintf(what, sizeof(what), "send B to A %u bytes", 2 * mtu + 1);
	send_check(b, a, 2 * mtu + 1, 22, 0, what);
}

/* WRITE (with immediate if imm) of len bytes to WRITE_AT at r. */
static inline void write_check(struct end *s, struct end *r, uint32_t len,
			       unsigned int seed, int with_imm,
			       const char *what)
{
	struct op op = {
		.opcode = with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
				     IBV_WR_RDMA_WRITE,
		.wr_id = seed, .flags = IBV_SEND_SIGNALED,
		.imm = 0xfeed0000u + seed,
		.raddr = (uintptr_t)(r->buf + WRITE_AT), .rkey = r->mr->rkey,
	};
	struct ibv_wc wc;

	if (with_imm)
		post_recv3(r, 1000 + seed);
	fill_guarded(r->buf + WRITE_AT, len);
	op.num_sge = src_sges(s, op.sge, len, seed);
	post_one(s, &op);
	expect_wc(s, &wc, what, seed, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	if (with_imm) {
		expect_wc(r, &wc, what, 1000 + seed, IBV_WC_SUCCESS,
			  IBV_WC_RECV_RDMA_WITH_IMM);
		CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "%s: wc_flags %#x", what,
		      wc.wc_flags);
		CHECK(ntohl(wc.imm_data) == op.imm, "%s: imm %#x, expected %#x",
		      what, ntohl(wc.imm_data), op.imm);
		CHECK(wc.byte_len == len, "%s: byte_len %u, expected %u", what,
		      wc.byte_len, len);
		/* The WQE's buffers are not written. */
		check_recv3(r, 0, seed, what);
	} else if (s->qp->qp_type == IBV_QPT_UC) {
		await_pattern_end(r->buf + WRITE_AT, len, seed);
	}
	check_guarded_pattern(r->buf + WRITE_AT, len, seed, what);
	printf("ok %s\n", what);
}

/*
 * WRITEs of 0, 1, mtu, 3 * mtu + 7 and @biggest bytes from a to b (no
 * completion at b), and with immediate data.
 */
static inline void test_write(struct end *a, struct end *b, uint32_t mtu,
			      uint32_t biggest)
{
	const uint32_t sizes[] = { 0, 1, mtu, 3 * mtu + 7, biggest };
	char what[80];
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(what, sizeof(what), "write %u bytes", sizes[i]);
		write_check(a, b, sizes[i], 40 + i, 0, what);
	}
	expect_no_wc(b, "write (no completion at the responder)");
	snprintf(what, sizeof(what), "write with imm %u bytes", 2 * mtu + 3);
	write_check(a, b, 2 * mtu + 3, 50, 1, what);
	write_check(a, b, 0, 51, 1, "write with imm 0 bytes");
}

#endif /* SROCE_TEST_DATA_XFER_H */
