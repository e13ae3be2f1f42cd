// SPDX-License-Identifier: GPL-2.0
/*
 * uc_data [-r] DEV_A GID_A DEV_B GID_B MTU: the UC data path between two devices
 * in one process (RDMA devices are visible from every namespace; DEV_A and
 * DEV_B may be the same device). A connected pair of UC QPs, path MTU MTU
 * (256..4096), RoCE v2 GIDs GID_A and GID_B (table indexes); A's PSNs wrap
 * within the first multi-packet message. Every transfer is checked byte by
 * byte, with the bytes around it:
 *  - SEND of 0, 1, MTU-1, MTU, MTU+1, 3*MTU+7 and 64 KiB+3 bytes,
 *    gathered from two SGEs and scattered into a receive WQE of three
 *    SGEs of odd lengths; SEND with immediate; B to A;
 *  - RDMA WRITE (0 to 64 KiB+3) into the middle of the remote MR, RDMA
 *    WRITE with immediate (consumes a receive WQE, leaves its buffer);
 *  - 64 mixed SENDs and WRITEs in one post, all arriving in order;
 * and the UC rules (IBTA 9.7.5.2, no acknowledgements, no retries): a
 * message the responder cannot take is dropped there while the requester
 * completes it successfully, and the QP goes on with the next message:
 *  - SEND with no receive WQE posted;
 *  - WRITE with a bad rkey, and to an MR without remote write access
 *    (memory untouched);
 *  - SEND longer than the receive WQE: that WQE completes with
 *    IBV_WC_LOC_LEN_ERR, the rest of the message is dropped;
 *  - RDMA READ is not a UC operation: IBV_WC_LOC_QP_OP_ERR at the
 *    requester.
 * -r accepts the known deviations of rdma_rxe (6.1), each reported on a
 * line "rxe quirk: ...".
 * -l N does nothing of the above but, for a wire that loses, duplicates
 * and reorders packets: A sends N (up to 120) messages of 3*MTU+7 bytes,
 * SEND and RDMA WRITE with immediate by turns, the immediate numbering
 * them; whatever B receives must be whole messages, in order, each with
 * its own bytes, completed successfully (a message broken on the way is
 * dropped, its receive WQE kept for the next one).
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define KIB		1024u
#define MIB		(1024 * KIB)
#define BUF_SIZE	(12 * MIB)
#define SRC_OFF		4096		/* sources (burst: up to 1 MiB) */
#define DST_OFF		MIB		/* receives (burst: up to 2 MiB) */
#define MAX_WR		128
#define BURST		64
#define BIG		(64 * KIB + 3)
#define WAIT_MS		60000		/* for a completion that must come */
#define QUIET_MS	300		/* for one that must not */
#define USAGE		"usage: uc_data [-r] [-l N] DEV_A GID_A DEV_B GID_B MTU"

/* The three receive SGEs (data_xfer.h): odd addresses, guards between. */
#define RECV_CAP	(BIG + 4096)
#define RECV_AT		(DST_OFF + 13)
#define WRITE_AT	(DST_OFF + MIB + 4099)	/* WRITE targets, above the receives */
#define LOSSY_SRC	(3 * MIB)	/* -l: up to 1.5 MiB each */
#define LOSSY_RECV	(5 * MIB)
#define LOSSY_WRITE	(7 * MIB)
#define LOSSY_MAX	120

#include "check.h"
#include "data_pattern.h"
#include "data_xfer.h"
#include "end.h"
#include "prog_args.h"
#include "rc_conn.h"

static int rxe_quirks;		/* -r: accept rdma_rxe's known deviations */
static unsigned int mtu;
static enum ibv_mtu path_mtu;

/* A new pair of UC QPs between a and b: no timeouts, retries or rd_atomic. */
static void connect_pair(struct end *a, struct end *b)
{
	struct conn_params p = {
		.mtu = path_mtu,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};

	create_qp(a, IBV_QPT_UC, MAX_WR, 0, 0);
	create_qp(b, IBV_QPT_UC, MAX_WR, 0, 0);
	end_connect(a, b, &p);
}

static void expect_rts(struct end *a, struct end *b, const char *what)
{
	enum ibv_qp_state sa = conn_qp_state(a->qp), sb = conn_qp_state(b->qp);

	CHECK(sa == IBV_QPS_RTS && sb == IBV_QPS_RTS,
	      "%s: QP states A %d, B %d, not RTS", what, sa, sb);
}

static void post_send_wr(struct end *e, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int err;

	err = ibv_post_send(e->qp, wr, &bad);
	CHECK(!err, "%s: ibv_post_send: %s", e->name, strerror(err));
}

/*
 * BURST WRs in one post, all signalled: even ones SENDs of odd sizes up to
 * 2*MTU+1 (a receive each), odd ones WRITEs of as much to their own slot.
 * No UC flow control: everything must still arrive, in order.
 */
static void test_burst(struct end *a, struct end *b)
{
	struct ibv_send_wr wr[BURST];
	struct ibv_sge sge[BURST];
	size_t slot = 2 * mtu + 64;
	size_t sbase = SRC_OFF + 128 * KIB, wbase = WRITE_AT - 3;
	size_t rbase = RECV_AT;
	struct ibv_sge rsge;
	struct ibv_wc wc;
	char what[64];
	int i;

	memset(b->buf + rbase, FILL, BURST * slot);
	memset(b->buf + wbase, FILL, BURST * slot);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < BURST; i++) {
		uint32_t len = (i * 97u) % (2 * mtu + 1) + 1;

		fill_pattern(a->buf + sbase + slot * i, len, 100 + i, 0);
		sge[i] = sge_at(a, sbase + slot * i, len);
		wr[i].wr_id = 2000 + i;
		wr[i].next = i + 1 < BURST ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		if (i % 2) {
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			wr[i].wr.rdma.remote_addr =
				(uintptr_t)(b->buf + wbase + slot * i);
			wr[i].wr.rdma.rkey = b->mr->rkey;
		} else {
			wr[i].opcode = IBV_WR_SEND;
			rsge = sge_at(b, rbase + slot * i, slot - 32);
			post_recv_sges(b, 3000 + i, &rsge, 1);
		}
	}
	post_send_wr(a, wr);
	for (i = 0; i < BURST; i++) {
		snprintf(what, sizeof(what), "burst WR %d", i);
		expect_wc(a, &wc, what, 2000 + i, IBV_WC_SUCCESS,
			  i % 2 ? IBV_WC_RDMA_WRITE : IBV_WC_SEND);
	}
	for (i = 0; i < BURST; i += 2) {
		snprintf(what, sizeof(what), "burst receive %d", i);
		expect_wc(b, &wc, what, 3000 + i, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK(wc.byte_len == sge[i].length, "%s: byte_len %u, not %u",
		      what, wc.byte_len, sge[i].length);
		check_pattern(b->buf + rbase + slot * i, sge[i].length,
			      100 + i, 0, what);
		check_untouched(b->buf + rbase + slot * i + sge[i].length,
				slot - sge[i].length, what);
	}
	expect_no_wc(b, "burst (receives)");
	/* The last SEND came after every WRITE but the last one. */
	for (i = 1; i < BURST; i += 2) {
		snprintf(what, sizeof(what), "burst write %d", i);
		if (i == BURST - 1)
			await_pattern_end(b->buf + wbase + slot * i,
					  sge[i].length, 100 + i);
		check_pattern(b->buf + wbase + slot * i, sge[i].length,
			      100 + i, 0, what);
		check_untouched(b->buf + wbase + slot * i + sge[i].length,
				slot - sge[i].length, what);
	}
	printf("ok burst of %d SENDs and WRITEs up to %u bytes, in order\n",
	       BURST, 2 * mtu + 1);
}

/* No receive WQE: the SEND is dropped at B, completes at A; then one that fits. */
static void test_no_recv_wqe(struct end *a, struct end *b)
{
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = {
		.wr_id = 60, .sg_list = sge, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	const char *what = "send without a receive WQE";

	wr.num_sge = src_sges(a, sge, 2 * mtu + 1, 60);
	post_send_wr(a, &wr);
	expect_wc(a, &wc, what, 60, IBV_WC_SUCCESS, IBV_WC_SEND);
	expect_no_wc(b, what);
	expect_rts(a, b, what);
	/* The next message is whole, with nothing of the dropped one. */
	send_check(a, b, mtu + 3, 61, 0, "send after the dropped one");
	printf("ok %s: dropped at the responder, completed at the requester\n",
	       what);
}

/* A WRITE the responder must refuse: dropped, A completes, QPs stay RTS. */
static void bad_write(struct end *a, struct end *b, uint8_t *at, uint32_t rkey,
		      unsigned int seed, const char *what)
{
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = {
		.wr_id = seed, .sg_list = sge, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)at, .rkey = rkey },
	};
	struct ibv_wc wc;

	/* Two packets: the second must be dropped with the first. */
	wr.num_sge = src_sges(a, sge, mtu + 1, seed);
	post_send_wr(a, &wr);
	expect_wc(a, &wc, what, seed, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	expect_no_wc(b, what);
	expect_rts(a, b, what);
	/* A good one after it lands: the QPs go on. */
	write_check(a, b, mtu + 1, seed + 1, 0, what);
}

static void test_bad_writes(struct end *a, struct end *b)
{
	uint32_t lkey, stale;

	stale_keys(b, &lkey, &stale);
	memset(b->ro_buf, FILL, RO_SIZE);
	bad_write(a, b, b->ro_buf, stale, 70, "write with a bad rkey");
	check_untouched(b->ro_buf, RO_SIZE, "memory after the bad rkey");
	printf("ok write with a bad rkey: dropped, memory intact\n");
	bad_write(a, b, b->ro_buf + 8, b->ro_mr->rkey, 72,
		  "write without remote write access");
	check_untouched(b->ro_buf, RO_SIZE, "MR without remote write access");
	printf("ok write to an MR without remote write access: dropped, memory intact\n");
}

/*
 * A SEND longer than the receive WQE: it completes in error, the rest of
 * the message is dropped. Returns 0 if rxe's quirk put the QP in ERR.
 */
static int test_too_long(struct end *a, struct end *b)
{
	struct ibv_sge sge[2], rsge = sge_at(b, RECV_AT, 100);
	struct ibv_send_wr wr = {
		.wr_id = 80, .sg_list = sge, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	const char *what = "send longer than the receive WQE";

	memset(b->buf + RECV_AT - GUARD, FILL, RECV_CAP + 4 * GUARD);
	post_recv_sges(b, 1080, &rsge, 1);
	wr.num_sge = src_sges(a, sge, 2 * mtu + 1, 80);
	post_send_wr(a, &wr);
	expect_wc(a, &wc, what, 80, IBV_WC_SUCCESS, IBV_WC_SEND);
	/*
	 * rdma_rxe 6.1 takes the overflow for a malformed WQE: a local QP
	 * operation error, and the QP goes to ERR.
	 */
	if (rxe_quirks) {
		CHECK(conn_poll(b->cq, &wc, WAIT_MS) && wc.wr_id == 1080 &&
		      (wc.status == IBV_WC_LOC_LEN_ERR ||
		       wc.status == IBV_WC_LOC_QP_OP_ERR),
		      "%s: status '%s'", what, ibv_wc_status_str(wc.status));
		if (wc.status != IBV_WC_LOC_LEN_ERR) {
			printf("rxe quirk: %s gives '%s', not '%s'\n", what,
			       ibv_wc_status_str(wc.status),
			       ibv_wc_status_str(IBV_WC_LOC_LEN_ERR));
			return 0;
		}
	} else {
		expect_wc(b, &wc, what, 1080, IBV_WC_LOC_LEN_ERR, 0);
	}
	expect_no_wc(b, what);
	check_untouched(b->buf + RECV_AT + 100, 2 * mtu + GUARD, what);
	printf("ok %s: %s at the responder\n", what,
	       ibv_wc_status_str(wc.status));
	return 1;
}

/* RDMA READ on UC: refused locally. */
static void test_read_refused(struct end *a)
{
	struct ibv_sge sge = sge_at(a, SRC_OFF, 64);
	struct ibv_send_wr wr = {
		.wr_id = 90, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = 4096, .rkey = 1 },
	};
	struct ibv_send_wr *bad = NULL;
	struct ibv_wc wc;
	int err;

	err = ibv_post_send(a->qp, &wr, &bad);
	if (err) {
		printf("ok RDMA READ on UC refused at post: %s\n",
		       strerror(err));
		return;
	}
	expect_wc(a, &wc, "RDMA READ on UC", 90, IBV_WC_LOC_QP_OP_ERR, 0);
	printf("ok RDMA READ on UC: %s\n", ibv_wc_status_str(wc.status));
}

/* -l: see the top of the file. */
static void test_lossy(struct end *a, struct end *b, unsigned int n)
{
	uint32_t len = 3 * mtu + 7, slot = len + 64;
	struct ibv_send_wr *wr = calloc(n, sizeof(*wr));
	struct ibv_sge *sge = calloc(n, sizeof(*sge));
	unsigned int k, got = 0, next_wqe = 0;
	int last = -1;
	struct ibv_wc wc;
	char what[64];

	CHECK(wr && sge && n <= LOSSY_MAX, "-l %u: at most %d", n, LOSSY_MAX);
	memset(b->buf + LOSSY_RECV, FILL, (size_t)n * slot);
	memset(b->buf + LOSSY_WRITE, FILL, (size_t)n * slot);
	for (k = 0; k < n; k++) {
		struct ibv_sge rsge = sge_at(b, LOSSY_RECV + (size_t)k * slot,
					     slot);

		post_recv_sges(b, k, &rsge, 1);
		fill_pattern(a->buf + LOSSY_SRC + (size_t)k * slot, len,
			     1000 + k, 0);
		sge[k] = sge_at(a, LOSSY_SRC + (size_t)k * slot, len);
		wr[k].wr_id = k;
		wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
		wr[k].sg_list = &sge[k];
		wr[k].num_sge = 1;
		wr[k].send_flags = IBV_SEND_SIGNALED;
		wr[k].imm_data = htonl(k);
		if (k % 2) {
			wr[k].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			wr[k].wr.rdma.remote_addr =
				(uintptr_t)(b->buf + LOSSY_WRITE + (size_t)k * slot);
			wr[k].wr.rdma.rkey = b->mr->rkey;
		} else {
			wr[k].opcode = IBV_WR_SEND_WITH_IMM;
		}
	}
	post_send_wr(a, wr);
	/* UC: the requester completes everything, lost or not. */
	for (k = 0; k < n; k++) {
		snprintf(what, sizeof(what), "lossy: message %u", k);
		expect_wc(a, &wc, what, k, IBV_WC_SUCCESS,
			  k % 2 ? IBV_WC_RDMA_WRITE : IBV_WC_SEND);
	}
	/* Then whatever arrives, until the wire has been quiet a while. */
	while (conn_poll(b->cq, &wc, 2000)) {
		CHECK(wc.status == IBV_WC_SUCCESS,
		      "lossy: receive WQE %llu completed with '%s' after "
		      "message %d", (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status), last);
		CHECK(wc.wr_id == next_wqe, "lossy: receive WQE %llu "
		      "completed where %u was due",
		      (unsigned long long)wc.wr_id, next_wqe);
		CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "lossy: no immediate");
		k = ntohl(wc.imm_data);
		CHECK(k < n && (int)k > last, "lossy: message %u after %d", k,
		      last);
		snprintf(what, sizeof(what), "lossy: message %u", k);
		CHECK(wc.byte_len == len, "%s: byte_len %u", what, wc.byte_len);
		if (k % 2) {
			CHECK(wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM,
			      "%s: opcode %d", what, wc.opcode);
			check_pattern(b->buf + LOSSY_WRITE + (size_t)k * slot,
				      len, 1000 + k, 0, what);
			check_untouched(b->buf + LOSSY_WRITE +
					(size_t)k * slot + len, slot - len,
					what);
		} else {
			CHECK(wc.opcode == IBV_WC_RECV, "%s: opcode %d", what,
			      wc.opcode);
			check_pattern(b->buf + LOSSY_RECV +
				      (size_t)next_wqe * slot, len, 1000 + k,
				      0, what);
		}
		last = k;
		next_wqe++;
		got++;
	}
	/* Some must get through, or the check above saw nothing. */
	CHECK(got > 0, "lossy: none of %u messages arrived", n);
	printf("ok lossy wire: %u of %u messages of %u bytes arrived, "
	       "whole and in order; %u dropped\n", got, n, len, n - got);
	free(wr);
	free(sge);
}

int main(int argc, char **argv)
{
	struct end a = { 0 }, b = { 0 };
	int lossy = 0;

	argv = prog_args(argc, argv, "rl:", (int *[]){ &rxe_quirks, &lossy },
			 5, USAGE);
	/*
	 * A's PSNs wrap within the first messages of several packets. Each
	 * end's buf: local and remote write; ro_buf: local write only.
	 */
	path_mtu = setup_pair(argv, &a, &b, 0xfffffd, &mtu, BUF_SIZE,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			      IBV_ACCESS_LOCAL_WRITE);
	printf("uc_data: A %s gid %d, B %s gid %d, path MTU %u\n", argv[0],
	       a.gid_index, argv[2], b.gid_index, mtu);

	connect_pair(&a, &b);
	printf("ok connected: A qpn %u, B qpn %u\n", a.qp->qp_num, b.qp->qp_num);
	if (lossy) {
		test_lossy(&a, &b, lossy);
		destroy_pair(&a, &b);
		printf("uc_data all ok\n");
		return 0;
	}
	test_send(&a, &b, mtu, BIG);
	test_write(&a, &b, mtu, BIG);
	test_burst(&a, &b);
	test_no_recv_wqe(&a, &b);
	test_bad_writes(&a, &b);
	if (test_too_long(&a, &b)) {
		/* UC: the next message goes through. */
		send_check(&a, &b, 3 * mtu + 1, 85, 0,
			   "send after the one too long");
		expect_rts(&a, &b, "after the send too long");
	}
	destroy_pair(&a, &b);

	connect_pair(&a, &b);
	test_read_refused(&a);
	destroy_pair(&a, &b);

	printf("uc_data all ok\n");
	return 0;
}
