/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the guest test programs that connect QPs inside one process:
 * the RESET -> INIT -> RTR -> RTS walk of a connected (RC or UC) QP
 * towards a peer QP (or of both QPs of a pair), the path MTU from the
 * command line, and polling a CQ with a deadline for the completions
 * that must come and those that must not.
 */
#ifndef SROCE_TEST_RC_CONN_H
#define SROCE_TEST_RC_CONN_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "check.h"

/* What one side of a connection needs to know about the other. */
struct conn_peer {
	uint32_t qpn;
	uint32_t psn;		/* the peer's send PSN: our receive PSN */
	union ibv_gid gid;
};

/* How to connect: path MTU, access rights, read/atomic depth, PSN. */
struct conn_params {
	enum ibv_mtu mtu;
	unsigned int access;	/* IBV_ACCESS_* for the QP */
	uint8_t rd_atomic;	/* max_rd_atomic and max_dest_rd_atomic */
	uint8_t rnr_retry;	/* 7: for ever */
	uint8_t timeout;	/* local ACK timeout exponent */
	uint8_t no_retry;	/* retry_cnt 0, not 7: unACKed requests fail */
	uint32_t psn;		/* our send PSN (conn_connect: its own) */
	int gid_index;		/* our RoCE v2 GID (conn_connect: its own) */
};

/* The path MTU @arg names (256 to 4096 bytes: *@bytes), or exits. */
static inline enum ibv_mtu conn_parse_mtu(const char *arg,
					  unsigned int *bytes)
{
	*bytes = atoi(arg);
	switch (*bytes) {
	case 256:  return IBV_MTU_256;
	case 512:  return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	}
	CHECK(0, "MTU %s: not one of 256, 512, 1024, 2048, 4096", arg);
	return IBV_MTU_256;
}

/* Moves @qp through INIT and RTR to RTS towards @peer; exits on error. */
static inline void conn_to_rts(struct ibv_qp *qp, const char *name,
			       const struct conn_params *p,
			       const struct conn_peer *peer)
{
	int rc_qp = qp->qp_type == IBV_QPT_RC;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = p->access,
	};
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	CHECK(!err, "%s: modify to INIT: %s", name, strerror(err));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = p->rd_atomic;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = p->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    (rc_qp ? IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER : 0));
	CHECK(!err, "%s: modify to RTR (address resolution of the peer GID?): %s",
	      name, strerror(err));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = p->timeout;
	a.retry_cnt = p->no_retry ? 0 : 7;
	a.rnr_retry = p->rnr_retry;
	a.sq_psn = p->psn;
	a.max_rd_atomic = p->rd_atomic;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			    (rc_qp ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY |
				     IBV_QP_MAX_QP_RD_ATOMIC : 0));
	CHECK(!err, "%s: modify to RTS: %s", name, strerror(err));
}

/* Moves UD @qp through INIT (Q_Key @qkey) and RTR to RTS at @psn. */
static inline void conn_ud_to_rts(struct ibv_qp *qp, const char *name,
				  uint32_t qkey, uint32_t psn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = qkey };
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	CHECK(!err, "%s: UD QP to INIT: %s", name, strerror(err));
	a.qp_state = IBV_QPS_RTR;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CHECK(!err, "%s: UD QP to RTR: %s", name, strerror(err));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	CHECK(!err, "%s: UD QP to RTS: %s", name, strerror(err));
}

/* One side of a pair for conn_connect(): its QP, GID and send PSN. */
struct conn_end {
	const char *name;
	struct ibv_qp *qp;
	union ibv_gid gid;
	int gid_index;
	uint32_t psn;
};

/* Moves both QPs of a pair to RTS, @a's first, each towards the other. */
static inline void conn_connect(const struct conn_end *a,
				const struct conn_end *b,
				const struct conn_params *p)
{
	const struct conn_end *e[2] = { a, b };
	struct conn_params own = *p;
	struct conn_peer peer;
	int i;

	for (i = 0; i < 2; i++) {
		own.psn = e[i]->psn;
		own.gid_index = e[i]->gid_index;
		peer.qpn = e[1 - i]->qp->qp_num;
		peer.psn = e[1 - i]->psn;
		peer.gid = e[1 - i]->gid;
		conn_to_rts(e[i]->qp, e[i]->name, &own, &peer);
	}
}

/* @qp's state now. */
static inline enum ibv_qp_state conn_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr init;

	CHECK(!ibv_query_qp(qp, &a, IBV_QP_STATE, &init), "query_qp %#x",
	      qp->qp_num);
	return a.qp_state;
}

/* One completion from @cq within @ms milliseconds: 1, or 0 if none. */
static inline int conn_poll(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	struct timespec start, now, nap = { 0, 200000 };
	int n;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		CHECK(n >= 0, "poll_cq: %d", n);
		if (n)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 +
		    (now.tv_nsec - start.tv_nsec) / 1000000 >= ms)
			return 0;
		nanosleep(&nap, NULL);
	}
}

/*
 * The next completion on @cq, within @ms: for @wr_id of @qp, with @status
 * and, if that is a success, @opcode. @who (the side) and @what (the
 * check) name it in messages.
 */
static inline void conn_expect_wc(struct ibv_cq *cq, struct ibv_qp *qp,
				  const char *who, const char *what,
				  struct ibv_wc *wc, uint64_t wr_id,
				  enum ibv_wc_status status,
				  enum ibv_wc_opcode opcode, int ms)
{
	CHECK(conn_poll(cq, wc, ms), "%s: no completion at %s in %d ms",
	      what, who, ms);
	CHECK(wc->wr_id == wr_id && wc->status == status,
	      "%s: %s completion wr_id %llu status '%s' (%d), "
	      "expected wr_id %llu '%s'", what, who,
	      (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status),
	      wc->status, (unsigned long long)wr_id, ibv_wc_status_str(status));
	CHECK(wc->qp_num == qp->qp_num,
	      "%s: %s completion qp_num %u, not %u", what, who,
	      wc->qp_num, qp->qp_num);
	if (status == IBV_WC_SUCCESS)
		CHECK(wc->opcode == opcode,
		      "%s: %s completion opcode %d, expected %d", what,
		      who, wc->opcode, opcode);
}

/* No completion on @cq for @ms: named as for conn_expect_wc(). */
static inline void conn_expect_no_wc(struct ibv_cq *cq, const char *who,
				     const char *what, int ms)
{
	struct ibv_wc wc;

	CHECK(!conn_poll(cq, &wc, ms),
	      "%s: unexpected completion at %s: wr_id %llu status '%s' opcode %d",
	      what, who, (unsigned long long)wc.wr_id,
	      ibv_wc_status_str(wc.status), wc.opcode);
}

/*
 * The next async event of @ctx within @ms milliseconds: its type, and in
 * *element the SRQ (SRQ events) or QP it names; -1 if none came. The
 * async fd should be non-blocking (conn_async_nonblock()).
 */
static inline int conn_async_event(struct ibv_context *ctx, int ms,
				   void **element)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	CHECK(!ibv_get_async_event(ctx, &ev), "get_async_event");
	type = ev.event_type;
	*element = type == IBV_EVENT_SRQ_LIMIT_REACHED ||
		   type == IBV_EVENT_SRQ_ERR ? (void *)ev.element.srq :
					       (void *)ev.element.qp;
	ibv_ack_async_event(&ev);
	return type;
}

static inline void conn_async_nonblock(struct ibv_context *ctx)
{
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
}

#endif /* SROCE_TEST_RC_CONN_H */
