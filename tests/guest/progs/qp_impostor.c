// SPDX-License-Identifier: GPL-2.0
/*
 * qp_impostor DEV GID4 GID6 NAME QPN PSN VA RKEY [NAME QPN PSN VA RKEY]...
 *
 * The verbs-level impostor of tests/guest/rx-not-peer.sh, (d): a local
 * user who points QPs of its own at a victim QP on the same device DEV,
 * from the very address of the victim's peer. For each victim NAME ("rc4",
 * "uc4", "rc6" or "uc6": RC or UC, RoCE v2 GID index GID4 or GID6, which
 * the victim pair uses at both ends), QPN its QP number, PSN its expected
 * receive PSN, VA and RKEY its remote-write buffer, two QPs of NAME's type
 * with that GID index, connected to that same GID and to QPN with send
 * PSN PSN: one posts a SEND, the other an RDMA WRITE to VA and RKEY, each
 * IMP_LEN bytes of IMP_BYTE, so that each is the packet at the victim's
 * expected PSN. RC QPs have retry_cnt 0, rnr_retry 0 and a short local
 * ACK timeout: with nobody to ACK them, each ends in "retry exceeded"
 * after one packet or a few (a probe); UC ones complete when sent. Any
 * other completion fails (an RC success would mean the victim took it).
 *
 * Prints "sent NAME OP qpn=Q psn=P: STATUS" per work request, then
 * "sent N" (N: the packets sent at least, one per work request) and
 * "qp_impostor all ok"; exits 1 at the first failure. Numbers may be
 * decimal or 0x-prefixed hex.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "open_device.h"
#include "rc_conn.h"

#define MAX_VICTIMS	4
#define NOPS		2		/* SEND, WRITE */
#define IMP_LEN		64
#define IMP_BYTE	0xee
#define IMP_TIMEOUT	12		/* 4.096 us << 12: about 17 ms */
#define WAIT_MS		20000		/* for all completions */
#define PSN_MASK	0xffffffu
#define USAGE		"usage: qp_impostor DEV GID4 GID6 NAME QPN PSN VA RKEY " \
			"[NAME QPN PSN VA RKEY]..."

struct target {
	const char *name;
	enum ibv_qp_type type;
	int gid_index;
	uint32_t qpn, psn, rkey;
	uint64_t va;
	struct ibv_qp *qp[NOPS];
};

static const char *const op_name[NOPS] = { "send", "write" };

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t buf[IMP_LEN];

/* @arg as a number of at most @max, or exits naming @what. */
static uint64_t num(const char *arg, uint64_t max, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	CHECK(!errno && end != arg && !*end && arg[0] != '-' && v <= max,
	      "%s %s: not a number up to %#llx", what, arg,
	      (unsigned long long)max);
	return v;
}

/* @qp through INIT and RTR to RTS, towards @t's QP with @t's GID. */
static void impostor_to_rts(struct ibv_qp *qp, const struct target *t,
			    const union ibv_gid *gid, const char *what)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .access = IBV_ACCESS_LOCAL_WRITE,
		.rd_atomic = 1, .rnr_retry = 0, .timeout = IMP_TIMEOUT,
		.no_retry = 1, .psn = t->psn, .gid_index = t->gid_index,
	};
	struct conn_peer peer = { .qpn = t->qpn, .psn = 0, .gid = *gid };

	conn_to_rts(qp, what, &p, &peer);
}

/* @t's two QPs in RTS, each with its one work request posted. */
static void attack(struct target *t, int idx)
{
	struct ibv_qp_init_attr init = {
		.qp_type = t->type, .send_cq = cq, .recv_cq = cq,
		.cap = {
			.max_send_wr = 1, .max_recv_wr = 1,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf, .length = IMP_LEN, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr, *bad;
	union ibv_gid gid;
	char what[64];
	int op, err;

	CHECK(!ibv_query_gid(ctx, 1, t->gid_index, &gid), "%s: query_gid %d",
	      t->name, t->gid_index);
	for (op = 0; op < NOPS; op++) {
		snprintf(what, sizeof(what), "%s %s", t->name, op_name[op]);
		t->qp[op] = ibv_create_qp(pd, &init);
		CHECK(t->qp[op], "%s: create_qp: %s", what, strerror(errno));
		impostor_to_rts(t->qp[op], t, &gid, what);

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = idx * NOPS + op;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (op) {
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = t->va;
			wr.wr.rdma.rkey = t->rkey;
		} else {
			wr.opcode = IBV_WR_SEND;
		}
		err = ibv_post_send(t->qp[op], &wr, &bad);
		CHECK(!err, "%s: post_send: %s", what, strerror(err));
	}
}

int main(int argc, char **argv)
{
	struct target targets[MAX_VICTIMS];
	int seen[MAX_VICTIMS * NOPS] = { 0 };
	int gid4, gid6, n, i, sent = 0;
	struct ibv_wc wc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(argc >= 9 && (argc - 4) % 5 == 0, "%s", USAGE);
	n = (argc - 4) / 5;
	CHECK(n <= MAX_VICTIMS, "at most %d victims", MAX_VICTIMS);
	gid4 = num(argv[2], 255, "GID4");
	gid6 = num(argv[3], 255, "GID6");
	for (i = 0; i < n; i++) {
		char **a = argv + 4 + 5 * i;
		struct target *t = &targets[i];

		t->name = a[0];
		CHECK(strlen(a[0]) == 3 && (a[0][2] == '4' || a[0][2] == '6') &&
		      (!strncmp(a[0], "rc", 2) || !strncmp(a[0], "uc", 2)),
		      "%s: not rc4, uc4, rc6 or uc6", a[0]);
		t->type = a[0][0] == 'r' ? IBV_QPT_RC : IBV_QPT_UC;
		t->gid_index = a[0][2] == '4' ? gid4 : gid6;
		t->qpn = num(a[1], PSN_MASK, "QPN");
		t->psn = num(a[2], PSN_MASK, "PSN");
		t->va = num(a[3], UINT64_MAX, "VA");
		t->rkey = num(a[4], UINT32_MAX, "RKEY");
	}

	ctx = open_by_name(argv[1]);
	CHECK(ctx, "no device %s", argv[1]);
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd: %s", strerror(errno));
	cq = ibv_create_cq(ctx, 2 * MAX_VICTIMS * NOPS, NULL, NULL, 0);
	CHECK(cq, "create_cq: %s", strerror(errno));
	memset(buf, IMP_BYTE, sizeof(buf));
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "reg_mr: %s", strerror(errno));

	for (i = 0; i < n; i++)
		attack(&targets[i], i);

	/* Every work request completes once: RC failed, UC sent. */
	for (i = 0; i < n * NOPS; i++) {
		const struct target *t;
		enum ibv_wc_status want;
		int id, op;

		CHECK(conn_poll(cq, &wc, WAIT_MS),
		      "%d of %d completions in %d ms", i, n * NOPS, WAIT_MS);
		id = wc.wr_id;
		CHECK(id >= 0 && id < n * NOPS && !seen[id],
		      "completion with wr_id %llu", (unsigned long long)wc.wr_id);
		seen[id] = 1;
		t = &targets[id / NOPS];
		op = id % NOPS;
		want = t->type == IBV_QPT_RC ? IBV_WC_RETRY_EXC_ERR :
					       IBV_WC_SUCCESS;
		CHECK(wc.qp_num == t->qp[op]->qp_num,
		      "%s %s: completion for QP %#x, not %#x", t->name,
		      op_name[op], wc.qp_num, t->qp[op]->qp_num);
		CHECK(wc.status == want,
		      "%s %s to qpn %#x: status '%s' (%d), expected '%s'%s",
		      t->name, op_name[op], t->qpn, ibv_wc_status_str(wc.status),
		      wc.status, ibv_wc_status_str(want),
		      wc.status == IBV_WC_SUCCESS ? " (the victim answered)" : "");
		printf("sent %s %s qpn=%#x psn=%#x: %s\n", t->name, op_name[op],
		       t->qpn, t->psn, ibv_wc_status_str(wc.status));
		sent++;
	}
	conn_expect_no_wc(cq, "the impostor", "after its work requests", 10);

	for (i = 0; i < n; i++)
		CHECK(!ibv_destroy_qp(targets[i].qp[0]) &&
		      !ibv_destroy_qp(targets[i].qp[1]), "%s: destroy_qp",
		      targets[i].name);
	CHECK(!ibv_destroy_cq(cq) && !ibv_dereg_mr(mr) && !ibv_dealloc_pd(pd),
	      "teardown");
	ibv_close_device(ctx);
	printf("sent %d\n", sent);
	printf("qp_impostor all ok\n");
	return 0;
}
