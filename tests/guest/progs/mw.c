// SPDX-License-Identifier: GPL-2.0
/*
 * mw [-r] DEV_A GID_A DEV_B GID_B CHURN: memory windows and memory region
 * re-registration, between two devices in one process (DEV_A and DEV_B
 * may be the same device). A is the requester; B owns the memory, binds
 * the windows on its own QP, and is the responder. Every transfer is
 * checked byte by byte, with the bytes around it:
 *  - churn: CHURN MR registrations and CHURN MW allocations in a row
 *    (they share the key space), timed; later checks run on keys past it;
 *  - type 1: ibv_bind_mw to an MR that has no remote rights of its own,
 *    RDMA WRITE/READ through the window, access before, across the end of
 *    and outside the window, the MR's own key, dereg of the MR refused
 *    while bound, a rebind (old key dead, new rights), an unbind;
 *  - type 2: bind by ibv_post_send(IBV_WR_BIND_MW) and by
 *    ibv_wr_bind_mw(), WRITE/READ/FETCH_ADD through it, another QP of the
 *    same PD refused, LOCAL_INV then remote use refused, a zero-based
 *    window, SEND_WITH_INV (the receive completes with IBV_WC_WITH_INV
 *    and invalidated_rkey, then the key is dead), a SEND_WITH_INV from the
 *    wrong QP refused, a bound window deallocated;
 *  - bind errors (IBV_WC_MW_BIND_ERR): MR without MW_BIND access (both
 *    types), window outside the MR, remote write on an MR without local
 *    write, a type 2 window bound twice, a new key of another index; and
 *    LOCAL_INV of a type 1 window;
 *  - re-registration: new translation, access flags, PD; remote access
 *    follows each; refused while a window is bound. librxe (rdma-core 44)
 *    has no rereg_mr, so ibv_rereg_mr() fails with EOPNOTSUPP: the
 *    kernel's REREG_MR command is then issued directly on the command fd.
 * -r accepts the known deviations of rdma_rxe (6.1), each reported on a
 * line "rxe quirk: ...". A type 2 window is deallocated or invalidated
 * before the QP it is bound to is destroyed: rdma_rxe 6.1 keeps that QP
 * referenced and warns when it is destroyed (sroce does not mind).
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "end.h"
#include "prog_args.h"
#include "rc_conn.h"

#define BUF_SIZE	(1u << 20)
#define WIN_OFF		(64 * 1024 + 123)	/* an odd address */
#define WIN_LEN		8192
#define WIN2_OFF	(256 * 1024 + 5)
#define SRC_OFF		4096			/* A's sources and sinks */
#define RECV_OFF	(512 * 1024)		/* B's receive buffer */
#define WAIT_MS		30000
#define USAGE		"usage: mw [-r] DEV_A GID_A DEV_B GID_B CHURN"

#define REMOTE_RW	(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)

/*
 * One end of a connected pair of RC QPs, on side s: A or B, each a device
 * with its PD, GID and buf with mr (end.h; its own cq and qp go unused).
 */
struct ep {
	struct end *s;
	uint32_t psn;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
};

struct conn {
	struct ep a, b;
};

static int rxe_quirks;
static uint8_t rd_atomic = 1;

/* Windows are deallocated at the end, before their MRs go. */
static struct ibv_mw *windows[64];
static int nwindows;

static void quirk(const char *what)
{
	CHECK(rxe_quirks, "%s", what);
	printf("rxe quirk: %s\n", what);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void setup_side(struct end *s, const char *name, const char *dev,
		       int gid_index)
{
	struct ibv_device_attr da;

	end_open(s, name, dev, gid_index);
	CHECK(!ibv_query_device(s->ctx, &da), "query_device %s", dev);
	CHECK(da.max_mw > 0, "%s: max_mw %d", dev, da.max_mw);
	CHECK(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW,
	      "%s: no IBV_DEVICE_MEM_WINDOW", dev);
	CHECK(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B,
	      "%s: no IBV_DEVICE_MEM_WINDOW_TYPE_2B", dev);
	CHECK(da.atomic_cap != IBV_ATOMIC_NONE, "%s: no atomics", dev);
	if (da.max_qp_rd_atom > 0 && da.max_qp_init_rd_atom > 0)
		rd_atomic = 4;
	s->mr = end_reg_buf(s, &s->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			    REMOTE_RW | IBV_ACCESS_REMOTE_ATOMIC);
}

static void create_qp(struct ep *e)
{
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->s->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_INV |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				  IBV_QP_EX_WITH_LOCAL_INV |
				  IBV_QP_EX_WITH_BIND_MW,
	};

	e->cq = ibv_create_cq(e->s->ctx, 128, NULL, NULL, 0);
	CHECK(e->cq, "%s: create_cq: %s", e->s->name, strerror(errno));
	init.send_cq = e->cq;
	init.recv_cq = e->cq;
	e->qp = ibv_create_qp_ex(e->s->ctx, &init);
	CHECK(e->qp, "%s: create_qp_ex: %s", e->s->name, strerror(errno));
	e->qpx = ibv_qp_to_qp_ex(e->qp);
	CHECK(e->qpx, "%s: no ibv_qp_ex", e->s->name);
}

static void connect_pair(struct conn *c, struct end *a, struct end *b)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .rd_atomic = rd_atomic, .rnr_retry = 7,
		.timeout = 14,
		.access = IBV_ACCESS_LOCAL_WRITE | REMOTE_RW |
			  IBV_ACCESS_REMOTE_ATOMIC,
	};
	struct conn_end ca, cb;

	c->a.s = a;
	c->b.s = b;
	c->a.psn = 0x1000 + (rand() & 0xffff);
	c->b.psn = 0xfff000 + (rand() & 0xff);	/* wraps soon */
	create_qp(&c->a);
	create_qp(&c->b);
	ca = end_conn(a, c->a.qp, c->a.psn);
	cb = end_conn(b, c->b.qp, c->b.psn);
	conn_connect(&ca, &cb, &p);
}

static void disconnect(struct conn *c)
{
	struct ep *e[2] = { &c->a, &c->b };
	int i;

	for (i = 0; i < 2; i++) {
		CHECK(!ibv_destroy_qp(e[i]->qp), "%s: destroy_qp",
		      e[i]->s->name);
		CHECK(!ibv_destroy_cq(e[i]->cq), "%s: destroy_cq",
		      e[i]->s->name);
	}
}

/* After an error completion both QPs are in ERR: start afresh. */
static void reconnect(struct conn *c)
{
	struct end *a = c->a.s, *b = c->b.s;

	disconnect(c);
	connect_pair(c, a, b);
}

/* The next completion at e, which must be for wr_id. */
static void next_wc(struct ep *e, struct ibv_wc *wc, uint64_t wr_id,
		    const char *what)
{
	CHECK(conn_poll(e->cq, wc, WAIT_MS), "%s: no completion at %s in %d ms",
	      what, e->s->name, WAIT_MS);
	CHECK(wc->wr_id == wr_id, "%s: %s completion for wr_id %llu, not %llu"
	      " (status '%s')", what, e->s->name,
	      (unsigned long long)wc->wr_id, (unsigned long long)wr_id,
	      ibv_wc_status_str(wc->status));
}

static void expect_wc(struct ep *e, uint64_t wr_id, enum ibv_wc_status st,
		      enum ibv_wc_opcode opcode, const char *what)
{
	struct ibv_wc wc;

	conn_expect_wc(e->cq, e->qp, e->s->name, what, &wc, wr_id, st, opcode,
		       WAIT_MS);
}

static uint64_t next_id = 1;

/*
 * One signalled RDMA op from A's buf at loff (len bytes) to raddr/rkey;
 * returns its completion status. For FETCH_ADD, add is the operand.
 */
static enum ibv_wc_status rdma(struct ep *a, enum ibv_wr_opcode op,
			       size_t loff, uint32_t len, uint64_t raddr,
			       uint32_t rkey, uint64_t add)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(a->s->buf + loff),
			       .length = len, .lkey = a->s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = next_id++, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	int err;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = add;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	err = ibv_post_send(a->qp, &wr, &bad);
	CHECK(!err, "%s: post_send: %s", a->s->name, strerror(err));
	next_wc(a, &wc, wr.wr_id, "rdma");
	return wc.status;
}

/* An access that must fail with a remote access error; reconnects. */
static void expect_denied(struct conn *c, enum ibv_wr_opcode op,
			  uint32_t len, uint64_t raddr, uint32_t rkey,
			  const char *what)
{
	enum ibv_wc_status st = rdma(&c->a, op, SRC_OFF, len, raddr, rkey, 1);

	CHECK(st == IBV_WC_REM_ACCESS_ERR, "%s: status '%s', expected '%s'",
	      what, ibv_wc_status_str(st),
	      ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	printf("ok %s: %s\n", what, ibv_wc_status_str(st));
	reconnect(c);
}

/*
 * An access outside a window but inside its MR: rdma_rxe 6.1 checks only
 * the MR's range (quirk). Reconnects after a refusal.
 */
static void expect_outside(struct conn *c, enum ibv_wr_opcode op,
			   uint32_t len, uint64_t raddr, uint32_t rkey,
			   const char *what)
{
	enum ibv_wc_status st = rdma(&c->a, op, SRC_OFF, len, raddr, rkey, 1);
	char msg[160];

	if (st == IBV_WC_SUCCESS && rxe_quirks) {
		snprintf(msg, sizeof(msg),
			 "%s succeeds: only the MR's range is checked", what);
		quirk(msg);
		return;
	}
	CHECK(st == IBV_WC_REM_ACCESS_ERR, "%s: status '%s', expected '%s'",
	      what, ibv_wc_status_str(st),
	      ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	printf("ok %s: %s\n", what, ibv_wc_status_str(st));
	reconnect(c);
}

/*
 * A WRITE of len bytes (pattern seed) from A to raddr, or a READ of as
 * many from raddr to A: raddr is B's buf + boff. Checks them with the
 * bytes around them.
 */
static void rdma_check(struct conn *c, enum ibv_wr_opcode op, size_t boff,
		       uint32_t len, uint64_t raddr, uint32_t rkey,
		       unsigned int seed, const char *what)
{
	uint8_t *a_buf = c->a.s->buf + SRC_OFF, *b_buf = c->b.s->buf + boff;
	uint8_t *dst = op == IBV_WR_RDMA_WRITE ? b_buf : a_buf;
	enum ibv_wc_status st;

	fill_pattern(op == IBV_WR_RDMA_WRITE ? a_buf : b_buf, len, seed, 0);
	fill_guarded(dst, len);
	st = rdma(&c->a, op, SRC_OFF, len, raddr, rkey, 0);
	CHECK(st == IBV_WC_SUCCESS, "%s: status '%s'", what,
	      ibv_wc_status_str(st));
	check_guarded_pattern(dst, len, seed, what);
	printf("ok %s\n", what);
}

static void write_check(struct conn *c, size_t boff, uint32_t len,
			uint64_t raddr, uint32_t rkey, unsigned int seed,
			const char *what)
{
	rdma_check(c, IBV_WR_RDMA_WRITE, boff, len, raddr, rkey, seed, what);
}

static void read_check(struct conn *c, size_t boff, uint32_t len,
		       uint64_t raddr, uint32_t rkey, unsigned int seed,
		       const char *what)
{
	rdma_check(c, IBV_WR_RDMA_READ, boff, len, raddr, rkey, seed, what);
}

static struct ibv_mw *alloc_mw(struct end *s, enum ibv_mw_type type)
{
	struct ibv_mw *mw = ibv_alloc_mw(s->pd, type);

	CHECK(mw, "%s: alloc_mw type %d: %s", s->name, type, strerror(errno));
	CHECK(nwindows < (int)(sizeof(windows) / sizeof(windows[0])),
	      "too many windows");
	windows[nwindows++] = mw;
	return mw;
}

static void dealloc_mw(struct ibv_mw *mw)
{
	int i;

	for (i = 0; i < nwindows; i++)
		if (windows[i] == mw)
			windows[i] = windows[--nwindows];
	CHECK(!ibv_dealloc_mw(mw), "dealloc_mw");
}

/* Type 1, by the Bind MW verb (librxe posts a BIND_MW WQE). */
static void bind1(struct ep *b, struct ibv_mw *mw, struct ibv_mr *mr,
		  size_t off, uint64_t len, unsigned int access,
		  enum ibv_wc_status want, const char *what)
{
	struct ibv_mw_bind bind = {
		.wr_id = next_id++, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = mr,
			.addr = len ? (uintptr_t)(b->s->buf + off) : 0,
			.length = len, .mw_access_flags = access,
		},
	};
	uint32_t old = mw->rkey;
	int err;

	err = ibv_bind_mw(b->qp, mw, &bind);
	CHECK(!err, "%s: ibv_bind_mw: %s", what, strerror(err));
	expect_wc(b, bind.wr_id, want, IBV_WC_BIND_MW, what);
	/* librxe moved the key on; the consumer undoes that on an error. */
	if (want != IBV_WC_SUCCESS)
		mw->rkey = old;
	else
		CHECK(mw->rkey != old, "%s: rkey unchanged", what);
	printf("ok %s: %s\n", what, ibv_wc_status_str(want));
}

/*
 * Type 2, by a BIND_MW WQE with the new key rkey: ibv_post_send, or
 * ibv_wr_bind_mw() with wr_api. The consumer keeps mw->rkey current.
 */
static void bind2(struct ep *b, struct ibv_mw *mw, uint32_t rkey,
		  struct ibv_mr *mr, size_t off, uint64_t len,
		  unsigned int access, int wr_api, enum ibv_wc_status want,
		  const char *what)
{
	struct ibv_mw_bind_info info = {
		.mr = mr, .addr = (uintptr_t)(b->s->buf + off), .length = len,
		.mw_access_flags = access,
	};
	uint64_t wr_id = next_id++;
	int err;

	if (wr_api) {
		ibv_wr_start(b->qpx);
		b->qpx->wr_id = wr_id;
		b->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(b->qpx, mw, rkey, &info);
		err = ibv_wr_complete(b->qpx);
	} else {
		struct ibv_send_wr wr = {
			.wr_id = wr_id, .opcode = IBV_WR_BIND_MW,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_mw = { .mw = mw, .rkey = rkey,
				     .bind_info = info },
		}, *bad;

		err = ibv_post_send(b->qp, &wr, &bad);
	}
	CHECK(!err, "%s: post: %s", what, strerror(err));
	expect_wc(b, wr_id, want, IBV_WC_BIND_MW, what);
	if (want == IBV_WC_SUCCESS)
		mw->rkey = rkey;
	printf("ok %s: %s\n", what, ibv_wc_status_str(want));
}

/* LOCAL_INV of rkey on e (ibv_wr_local_inv); returns the status. */
static enum ibv_wc_status local_inv(struct ep *e, uint32_t rkey)
{
	uint64_t wr_id = next_id++;
	struct ibv_wc wc;
	int err;

	ibv_wr_start(e->qpx);
	e->qpx->wr_id = wr_id;
	e->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(e->qpx, rkey);
	err = ibv_wr_complete(e->qpx);
	CHECK(!err, "local_inv: %s", strerror(err));
	next_wc(e, &wc, wr_id, "local_inv");
	if (wc.status == IBV_WC_SUCCESS)
		CHECK(wc.opcode == IBV_WC_LOCAL_INV, "local_inv opcode %d",
		      wc.opcode);
	return wc.status;
}

static uint64_t b_addr(struct conn *c, size_t off)
{
	return (uintptr_t)(c->b.s->buf + off);
}

/*
 * A SEND_WITH_INV of len bytes (pattern seed) from A that names rkey,
 * into a receive WQE at B's RECV_OFF. Returns A's completion status; if
 * that is a success, *rwc is B's receive completion.
 */
static enum ibv_wc_status send_inv(struct conn *c, uint32_t rkey,
				   uint32_t len, unsigned int seed,
				   struct ibv_wc *rwc)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(c->a.s->buf + SRC_OFF),
			       .length = len, .lkey = c->a.s->mr->lkey };
	struct ibv_sge rsge = { .addr = b_addr(c, RECV_OFF), .length = 256,
				.lkey = c->b.s->mr->lkey };
	uint64_t rwr_id = next_id++;
	struct ibv_recv_wr rwr = { .wr_id = rwr_id, .sg_list = &rsge,
				   .num_sge = 1 }, *rbad;
	struct ibv_send_wr wr = {
		.wr_id = next_id++, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = rkey,
	}, *bad;
	struct ibv_wc wc;

	fill_pattern(c->a.s->buf + SRC_OFF, len, seed, 0);
	memset(c->b.s->buf + RECV_OFF, FILL, 256);
	CHECK(!ibv_post_recv(c->b.qp, &rwr, &rbad), "post_recv");
	CHECK(!ibv_post_send(c->a.qp, &wr, &bad), "post_send");
	next_wc(&c->a, &wc, wr.wr_id, "send with invalidate");
	if (wc.status != IBV_WC_SUCCESS)
		return wc.status;
	CHECK(wc.opcode == IBV_WC_SEND, "send with invalidate: opcode %d",
	      wc.opcode);
	next_wc(&c->b, rwc, rwr_id, "send with invalidate, receive");
	return wc.status;
}

/* --- churn ------------------------------------------------------------- */

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static void test_churn(struct end *b, int n)
{
	uint32_t *keys = calloc(2 * (size_t)n, sizeof(*keys));
	double t0 = now_s(), dt;
	int i, dup = 0;

	CHECK(keys, "out of memory");
	for (i = 0; i < n; i++) {
		struct ibv_mr *mr = ibv_reg_mr(b->pd, b->buf, 4096,
					       IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_MW_BIND);
		struct ibv_mw *mw;

		CHECK(mr, "churn: reg_mr %d: %s", i, strerror(errno));
		mw = ibv_alloc_mw(b->pd, i & 1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
		CHECK(mw, "churn: alloc_mw %d: %s", i, strerror(errno));
		keys[2 * i] = mr->lkey;
		keys[2 * i + 1] = mw->rkey;
		CHECK(!ibv_dealloc_mw(mw), "churn: dealloc_mw %d", i);
		CHECK(!ibv_dereg_mr(mr), "churn: dereg_mr %d", i);
	}
	dt = now_s() - t0;
	qsort(keys, 2 * (size_t)n, sizeof(*keys), cmp_u32);
	for (i = 1; i < 2 * n; i++)
		if (keys[i] == keys[i - 1])
			dup++;
	free(keys);
	CHECK(!dup, "churn: %d keys handed out twice", dup);
	printf("ok churn: %d MR reg/dereg and %d MW alloc/dealloc in a row, "
	       "keys all distinct, %.1f s (%.0f pairs/s)\n", n, n, dt,
	       dt > 0 ? n / dt : 0.0);
}

/* --- type 1 ------------------------------------------------------------ */

static void test_type1(struct conn *c, struct ibv_mr *mr_bind)
{
	struct ibv_mw *mw = alloc_mw(c->b.s, IBV_MW_TYPE_1);
	uint32_t old;
	int err;

	bind1(&c->b, mw, mr_bind, WIN_OFF, WIN_LEN, REMOTE_RW, IBV_WC_SUCCESS,
	      "type 1 bind");
	write_check(c, WIN_OFF + 13, 3000, b_addr(c, WIN_OFF + 13), mw->rkey,
		    1, "type 1 write through the window");
	read_check(c, WIN_OFF, WIN_LEN, b_addr(c, WIN_OFF), mw->rkey, 2,
		   "type 1 read of the whole window");
	expect_denied(c, IBV_WR_RDMA_WRITE, 16, b_addr(c, WIN_OFF),
		      mr_bind->lkey,
		      "write with the key of the MR (no remote rights)");
	expect_outside(c, IBV_WR_RDMA_READ, 16, b_addr(c, WIN_OFF - 1),
		       mw->rkey, "type 1 read from 1 byte before the window");
	expect_outside(c, IBV_WR_RDMA_WRITE, 16,
		       b_addr(c, WIN_OFF + WIN_LEN - 8), mw->rkey,
		       "type 1 write across the end of the window");
	expect_denied(c, IBV_WR_RDMA_READ, 16, b_addr(c, BUF_SIZE - 8),
		      mw->rkey, "type 1 read across the end of the MR");

	err = ibv_dereg_mr(mr_bind);
	CHECK(err, "dereg of an MR with a bound window succeeded");
	printf("ok dereg of an MR with a bound window refused: %s\n",
	       strerror(err));

	/* Bound again at once: the old key dies, the new rights apply. */
	old = mw->rkey;
	bind1(&c->b, mw, mr_bind, WIN2_OFF, 4096, IBV_ACCESS_REMOTE_READ,
	      IBV_WC_SUCCESS, "type 1 rebind, read only, elsewhere");
	read_check(c, WIN2_OFF, 4096, b_addr(c, WIN2_OFF), mw->rkey, 3,
		   "type 1 read through the rebound window");
	expect_denied(c, IBV_WR_RDMA_READ, 16, b_addr(c, WIN2_OFF), old,
		      "type 1 read with the key before the rebind");
	expect_denied(c, IBV_WR_RDMA_WRITE, 16, b_addr(c, WIN2_OFF), mw->rkey,
		      "type 1 write through a read-only window");

	bind1(&c->b, mw, mr_bind, 0, 0, 0, IBV_WC_SUCCESS,
	      "type 1 unbind (length 0)");
	expect_denied(c, IBV_WR_RDMA_READ, 16, b_addr(c, WIN2_OFF), mw->rkey,
		      "type 1 read after the unbind");
	dealloc_mw(mw);
}

/* --- type 2 ------------------------------------------------------------ */

static void test_type2(struct conn *c, struct ibv_mr *mr_bind)
{
	struct ibv_mw *mw = alloc_mw(c->b.s, IBV_MW_TYPE_2);
	uint64_t *word = (uint64_t *)(c->b.s->buf + WIN_OFF + 5);
	uint64_t *orig = (uint64_t *)(c->a.s->buf + SRC_OFF);
	enum ibv_wc_status st;
	struct ibv_wc wc;
	struct conn c2;
	uint32_t key;

	bind2(&c->b, mw, ibv_inc_rkey(mw->rkey), mr_bind, WIN_OFF, WIN_LEN,
	      REMOTE_RW | IBV_ACCESS_REMOTE_ATOMIC, 0, IBV_WC_SUCCESS,
	      "type 2 bind by ibv_post_send");
	write_check(c, WIN_OFF + 100, 5000, b_addr(c, WIN_OFF + 100),
		    mw->rkey, 4, "type 2 write through the window");
	read_check(c, WIN_OFF + 1, WIN_LEN - 1, b_addr(c, WIN_OFF + 1),
		   mw->rkey, 5, "type 2 read through the window");

	/* 8-byte aligned in memory: WIN_OFF + 5 is, buf is page aligned. */
	*word = 1000;
	*orig = 0;
	st = rdma(&c->a, IBV_WR_ATOMIC_FETCH_AND_ADD, SRC_OFF, 8,
		  b_addr(c, WIN_OFF + 5), mw->rkey, 23);
	CHECK(st == IBV_WC_SUCCESS && *orig == 1000 && *word == 1023,
	      "type 2 fetch-add: status '%s', orig %llu, now %llu",
	      ibv_wc_status_str(st), (unsigned long long)*orig,
	      (unsigned long long)*word);
	printf("ok type 2 fetch-add through the window\n");

	/* Another QP of the same PD: the window is bound to c->b's QP. */
	connect_pair(&c2, c->a.s, c->b.s);
	expect_denied(&c2, IBV_WR_RDMA_READ, 16, b_addr(c, WIN_OFF), mw->rkey,
		      "type 2 read through another QP of the PD");
	st = send_inv(&c2, mw->rkey, 8, 11, &wc);
	disconnect(&c2);
	if (st == IBV_WC_SUCCESS) {
		quirk("a SEND_WITH_INV through another QP of the PD "
		      "invalidates a type 2 window");
		dealloc_mw(mw);
		mw = alloc_mw(c->b.s, IBV_MW_TYPE_2);
		bind2(&c->b, mw, ibv_inc_rkey(mw->rkey), mr_bind, WIN_OFF,
		      WIN_LEN, REMOTE_RW, 0, IBV_WC_SUCCESS,
		      "type 2 bind of a new window");
	} else {
		printf("ok send with invalidate through another QP of the PD "
		       "refused: %s\n", ibv_wc_status_str(st));
	}
	read_check(c, WIN_OFF, 64, b_addr(c, WIN_OFF), mw->rkey, 6,
		   "type 2 window still there for its QP");

	/* Local invalidate, then the key is dead. */
	st = local_inv(&c->b, mw->rkey);
	CHECK(st == IBV_WC_SUCCESS, "local invalidate: '%s'",
	      ibv_wc_status_str(st));
	printf("ok type 2 local invalidate\n");
	expect_denied(c, IBV_WR_RDMA_READ, 16, b_addr(c, WIN_OFF), mw->rkey,
		      "type 2 read after local invalidate");

	/* Free again: bound anew, zero based, by ibv_wr_bind_mw(). */
	bind2(&c->b, mw, ibv_inc_rkey(mw->rkey), mr_bind, WIN2_OFF, 4096,
	      REMOTE_RW | IBV_ACCESS_ZERO_BASED, 1, IBV_WC_SUCCESS,
	      "type 2 zero-based rebind by ibv_wr_bind_mw");
	write_check(c, WIN2_OFF + 100, 200, 100, mw->rkey, 7,
		    "type 2 zero-based write at offset 100");
	read_check(c, WIN2_OFF, 4096, 0, mw->rkey, 8,
		   "type 2 zero-based read of the whole window");
	expect_outside(c, IBV_WR_RDMA_READ, 16, 4096 - 8, mw->rkey,
		       "type 2 zero-based read across the end of the window");
	dealloc_mw(mw);

	/* SEND_WITH_INV names the window; the receiver sees it. */
	mw = alloc_mw(c->b.s, IBV_MW_TYPE_2);
	bind2(&c->b, mw, ibv_inc_rkey(mw->rkey), mr_bind, WIN_OFF, WIN_LEN,
	      REMOTE_RW, 0, IBV_WC_SUCCESS,
	      "type 2 bind for send with invalidate");
	st = send_inv(c, mw->rkey, 100, 9, &wc);
	CHECK(st == IBV_WC_SUCCESS, "send with invalidate: '%s'",
	      ibv_wc_status_str(st));
	CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
	      wc.byte_len == 100,
	      "send with invalidate: receive status '%s' opcode %d len %u",
	      ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
	check_pattern(c->b.s->buf + RECV_OFF, 100, 9, 0,
		      "send with invalidate");
	check_untouched(c->b.s->buf + RECV_OFF + 100, 156,
			"send with invalidate");
	CHECK(wc.invalidated_rkey == mw->rkey,
	      "invalidated_rkey %#x, expected %#x", wc.invalidated_rkey,
	      mw->rkey);
	if (!(wc.wc_flags & IBV_WC_WITH_INV) &&
	    (wc.wc_flags & IBV_WC_IP_CSUM_OK))
		quirk("the receive of a SEND_WITH_INV has IBV_WC_IP_CSUM_OK, "
		      "not IBV_WC_WITH_INV (the kernel's flag value)");
	else
		CHECK(wc.wc_flags & IBV_WC_WITH_INV,
		      "receive wc_flags %#x without IBV_WC_WITH_INV",
		      wc.wc_flags);
	printf("ok send with invalidate: receive has IBV_WC_WITH_INV, "
	       "invalidated_rkey %#x\n", wc.invalidated_rkey);
	expect_denied(c, IBV_WR_RDMA_WRITE, 16, b_addr(c, WIN_OFF), mw->rkey,
		      "type 2 write after send with invalidate");

	/* Deallocating a bound window: its key dies with it. */
	mw = alloc_mw(c->b.s, IBV_MW_TYPE_2);
	bind2(&c->b, mw, ibv_inc_rkey(mw->rkey), mr_bind, WIN_OFF, WIN_LEN,
	      REMOTE_RW, 0, IBV_WC_SUCCESS, "type 2 bind before dealloc");
	key = mw->rkey;
	read_check(c, WIN_OFF, 32, b_addr(c, WIN_OFF), key, 10,
		   "type 2 read before dealloc");
	dealloc_mw(mw);
	printf("ok dealloc of a bound window\n");
	expect_denied(c, IBV_WR_RDMA_READ, 16, b_addr(c, WIN_OFF), key,
		      "read through a deallocated window");
}

/* --- bind errors ------------------------------------------------------- */

static void test_bind_errors(struct conn *c, struct ibv_mr *mr_bind,
			     struct ibv_mr *mr_nobind, struct ibv_mr *mr_nolw)
{
	struct ibv_mw *w1 = alloc_mw(c->b.s, IBV_MW_TYPE_1);
	struct ibv_mw *w2 = alloc_mw(c->b.s, IBV_MW_TYPE_2);
	enum ibv_wc_status st;

	bind2(&c->b, w2, ibv_inc_rkey(w2->rkey), mr_nobind, WIN_OFF, 4096,
	      IBV_ACCESS_REMOTE_READ, 0, IBV_WC_MW_BIND_ERR,
	      "type 2 bind to an MR without MW_BIND access");
	reconnect(c);
	bind1(&c->b, w1, mr_nobind, WIN_OFF, 4096, IBV_ACCESS_REMOTE_READ,
	      IBV_WC_MW_BIND_ERR,
	      "type 1 bind to an MR without MW_BIND access");
	reconnect(c);
	bind2(&c->b, w2, ibv_inc_rkey(w2->rkey), mr_bind, BUF_SIZE - 4096,
	      8192, IBV_ACCESS_REMOTE_READ, 0, IBV_WC_MW_BIND_ERR,
	      "type 2 bind of a window past the end of the MR");
	reconnect(c);
	bind2(&c->b, w2, ibv_inc_rkey(w2->rkey), mr_nolw, 0, 4096,
	      IBV_ACCESS_REMOTE_WRITE, 0, IBV_WC_MW_BIND_ERR,
	      "type 2 remote-write bind to an MR without local write");
	reconnect(c);

	bind2(&c->b, w2, ibv_inc_rkey(w2->rkey), mr_bind, WIN_OFF, 4096,
	      IBV_ACCESS_REMOTE_READ, 0, IBV_WC_SUCCESS, "type 2 bind");
	bind2(&c->b, w2, ibv_inc_rkey(w2->rkey), mr_bind, WIN_OFF, 4096,
	      IBV_ACCESS_REMOTE_READ, 0, IBV_WC_MW_BIND_ERR,
	      "type 2 bind of a bound window");
	dealloc_mw(w2);
	reconnect(c);

	{
		struct ibv_mw *w3 = alloc_mw(c->b.s, IBV_MW_TYPE_2);
		uint32_t other = w2->rkey ^ 0x100;	/* another index */
		struct ibv_mw_bind_info info = {
			.mr = mr_bind, .addr = b_addr(c, WIN_OFF),
			.length = 4096,
			.mw_access_flags = IBV_ACCESS_REMOTE_READ,
		};
		struct ibv_send_wr wr = {
			.wr_id = next_id++, .opcode = IBV_WR_BIND_MW,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_mw = { .mw = w3, .rkey = other,
				     .bind_info = info },
		}, *bad;
		struct ibv_wc wc;

		CHECK(!ibv_post_send(c->b.qp, &wr, &bad), "post bind");
		next_wc(&c->b, &wc, wr.wr_id, "bind with another index");
		if (wc.status == IBV_WC_SUCCESS) {
			quirk("a type 2 bind takes only the key byte of the "
			      "new rkey");
			dealloc_mw(w3);
		} else {
			CHECK(wc.status == IBV_WC_MW_BIND_ERR,
			      "bind with a key of another index: '%s'",
			      ibv_wc_status_str(wc.status));
			printf("ok type 2 bind with a new key of another "
			       "index: %s\n", ibv_wc_status_str(wc.status));
			dealloc_mw(w3);
			reconnect(c);
		}
	}

	bind1(&c->b, w1, mr_bind, WIN_OFF, 4096, IBV_ACCESS_REMOTE_READ,
	      IBV_WC_SUCCESS, "type 1 bind");
	st = local_inv(&c->b, w1->rkey);
	CHECK(st != IBV_WC_SUCCESS,
	      "local invalidate of a type 1 window succeeded");
	printf("ok local invalidate of a type 1 window refused: %s\n",
	       ibv_wc_status_str(st));
	reconnect(c);
}

/* --- re-registration --------------------------------------------------- */

/*
 * ibv_rereg_mr(), or the kernel's REREG_MR command where the provider
 * has no such verb (librxe). Returns 0 or an errno; mr follows.
 */
static int rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		 size_t len, int access)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_rereg_mr cmd;
	} req;
	struct ib_uverbs_rereg_mr_resp resp;
	int ret;

	errno = 0;
	ret = ibv_rereg_mr(mr, flags, pd, addr, len, access);
	if (!ret)
		return 0;
	/* The provider's verb is missing: its stub says EOPNOTSUPP. */
	if (errno != EOPNOTSUPP)
		return errno ? errno : EIO;

	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	req.hdr.command = IB_USER_VERBS_CMD_REREG_MR;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.mr_handle = mr->handle;
	req.cmd.flags = flags;
	req.cmd.start = (uintptr_t)addr;
	req.cmd.length = len;
	req.cmd.hca_va = (uintptr_t)addr;
	req.cmd.pd_handle = flags & IBV_REREG_MR_CHANGE_PD ? pd->handle : 0;
	req.cmd.access_flags = access;
	if (write(mr->context->cmd_fd, &req, sizeof(req)) != sizeof(req))
		return errno;
	mr->lkey = resp.lkey;
	mr->rkey = resp.rkey;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr->addr = addr;
		mr->length = len;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	return 0;
}

static void test_rereg(struct conn *c, struct ibv_mr *mr_bind)
{
	struct end *b = c->b.s;
	const int rw = IBV_ACCESS_LOCAL_WRITE | REMOTE_RW;
	size_t x = 600 * 1024, y = 700 * 1024;	/* two buffers in buf */
	struct ibv_mr *mr = ibv_reg_mr(b->pd, b->buf + x, 16384, rw);
	struct ibv_pd *pd2 = ibv_alloc_pd(b->ctx);
	struct ibv_mw *mw;
	uint32_t old;
	int err;

	CHECK(mr && pd2, "reg_mr / alloc_pd: %s", strerror(errno));
	read_check(c, x, 16384, b_addr(c, x), mr->rkey, 20,
		   "read before re-registration");

	old = mr->rkey;
	err = rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, b->buf + y,
		    8192, 0);
	if (err && (err == EOPNOTSUPP || err == ENOSYS) && rxe_quirks) {
		quirk("no MR re-registration (rereg_user_mr): skipping "
		      "its checks");
		CHECK(!ibv_dereg_mr(mr) && !ibv_dealloc_pd(pd2), "cleanup");
		return;
	}
	CHECK(!err, "rereg translation: %s", strerror(err));
	printf("ok rereg translation: keys %#x -> %#x\n", old, mr->rkey);
	read_check(c, y, 8192, b_addr(c, y), mr->rkey, 21,
		   "read from the new translation");
	write_check(c, y + 8000, 192, b_addr(c, y + 8000), mr->rkey, 22,
		    "write into the new translation");
	expect_denied(c, IBV_WR_RDMA_READ, 16, b_addr(c, x), mr->rkey,
		      "read from the old translation");
	expect_denied(c, IBV_WR_RDMA_READ, 16, b_addr(c, y + 8192 - 8),
		      mr->rkey, "read across the end of the new translation");
	if (old != mr->rkey)
		expect_denied(c, IBV_WR_RDMA_READ, 16, b_addr(c, y), old,
			      "read with the key from before the rereg");

	err = rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	CHECK(!err, "rereg access read only: %s", strerror(err));
	printf("ok rereg access: remote read only\n");
	read_check(c, y, 64, b_addr(c, y), mr->rkey, 23,
		   "read after rereg to read only");
	memset(b->buf + y, FILL, 64);
	expect_denied(c, IBV_WR_RDMA_WRITE, 64, b_addr(c, y), mr->rkey,
		      "write after rereg to read only");
	check_untouched(b->buf + y, 64, "memory after the refused write");
	err = rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, rw);
	CHECK(!err, "rereg access read/write: %s", strerror(err));
	write_check(c, y + 10, 500, b_addr(c, y + 10), mr->rkey, 24,
		    "write after rereg to read/write");

	err = rereg(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	CHECK(!err, "rereg pd: %s", strerror(err));
	expect_denied(c, IBV_WR_RDMA_READ, 16, b_addr(c, y), mr->rkey,
		      "read through a QP of the MR's old PD");
	err = rereg(mr, IBV_REREG_MR_CHANGE_PD, b->pd, NULL, 0, 0);
	CHECK(!err, "rereg pd back: %s", strerror(err));
	read_check(c, y, 128, b_addr(c, y), mr->rkey, 25,
		   "read after the PD came back");

	err = rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION |
		    IBV_REREG_MR_CHANGE_ACCESS, NULL, b->buf + x, 4096,
		    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	CHECK(!err, "rereg translation and access: %s", strerror(err));
	read_check(c, x, 4096, b_addr(c, x), mr->rkey, 26,
		   "read after rereg of translation and access");
	expect_denied(c, IBV_WR_RDMA_WRITE, 16, b_addr(c, x), mr->rkey,
		      "write after rereg of translation and access");
	CHECK(!ibv_dereg_mr(mr), "dereg of the re-registered MR");
	CHECK(!ibv_dealloc_pd(pd2), "dealloc_pd");
	printf("ok dereg of a re-registered MR\n");

	/* A region with a bound window cannot be re-registered. */
	mw = alloc_mw(b, IBV_MW_TYPE_1);
	bind1(&c->b, mw, mr_bind, WIN_OFF, 4096, IBV_ACCESS_REMOTE_READ,
	      IBV_WC_SUCCESS, "type 1 bind before rereg");
	err = rereg(mr_bind, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND |
		    IBV_ACCESS_REMOTE_READ);
	CHECK(err, "rereg of an MR with a bound window succeeded");
	printf("ok rereg of an MR with a bound window refused: %s\n",
	       strerror(err));
	read_check(c, WIN_OFF, 64, b_addr(c, WIN_OFF), mw->rkey, 27,
		   "window still works after the refused rereg");
	dealloc_mw(mw);
}

int main(int argc, char **argv)
{
	struct end a = { 0 }, b = { 0 };
	struct ibv_mr *mr_bind, *mr_nobind, *mr_nolw;
	struct conn c;
	int churn;

	argv = prog_args(argc, argv, "r", (int *[]){ &rxe_quirks }, 5, USAGE);
	churn = atoi(argv[4]);
	srand(getpid());

	setup_side(&a, "A", argv[0], atoi(argv[1]));
	setup_side(&b, "B", argv[2], atoi(argv[3]));
	printf("mw: A %s gid %d, B %s gid %d\n", argv[0], a.gid_index,
	       argv[2], b.gid_index);
	if (churn)
		test_churn(&b, churn);

	/* B's memory for windows: no remote rights of its own. */
	mr_bind = ibv_reg_mr(b.pd, b.buf, BUF_SIZE,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mr_nobind = ibv_reg_mr(b.pd, b.buf, BUF_SIZE,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	mr_nolw = ibv_reg_mr(b.pd, b.buf, BUF_SIZE, IBV_ACCESS_MW_BIND);
	CHECK(mr_bind && mr_nobind && mr_nolw, "reg_mr: %s", strerror(errno));

	connect_pair(&c, &a, &b);
	printf("ok connected: A qpn %u, B qpn %u\n", c.a.qp->qp_num,
	       c.b.qp->qp_num);
	test_type1(&c, mr_bind);
	test_type2(&c, mr_bind);
	test_bind_errors(&c, mr_bind, mr_nobind, mr_nolw);
	test_rereg(&c, mr_bind);
	disconnect(&c);

	/* Windows bound to destroyed QPs go with their deallocation. */
	while (nwindows)
		dealloc_mw(windows[0]);
	CHECK(!ibv_dereg_mr(mr_bind), "dereg once no window is bound: %s",
	      strerror(errno));
	CHECK(!ibv_dereg_mr(mr_nobind) && !ibv_dereg_mr(mr_nolw),
	      "dereg: %s", strerror(errno));
	printf("ok dereg of the MR once its windows are gone\n");
	printf("mw all ok\n");
	return 0;
}
