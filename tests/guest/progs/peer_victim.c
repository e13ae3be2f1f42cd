// SPDX-License-Identifier: GPL-2.0
/*
 * peer_victim DEV GID4 GID6 REMOTE4 REMOTE6: the victim side of
 * tests/guest/rx-not-peer.sh. On device DEV, four pairs of connected QPs
 * A and B, both ends on DEV: "rc4" and "uc4" (RC and UC) with RoCE v2 GID
 * index GID4 (an IPv4-mapped one), "rc6" and "uc6" with GID6 (an IPv6
 * one), each A and B connected to each other with that one GID. And two
 * controls, a QP A alone connected to a QP on another host that does not
 * exist: "ctl4" (RC) to IPv4 address REMOTE4, "ctl6" (UC) to IPv6 address
 * REMOTE6. Every A has NRECV receive WQEs posted into a receive buffer
 * holding a known pattern, and a second buffer, with another pattern,
 * registered for remote writes.
 *
 * For each A it prints one line
 *	victim NAME qpn=A's QPN psn=A's expected receive PSN va=ADDR rkey=KEY
 * (ADDR and KEY: the remote-write buffer), then "ready", and waits for a
 * line on stdin while someone forges packets for every A: packets not
 * from B for the pairs, and, from the control's REMOTE address, one SEND
 * of CTL_LEN bytes CTL_BYTE at its expected PSN and one RDMA WRITE of as
 * many at the start of its write buffer at the PSN after. Then:
 *  - no receive completed on any A of a pair, every A is still in RTS,
 *    the receive and write buffers still hold their patterns;
 *  - each control took both packets of its peer's address: one receive
 *    completion of CTL_LEN bytes, those bytes in its first receive WQE
 *    and at the start of its write buffer, the rest still the patterns
 *    (so the forger's packets are well-formed, ICRC and all);
 *  - each B sends NREAL SENDs and NREAL RDMA WRITEs (1 to 8000 bytes,
 *    most of them several packets at path MTU 1024) to its A: exactly NREAL
 *    receive completions in order, each of its length, and every byte of
 *    both buffers is what B sent or still the pattern (a forged packet
 *    taken earlier would have moved A's PSN or corrupted the data).
 * Prints "ok ..." per check and "peer_victim all ok"; exits 1 at the first
 * failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "open_device.h"
#include "rc_conn.h"

#define NRECV		80		/* receive WQEs on each A */
#define SLOT		4096		/* bytes per receive WQE */
#define NREAL		8		/* SENDs and WRITEs from B */
#define WSIZE		(64 * 1024)	/* A's remote-write buffer */
#define WSTRIDE		(WSIZE / NREAL)	/* one WRITE target in each */
#define SSIZE		(2 * NREAL * 8192)	/* B's sources */
#define WAIT_MS		30000		/* for a completion that must come */
#define QUIET_MS	500		/* for one that must not */
#define CTL_LEN		64		/* the controls' forged packets */
#define CTL_BYTE	0xee
#define CTL_PEER_QPN	0xabcde		/* their peer QP, which does not exist */
#define USAGE		"usage: peer_victim DEV GID4 GID6 REMOTE4 REMOTE6"

/* B's messages: SEND i into A's WQE i, WRITE i at WSTRIDE * i + 5. */
static const uint32_t send_len[NREAL] = { 1, 64, 1023, 1024, 1025, 2049, 3001, 4096 };
static const uint32_t write_len[NREAL] = { 7, 1024, 4096, 2047, 1, 6000, 3333, 8000 };

struct victim {
	const char *name;
	enum ibv_qp_type type;
	int ipv6;		/* GID6, not GID4 */
	int control;		/* no B: A's peer is REMOTE4 or REMOTE6 */
	int gid_index;
	uint32_t rq_psn;	/* A's expected receive PSN: B's send PSN */
	uint32_t a_psn;		/* A's send PSN */
	unsigned int seed;	/* of its patterns */
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *a, *b;
	uint8_t *rbuf, *wbuf, *sbuf;
	struct ibv_mr *rmr, *wmr, *smr;
};

/* PSNs near the wrap: the forger's P .. P+16 cross it for some. */
static struct victim victims[] = {
	{ .name = "rc4", .type = IBV_QPT_RC, .ipv6 = 0, .rq_psn = 0xfffff8,
	  .a_psn = 0x100000, .seed = 10 },
	{ .name = "uc4", .type = IBV_QPT_UC, .ipv6 = 0, .rq_psn = 0x7ffff0,
	  .a_psn = 0x200000, .seed = 20 },
	{ .name = "rc6", .type = IBV_QPT_RC, .ipv6 = 1, .rq_psn = 0x000003,
	  .a_psn = 0x300000, .seed = 30 },
	{ .name = "uc6", .type = IBV_QPT_UC, .ipv6 = 1, .rq_psn = 0xfffffa,
	  .a_psn = 0x400000, .seed = 40 },
	{ .name = "ctl4", .type = IBV_QPT_RC, .ipv6 = 0, .rq_psn = 0xffffff,
	  .a_psn = 0x500000, .seed = 50, .control = 1 },
	{ .name = "ctl6", .type = IBV_QPT_UC, .ipv6 = 1, .rq_psn = 0x654321,
	  .a_psn = 0x600000, .seed = 60, .control = 1 },
};
#define NVICTIMS	(sizeof(victims) / sizeof(victims[0]))

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid remote_gid[2];	/* REMOTE4 (IPv4-mapped), REMOTE6 */

/* The RoCE v2 GID of IPv4 or IPv6 address @text. */
static void addr_gid(const char *text, int ipv6, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (ipv6) {
		CHECK(inet_pton(AF_INET6, text, gid->raw) == 1,
		      "%s: not an IPv6 address", text);
		return;
	}
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	CHECK(inet_pton(AF_INET, text, gid->raw + 12) == 1,
	      "%s: not an IPv4 address", text);
}

static struct ibv_mr *reg(uint8_t **buf, size_t size, unsigned int access,
			  const char *what)
{
	struct ibv_mr *mr;

	*buf = aligned_alloc(4096, size);
	CHECK(*buf, "out of memory");
	memset(*buf, FILL, size);
	mr = ibv_reg_mr(pd, *buf, size, access);
	CHECK(mr, "reg_mr %s: %s", what, strerror(errno));
	return mr;
}

static struct ibv_qp *create_qp(struct ibv_cq *cq, enum ibv_qp_type type,
				const char *what)
{
	struct ibv_qp_init_attr init = {
		.qp_type = type, .send_cq = cq, .recv_cq = cq,
		.cap = {
			.max_send_wr = 2 * NREAL, .max_recv_wr = NRECV,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	CHECK(qp, "%s: create_qp: %s", what, strerror(errno));
	return qp;
}

static void setup(struct victim *v)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		.rd_atomic = 1, .rnr_retry = 7, .timeout = 14,
	};
	struct conn_end ea = { .name = "A", .gid_index = v->gid_index,
			       .psn = v->a_psn };
	struct conn_end eb = { .name = "B", .gid_index = v->gid_index,
			       .psn = v->rq_psn };
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, err;

	CHECK(!ibv_query_gid(ctx, 1, v->gid_index, &ea.gid), "query_gid %d",
	      v->gid_index);
	eb.gid = ea.gid;
	v->cq_a = ibv_create_cq(ctx, 2 * NRECV, NULL, NULL, 0);
	v->cq_b = ibv_create_cq(ctx, 4 * NREAL, NULL, NULL, 0);
	CHECK(v->cq_a && v->cq_b, "%s: create_cq: %s", v->name, strerror(errno));
	v->a = ea.qp = create_qp(v->cq_a, v->type, v->name);
	if (v->control) {
		struct conn_peer remote = {
			.qpn = CTL_PEER_QPN, .psn = v->rq_psn,
			.gid = remote_gid[v->ipv6],
		};

		p.psn = v->a_psn;
		p.gid_index = v->gid_index;
		conn_to_rts(v->a, v->name, &p, &remote);
	} else {
		v->b = eb.qp = create_qp(v->cq_b, v->type, v->name);
		conn_connect(&ea, &eb, &p);
	}

	v->rmr = reg(&v->rbuf, NRECV * SLOT, IBV_ACCESS_LOCAL_WRITE, "receives");
	v->wmr = reg(&v->wbuf, WSIZE, IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_REMOTE_WRITE, "write target");
	v->smr = reg(&v->sbuf, SSIZE, IBV_ACCESS_LOCAL_WRITE, "sources");
	fill_pattern(v->rbuf, NRECV * SLOT, v->seed, 0);
	fill_pattern(v->wbuf, WSIZE, v->seed + 1, 0);

	for (i = 0; i < NRECV; i++) {
		sge.addr = (uintptr_t)(v->rbuf + i * SLOT);
		sge.length = SLOT;
		sge.lkey = v->rmr->lkey;
		wr.wr_id = i;
		err = ibv_post_recv(v->a, &wr, &bad);
		CHECK(!err, "%s: post_recv %d: %s", v->name, i, strerror(err));
	}
}

/* Nothing reached A: no completion, still RTS, both buffers untouched. */
static void check_untouched_by_forgery(struct victim *v, int quiet_ms)
{
	char what[96];

	snprintf(what, sizeof(what), "%s: after the forged packets", v->name);
	conn_expect_no_wc(v->cq_a, "A (forged packet accepted)", what, quiet_ms);
	conn_expect_no_wc(v->cq_b, "B", what, 1);
	CHECK(conn_qp_state(v->a) == IBV_QPS_RTS &&
	      conn_qp_state(v->b) == IBV_QPS_RTS, "%s: a QP left RTS", what);
	snprintf(what, sizeof(what), "%s: receive buffer after the forged packets",
		 v->name);
	check_pattern(v->rbuf, NRECV * SLOT, v->seed, 0, what);
	snprintf(what, sizeof(what), "%s: write buffer after the forged packets",
		 v->name);
	check_pattern(v->wbuf, WSIZE, v->seed + 1, 0, what);
	printf("ok %s: no completion, QPs in RTS, both buffers untouched\n",
	       v->name);
}

/* The @n bytes at @p are all CTL_BYTE. */
static void check_ctl_bytes(const uint8_t *p, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		CHECK(p[i] == CTL_BYTE, "%s: byte %zu is %#x, not the forged %#x",
		      what, i, p[i], CTL_BYTE);
}

/* A control took the SEND and the WRITE from its peer's address. */
static void check_control(struct victim *v, int wait_ms)
{
	struct ibv_wc wc;
	char what[96];

	snprintf(what, sizeof(what),
		 "%s: SEND from the peer's address (the forger's packets valid?)",
		 v->name);
	conn_expect_wc(v->cq_a, v->a, "A", what, &wc, 0, IBV_WC_SUCCESS,
		       IBV_WC_RECV, wait_ms);
	CHECK(wc.byte_len == CTL_LEN, "%s: byte_len %u, not %u", what,
	      wc.byte_len, CTL_LEN);
	conn_expect_no_wc(v->cq_a, "A", what, 1);
	CHECK(conn_qp_state(v->a) == IBV_QPS_RTS, "%s: QP left RTS", what);
	check_ctl_bytes(v->rbuf, CTL_LEN, what);
	check_pattern(v->rbuf + CTL_LEN, NRECV * SLOT - CTL_LEN, v->seed,
		      CTL_LEN, what);
	snprintf(what, sizeof(what),
		 "%s: WRITE from the peer's address (the forger's packets valid?)",
		 v->name);
	check_ctl_bytes(v->wbuf, CTL_LEN, what);
	check_pattern(v->wbuf + CTL_LEN, WSIZE - CTL_LEN, v->seed + 1, CTL_LEN,
		      what);
	printf("ok %s: the SEND and the WRITE from the peer's address taken\n",
	       v->name);
}

/* B's NREAL WRITEs and SENDs, by turns, WRITE first, in one post. */
static void real_traffic(struct victim *v)
{
	struct ibv_send_wr wr[2 * NREAL], *bad;
	struct ibv_sge sge[2 * NREAL];
	struct ibv_wc wc;
	char what[96];
	int i, err;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2 * NREAL; i++) {
		int k = i / 2, is_send = i % 2;
		uint32_t len = is_send ? send_len[k] : write_len[k];
		uint8_t *src = v->sbuf + i * 8192;

		fill_pattern(src, len, v->seed + 100 + i, 0);
		sge[i].addr = (uintptr_t)src;
		sge[i].length = len;
		sge[i].lkey = v->smr->lkey;
		wr[i].wr_id = 1000 + i;
		wr[i].next = i + 1 < 2 * NREAL ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		if (is_send) {
			wr[i].opcode = IBV_WR_SEND;
		} else {
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			wr[i].wr.rdma.remote_addr =
				(uintptr_t)(v->wbuf + k * WSTRIDE + 5);
			wr[i].wr.rdma.rkey = v->wmr->rkey;
		}
	}
	err = ibv_post_send(v->b, wr, &bad);
	CHECK(!err, "%s: B post_send: %s", v->name, strerror(err));

	for (i = 0; i < 2 * NREAL; i++) {
		snprintf(what, sizeof(what), "%s: B's WR %d", v->name, i);
		conn_expect_wc(v->cq_b, v->b, "B", what, &wc, 1000 + i,
			       IBV_WC_SUCCESS,
			       i % 2 ? IBV_WC_SEND : IBV_WC_RDMA_WRITE, WAIT_MS);
	}
	for (i = 0; i < NREAL; i++) {
		snprintf(what, sizeof(what), "%s: SEND %d from B", v->name, i);
		conn_expect_wc(v->cq_a, v->a, "A", what, &wc, i,
			       IBV_WC_SUCCESS, IBV_WC_RECV, WAIT_MS);
		CHECK(wc.byte_len == send_len[i], "%s: byte_len %u, not %u",
		      what, wc.byte_len, send_len[i]);
	}
	snprintf(what, sizeof(what), "%s: after B's %d SENDs", v->name, NREAL);
	conn_expect_no_wc(v->cq_a, "A", what, 50);

	/* The last SEND came after every WRITE: all of them are placed. */
	for (i = 0; i < NRECV; i++) {
		uint8_t *slot = v->rbuf + i * SLOT;
		uint32_t len = i < NREAL ? send_len[i] : 0;

		snprintf(what, sizeof(what), "%s: receive WQE %d", v->name, i);
		if (len)
			check_pattern(slot, len, v->seed + 100 + 2 * i + 1, 0,
				      what);
		check_pattern(slot + len, SLOT - len, v->seed, i * SLOT + len,
			      what);
	}
	for (i = 0; i < NREAL; i++) {
		size_t at = i * WSTRIDE, len = write_len[i];

		snprintf(what, sizeof(what), "%s: WRITE %d", v->name, i);
		check_pattern(v->wbuf + at, 5, v->seed + 1, at, what);
		check_pattern(v->wbuf + at + 5, len, v->seed + 100 + 2 * i, 0,
			      what);
		check_pattern(v->wbuf + at + 5 + len, WSTRIDE - 5 - len,
			      v->seed + 1, at + 5 + len, what);
	}
	printf("ok %s: %d SENDs and %d WRITEs from B, every byte, %d receive completions\n",
	       v->name, NREAL, NREAL, NREAL);
}

int main(int argc, char **argv)
{
	struct ibv_port_attr pa;
	char line[64];
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(argc == 6, "%s", USAGE);
	addr_gid(argv[4], 0, &remote_gid[0]);
	addr_gid(argv[5], 1, &remote_gid[1]);
	ctx = open_by_name(argv[1]);
	CHECK(ctx, "no device %s", argv[1]);
	CHECK(!ibv_query_port(ctx, 1, &pa), "query_port");
	CHECK(pa.state == IBV_PORT_ACTIVE && pa.active_mtu >= IBV_MTU_1024,
	      "port state %d, active_mtu %d", pa.state, pa.active_mtu);
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd");

	for (i = 0; i < NVICTIMS; i++) {
		struct victim *v = &victims[i];

		v->gid_index = atoi(argv[2 + v->ipv6]);
		setup(v);
		printf("victim %s qpn=%#x psn=%#x va=%#llx rkey=%#x\n", v->name,
		       v->a->qp_num, v->rq_psn,
		       (unsigned long long)(uintptr_t)v->wbuf, v->wmr->rkey);
	}
	printf("ready\n");
	CHECK(fgets(line, sizeof(line), stdin), "stdin closed before the go");

	/* The controls first: the quiet time for the pairs comes after. */
	for (i = 0; i < NVICTIMS; i++)
		if (victims[i].control)
			check_control(&victims[i], WAIT_MS);
	for (i = 0; i < NVICTIMS; i++)
		if (!victims[i].control)
			check_untouched_by_forgery(&victims[i], i ? 1 : QUIET_MS);
	for (i = 0; i < NVICTIMS; i++)
		if (!victims[i].control)
			real_traffic(&victims[i]);

	for (i = 0; i < NVICTIMS; i++) {
		struct victim *v = &victims[i];

		CHECK(!ibv_destroy_qp(v->a) && (!v->b || !ibv_destroy_qp(v->b)) &&
		      !ibv_destroy_cq(v->cq_a) && !ibv_destroy_cq(v->cq_b) &&
		      !ibv_dereg_mr(v->rmr) && !ibv_dereg_mr(v->wmr) &&
		      !ibv_dereg_mr(v->smr), "%s: teardown", v->name);
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("peer_victim all ok\n");
	return 0;
}
