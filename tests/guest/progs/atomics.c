// SPDX-License-Identifier: GPL-2.0
/*
 * atomics [-r] [-l] DEV_A GID_A DEV_B GID_B: RC atomics in one
 * process (RDMA devices are visible from every namespace; DEV_A and DEV_B
 * may be the same device). The targets are 8-byte words in an MR on B;
 * requesters on A and on B. Every result is checked, in the local SGE and
 * in the target, with the bytes around both:
 *  - compare-and-swap: on a match it returns the old value and swaps; on
 *    a mismatch (also one in the top bit only) it returns the current
 *    value and leaves it; fetch-and-add returns the old value, adds in 64
 *    bits (carry into the high word, wrap at 2^64); 16 CAS in one post
 *    execute in order; WRITE, FETCH_ADD, READ, CMP_SWAP, READ in one post
 *    see each other in posting order;
 *  - the result lands in the 8 bytes of the local SGE (at an odd address,
 *    and at the start of a 16-byte SGE), nothing around it changes;
 *  - 4 QPs (2 from A, 2 from B, max_rd_atomic 1, 4, 16 and 16; 16
 *    outstanding each), one thread each, add to one counter at once:
 *    equal adds - the final value is the sum and the returned values are
 *    exactly {start, start + 1, ...}, each QP's increasing; adds of
 *    1 << 16q - each QP's digit of its returned values counts 0, 1, ...
 *    in posting order; then a CAS increment loop on each QP: the
 *    successful CAS returned every value once;
 *  - errors (the QP then flushes the next WR, which changes nothing):
 *    a misaligned remote address - refused at post time by
 *    ibv_post_send (librxe), IBV_WC_REM_INV_REQ_ERR when posted through
 *    ibv_wr_atomic_*(); an MR without IBV_ACCESS_REMOTE_ATOMIC, a
 *    responder QP without it, a bad rkey and an address past the end of
 *    the MR - IBV_WC_REM_ACCESS_ERR.
 * -r accepts the known deviations of rdma_rxe (6.1), each reported on a
 * line "rxe quirk: ...".
 * -l runs only the 4 QPs at once, all from A, for a wire that loses,
 * duplicates and reorders packets: lost requests and responses are sent
 * again, and a repeated request must be answered from the saved result,
 * never executed twice.
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "open_device.h"
#include "prog_args.h"
#include "rc_conn.h"

#define BUF_SIZE	(1u << 20)
#define TGT_OFF		65536		/* B: the targets, 128 bytes apart */
#define RES_OFF		4096		/* requesters: result SGEs */
#define CONC_OFF	(256 * 1024)	/* requesters: concurrent results */
#define MAX_WR		64
#define NQP		4
#define NCONC		256		/* FETCH_ADDs per QP and phase */
#define WINDOW		16		/* outstanding per QP */
#define NCAS		40		/* successful CAS increments per QP */
#define WAIT_MS		60000
#define QUIET_MS	300
#define USAGE		"usage: atomics [-r] [-l] DEV_A GID_A DEV_B GID_B"

#define ACCESS_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

struct dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *buf;
	struct ibv_mr *mr;		/* all remote access */
	struct ibv_mr *noatomic_mr;	/* the same buffer, no remote atomics */
	union ibv_gid gid;
	int gid_index;
};

/* A connected pair: the requester on req, its responder on B. */
struct pair {
	struct dev *req, *resp;
	struct ibv_cq *req_cq, *resp_cq;
	struct ibv_qp *req_qp, *resp_qp;
	struct ibv_qp_ex *qpx;
};

static int rxe_quirks;
static struct dev *B;

static uint64_t *tgt(unsigned int i)
{
	return (uint64_t *)(B->buf + TGT_OFF + 128 * i);
}

/* Target i holds v, with FILL in the GUARD bytes on each side. */
static void set_tgt(unsigned int i, uint64_t v)
{
	fill_guarded((uint8_t *)tgt(i), 8);
	*(volatile uint64_t *)tgt(i) = v;
}

static void check_tgt(unsigned int i, uint64_t v, const char *what)
{
	uint64_t got = *(volatile uint64_t *)tgt(i);

	CHECK(got == v, "%s: target is %#" PRIx64 ", expected %#" PRIx64,
	      what, got, v);
	check_guards((uint8_t *)tgt(i), 8, what);
}

static void setup_dev(struct dev *d, const char *name, int gid_index)
{
	struct ibv_device_attr da;

	d->name = name;
	d->ctx = open_by_name(name);
	CHECK(d->ctx, "no device %s", name);
	CHECK(!ibv_query_device(d->ctx, &da), "query_device %s", name);
	CHECK(da.atomic_cap == IBV_ATOMIC_HCA || da.atomic_cap == IBV_ATOMIC_GLOB,
	      "%s: atomic_cap %d", name, da.atomic_cap);
	CHECK(da.max_qp_rd_atom >= 16 && da.max_qp_init_rd_atom >= 16,
	      "%s: max_qp_rd_atom %d, init %d", name, da.max_qp_rd_atom,
	      da.max_qp_init_rd_atom);
	d->gid_index = gid_index;
	CHECK(!ibv_query_gid(d->ctx, 1, gid_index, &d->gid), "query_gid %s %d",
	      name, gid_index);
	d->pd = ibv_alloc_pd(d->ctx);
	CHECK(d->pd, "alloc_pd %s", name);
	d->buf = aligned_alloc(4096, BUF_SIZE);
	CHECK(d->buf, "out of memory");
	memset(d->buf, FILL, BUF_SIZE);
	d->mr = ibv_reg_mr(d->pd, d->buf, BUF_SIZE, ACCESS_ALL);
	CHECK(d->mr, "reg_mr %s: %s", name, strerror(errno));
	d->noatomic_mr = ibv_reg_mr(d->pd, d->buf, BUF_SIZE,
				    ACCESS_ALL & ~IBV_ACCESS_REMOTE_ATOMIC);
	CHECK(d->noatomic_mr, "reg_mr %s: %s", name, strerror(errno));
}

static struct ibv_qp *create_qp(struct dev *d, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = MAX_WR, .max_recv_wr = 4,
			 .max_send_sge = 2, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = d->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(d->ctx, &init);

	CHECK(qp, "%s: create_qp_ex: %s", d->name, strerror(errno));
	return qp;
}

/* PSNs all over the range, different per QP. */
static uint32_t first_psn(struct ibv_qp *qp)
{
	return qp->qp_num * 7919u & 0xffffff;
}

/* qp (on d) to RTS towards peer (on pd), allowing access. */
static void to_rts(struct ibv_qp *qp, struct dev *d, struct ibv_qp *peer,
		   struct dev *pd, int access, uint8_t rd_atomic)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .access = access, .rd_atomic = rd_atomic,
		.rnr_retry = 7, .timeout = 14, .psn = first_psn(qp),
		.gid_index = d->gid_index,
	};
	struct conn_peer to = {
		.qpn = peer->qp_num, .psn = first_psn(peer), .gid = pd->gid,
	};

	conn_to_rts(qp, d->name, &p, &to);
}

/* A pair from req to B; the responder QP allows resp_access. */
static void connect_pair(struct pair *p, struct dev *req, int resp_access,
			 uint8_t rd_atomic)
{
	memset(p, 0, sizeof(*p));
	p->req = req;
	p->resp = B;
	p->req_cq = ibv_create_cq(req->ctx, 2 * MAX_WR, NULL, NULL, 0);
	p->resp_cq = ibv_create_cq(B->ctx, 2 * MAX_WR, NULL, NULL, 0);
	CHECK(p->req_cq && p->resp_cq, "create_cq: %s", strerror(errno));
	p->req_qp = create_qp(req, p->req_cq);
	p->resp_qp = create_qp(B, p->resp_cq);
	p->qpx = ibv_qp_to_qp_ex(p->req_qp);
	CHECK(p->qpx, "no ibv_qp_ex");
	to_rts(p->req_qp, req, p->resp_qp, B, ACCESS_ALL, rd_atomic);
	to_rts(p->resp_qp, B, p->req_qp, req, resp_access, rd_atomic);
}

static void destroy_pair(struct pair *p)
{
	CHECK(!ibv_destroy_qp(p->req_qp) && !ibv_destroy_qp(p->resp_qp),
	      "destroy_qp");
	CHECK(!ibv_destroy_cq(p->req_cq) && !ibv_destroy_cq(p->resp_cq),
	      "destroy_cq");
}

static void expect_wc(struct pair *p, const char *what, uint64_t wr_id,
		      enum ibv_wc_status status, enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc;

	conn_expect_wc(p->req_cq, p->req_qp, p->req->name, what, &wc, wr_id,
		       status, opcode, WAIT_MS);
}

static void expect_no_wc(struct ibv_cq *cq, const char *what)
{
	conn_expect_no_wc(cq, "the responder", what, QUIET_MS);
}

/* Local result SGE number i on p's requester, with guards around. */
static uint8_t *res_at(struct pair *p, unsigned int i)
{
	/* Odd addresses: the result need not be aligned locally. */
	return p->req->buf + RES_OFF + 128 * i + 3;
}

static uint64_t res_val(struct pair *p, unsigned int i)
{
	uint64_t v;

	memcpy(&v, res_at(p, i), 8);
	return v;
}

/*
 * A signalled atomic op from p's requester on target t, its result to the
 * 8 bytes at res (in the requester's MR).
 */
static void atomic_wr_to(struct ibv_send_wr *wr, struct ibv_sge *sge,
			 struct pair *p, void *res, uint64_t wr_id,
			 enum ibv_wr_opcode op, unsigned int t,
			 uint64_t compare_add, uint64_t swap)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)res;
	sge->length = 8;
	sge->lkey = p->req->mr->lkey;
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = op;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->wr.atomic.remote_addr = (uintptr_t)tgt(t);
	wr->wr.atomic.rkey = B->mr->rkey;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

/* The same, its result to result SGE number res, FILL around it. */
static void atomic_wr(struct ibv_send_wr *wr, struct ibv_sge *sge,
		      struct pair *p, uint64_t wr_id, enum ibv_wr_opcode op,
		      unsigned int t, uint64_t compare_add, uint64_t swap,
		      unsigned int res)
{
	fill_guarded(res_at(p, res), 8);
	atomic_wr_to(wr, sge, p, res_at(p, res), wr_id, op, t, compare_add,
		     swap);
}

static void post(struct pair *p, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int err = ibv_post_send(p->req_qp, wr, &bad);

	CHECK(!err, "ibv_post_send: %s", strerror(err));
}

/* Result i holds v, and nothing around it changed. */
static void check_res(struct pair *p, unsigned int i, uint64_t v,
		      const char *what)
{
	CHECK(res_val(p, i) == v, "%s: returned %#" PRIx64 ", expected %#"
	      PRIx64, what, res_val(p, i), v);
	check_guards(res_at(p, i), 8, what);
}

/* One atomic on target t; checks what it returned and left. */
static void one(struct pair *p, enum ibv_wr_opcode op, unsigned int t,
		uint64_t before, uint64_t compare_add, uint64_t swap,
		uint64_t after, const char *what)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;

	set_tgt(t, before);
	atomic_wr(&wr, &sge, p, 1, op, t, compare_add, swap, 0);
	post(p, &wr);
	expect_wc(p, what, 1, IBV_WC_SUCCESS,
		  op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
						   IBV_WC_FETCH_ADD);
	check_res(p, 0, before, what);
	check_tgt(t, after, what);
	printf("ok %s\n", what);
}

static void test_semantics(struct pair *p)
{
	const uint64_t v0 = 0x0123456789abcdefull, v1 = 0xfedcba9876543210ull;
	const enum ibv_wr_opcode cas = IBV_WR_ATOMIC_CMP_AND_SWP;
	const enum ibv_wr_opcode fadd = IBV_WR_ATOMIC_FETCH_AND_ADD;

	one(p, cas, 0, v0, v0, v1, v1, "cmp_swap match: old value, swapped");
	one(p, cas, 0, v1, v0, 42, v1, "cmp_swap mismatch: current value, kept");
	one(p, cas, 0, v1, v1 ^ (1ull << 63), 42, v1,
	    "cmp_swap mismatch in the top bit only: kept");
	one(p, cas, 0, v1, v1 ^ 1, 42, v1,
	    "cmp_swap mismatch in the bottom bit only: kept");
	one(p, fadd, 1, 0xffffffffull, 1, 0, 0x100000000ull,
	    "fetch_add carries into the high word");
	one(p, fadd, 1, 0xfffffffffffffffeull, 3, 0, 1,
	    "fetch_add wraps at 2^64");
	one(p, fadd, 1, v0, 0, 0, v0, "fetch_add of 0: reads");
	one(p, fadd, 1, v0, v1, 0, v0 + v1, "fetch_add of a 64-bit value");
}

/* 16 CAS (i -> i + 1) in one post: executed in posting order. */
static void test_cas_chain(struct pair *p)
{
	struct ibv_send_wr wr[16];
	struct ibv_sge sge[16];
	char what[64];
	int i;

	set_tgt(2, 0);
	for (i = 0; i < 16; i++) {
		atomic_wr(&wr[i], &sge[i], p, 100 + i, IBV_WR_ATOMIC_CMP_AND_SWP,
			  2, i, i + 1, i);
		wr[i].next = i < 15 ? &wr[i + 1] : NULL;
	}
	post(p, wr);
	for (i = 0; i < 16; i++) {
		snprintf(what, sizeof(what), "CAS chain %d", i);
		expect_wc(p, what, 100 + i, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP);
		check_res(p, i, i, what);
	}
	check_tgt(2, 16, "CAS chain");
	printf("ok 16 CAS in one post executed in order\n");
}

/* WRITE x, FETCH_ADD 5, READ, CMP_SWAP x+5 -> y, READ: posting order. */
static void test_mixed_order(struct pair *p)
{
	const uint64_t x = 0x1111222233334444ull, y = 0x5555666677778888ull;
	uint64_t *src = (uint64_t *)(p->req->buf + RES_OFF / 2);
	struct ibv_send_wr wr[5];
	struct ibv_sge sge[5];
	const char *what = "write, fetch_add, read, cmp_swap, read";

	set_tgt(3, 0);
	*src = x;
	atomic_wr(&wr[1], &sge[1], p, 2, IBV_WR_ATOMIC_FETCH_AND_ADD, 3, 5, 0, 1);
	atomic_wr(&wr[3], &sge[3], p, 4, IBV_WR_ATOMIC_CMP_AND_SWP, 3, x + 5, y, 3);
	wr[0] = wr[1];
	wr[0].wr_id = 1;
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	wr[0].sg_list = &sge[0];
	wr[0].wr.rdma.remote_addr = (uintptr_t)tgt(3);
	wr[0].wr.rdma.rkey = B->mr->rkey;
	sge[0] = sge[1];
	sge[0].addr = (uintptr_t)src;
	wr[2] = wr[0];
	wr[2].wr_id = 3;
	wr[2].opcode = IBV_WR_RDMA_READ;
	wr[2].sg_list = &sge[2];
	sge[2] = sge[1];
	fill_guarded(res_at(p, 2), 8);
	sge[2].addr = (uintptr_t)res_at(p, 2);
	wr[4] = wr[2];
	wr[4].wr_id = 5;
	wr[4].sg_list = &sge[4];
	sge[4] = sge[2];
	fill_guarded(res_at(p, 4), 8);
	sge[4].addr = (uintptr_t)res_at(p, 4);
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	wr[2].next = &wr[3];
	wr[3].next = &wr[4];
	wr[4].next = NULL;
	post(p, wr);
	expect_wc(p, what, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	expect_wc(p, what, 2, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
	expect_wc(p, what, 3, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	expect_wc(p, what, 4, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP);
	expect_wc(p, what, 5, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	check_res(p, 1, x, "fetch_add after the write");
	check_res(p, 2, x + 5, "read after the fetch_add");
	check_res(p, 3, x + 5, "cmp_swap after the read");
	check_res(p, 4, y, "read after the cmp_swap");
	check_tgt(3, y, what);
	printf("ok %s: in posting order\n", what);
}

/* A 16-byte local SGE: the result fills its first 8 bytes only. */
static void test_long_sge(struct pair *p)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	const char *what = "result into a 16-byte SGE";
	uint8_t *r = res_at(p, 0);

	set_tgt(4, 0xa5a5a5a5c3c3c3c3ull);
	atomic_wr(&wr, &sge, p, 7, IBV_WR_ATOMIC_FETCH_AND_ADD, 4, 1, 0, 0);
	fill_guarded(r, 16);
	sge.length = 16;
	post(p, &wr);
	expect_wc(p, what, 7, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
	CHECK(res_val(p, 0) == 0xa5a5a5a5c3c3c3c3ull, "%s: %#" PRIx64, what,
	      res_val(p, 0));
	check_untouched(r - GUARD, GUARD, what);
	check_untouched(r + 8, 8 + GUARD, what);
	check_tgt(4, 0xa5a5a5a5c3c3c3c4ull, what);
	printf("ok %s: 8 bytes written, the other 8 untouched\n", what);
}

/*
 * The first WR must fail with status; the second (a FETCH_ADD on target
 * 6) is flushed and changes nothing; target t keeps its value.
 */
static void expect_failure(struct pair *p, struct ibv_send_wr *bad_wr,
			   unsigned int t, enum ibv_wc_status status,
			   enum ibv_wc_status rxe_status, const char *what)
{
	struct ibv_send_wr next;
	struct ibv_sge sge;
	struct ibv_wc wc;

	set_tgt(t, 0x0badc0de0badc0deull);
	set_tgt(6, 1000);
	atomic_wr(&next, &sge, p, 99, IBV_WR_ATOMIC_FETCH_AND_ADD, 6, 1, 0, 1);
	bad_wr->next = &next;
	post(p, bad_wr);
	CHECK(conn_poll(p->req_cq, &wc, WAIT_MS), "%s: no completion", what);
	CHECK(wc.wr_id == bad_wr->wr_id, "%s: wr_id %" PRIu64, what,
	      (uint64_t)wc.wr_id);
	if (rxe_quirks && wc.status != status && wc.status == rxe_status) {
		printf("rxe quirk: %s gives '%s', not '%s'\n", what,
		       ibv_wc_status_str(wc.status), ibv_wc_status_str(status));
		status = rxe_status;
	}
	CHECK(wc.status == status, "%s: status '%s' (%d), expected '%s'", what,
	      ibv_wc_status_str(wc.status), wc.status,
	      ibv_wc_status_str(status));
	expect_wc(p, what, 99, IBV_WC_WR_FLUSH_ERR, 0);
	check_tgt(t, 0x0badc0de0badc0deull, what);
	check_tgt(6, 1000, "the WR after the error");
	CHECK(conn_qp_state(p->req_qp) == IBV_QPS_ERR, "%s: requester QP state %d",
	      what, conn_qp_state(p->req_qp));
	expect_no_wc(p->resp_cq, what);
	printf("ok %s: %s, nothing changed, the next WR flushed\n", what,
	       ibv_wc_status_str(status));
}

static void test_misaligned(struct dev *a, int fetch_add)
{
	const char *what = fetch_add ? "misaligned fetch_add" :
				       "misaligned cmp_swap";
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;
	struct pair p;
	uint64_t va = (uintptr_t)tgt(5) + 4;
	int err;

	connect_pair(&p, a, ACCESS_ALL, 16);
	/* ibv_post_send: librxe refuses it before the kernel sees it. */
	set_tgt(5, 0x0badc0de0badc0deull);
	atomic_wr(&wr, &sge, &p, 1, fetch_add ? IBV_WR_ATOMIC_FETCH_AND_ADD :
		  IBV_WR_ATOMIC_CMP_AND_SWP, 5, 0x0badc0de0badc0deull, 1, 0);
	wr.wr.atomic.remote_addr = va;
	err = ibv_post_send(p.req_qp, &wr, &bad);
	CHECK(err == EINVAL && bad == &wr, "%s by ibv_post_send: %s, not EINVAL",
	      what, strerror(err));
	expect_no_wc(p.req_cq, what);
	CHECK(conn_qp_state(p.req_qp) == IBV_QPS_RTS, "%s: QP state %d after the "
	      "refused post", what, conn_qp_state(p.req_qp));
	printf("ok %s refused by ibv_post_send: %s\n", what, strerror(err));

	/* The ibv_wr_* API does not check: the responder must. */
	ibv_wr_start(p.qpx);
	p.qpx->wr_id = 2;
	p.qpx->wr_flags = IBV_SEND_SIGNALED;
	if (fetch_add)
		ibv_wr_atomic_fetch_add(p.qpx, B->mr->rkey, va, 1);
	else
		ibv_wr_atomic_cmp_swp(p.qpx, B->mr->rkey, va,
				      0x0badc0de0badc0deull, 1);
	fill_guarded(res_at(&p, 0), 8);
	ibv_wr_set_sge(p.qpx, a->mr->lkey, (uintptr_t)res_at(&p, 0), 8);
	p.qpx->wr_id = 3;
	ibv_wr_atomic_fetch_add(p.qpx, B->mr->rkey, (uintptr_t)tgt(6), 1);
	ibv_wr_set_sge(p.qpx, a->mr->lkey, (uintptr_t)res_at(&p, 1), 8);
	set_tgt(6, 1000);
	err = ibv_wr_complete(p.qpx);
	CHECK(!err, "%s: ibv_wr_complete: %s", what, strerror(err));
	expect_wc(&p, what, 2, IBV_WC_REM_INV_REQ_ERR, 0);
	expect_wc(&p, what, 3, IBV_WC_WR_FLUSH_ERR, 0);
	check_tgt(5, 0x0badc0de0badc0deull, what);
	check_tgt(6, 1000, "the WR after the misaligned one");
	check_untouched(res_at(&p, 0) - GUARD, 8 + 2 * GUARD, "its result SGE");
	CHECK(conn_qp_state(p.req_qp) == IBV_QPS_ERR, "%s: requester QP state %d",
	      what, conn_qp_state(p.req_qp));
	printf("ok %s through ibv_wr_*: %s, nothing changed, the next WR flushed\n",
	       what, ibv_wc_status_str(IBV_WC_REM_INV_REQ_ERR));
	destroy_pair(&p);
}

static void test_access_errors(struct dev *a)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct pair p;
	uint32_t stale;

	connect_pair(&p, a, ACCESS_ALL, 16);
	atomic_wr(&wr, &sge, &p, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 1, 0, 0);
	wr.wr.atomic.rkey = B->noatomic_mr->rkey;
	expect_failure(&p, &wr, 5, IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR,
		       "fetch_add to an MR without remote atomic access");
	destroy_pair(&p);

	connect_pair(&p, a, ACCESS_ALL, 16);
	atomic_wr(&wr, &sge, &p, 1, IBV_WR_ATOMIC_CMP_AND_SWP, 5,
		  0x0badc0de0badc0deull, 1, 0);
	wr.wr.atomic.rkey = B->noatomic_mr->rkey;
	expect_failure(&p, &wr, 5, IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR,
		       "cmp_swap to an MR without remote atomic access");
	destroy_pair(&p);

	connect_pair(&p, a, ACCESS_ALL & ~IBV_ACCESS_REMOTE_ATOMIC, 16);
	atomic_wr(&wr, &sge, &p, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 1, 0, 0);
	/* rdma_rxe 6.1 calls it an unsupported opcode. */
	expect_failure(&p, &wr, 5, IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR,
		       "fetch_add to a QP without remote atomic access");
	destroy_pair(&p);

	mr = ibv_reg_mr(B->pd, B->buf, 4096, ACCESS_ALL);
	CHECK(mr, "reg_mr: %s", strerror(errno));
	stale = mr->rkey;
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	connect_pair(&p, a, ACCESS_ALL, 16);
	atomic_wr(&wr, &sge, &p, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 1, 0, 0);
	wr.wr.atomic.rkey = stale;
	expect_failure(&p, &wr, 5, IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR,
		       "fetch_add with a bad rkey");
	destroy_pair(&p);

	connect_pair(&p, a, ACCESS_ALL, 16);
	atomic_wr(&wr, &sge, &p, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 1, 0, 0);
	wr.wr.atomic.remote_addr = (uintptr_t)B->buf + BUF_SIZE;
	expect_failure(&p, &wr, 5, IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR,
		       "fetch_add past the end of the MR");
	destroy_pair(&p);
}

/* --- several QPs at once ------------------------------------------------ */

enum conc_mode { CONC_FADD, CONC_CAS };

struct worker {
	struct pair p;
	unsigned int q;
	enum conc_mode mode;
	uint64_t add;
	uint64_t *res;		/* in posting order; registered memory */
	unsigned int n;		/* results (successful CAS for CONC_CAS) */
	unsigned int cas_failed;
};

static pthread_barrier_t start_line;

static void *fadd_worker(struct worker *w)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc[WINDOW];
	unsigned int posted = 0, done = 0;
	int n, i;

	while (done < NCONC) {
		while (posted < NCONC && posted - done < WINDOW) {
			atomic_wr_to(&wr, &sge, &w->p, &w->res[posted], posted,
				     IBV_WR_ATOMIC_FETCH_AND_ADD, 7, w->add, 0);
			post(&w->p, &wr);
			posted++;
		}
		n = ibv_poll_cq(w->p.req_cq, WINDOW, wc);
		CHECK(n >= 0, "QP %u: poll_cq %d", w->q, n);
		for (i = 0; i < n; i++, done++) {
			CHECK(wc[i].status == IBV_WC_SUCCESS,
			      "QP %u: fetch_add %u: status '%s'", w->q, done,
			      ibv_wc_status_str(wc[i].status));
			CHECK(wc[i].wr_id == done,
			      "QP %u: completion %" PRIu64 " where %u was due",
			      w->q, (uint64_t)wc[i].wr_id, done);
		}
		if (!n)
			sched_yield();
	}
	w->n = NCONC;
	return NULL;
}

/* Increments target 7 by CAS until NCAS of them succeeded. */
static void *cas_worker(struct worker *w)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint64_t guess = 0, old;

	while (w->n < NCAS) {
		atomic_wr_to(&wr, &sge, &w->p, &w->res[w->n], 0,
			     IBV_WR_ATOMIC_CMP_AND_SWP, 7, guess, guess + 1);
		post(&w->p, &wr);
		CHECK(conn_poll(w->p.req_cq, &wc, WAIT_MS),
		      "QP %u: CAS: no completion", w->q);
		CHECK(wc.status == IBV_WC_SUCCESS, "QP %u: CAS: status '%s'",
		      w->q, ibv_wc_status_str(wc.status));
		old = w->res[w->n];
		CHECK(old <= (uint64_t)NQP * NCAS, "QP %u: CAS returned %" PRIu64,
		      w->q, old);
		if (old == guess) {
			w->n++;
			guess++;
		} else {
			w->cas_failed++;
			guess = old;
		}
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&start_line);
	return w->mode == CONC_FADD ? fadd_worker(w) : cas_worker(w);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void run_workers(struct worker *w, enum conc_mode mode)
{
	pthread_t t[NQP];
	int q;

	CHECK(!pthread_barrier_init(&start_line, NULL, NQP), "barrier");
	for (q = 0; q < NQP; q++) {
		w[q].mode = mode;
		w[q].n = 0;
		w[q].cas_failed = 0;
		memset(w[q].res, FILL, NCONC * 8);
		CHECK(!pthread_create(&t[q], NULL, worker_main, &w[q]),
		      "pthread_create");
	}
	for (q = 0; q < NQP; q++)
		CHECK(!pthread_join(t[q], NULL), "pthread_join");
	pthread_barrier_destroy(&start_line);
}

static void test_concurrent(struct dev *a, int all_from_a)
{
	/* The first two from A, the others from B (itself, on rxe: A). */
	static const uint8_t rd_atomic[NQP] = { 1, 4, 16, 16 };
	const uint64_t start = 0xffffffffull - NQP * NCONC / 2;
	uint64_t all[NQP * NCONC], expect, got;
	struct worker w[NQP];
	unsigned int q, i, k;

	memset(w, 0, sizeof(w));
	for (q = 0; q < NQP; q++) {
		struct dev *req = q < 2 || all_from_a ? a : B;

		connect_pair(&w[q].p, req, ACCESS_ALL, rd_atomic[q]);
		w[q].q = q;
		w[q].res = (uint64_t *)(req->buf + CONC_OFF + q * NCONC * 8);
	}

	/* Equal adds from everyone, across the 32-bit boundary. */
	set_tgt(7, start);
	for (q = 0; q < NQP; q++)
		w[q].add = 1;
	run_workers(w, CONC_FADD);
	check_tgt(7, start + NQP * NCONC, "concurrent fetch_add: final value");
	for (q = 0; q < NQP; q++)
		for (i = 0; i < NCONC; i++) {
			if (i)
				CHECK(w[q].res[i] > w[q].res[i - 1],
				      "QP %u: fetch_add %u returned %#" PRIx64
				      " after %#" PRIx64, q, i, w[q].res[i],
				      w[q].res[i - 1]);
			all[q * NCONC + i] = w[q].res[i];
		}
	qsort(all, NQP * NCONC, 8, cmp_u64);
	for (k = 0; k < NQP * NCONC; k++)
		CHECK(all[k] == start + k, "concurrent fetch_add: the %u-th "
		      "smallest returned value is %#" PRIx64 ", expected %#"
		      PRIx64 " (lost or repeated add)", k, all[k], start + k);
	printf("ok %d QPs x %d fetch_add at once: final value is the sum, "
	       "every value returned once, each QP's increasing\n", NQP, NCONC);

	/* Add 1 << 16q: each QP's own count is a 16-bit digit. */
	set_tgt(7, 0);
	expect = 0;
	for (q = 0; q < NQP; q++) {
		w[q].add = 1ull << (16 * q);
		expect += w[q].add * NCONC;
	}
	run_workers(w, CONC_FADD);
	check_tgt(7, expect, "concurrent fetch_add of 1 << 16q: final value");
	for (q = 0; q < NQP; q++)
		for (i = 0; i < NCONC; i++) {
			got = w[q].res[i] >> (16 * q) & 0xffff;
			CHECK(got == i, "QP %u: fetch_add %u saw %" PRIu64
			      " earlier adds of its own (returned %#" PRIx64 ")",
			      q, i, got, w[q].res[i]);
		}
	for (k = 0; k < NQP * NCONC; k++)
		all[k] = w[k / NCONC].res[k % NCONC];
	qsort(all, NQP * NCONC, 8, cmp_u64);
	for (k = 1; k < NQP * NCONC; k++)
		CHECK(all[k] != all[k - 1], "concurrent fetch_add of 1 << 16q: "
		      "%#" PRIx64 " returned twice", all[k]);
	printf("ok %d QPs x %d fetch_add of 1 << 16q: each QP saw its own "
	       "adds in order, no value returned twice\n", NQP, NCONC);

	/* CAS increments: every value won by exactly one CAS. */
	set_tgt(7, 0);
	run_workers(w, CONC_CAS);
	check_tgt(7, NQP * NCAS, "concurrent CAS increments: final value");
	k = 0;
	for (q = 0; q < NQP; q++)
		for (i = 0; i < NCAS; i++)
			all[k++] = w[q].res[i];
	qsort(all, k, 8, cmp_u64);
	for (i = 0; i < k; i++)
		CHECK(all[i] == i, "concurrent CAS: the %u-th smallest "
		      "successful CAS returned %" PRIu64, i, all[i]);
	printf("ok %d QPs x %d CAS increments at once (%u, %u, %u, %u failed "
	       "attempts): every value won once\n", NQP, NCAS,
	       w[0].cas_failed, w[1].cas_failed, w[2].cas_failed,
	       w[3].cas_failed);

	for (q = 0; q < NQP; q++) {
		expect_no_wc(w[q].p.resp_cq, "responder (atomics complete nothing there)");
		destroy_pair(&w[q].p);
	}
}

int main(int argc, char **argv)
{
	struct dev a = { 0 }, b = { 0 };
	int lossy = 0;
	struct pair p;

	argv = prog_args(argc, argv, "rl", (int *[]){ &rxe_quirks, &lossy }, 4,
			 USAGE);
	setup_dev(&a, argv[0], atoi(argv[1]));
	setup_dev(&b, argv[2], atoi(argv[3]));
	B = &b;
	printf("atomics: A %s gid %d, B %s gid %d\n", a.name, a.gid_index,
	       b.name, b.gid_index);
	if (lossy) {
		test_concurrent(&a, 1);
		printf("atomics all ok\n");
		return 0;
	}

	connect_pair(&p, &a, ACCESS_ALL, 16);
	test_semantics(&p);
	test_cas_chain(&p);
	test_mixed_order(&p);
	test_long_sge(&p);
	expect_no_wc(p.resp_cq, "responder (atomics complete nothing there)");
	destroy_pair(&p);

	test_concurrent(&a, 0);
	test_misaligned(&a, 1);
	test_misaligned(&a, 0);
	test_access_errors(&a);

	printf("atomics all ok\n");
	return 0;
}
