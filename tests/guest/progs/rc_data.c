// SPDX-License-Identifier: GPL-2.0
/*
 * rc_data [-x] [-r] [-l] DEV_A GID_A DEV_B GID_B MTU: the RC data path
 * between two devices in one process (RDMA devices are visible from every
 * namespace; DEV_A and DEV_B may be the same device). A connected pair of
 * RC QPs, path MTU MTU (256..4096), RoCE v2 GIDs GID_A and GID_B (table
 * indexes).
 * Every transfer is checked byte by byte, with the bytes around it:
 *  - SEND of 0, 1, MTU-1, MTU, MTU+1, 3*MTU+7 and 1 MiB bytes, gathered
 *    from two SGEs and scattered into a receive WQE of three SGEs of odd
 *    lengths; SEND with immediate; inline SEND of 512 bytes; B to A;
 *  - RDMA WRITE (0 to 1 MiB) into the middle of the remote MR, RDMA
 *    WRITE with immediate (consumes a receive WQE, leaves its buffer);
 *  - RDMA READ up to 8 MiB;
 *  - 200 mixed SENDs and WRITEs, one in three signalled;
 *  - 64 READs, each followed by a WRITE, in one post (three times with -l);
 *  - a SEND gathered from 30 SGEs (ibv_post_send only);
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
 * -l (a lossy wire) leaves the error checks out: each rests on one NAK,
 * and a responder that sent it is in ERR and answers nothing more, so a
 * lost NAK ends in a retry-exceeded completion instead.
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define MIB		(1u << 20)
#define BUF_SIZE	(18 * MIB)
#define SRC_OFF		4096		/* requester's side: sources, READ sinks */
#define DST_OFF		(9 * MIB)	/* responder's side: receives, targets */
#define MAX_WR		256
#define BURST		200
#define WAIT_MS		60000		/* for a completion that must come */
#define QUIET_MS	200		/* for one that must not */
#define USAGE		"usage: rc_data [-x] [-r] [-l] DEV_A GID_A DEV_B GID_B MTU"

/* The three receive SGEs (data_xfer.h): odd addresses, guards between. */
#define RECV_CAP	(MIB + 8191)
#define RECV_AT		(DST_OFF + 13)
#define WRITE_AT	(DST_OFF + 2 * MIB + 4099)	/* above the receives */

#define RC_SEND_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE |			      \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		      \
			 IBV_QP_EX_WITH_RDMA_READ)
#define RC_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

#include "check.h"
#include "data_pattern.h"
#include "data_xfer.h"
#include "end.h"
#include "prog_args.h"
#include "rc_conn.h"

static int use_wr_api;
static int rxe_quirks;		/* -r: accept rdma_rxe's known deviations */
static int lossy;		/* -l: no error checks */
static unsigned int mtu;
static enum ibv_mtu path_mtu;
static uint8_t rd_atomic;

/* How many RDMA READs e's device allows in flight, up to most. */
static uint8_t rd_atomic_of(struct end *e, uint8_t most)
{
	struct ibv_device_attr da;

	CHECK(!ibv_query_device(e->ctx, &da), "%s: query_device", e->name);
	CHECK(da.max_qp_rd_atom > 0 && da.max_qp_init_rd_atom > 0,
	      "%s: no RDMA READ (max_qp_rd_atom %d, init %d)", e->name,
	      da.max_qp_rd_atom, da.max_qp_init_rd_atom);
	if (da.max_qp_rd_atom < most)
		most = da.max_qp_rd_atom;
	if (da.max_qp_init_rd_atom < most)
		most = da.max_qp_init_rd_atom;
	return most;
}

/* A new pair of RC QPs between a and b (posting by ibv_wr_* with -x). */
static void connect_pair(struct end *a, struct end *b)
{
	uint64_t send_ops = use_wr_api ? RC_SEND_OPS : 0;
	struct conn_params p = {
		.mtu = path_mtu, .access = RC_ACCESS, .rd_atomic = rd_atomic,
		.rnr_retry = 7, .timeout = 14,
	};

	create_qp(a, IBV_QPT_RC, MAX_WR, 512, send_ops);
	create_qp(b, IBV_QPT_RC, MAX_WR, 512, send_ops);
	end_connect(a, b, &p);
}

/*
 * A SEND gathered from MANY_SGES pieces of 100 bytes, GUARD bytes apart:
 * more pieces in one packet than an skb holds fragments at the larger
 * MTUs (sroce then copies instead of sending from the pages), many
 * fragments at 1024.
 */
#define MANY_SGES	30
static void test_many_sges(struct end *a, struct end *b)
{
	struct ibv_sge sge[MANY_SGES];
	struct ibv_send_wr wr = {
		.wr_id = 40, .sg_list = sge, .num_sge = MANY_SGES,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	const uint32_t piece = 100, len = MANY_SGES * piece;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < MANY_SGES; i++) {
		size_t off = SRC_OFF + 3 + i * (piece + GUARD);

		fill_pattern(a->buf + off, piece, 40, i * piece);
		sge[i] = sge_at(a, off, piece);
	}
	post_recv3(b, 1040);
	CHECK(!ibv_post_send(a->qp, &wr, &bad), "post %d SGEs", MANY_SGES);
	expect_wc(a, &wc, "many SGEs", 40, IBV_WC_SUCCESS, IBV_WC_SEND);
	expect_wc(b, &wc, "many SGEs", 1040, IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc.byte_len == len, "many SGEs: byte_len %u", wc.byte_len);
	check_recv3(b, len, 40, "many SGEs");
	printf("ok send of %u bytes from %d SGEs\n", len, MANY_SGES);
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

	fill_pattern(r->buf + roff, len, seed, 0);
	memset(s->buf + loff - GUARD, FILL, len + 3 * GUARD);
	if (len)
		op.sge[op.num_sge++] = sge_at(s, loff, first);
	if (len > first)
		op.sge[op.num_sge++] = sge_at(s, loff2, len - first);
	post_one(s, &op);
	expect_wc(s, &wc, what, seed, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
	CHECK(wc.byte_len == len, "%s: byte_len %u, expected %u", what,
	      wc.byte_len, len);
	check_guarded_pattern(s->buf + loff, first, seed, what);
	if (len > first) {
		check_pattern(s->buf + loff2, len - first, seed, first, what);
		check_untouched(s->buf + loff2 + len - first, GUARD, what);
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

		fill_pattern(a->buf + sbase + 256 * i, len, 100 + i, 0);
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
		check_pattern(b->buf + rbase + 256 * i, 16 + i, 100 + i, 0, what);
		check_untouched(b->buf + rbase + 256 * i + 16 + i,
				255 - 16 - i, what);
		nsend++;
	}
	expect_no_wc(b, "burst (receives)");
	for (i = 0; i < BURST; i++) {
		if (!(i % 4))
			continue;
		snprintf(what, sizeof(what), "burst write %d", i);
		check_pattern(b->buf + wbase + 64 * i, 32, 100 + i, 0, what);
		check_untouched(b->buf + wbase + 64 * i + 32, 32, what);
	}
	free(ops);
	printf("ok burst of %d WRs (%d sends), signalled ones completed in order\n",
	       BURST, nsend);
}

/*
 * MIX pairs in one post: an RDMA READ of 3*MTU+7 bytes (four responses),
 * then a 32-byte WRITE; every READ and the last WRITE signalled. On a
 * lossy wire the WRITE's ACK often arrives while responses of the READ
 * before it are missing: the ACK says the READ was executed, and only
 * its missing responses need asking for again.
 */
#define MIX		64
#define MIX_SLOT	(16 * 1024)
static void test_read_write_mix(struct end *a, struct end *b)
{
	struct op *ops = calloc(2 * MIX, sizeof(*ops));
	size_t rsrc = DST_OFF + 4 * MIB, rdst = SRC_OFF + 4 * MIB;
	size_t wsrc = SRC_OFF + 6 * MIB, wdst = DST_OFF + 6 * MIB;
	uint32_t rlen = 3 * mtu + 7;
	struct ibv_wc wc;
	char what[64];
	int i;

	CHECK(ops, "out of memory");
	CHECK(rlen + 2 * GUARD <= MIX_SLOT, "mix: slot too small");
	memset(a->buf + rdst - GUARD, FILL, MIX * MIX_SLOT);
	memset(b->buf + wdst, FILL, MIX * 64);
	for (i = 0; i < MIX; i++) {
		struct op *r = &ops[2 * i], *w = &ops[2 * i + 1];

		fill_pattern(b->buf + rsrc + MIX_SLOT * i, rlen, 300 + i, 0);
		fill_pattern(a->buf + wsrc + 64 * i, 32, 400 + i, 0);
		*r = (struct op){ .opcode = IBV_WR_RDMA_READ, .wr_id = 6000 + i,
				  .flags = IBV_SEND_SIGNALED, .num_sge = 1,
				  .raddr = (uintptr_t)(b->buf + rsrc +
						       MIX_SLOT * i),
				  .rkey = b->mr->rkey };
		r->sge[0] = sge_at(a, rdst + MIX_SLOT * i, rlen);
		*w = (struct op){ .opcode = IBV_WR_RDMA_WRITE,
				  .wr_id = 7000 + i, .num_sge = 1,
				  .flags = i == MIX - 1 ? IBV_SEND_SIGNALED : 0,
				  .raddr = (uintptr_t)(b->buf + wdst + 64 * i),
				  .rkey = b->mr->rkey };
		w->sge[0] = sge_at(a, wsrc + 64 * i, 32);
	}
	post_ops(a, ops, 2 * MIX);
	for (i = 0; i < MIX; i++) {
		snprintf(what, sizeof(what), "mix read %d", i);
		expect_wc(a, &wc, what, 6000 + i, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_READ);
		CHECK(wc.byte_len == rlen, "%s: byte_len %u", what,
		      wc.byte_len);
	}
	expect_wc(a, &wc, "mix last write", 7000 + MIX - 1, IBV_WC_SUCCESS,
		  IBV_WC_RDMA_WRITE);
	expect_no_wc(a, "mix (unsignalled writes)");
	for (i = 0; i < MIX; i++) {
		snprintf(what, sizeof(what), "mix read %d", i);
		check_guarded_pattern(a->buf + rdst + MIX_SLOT * i, rlen,
				      300 + i, what);
		snprintf(what, sizeof(what), "mix write %d", i);
		check_pattern(b->buf + wdst + 64 * i, 32, 400 + i, 0, what);
		check_untouched(b->buf + wdst + 64 * i + 32, 32, what);
	}
	free(ops);
	printf("ok %d READs of %u bytes, each followed by a WRITE\n", MIX,
	       rlen);
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
	CHECK(conn_qp_state(a->qp) == IBV_QPS_ERR, "requester QP state %d after the error",
	      conn_qp_state(a->qp));
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

	fill_pattern(b->ro_buf, RO_SIZE, 70, 0);
	memset(a->buf + SRC_OFF + 64, FILL, 4096);
	op = small_op(a, IBV_WR_RDMA_READ, 1, ro + 100, b->ro_mr->rkey);
	op.sge[0].length = 4000;
	post_one(a, &op);
	expect_wc(a, &wc, "read from the read-only MR", 1, IBV_WC_SUCCESS,
		  IBV_WC_RDMA_READ);
	check_pattern(a->buf + SRC_OFF + 64, 4000, 70, 100, "read-only MR read");
	printf("ok read from an MR without remote write access\n");

	memset(a->buf + SRC_OFF + 64, 0, 64);
	op = small_op(a, IBV_WR_RDMA_WRITE, 2, ro + 100, b->ro_mr->rkey);
	post_one(a, &op);
	expect_wc(a, &wc, "write to the read-only MR", 2,
		  IBV_WC_REM_ACCESS_ERR, 0);
	check_pattern(b->ro_buf, RO_SIZE, 70, 0, "read-only MR after the write");
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
		CHECK(conn_poll(a->cq, &wc, WAIT_MS) && wc.wr_id == 1 &&
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

static void test_flush_recv(struct end *a, struct end *b)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_sge sge;
	int i, err;

	for (i = 0; i < 5; i++) {
		sge = sge_at(b, DST_OFF + 4096 * i, 4096);
		post_recv_sges(b, 5000 + i, &sge, 1);
	}
	(void)a;	/* only B's receive queue */
	err = ibv_modify_qp(b->qp, &attr, IBV_QP_STATE);
	CHECK(!err, "modify to ERR: %s", strerror(err));
	expect_flushed(b, 5000, 5, "receives flushed by ERR");
	expect_no_wc(b, "after the flush");
	printf("ok 5 receives flushed on ERR\n");
}

int main(int argc, char **argv)
{
	/* Each on a pair of its own: an error leaves the QPs in ERR. */
	static void (*const error_checks[])(struct end *, struct end *) = {
		test_bad_rkey, test_read_past_end, test_read_only_mr,
		test_bad_lkey, test_flush_recv,
	};
	struct end a = { 0 }, b = { 0 };
	unsigned int i;

	argv = prog_args(argc, argv, "xrl",
			 (int *[]){ &use_wr_api, &rxe_quirks, &lossy }, 5,
			 USAGE);
	/*
	 * A's PSNs wrap within the first large transfer. Each end's buf:
	 * local write, remote read and write; ro_buf: local write, remote
	 * read.
	 */
	path_mtu = setup_pair(argv, &a, &b, 0xffff00, &mtu, BUF_SIZE,
			      RC_ACCESS, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_READ);
	rd_atomic = rd_atomic_of(&b, rd_atomic_of(&a, 16));
	printf("rc_data: A %s gid %d, B %s gid %d, path MTU %u, %s, rd_atomic %u\n",
	       argv[0], a.gid_index, argv[2], b.gid_index, mtu,
	       use_wr_api ? "ibv_wr_* API" : "ibv_post_send", rd_atomic);

	connect_pair(&a, &b);
	printf("ok connected: A qpn %u, B qpn %u\n", a.qp->qp_num, b.qp->qp_num);
	test_send(&a, &b, mtu, MIB);
	test_inline(&a, &b);
	test_write(&a, &b, mtu, MIB + 1);
	test_read(&a, &b);
	test_burst(&a, &b);
	/* Under loss, three rounds: which ACKs pass a gap is chance. */
	for (i = 0; i < (lossy ? 3u : 1u); i++)
		test_read_write_mix(&a, &b);
	destroy_pair(&a, &b);

	/* The stock provider's ibv_wr_set_sge_list() is broken (above). */
	if (!use_wr_api) {
		a.max_send_sge = MANY_SGES;
		connect_pair(&a, &b);
		test_many_sges(&a, &b);
		destroy_pair(&a, &b);
		a.max_send_sge = 0;
	}

	for (i = 0; i < sizeof(error_checks) / sizeof(error_checks[0]) && !lossy;
	     i++) {
		connect_pair(&a, &b);
		error_checks[i](&a, &b);
		destroy_pair(&a, &b);
	}

	printf("rc_data all ok\n");
	return 0;
}
