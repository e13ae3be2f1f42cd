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

#define NRECV		80		/* receive WQEs on each A */
#define USAGE		"usage: peer_victim DEV GID4 GID6 REMOTE4 REMOTE6"

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
	struct victim_mem mem;	/* A's buffers, B's sources */
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
	struct victim_mem *m = &v->mem;

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

	m->name = v->name;
	m->seed = v->seed;
	m->nrecv = NRECV;
	victim_alloc_target(m, pd);
	victim_alloc_sources(m, pd);
	victim_post_recvs(m, v->a);
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
	victim_check_patterns(&v->mem);
	printf("ok %s: no completion, QPs in RTS, both buffers untouched\n",
	       v->name);
}

/* B's WRITEs and SENDs to A, every byte of them taken. */
static void real_traffic(struct victim *v)
{
	victim_send_real(&v->mem, v->cq_b, v->b, "B",
			 (uintptr_t)v->mem.wbuf, v->mem.wmr->rkey);
	victim_check_real(&v->mem, v->cq_a, v->a, "A", "B");
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
		       (unsigned long long)(uintptr_t)v->mem.wbuf,
		       v->mem.wmr->rkey);
	}
	printf("ready\n");
	CHECK(fgets(line, sizeof(line), stdin), "stdin closed before the go");

	/* The controls first: the quiet time for the pairs comes after. */
	for (i = 0; i < NVICTIMS; i++)
		if (victims[i].control)
			victim_check_control(&victims[i].mem,
					     victims[i].cq_a, victims[i].a, "A");
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
		      victim_dereg(&v->mem), "%s: teardown", v->name);
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("peer_victim all ok\n");
	return 0;
}
