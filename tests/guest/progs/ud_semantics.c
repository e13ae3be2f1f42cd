// SPDX-License-Identifier: GPL-2.0
/*
 * ud_semantics DEV_A GID_A DEV_B GID_B [GID6_A GID6_B]: UD rules between
 * two devices in one process (RDMA devices are visible from every
 * namespace). A sends to B:
 *  - SEND with immediate: status, opcode, wc_flags (GRH, WITH_IMM),
 *    imm_data, byte_len (40 + payload), src_qp, sl (2: an IPv4 packet, as
 *    RoCE NICs report it and UCX reads it), the payload, and the GRH
 *    (IPv4 header in bytes 20..39 with A's and B's addresses);
 *  - with the IPv6 GIDs GID6_A and GID6_B: a SEND through an AH whose
 *    flow label is ~0 (UCX's): delivered, with sl 1 and the IPv6 header
 *    as the GRH (version 6, the 20-bit flow label, UDP, the addresses);
 *  - remote Q_Key with bit 31 set: A's own Q_Key is used (delivered);
 *  - a wrong Q_Key: not delivered;
 *  - larger than the path MTU: completes successfully, not delivered;
 *  - no receive WQE posted at B: not delivered, the sender completes.
 * Exits 1 at the first failed check.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "open_device.h"
#include "rc_conn.h"

#define QKEY_B		0x00005678u
#define QKEY_OTHER	0x00009999u
#define BUF		8192
#define GRH		40

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	union ibv_gid gid;
	int gid_index;
	char *buf;
};

static void setup(struct end *e, const char *dev, int gid_index, uint32_t qkey)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	e->ctx = open_by_name(dev);
	CHECK(e->ctx, "open %s", dev);
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 32, NULL, NULL, 0);
	CHECK(e->pd && e->cq, "pd/cq");
	init.send_cq = init.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &init);
	CHECK(e->qp, "create UD QP: %s", strerror(errno));
	conn_ud_to_rts(e->qp, dev, qkey, 0);
	e->buf = calloc(1, BUF);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	CHECK(e->buf && e->mr, "mr");
	e->gid_index = gid_index;
	CHECK(!ibv_query_gid(e->ctx, 1, gid_index, &e->gid), "query_gid");
}

static void post_recv(struct end *e)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = BUF,
			       .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	memset(e->buf, 0, BUF);
	CHECK(!ibv_post_recv(e->qp, &wr, &bad), "post_recv");
}

/* Waits up to @ms for one completion; returns 1 if there was one. */
static int poll_one(struct end *e, struct ibv_wc *wc, int ms)
{
	struct timespec ts = { 0, 1000000 };
	int i, n;

	for (i = 0; i < ms; i++) {
		n = ibv_poll_cq(e->cq, 1, wc);
		CHECK(n >= 0, "poll_cq");
		if (n)
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

static void send_ud(struct end *a, struct ibv_ah *ah, uint32_t qpn,
		 uint32_t qkey, uint32_t len, int imm)
{
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .length = len,
			       .lkey = a->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 9, .sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(0xfeedbeef),
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = qkey },
	}, *bad;
	struct ibv_wc wc;
	uint32_t i;

	for (i = 0; i < len; i++)
		a->buf[i] = (char)(i * 7 + 3);
	CHECK(!ibv_post_send(a->qp, &wr, &bad), "post_send: %s",
	      strerror(errno));
	CHECK(poll_one(a, &wc, 2000), "no send completion");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 9 &&
	      wc.opcode == IBV_WC_SEND, "send wc status %d opcode %d",
	      wc.status, wc.opcode);
}

/*
 * A to B over IPv6 GIDs, with every bit of the AH's flow label set: only
 * its 20 bits may reach the IPv6 header.
 */
static void check_ipv6(struct end *a, struct end *b, int gid6_a, int gid6_b)
{
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1 };
	union ibv_gid ga, gb;
	unsigned char *ip6 = (unsigned char *)b->buf;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	uint32_t vtf;

	CHECK(!ibv_query_gid(a->ctx, 1, gid6_a, &ga), "query_gid");
	CHECK(!ibv_query_gid(b->ctx, 1, gid6_b, &gb), "query_gid");
	aha.grh.dgid = gb;
	aha.grh.sgid_index = gid6_a;
	aha.grh.hop_limit = 64;
	aha.grh.traffic_class = 106;
	aha.grh.flow_label = ~0u;
	ah = ibv_create_ah(a->pd, &aha);
	CHECK(ah, "create_ah (IPv6, flow label ~0): %s", strerror(errno));

	post_recv(b);
	send_ud(a, ah, b->qp->qp_num, QKEY_B, 100, 0);
	CHECK(poll_one(b, &wc, 2000), "IPv6: nothing received");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.byte_len == GRH + 100,
	      "IPv6: status %d byte_len %u", wc.status, wc.byte_len);
	CHECK(wc.wc_flags & IBV_WC_GRH, "IPv6: wc_flags %#x", wc.wc_flags);
	CHECK(wc.sl == 1, "IPv6: sl %u, expected 1", wc.sl);
	memcpy(&vtf, ip6, 4);
	vtf = ntohl(vtf);
	CHECK(vtf == (6u << 28 | 106u << 20 | 0xfffff),
	      "IPv6 header: version, class, flow label %#x", vtf);
	CHECK(ip6[6] == 17, "IPv6 header: next header %u", ip6[6]);
	CHECK(!memcmp(ip6 + 8, ga.raw, 16), "IPv6 GRH source address");
	CHECK(!memcmp(ip6 + 24, gb.raw, 16), "IPv6 GRH destination address");
	CHECK(!memcmp(b->buf + GRH, a->buf, 100), "IPv6: payload");
	ibv_destroy_ah(ah);
	printf("ipv6 grh, sl and flow label ok\n");
}

int main(int argc, char **argv)
{
	struct end a = { 0 }, b = { 0 };
	struct ibv_port_attr port;
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah;
	struct ibv_wc wc;
	unsigned char *ip;
	uint32_t i, mtu;

	CHECK(argc == 5 || argc == 7,
	      "usage: ud_semantics DEV_A GID_A DEV_B GID_B [GID6_A GID6_B]");
	/* A's own Q_Key equals B's: the bit-31 rule must pick it. */
	setup(&a, argv[1], atoi(argv[2]), QKEY_B);
	setup(&b, argv[3], atoi(argv[4]), QKEY_B);
	aha.grh.dgid = b.gid;
	aha.grh.sgid_index = a.gid_index;
	aha.grh.hop_limit = 64;
	ah = ibv_create_ah(a.pd, &aha);
	CHECK(ah, "create_ah: %s", strerror(errno));
	CHECK(!ibv_query_port(a.ctx, 1, &port), "query_port");
	mtu = 128u << port.active_mtu;

	/* SEND with immediate: every field of the receive completion. */
	post_recv(&b);
	send_ud(&a, ah, b.qp->qp_num, QKEY_B, 300, 1);
	CHECK(poll_one(&b, &wc, 2000), "nothing received");
	CHECK(wc.status == IBV_WC_SUCCESS, "recv status %d", wc.status);
	CHECK(wc.opcode == IBV_WC_RECV, "recv opcode %d", wc.opcode);
	CHECK(wc.wr_id == 7, "recv wr_id");
	CHECK(wc.byte_len == GRH + 300, "byte_len %u", wc.byte_len);
	CHECK((wc.wc_flags & IBV_WC_GRH) && (wc.wc_flags & IBV_WC_WITH_IMM),
	      "wc_flags %#x", wc.wc_flags);
	CHECK(ntohl(wc.imm_data) == 0xfeedbeef, "imm %#x", ntohl(wc.imm_data));
	CHECK(wc.src_qp == a.qp->qp_num, "src_qp %u, expected %u", wc.src_qp,
	      a.qp->qp_num);
	CHECK(wc.sl == 2, "sl %u, expected 2 (IPv4)", wc.sl);
	for (i = 0; i < 300; i++)
		CHECK(b.buf[GRH + i] == (char)(i * 7 + 3), "payload byte %u", i);
	/* IPv4 GRH: 20 zero bytes, then the IPv4 header. */
	for (i = 0; i < 20; i++)
		CHECK(b.buf[i] == 0, "GRH byte %u not zero", i);
	ip = (unsigned char *)b.buf + 20;
	CHECK(ip[0] == 0x45 && ip[9] == 17, "IPv4 header %#x proto %u",
	      ip[0], ip[9]);
	CHECK(!memcmp(ip + 12, &a.gid.raw[12], 4), "GRH source address");
	CHECK(!memcmp(ip + 16, &b.gid.raw[12], 4), "GRH destination address");
	printf("imm grh ok\n");

	/* Bit 31 of the remote Q_Key: the sender's own Q_Key is used. */
	post_recv(&b);
	send_ud(&a, ah, b.qp->qp_num, 0x80000000u, 64, 0);
	CHECK(poll_one(&b, &wc, 2000) && wc.status == IBV_WC_SUCCESS &&
	      wc.byte_len == GRH + 64 && !(wc.wc_flags & IBV_WC_WITH_IMM),
	      "own Q_Key: not delivered as expected");
	printf("own qkey ok\n");

	/* A wrong Q_Key is dropped at B (its WQE stays posted). */
	post_recv(&b);
	send_ud(&a, ah, b.qp->qp_num, QKEY_OTHER, 64, 0);
	CHECK(!poll_one(&b, &wc, 500), "wrong Q_Key delivered");
	printf("wrong qkey dropped\n");

	/* Larger than the path MTU: the sender completes, nothing arrives. */
	send_ud(&a, ah, b.qp->qp_num, QKEY_B, mtu + 1, 0);
	CHECK(!poll_one(&b, &wc, 500), "message over the MTU delivered");
	printf("over mtu %u not sent\n", mtu);

	/* Consume B's posted WQE, then send with none posted. */
	send_ud(&a, ah, b.qp->qp_num, QKEY_B, 16, 0);
	CHECK(poll_one(&b, &wc, 2000) && wc.byte_len == GRH + 16, "last WQE");
	send_ud(&a, ah, b.qp->qp_num, QKEY_B, 16, 0);
	CHECK(!poll_one(&b, &wc, 500), "delivered without a WQE");
	printf("no wqe dropped\n");

	if (argc == 7)
		check_ipv6(&a, &b, atoi(argv[5]), atoi(argv[6]));
	ibv_destroy_ah(ah);
	printf("ud_semantics all ok\n");
	return 0;
}
