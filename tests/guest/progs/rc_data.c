// SPDX-License-Identifier: GPL-2.0
/*
 * rc_data [-x] [-r] DEV_A GID_A DEV_B GID_B MTU: the RC data path between two
 * devices in one process (RDMA devices are visible from every namespace;
 * DEV_A and DEV_B may be the same device). A connected pair of RC QPs,
 * path MTU MTU (256..4096), RoCE v2 GIDs GID_A and GID_B (table indexes).
 * Every transfer is checked byte by byte, with the bytes around it:
 *  - SEND of 0, 1, MTU-1, MTU, MTU+1, 3*MTU+7 and 1 MiB bytes, gathered
 *    from two SGEs and scattered into a receive WQE of three SGEs of odd
 *    lengths; SEND with immediate; inline SEND of 512 bytes; B to A;
 *  - RDMA WRITE (0 to 1 MiB) into the middle of the remote MR, RDMA
 *    WRITE with immediate (consumes a receive WQE, leaves its buffer);
 *  - RDMA READ up to 8 MiB;
 *  - 200 mixed SENDs and WRITEs, one in three signalled;
 *  - errors: bad rkey (then the QP flushes), READ past the end of the MR,
 *    WRITE to an MR without remote write access, bad local lkey, and
 *    receive WQEs flushed by a move to ERR.
 * -x posts through the extended API (ibv_qp_ex, ibv_wr_*) instead of
 * ibv_post_send, one SGE per WR: the stock rxe provider (rdma-core 44),
 * which drives sroce too, takes num_sge times the first SGE's length in
 * ibv_wr_set_sge_list() and a length of 0 in
 * ibv_wr_set_inline_data_list(); and it tells the kernel "inline" only
 * through IBV_SEND_INLINE in wr_flags, so that flag is set beside
 * ibv_wr_set_inline_data().
 * -r accepts the known deviations of rdma_rxe (6.1), each reported on a
 * line "rxe quirk: ...".
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "open_device.h"

#define MIB		(1u << 20)
#define BUF_SIZE	(18 * MIB)
#define SRC_OFF		4096		/* requester's side: sources, READ sinks */
#define DST_OFF		(9 * MIB)	/* responder's side: receives, targets */
#define RO_SIZE		8192		/* the MR without remote write access */
#define GUARD		64		/* checked bytes on each side of a transfer */
#define FILL		0xee		/* what untouched memory holds */
#define MAX_WR		256
#define BURST		200
#define WAIT_MS		60000		/* for a completion that must come */
#define QUIET_MS	200		/* for one that must not */
#define USAGE		"usage: rc_data [-x] [-r] DEV_A GID_A DEV_B GID_B MTU"

/* The three receive SGEs: odd lengths, odd addresses, guards between. */
#define RSGE0		97
#define RSGE1		1031
#define RECV_CAP	(MIB + 8191)
#define RECV_AT		(DST_OFF + 13)

struct end {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;		/* buf: local write, remote read/write */
	struct ibv_mr *ro_mr;		/* ro_buf: local write, remote read */
	uint8_t *buf;
	uint8_t *ro_buf;
	union ibv_gid gid;
	int gid_index;
	uint32_t sq_psn;
	struct ibv_cq *cq;		/* per connection, like the QP */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;		/* with -x only */
};

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

static int use_wr_api;
static int rxe_quirks;		/* -r: accept rdma_rxe's known deviations */
static unsigned int mtu;
static enum ibv_mtu path_mtu;
static uint8_t rd_atomic;

/* The byte at index i of pattern seed: not periodic in 256 or any MTU. */
static uint8_t pat(unsigned int seed, size_t i)
{
	return (uint8_t)(i * 131 + seed * 59 + (i >> 9) + (i >> 17) * 7);
}

static void fill_pat(uint8_t *p, size_t n, unsigned int seed, size_t first)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = pat(seed, first + i);
}

static void check_pat(const uint8_t *p, size_t n, unsigned int seed,
		      size_t first, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		CHECK(p[i] == pat(seed, first + i),
		      "%s: byte %zu is %#x, expected %#x", what, first + i,
		      p[i], pat(seed, first + i));
}

static void check_fill(const uint8_t *p, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		CHECK(p[i] == FILL, "%s: untouched byte %zu is %#x", what, i,
		      p[i]);
}

static void setup_end(struct end *e, const char *name, const char *dev,
		      int gid_index, uint32_t sq_psn)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	e->name = name;
	e->ctx = open_by_name(dev);
	CHECK(e->ctx, "%s: no device %s", name, dev);
	CHECK(!ibv_query_device(e->ctx, &da), "query_device %s", dev);
	CHECK(!ibv_query_port(e->ctx, 1, &pa), "query_port %s", dev);
	CHECK(pa.state == IBV_PORT_ACTIVE, "%s port state %d", dev, pa.state);
	CHECK(pa.active_mtu >= path_mtu,
	      "%s: active_mtu %u < path MTU %u (raise the netdev MTU)", dev,
	      128u << pa.active_mtu, mtu);
	CHECK(da.max_qp_rd_atom > 0 && da.max_qp_init_rd_atom > 0,
	      "%s: no RDMA READ (max_qp_rd_atom %d, init %d)", dev,
	      da.max_qp_rd_atom, da.max_qp_init_rd_atom);
	if (!rd_atomic || da.max_qp_rd_atom < rd_atomic)
		rd_atomic = da.max_qp_rd_atom;
	if (da.max_qp_init_rd_atom < rd_atomic)
		rd_atomic = da.max_qp_init_rd_atom;
	if (rd_atomic > 16)
		rd_atomic = 16;

	e->gid_index = gid_index;
	CHECK(!ibv_query_gid(e->ctx, 1, gid_index, &e->gid),
	      "query_gid %s %d", dev, gid_index);
	e->sq_psn = sq_psn;
	e->pd = ibv_alloc_pd(e->ctx);
	CHECK(e->pd, "alloc_pd %s", dev);
	e->buf = aligned_alloc(4096, BUF_SIZE);
	e->ro_buf = aligned_alloc(4096, RO_SIZE);
	CHECK(e->buf && e->ro_buf, "out of memory");
	memset(e->buf, FILL, BUF_SIZE);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF_SIZE, access);
	CHECK(e->mr, "reg_mr %s: %s", dev, strerror(errno));
	e->ro_mr = ibv_reg_mr(e->pd, e->ro_buf, RO_SIZE,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	CHECK(e->ro_mr, "reg_mr read-only %s: %s", dev, strerror(errno));
}

/* The keys of a registered, then deregistered MR: nothing has them. */
static void stale_keys(struct end *e, uint32_t *lkey, uint32_t *rkey)
{
	struct ibv_mr *mr = ibv_reg_mr(e->pd, e->ro_buf, RO_SIZE,
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE);

	CHECK(mr, "reg_mr: %s", strerror(errno));
	*lkey = mr->lkey;
	*rkey = mr->rkey;
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
}

static void create_qp(struct end *e)
{
	struct ibv_qp_cap want = {
		.max_send_wr = MAX_WR, .max_recv_wr = MAX_WR,
		.max_send_sge = 3, .max_recv_sge = 3, .max_inline_data = 512,
	};
	struct ibv_qp_cap got;

	e->cq = ibv_create_cq(e->ctx, 4 * MAX_WR, NULL, NULL, 0);
	CHECK(e->cq, "%s: create_cq: %s", e->name, strerror(errno));
	if (use_wr_api) {
		struct ibv_qp_init_attr_ex init = {
			.qp_type = IBV_QPT_RC,
			.send_cq = e->cq, .recv_cq = e->cq, .cap = want,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = e->pd,
			.send_ops_flags = IBV_QP_EX_WITH_SEND |
					  IBV_QP_EX_WITH_SEND_WITH_IMM |
					  IBV_QP_EX_WITH_RDMA_WRITE |
					  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
					  IBV_QP_EX_WITH_RDMA_READ,
		};

		e->qp = ibv_create_qp_ex(e->ctx, &init);
		CHECK(e->qp, "%s: create_qp_ex: %s", e->name, strerror(errno));
		e->qpx = ibv_qp_to_qp_ex(e->qp);
		CHECK(e->qpx, "%s: no ibv_qp_ex", e->name);
		got = init.cap;
	} else {
		struct ibv_qp_init_attr init = {
			.qp_type = IBV_QPT_RC,
			.send_cq = e->cq, .recv_cq = e->cq, .cap = want,
		};

		e->qp = ibv_create_qp(e->pd, &init);
		CHECK(e->qp, "%s: create_qp: %s", e->name, strerror(errno));
		got = init.cap;
	}
	CHECK(got.max_send_wr >= MAX_WR && got.max_recv_wr >= MAX_WR &&
	      got.max_send_sge >= 3 && got.max_recv_sge >= 3,
	      "%s: caps %u/%u wr %u/%u sge", e->name, got.max_send_wr,
	      got.max_recv_wr, got.max_send_sge, got.max_recv_sge);
	CHECK(got.max_inline_data >= 512, "%s: max_inline_data %u < 512",
	      e->name, got.max_inline_data);
}

/* INIT, RTR, RTS towards peer (whose QP exists already). */
static void to_rts(struct end *e, const struct end *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int err;

	err = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	CHECK(!err, "%s: modify to INIT: %s", e->name, strerror(err));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = path_mtu;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = peer->sq_psn;
	a.max_dest_rd_atomic = rd_atomic;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = e->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	err = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	CHECK(!err, "%s: modify to RTR (address resolution of the peer GID?): %s",
	      e->name, strerror(err));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = e->sq_psn;
	a.max_rd_atomic = rd_atomic;
	err = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	CHECK(!err, "%s: modify to RTS: %s", e->name, strerror(err));
}

static void connect_pair(struct end *a, struct end *b)
{
	create_qp(a);
	create_qp(b);
	to_rts(a, b);
	to_rts(b, a);
}

static void destroy_pair(struct end *a, struct end *b)
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

static enum ibv_qp_state qp_state(struct end *e)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr init;

	CHECK(!ibv_query_qp(e->qp, &a, IBV_QP_STATE, &init), "%s: query_qp",
	      e->name);
	return a.qp_state;
}

static void post_legacy(struct end *e, struct op *ops, int n)
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

static void post_wr_api(struct end *e, struct op *ops, int n)
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

static void post_ops(struct end *e, struct op *ops, int n)
{
	if (use_wr_api)
		post_wr_api(e, ops, n);
	else
		post_legacy(e, ops, n);
}

static void post_one(struct end *e, struct op *op)
{
	post_ops(e, op, 1);
}

static void post_recv_sges(struct end *e, uint64_t wr_id, struct ibv_sge *sge,
			   int n)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge,
				  .num_sge = n }, *bad;
	int err;

	err = ibv_post_recv(e->qp, &wr, &bad);
	CHECK(!err, "%s: ibv_post_recv: %s", e->name, strerror(err));
}

/* Waits up to @ms for one completion on e's CQ; returns 1 if there was one. */
static int poll_wc(struct end *e, struct ibv_wc *wc, int ms)
{
	struct timespec start, now, nap = { 0, 200000 };
	int n;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		n = ibv_poll_cq(e->cq, 1, wc);
		CHECK(n >= 0, "%s: poll_cq: %d", e->name, n);
		if (n)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 +
		    (now.tv_nsec - start.tv_nsec) / 1000000 >= ms)
			return 0;
		nanosleep(&nap, NULL);
	}
}

/* The next completion on e: wr_id, status and (if successful) opcode. */
static void expect_wc(struct end *e, struct ibv_wc *wc, const char *what,
		      uint64_t wr_id, enum ibv_wc_status status,
		      enum ibv_wc_opcode opcode)
{
	CHECK(poll_wc(e, wc, WAIT_MS), "%s: no completion at %s in %d ms",
	      what, e->name, WAIT_MS);
	CHECK(wc->wr_id == wr_id && wc->status == status,
	      "%s: %s completion wr_id %llu status '%s' (%d), "
	      "expected wr_id %llu '%s'", what, e->name,
	      (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status),
	      wc->status, (unsigned long long)wr_id, ibv_wc_status_str(status));
	CHECK(wc->qp_num == e->qp->qp_num,
	      "%s: %s completion qp_num %u, not %u", what, e->name,
	      wc->qp_num, e->qp->qp_num);
	if (status == IBV_WC_SUCCESS)
		CHECK(wc->opcode == opcode,
		      "%s: %s completion opcode %d, expected %d", what,
		      e->name, wc->opcode, opcode);
}

static void expect_no_wc(struct end *e, const char *what)
{
	struct ibv_wc wc;

	CHECK(!poll_wc(e, &wc, QUIET_MS),
	      "%s: unexpected completion at %s: wr_id %llu status '%s' opcode %d",
	      what, e->name, (unsigned long long)wc.wr_id,
	      ibv_wc_status_str(wc.status), wc.opcode);
}

static struct ibv_sge sge_at(struct end *e, size_t off, uint32_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)(e->buf + off), .length = len,
			     .lkey = e->mr->lkey };
	return s;
}

/*
 * The receive WQE of three odd SGEs at RECV_AT, with GUARD bytes of FILL
 * between and around them; the whole area is reset to FILL.
 */
static void post_recv3(struct end *e, uint64_t wr_id)
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
static void check_recv3(struct end *e, size_t len, unsigned int seed,
			const char *what)
{
	const size_t at[3] = { RECV_AT, RECV_AT + RSGE0 + GUARD,
			       RECV_AT + RSGE0 + RSGE1 + 2 * GUARD };
	const size_t cap[3] = { RSGE0, RSGE1, RECV_CAP - RSGE0 - RSGE1 };
	size_t done = 0, n;
	int i;

	check_fill(e->buf + RECV_AT - GUARD, GUARD, what);
	for (i = 0; i < 3; i++) {
		n = len - done < cap[i] ? len - done : cap[i];
		check_pat(e->buf + at[i], n, seed, done, what);
		check_fill(e->buf + at[i] + n, cap[i] - n + GUARD, what);
		done += n;
	}
}

/*
 * The source of a len-byte transfer: pattern seed in two pieces at
 * SRC_OFF + 3 and, after a GUARD gap, the rest (one piece if len < 2 or
 * with the ibv_wr_* API).
 */
static int src_sges(struct end *e, struct ibv_sge *sge, uint32_t len,
		    unsigned int seed)
{
	uint32_t first = len / 3 + 1;
	size_t off = SRC_OFF + 3;

	if (!len)
		return 0;
	if (len < 2 || use_wr_api) {
		fill_pat(e->buf + off, len, seed, 0);
		sge[0] = sge_at(e, off, len);
		return 1;
	}
	fill_pat(e->buf + off, first, seed, 0);
	fill_pat(e->buf + off + first + GUARD, len - first, seed, first);
	sge[0] = sge_at(e, off, first);
	sge[1] = sge_at(e, off + first + GUARD, len - first);
	return 2;
}

/* One SEND (with immediate if imm) from s to r of len bytes. */
static void send_check(struct end *s, struct end *r, uint32_t len,
		       unsigned int seed, int with_imm, const char *what)
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

static void test_send(struct end *a, struct end *b)
{
	const uint32_t sizes[] = { 0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 7,
				   MIB };
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

/* 512 bytes inline: the source is overwritten before the send completes. */
static void test_inline(struct end *a, struct end *b)
{
	struct op op = { .opcode = IBV_WR_SEND, .wr_id = 30,
			 .flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE };
	struct ibv_wc wc;

	post_recv3(b, 1030);
	op.num_sge = src_sges(a, op.sge, 512, 30);
	post_one(a, &op);
	memset(a->buf + SRC_OFF, 0, 1024);
	expect_wc(a, &wc, "inline send", 30, IBV_WC_SUCCESS, IBV_WC_SEND);
	expect_wc(b, &wc, "inline send", 1030, IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc.byte_len == 512, "inline send: byte_len %u", wc.byte_len);
	check_recv3(b, 512, 30, "inline send");
	printf("ok inline send 512 bytes\n");
}

/* WRITE (with immediate if imm) of len bytes to an odd offset at r. */
static void write_check(struct end *s, struct end *r, uint32_t len,
			unsigned int seed, int with_imm, const char *what)
{
	size_t off = DST_OFF + 2 * MIB + 4099;	/* above the receive area */
	struct op op = {
		.opcode = with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
				     IBV_WR_RDMA_WRITE,
		.wr_id = seed, .flags = IBV_SEND_SIGNALED,
		.imm = 0xfeed0000u + seed,
		.raddr = (uintptr_t)(r->buf + off), .rkey = r->mr->rkey,
	};
	struct ibv_wc wc;

	if (with_imm)
		post_recv3(r, 1000 + seed);
	memset(r->buf + off - GUARD, FILL, len + 2 * GUARD);
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
	}
	check_fill(r->buf + off - GUARD, GUARD, what);
	check_pat(r->buf + off, len, seed, 0, what);
	check_fill(r->buf + off + len, GUARD, what);
	printf("ok %s\n", what);
}

static void test_write(struct end *a, struct end *b)
{
	const uint32_t sizes[] = { 0, 1, mtu, 3 * mtu + 7, MIB + 1 };
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

/* READ len bytes from an odd offset at r into s (two pieces if we can). */
static void read_check(struct end *s, struct end *r, uint32_t len,
		       unsigned int seed, const char *what)
{
	size_t roff = DST_OFF + 7, loff = SRC_OFF + 5;
	uint32_t first = len >= 2 && !use_wr_api ? len / 2 + 1 : len;
	struct op op = {
		.opcode = IBV_WR_RDMA_READ, .wr_id = seed,
		.flags = IBV_SEND_SIGNALED,
		.raddr = (uintptr_t)(r->buf + roff), .rkey = r->mr->rkey,
	};
	size_t loff2 = loff + first + GUARD;
	struct ibv_wc wc;

	fill_pat(r->buf + roff, len, seed, 0);
	memset(s->buf + loff - GUARD, FILL, len + 3 * GUARD);
	if (len)
		op.sge[op.num_sge++] = sge_at(s, loff, first);
	if (len > first)
		op.sge[op.num_sge++] = sge_at(s, loff2, len - first);
	post_one(s, &op);
	expect_wc(s, &wc, what, seed, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	CHECK(wc.byte_len == len, "%s: byte_len %u, expected %u", what,
	      wc.byte_len, len);
	check_fill(s->buf + loff - GUARD, GUARD, what);
	check_pat(s->buf + loff, first, seed, 0, what);
	if (len > first) {
		check_fill(s->buf + loff + first, GUARD, what);
		check_pat(s->buf + loff2, len - first, seed, first, what);
		check_fill(s->buf + loff2 + len - first, GUARD, what);
	} else {
		check_fill(s->buf + loff + first, GUARD, what);
	}
	printf("ok %s\n", what);
}

static void test_read(struct end *a, struct end *b)
{
	const uint32_t sizes[] = { 1, mtu - 1, mtu + 1, 3 * mtu + 7,
				   64 * 1024 + 3, 8 * MIB };
	char what[80];
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(what, sizeof(what), "read %u bytes", sizes[i]);
		read_check(a, b, sizes[i], 60 + i, what);
	}
}

/*
 * BURST WRs in one post: every fourth a SEND (a receive each), the others
 * 32-byte WRITEs to their own slot; every third and the last signalled.
 * Only the signalled complete, in posting order.
 */
static void test_burst(struct end *a, struct end *b)
{
	struct op *ops = calloc(BURST, sizeof(*ops));
	size_t wbase = DST_OFF + 2 * MIB, sbase = SRC_OFF + 2 * MIB;
	size_t rbase = DST_OFF + 3 * MIB;
	struct ibv_sge rsge;
	struct ibv_wc wc;
	int i, nsend = 0;
	char what[64];

	CHECK(ops, "out of memory");
	memset(b->buf + wbase, FILL, BURST * 64);
	memset(b->buf + rbase, FILL, BURST * 256);
	for (i = 0; i < BURST; i++) {
		struct op *o = &ops[i];
		uint32_t len = i % 4 ? 32 : 16 + i;

		fill_pat(a->buf + sbase + 256 * i, len, 100 + i, 0);
		o->wr_id = 2000 + i;
		o->flags = i % 3 == 0 || i == BURST - 1 ? IBV_SEND_SIGNALED : 0;
		o->sge[0] = sge_at(a, sbase + 256 * i, len);
		o->num_sge = 1;
		if (i % 4) {
			o->opcode = IBV_WR_RDMA_WRITE;
			o->raddr = (uintptr_t)(b->buf + wbase + 64 * i);
			o->rkey = b->mr->rkey;
		} else {
			o->opcode = IBV_WR_SEND;
			rsge = sge_at(b, rbase + 256 * i, 255);
			post_recv_sges(b, 3000 + i, &rsge, 1);
		}
	}
	post_ops(a, ops, BURST);
	for (i = 0; i < BURST; i++) {
		if (!(ops[i].flags & IBV_SEND_SIGNALED))
			continue;
		snprintf(what, sizeof(what), "burst WR %d", i);
		expect_wc(a, &wc, what, 2000 + i, IBV_WC_SUCCESS,
			  i % 4 ? IBV_WC_RDMA_WRITE : IBV_WC_SEND);
	}
	expect_no_wc(a, "burst (unsignalled WRs)");
	for (i = 0; i < BURST; i += 4) {
		snprintf(what, sizeof(what), "burst receive %d", i);
		expect_wc(b, &wc, what, 3000 + i, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK(wc.byte_len == 16u + i, "%s: byte_len %u", what,
		      wc.byte_len);
		check_pat(b->buf + rbase + 256 * i, 16 + i, 100 + i, 0, what);
		check_fill(b->buf + rbase + 256 * i + 16 + i, 255 - 16 - i,
			   what);
		nsend++;
	}
	expect_no_wc(b, "burst (receives)");
	for (i = 0; i < BURST; i++) {
		if (!(i % 4))
			continue;
		snprintf(what, sizeof(what), "burst write %d", i);
		check_pat(b->buf + wbase + 64 * i, 32, 100 + i, 0, what);
		check_fill(b->buf + wbase + 64 * i + 32, 32, what);
	}
	free(ops);
	printf("ok burst of %d WRs (%d sends), signalled ones completed in order\n",
	       BURST, nsend);
}

/* A 64-byte op at a to b's buf (wr_id) with the given keys. */
static struct op small_op(struct end *a, enum ibv_wr_opcode opcode,
			  uint64_t wr_id, uint64_t raddr, uint32_t rkey)
{
	struct op o = { .opcode = opcode, .wr_id = wr_id,
			.flags = IBV_SEND_SIGNALED, .num_sge = 1,
			.raddr = raddr, .rkey = rkey };

	o.sge[0] = sge_at(a, SRC_OFF + 64, 64);
	return o;
}

/* The next completions at e: wr_ids from first on, all flushed. */
static void expect_flushed(struct end *e, uint64_t first, int n,
			   const char *what)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++)
		expect_wc(e, &wc, what, first + i, IBV_WC_WR_FLUSH_ERR, 0);
}

static void test_bad_rkey(struct end *a, struct end *b)
{
	uint64_t dst = (uintptr_t)(b->buf + DST_OFF);
	struct op ops[3];
	struct ibv_wc wc;
	uint32_t lkey, rkey;

	stale_keys(b, &lkey, &rkey);
	ops[0] = small_op(a, IBV_WR_RDMA_WRITE, 1, dst, rkey);
	ops[1] = small_op(a, IBV_WR_RDMA_WRITE, 2, dst, b->mr->rkey);
	ops[2] = small_op(a, IBV_WR_RDMA_WRITE, 3, dst, b->mr->rkey);
	post_ops(a, ops, 3);
	expect_wc(a, &wc, "write with a bad rkey", 1, IBV_WC_REM_ACCESS_ERR, 0);
	printf("ok write with a bad rkey: %s\n", ibv_wc_status_str(wc.status));
	expect_flushed(a, 2, 2, "WRs after the bad rkey");
	CHECK(qp_state(a) == IBV_QPS_ERR, "requester QP state %d after the error",
	      qp_state(a));
	ops[0] = small_op(a, IBV_WR_RDMA_WRITE, 4, dst, b->mr->rkey);
	post_one(a, &ops[0]);
	expect_flushed(a, 4, 1, "WR posted in ERR");
	expect_no_wc(a, "after the flush");
	printf("ok requester in ERR, later WRs flushed\n");
}

static void test_read_past_end(struct end *a, struct end *b)
{
	uint64_t end = (uintptr_t)(b->buf + BUF_SIZE);
	struct op ops[2];
	struct ibv_wc wc;

	ops[0] = small_op(a, IBV_WR_RDMA_READ, 1, end - 100, b->mr->rkey);
	ops[0].sge[0].length = 4096;
	ops[1] = small_op(a, IBV_WR_RDMA_READ, 2, end - 200, b->mr->rkey);
	post_ops(a, ops, 2);
	expect_wc(a, &wc, "read past the end of the MR", 1,
		  IBV_WC_REM_ACCESS_ERR, 0);
	expect_flushed(a, 2, 1, "WR after the bad read");
	printf("ok read past the end of the MR: %s\n",
	       ibv_wc_status_str(wc.status));
}

static void test_read_only_mr(struct end *a, struct end *b)
{
	uint64_t ro = (uintptr_t)b->ro_buf;
	struct op op;
	struct ibv_wc wc;

	fill_pat(b->ro_buf, RO_SIZE, 70, 0);
	memset(a->buf + SRC_OFF + 64, FILL, 4096);
	op = small_op(a, IBV_WR_RDMA_READ, 1, ro + 100, b->ro_mr->rkey);
	op.sge[0].length = 4000;
	post_one(a, &op);
	expect_wc(a, &wc, "read from the read-only MR", 1, IBV_WC_SUCCESS,
		  IBV_WC_RDMA_READ);
	check_pat(a->buf + SRC_OFF + 64, 4000, 70, 100, "read-only MR read");
	printf("ok read from an MR without remote write access\n");

	memset(a->buf + SRC_OFF + 64, 0, 64);
	op = small_op(a, IBV_WR_RDMA_WRITE, 2, ro + 100, b->ro_mr->rkey);
	post_one(a, &op);
	expect_wc(a, &wc, "write to the read-only MR", 2,
		  IBV_WC_REM_ACCESS_ERR, 0);
	check_pat(b->ro_buf, RO_SIZE, 70, 0, "read-only MR after the write");
	printf("ok write to an MR without remote write access: %s, memory intact\n",
	       ibv_wc_status_str(wc.status));
}

static void test_bad_lkey(struct end *a, struct end *b)
{
	struct op op = small_op(a, IBV_WR_SEND, 1, 0, 0);
	struct ibv_wc wc;
	uint32_t lkey, rkey;

	post_recv3(b, 1001);
	stale_keys(a, &lkey, &rkey);
	op.sge[0].lkey = lkey;
	post_one(a, &op);
	/* rdma_rxe 6.1 reports any failed copy as a local QP operation error. */
	if (rxe_quirks) {
		CHECK(poll_wc(a, &wc, WAIT_MS) && wc.wr_id == 1 &&
		      (wc.status == IBV_WC_LOC_PROT_ERR ||
		       wc.status == IBV_WC_LOC_QP_OP_ERR),
		      "send from a bad lkey: status '%s'",
		      ibv_wc_status_str(wc.status));
		if (wc.status != IBV_WC_LOC_PROT_ERR)
			printf("rxe quirk: bad lkey gives '%s', not '%s'\n",
			       ibv_wc_status_str(wc.status),
			       ibv_wc_status_str(IBV_WC_LOC_PROT_ERR));
	} else {
		expect_wc(a, &wc, "send from a bad lkey", 1,
			  IBV_WC_LOC_PROT_ERR, 0);
	}
	printf("ok send from a bad lkey: %s\n", ibv_wc_status_str(wc.status));
}

static void test_flush_recv(struct end *b)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_sge sge;
	int i, err;

	for (i = 0; i < 5; i++) {
		sge = sge_at(b, DST_OFF + 4096 * i, 4096);
		post_recv_sges(b, 5000 + i, &sge, 1);
	}
	err = ibv_modify_qp(b->qp, &attr, IBV_QP_STATE);
	CHECK(!err, "modify to ERR: %s", strerror(err));
	expect_flushed(b, 5000, 5, "receives flushed by ERR");
	expect_no_wc(b, "after the flush");
	printf("ok 5 receives flushed on ERR\n");
}

int main(int argc, char **argv)
{
	struct end a = { 0 }, b = { 0 };
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "xr")) != -1) {
		CHECK(opt == 'x' || opt == 'r', USAGE);
		if (opt == 'x')
			use_wr_api = 1;
		else
			rxe_quirks = 1;
	}
	CHECK(argc - optind == 5, USAGE);
	argv += optind;
	mtu = atoi(argv[4]);
	switch (mtu) {
	case 256:  path_mtu = IBV_MTU_256; break;
	case 512:  path_mtu = IBV_MTU_512; break;
	case 1024: path_mtu = IBV_MTU_1024; break;
	case 2048: path_mtu = IBV_MTU_2048; break;
	case 4096: path_mtu = IBV_MTU_4096; break;
	default:   CHECK(0, "MTU %s: not one of 256, 512, 1024, 2048, 4096",
			 argv[4]);
	}
	/* A's PSNs wrap within the first large transfer. */
	setup_end(&a, "A", argv[0], atoi(argv[1]), 0xffff00);
	setup_end(&b, "B", argv[2], atoi(argv[3]), 0x123456);
	printf("rc_data: A %s gid %d, B %s gid %d, path MTU %u, %s, rd_atomic %u\n",
	       argv[0], a.gid_index, argv[2], b.gid_index, mtu,
	       use_wr_api ? "ibv_wr_* API" : "ibv_post_send", rd_atomic);

	connect_pair(&a, &b);
	printf("ok connected: A qpn %u, B qpn %u\n", a.qp->qp_num, b.qp->qp_num);
	test_send(&a, &b);
	test_inline(&a, &b);
	test_write(&a, &b);
	test_read(&a, &b);
	test_burst(&a, &b);
	destroy_pair(&a, &b);

	connect_pair(&a, &b);
	test_bad_rkey(&a, &b);
	destroy_pair(&a, &b);
	connect_pair(&a, &b);
	test_read_past_end(&a, &b);
	destroy_pair(&a, &b);
	connect_pair(&a, &b);
	test_read_only_mr(&a, &b);
	destroy_pair(&a, &b);
	connect_pair(&a, &b);
	test_bad_lkey(&a, &b);
	destroy_pair(&a, &b);
	connect_pair(&a, &b);
	test_flush_recv(&b);
	destroy_pair(&a, &b);

	printf("rc_data all ok\n");
	return 0;
}
