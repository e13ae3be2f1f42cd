// SPDX-License-Identifier: GPL-2.0
/*
 * wire_victim a|b DEV GID4 GID6 PEER4 PEER6: the two guests of
 * tests/guest2/rx-not-peer-wire.sh, side "a" the victim and side "b" its
 * real peer, each on device DEV with the RoCE v2 GID indexes GID4 (of its
 * IPv4 address) and GID6 (of its IPv6 one), the other guest at PEER4 and
 * PEER6.
 *
 * Both sides create one QP of each pair: "rc4" and "uc4" (RC and UC) over
 * IPv4, "rc6" and "uc6" over IPv6. Side a also has two controls, "ctl4"
 * (RC, IPv4) and "ctl6" (UC, IPv6), connected to PEER4 and PEER6 but to a
 * QP number nobody there has. Every QP of side a has NRECV receive WQEs
 * posted into a buffer holding a known pattern, and a second buffer, with
 * another pattern, open to remote writes.
 *
 * Each side prints one line per QP
 *	qp NAME qpn=QPN psn=PSN va=ADDR rkey=KEY
 * (PSN: the QP's expected receive PSN; ADDR and KEY: its remote-write
 * buffer, 0 on side b), then "ready", and reads the other side's lines
 * from stdin up to a line "end". It connects each QP of a pair to its
 * twin on the other side (the PSNs are fixed here, the same on both
 * sides), prints "connected" and waits for a line on stdin, while someone
 * forges packets for side a's QPs: not from b for the pairs; for each
 * control, from its peer's address, one SEND of CTL_LEN bytes CTL_BYTE at
 * its expected PSN and one RDMA WRITE of as many at the start of its
 * write buffer at the PSN after.
 *
 * Side a then checks that
 *  - each control took both (the forger's packets are well-formed and get
 *    across the wire): one receive completion of CTL_LEN bytes, those
 *    bytes in its first receive WQE and at the start of its write buffer,
 *    the rest still the patterns;
 *  - no receive completed on a QP of a pair, each is still in RTS, both
 *    its buffers still hold their patterns;
 * prints "checked", and takes side b's real traffic: on each pair NREAL
 * SENDs and NREAL RDMA WRITEs (1 to 8000 bytes, most of them several
 * packets at path MTU 1024), exactly NREAL receive completions in order,
 * each of its length, and every byte of both buffers is what b sent or
 * still the pattern (a forged packet taken would have moved the PSN or
 * the data). Side b sends them on its line from stdin and waits for
 * their send completions.
 * Prints "ok ..." per check and "wire_victim all ok"; exits 1 at the
 * first failure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "forge_victim.h"
#include "open_device.h"
#include "rc_conn.h"

#define NRECV		32		/* receive WQEs on each QP of a */
#define USAGE		"usage: wire_victim a|b DEV GID4 GID6 PEER4 PEER6"

struct wqp {
	const char *name;
	enum ibv_qp_type type;
	int ipv6;		/* GID6, not GID4 */
	int control;		/* side a only, its peer QP does not exist */
	uint32_t a_psn;		/* a's send PSN: b's expected receive PSN */
	uint32_t b_psn;		/* b's send PSN: a's expected receive PSN */
	unsigned int seed;	/* of a's patterns and b's sources */
	int peer_known;
	uint32_t peer_qpn;
	uint64_t peer_va;	/* b: a's write buffer */
	uint32_t peer_rkey;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct victim_mem mem;	/* a's buffers, or b's sources */
};

/* PSNs near the wrap: the forger's P .. P+16 cross it for some. */
static struct wqp qps[] = {
	{ .name = "rc4", .type = IBV_QPT_RC, .ipv6 = 0, .a_psn = 0x100000,
	  .b_psn = 0xfffff8, .seed = 10 },
	{ .name = "uc4", .type = IBV_QPT_UC, .ipv6 = 0, .a_psn = 0x200000,
	  .b_psn = 0x7ffff0, .seed = 20 },
	{ .name = "rc6", .type = IBV_QPT_RC, .ipv6 = 1, .a_psn = 0x300000,
	  .b_psn = 0x000003, .seed = 30 },
	{ .name = "uc6", .type = IBV_QPT_UC, .ipv6 = 1, .a_psn = 0x400000,
	  .b_psn = 0xfffffa, .seed = 40 },
	{ .name = "ctl4", .type = IBV_QPT_RC, .ipv6 = 0, .a_psn = 0x500000,
	  .b_psn = 0xffffff, .seed = 50, .control = 1 },
	{ .name = "ctl6", .type = IBV_QPT_UC, .ipv6 = 1, .a_psn = 0x600000,
	  .b_psn = 0x654321, .seed = 60, .control = 1 },
};
#define NQPS		(sizeof(qps) / sizeof(qps[0]))

static int side_a;		/* the victim, not its peer */
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static int gid_index[2];	/* GID4, GID6 */
static union ibv_gid peer_gid[2];	/* PEER4 (IPv4-mapped), PEER6 */

/* The QPs this side has: b has no controls. */
static int here(const struct wqp *q)
{
	return side_a || !q->control;
}

static void setup(struct wqp *q)
{
	struct ibv_qp_init_attr init = {
		.qp_type = q->type,
		.cap = {
			.max_send_wr = 2 * NREAL, .max_recv_wr = NRECV,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};

	q->cq = ibv_create_cq(ctx, 2 * NRECV + 4 * NREAL, NULL, NULL, 0);
	CHECK(q->cq, "%s: create_cq: %s", q->name, strerror(errno));
	init.send_cq = q->cq;
	init.recv_cq = q->cq;
	q->qp = ibv_create_qp(pd, &init);
	CHECK(q->qp, "%s: create_qp: %s", q->name, strerror(errno));

	q->mem.name = q->name;
	q->mem.seed = q->seed;
	q->mem.nrecv = NRECV;
	if (side_a)
		victim_alloc_target(&q->mem, pd);
	else
		victim_alloc_sources(&q->mem, pd);
}

static struct wqp *find_qp(const char *name)
{
	size_t i;

	for (i = 0; i < NQPS; i++)
		if (here(&qps[i]) && !strcmp(qps[i].name, name))
			return &qps[i];
	return NULL;
}

/* The other side's "qp" lines, up to "end": its QPNs and write buffers. */
static void read_peer(void)
{
	unsigned int qpn, psn, rkey;
	unsigned long long va;
	char line[192], name[16];
	struct wqp *q;
	size_t i;

	for (;;) {
		CHECK(fgets(line, sizeof(line), stdin),
		      "stdin closed before the peer's \"end\"");
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "end"))
			break;
		CHECK(sscanf(line, "qp %15s qpn=%x psn=%x va=%llx rkey=%x",
			     name, &qpn, &psn, &va, &rkey) == 5,
		      "peer line '%s': not 'qp NAME qpn= psn= va= rkey='", line);
		q = find_qp(name);
		if (!q || q->control)
			continue;	/* a's controls have no twin */
		CHECK(!q->peer_known, "%s: two lines from the peer", name);
		CHECK(psn == (side_a ? q->a_psn : q->b_psn),
		      "%s: the peer expects PSN %#x, not %#x", name, psn,
		      side_a ? q->a_psn : q->b_psn);
		q->peer_known = 1;
		q->peer_qpn = qpn;
		q->peer_va = va;
		q->peer_rkey = rkey;
	}
	for (i = 0; i < NQPS; i++)
		CHECK(!here(&qps[i]) || qps[i].control || qps[i].peer_known,
		      "%s: no line from the peer", qps[i].name);
}

static void connect_qp(struct wqp *q)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		.rd_atomic = 1, .rnr_retry = 7, .timeout = 14,
		.psn = side_a ? q->a_psn : q->b_psn,
		.gid_index = gid_index[q->ipv6],
	};
	struct conn_peer peer = {
		.qpn = q->control ? CTL_PEER_QPN : q->peer_qpn,
		.psn = side_a ? q->b_psn : q->a_psn,
		.gid = peer_gid[q->ipv6],
	};

	conn_to_rts(q->qp, q->name, &p, &peer);
	/* Side a's receive WQEs, once out of RESET (rxe wants that). */
	if (side_a)
		victim_post_recvs(&q->mem, q->qp);
}

/* Nothing reached a pair's QP: no completion, RTS, buffers untouched. */
static void check_unforged(struct wqp *q, int quiet_ms)
{
	char what[96];

	snprintf(what, sizeof(what), "%s: after the forged packets", q->name);
	conn_expect_no_wc(q->cq, "a (forged packet accepted)", what, quiet_ms);
	CHECK(conn_qp_state(q->qp) == IBV_QPS_RTS, "%s: the QP left RTS", what);
	victim_check_patterns(&q->mem);
	printf("ok %s: no completion, QP in RTS, both buffers untouched\n",
	       q->name);
}

/* Side b: its WRITEs and SENDs to a, all completed. */
static void send_real(struct wqp *q)
{
	victim_send_real(&q->mem, q->cq, q->qp, "b", q->peer_va,
			 q->peer_rkey);
	printf("ok %s: %d WRITEs and %d SENDs to a completed\n", q->name,
	       NREAL, NREAL);
}

int main(int argc, char **argv)
{
	struct ibv_port_attr pa;
	char line[64];
	size_t i;
	int first;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(argc == 7 && (!strcmp(argv[1], "a") || !strcmp(argv[1], "b")),
	      "%s", USAGE);
	side_a = !strcmp(argv[1], "a");
	gid_index[0] = atoi(argv[3]);
	gid_index[1] = atoi(argv[4]);
	addr_gid(argv[5], 0, &peer_gid[0]);
	addr_gid(argv[6], 1, &peer_gid[1]);
	ctx = open_by_name(argv[2]);
	CHECK(ctx, "no device %s", argv[2]);
	CHECK(!ibv_query_port(ctx, 1, &pa), "query_port");
	CHECK(pa.state == IBV_PORT_ACTIVE && pa.active_mtu >= IBV_MTU_1024,
	      "port state %d, active_mtu %d", pa.state, pa.active_mtu);
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd");

	for (i = 0; i < NQPS; i++) {
		struct wqp *q = &qps[i];

		if (!here(q))
			continue;
		setup(q);
		printf("qp %s qpn=%#x psn=%#x va=%#llx rkey=%#x\n", q->name,
		       q->qp->qp_num, side_a ? q->b_psn : q->a_psn,
		       (unsigned long long)(uintptr_t)q->mem.wbuf,
		       q->mem.wmr ? q->mem.wmr->rkey : 0);
	}
	printf("ready\n");
	read_peer();
	for (i = 0; i < NQPS; i++)
		if (here(&qps[i]))
			connect_qp(&qps[i]);
	printf("connected\n");
	CHECK(fgets(line, sizeof(line), stdin), "stdin closed before the go");

	if (side_a) {
		/* The controls first: the quiet time for the pairs comes after. */
		for (i = 0; i < NQPS; i++)
			if (qps[i].control)
				victim_check_control(&qps[i].mem, qps[i].cq,
						     qps[i].qp, "a");
		first = 1;
		for (i = 0; i < NQPS; i++) {
			if (qps[i].control)
				continue;
			check_unforged(&qps[i], first ? QUIET_MS : 1);
			first = 0;
		}
		printf("checked\n");
		for (i = 0; i < NQPS; i++)
			if (!qps[i].control)
				victim_check_real(&qps[i].mem, qps[i].cq,
						  qps[i].qp, "a", "b");
	} else {
		for (i = 0; i < NQPS; i++)
			if (here(&qps[i]))
				send_real(&qps[i]);
	}

	for (i = 0; i < NQPS; i++) {
		struct wqp *q = &qps[i];

		if (!here(q))
			continue;
		CHECK(!ibv_destroy_qp(q->qp) && !ibv_destroy_cq(q->cq) &&
		      victim_dereg(&q->mem), "%s: teardown", q->name);
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("wire_victim all ok\n");
	return 0;
}
