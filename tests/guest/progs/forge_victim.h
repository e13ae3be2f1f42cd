/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the victims of the forged-packet cases: peer_victim.c (both
 * ends on one device, tests/guest/rx-not-peer.sh) and wire_victim.c (one
 * end in each guest, tests/guest2/rx-not-peer-wire.sh).
 *
 * A victim QP has nrecv receive WQEs of SLOT bytes posted into a receive
 * buffer holding pattern seed, and a remote-write buffer of WSIZE bytes
 * holding pattern seed + 1. Packets are forged for it (roce_forge); a
 * control, whose peer QP (CTL_PEER_QPN) does not exist, takes one SEND
 * and one RDMA WRITE of CTL_LEN bytes CTL_BYTE forged from its peer's
 * address, the others nothing. Then its real peer sends NREAL RDMA WRITEs
 * and NREAL SENDs by turns, WRITE first: WR i from pattern seed + 100 + i
 * of its sources, SEND k (send_len[k] bytes) into receive WQE k, WRITE k
 * (write_len[k] bytes) at WSTRIDE * k + 5 of the write buffer.
 */
#ifndef SROCE_TEST_FORGE_VICTIM_H
#define SROCE_TEST_FORGE_VICTIM_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "rc_conn.h"

#define SLOT		4096		/* bytes per receive WQE */
#define NREAL		8		/* SENDs and WRITEs from the real peer */
#define WSIZE		(64 * 1024)	/* the remote-write buffer */
#define WSTRIDE		(WSIZE / NREAL)	/* one WRITE target in each */
#define SSTRIDE		8192		/* the real peer's source per WR */
#define SSIZE		(2 * NREAL * SSTRIDE)
#define WAIT_MS		30000		/* for a completion that must come */
#define QUIET_MS	500		/* for one that must not */
#define CTL_LEN		64		/* the controls' forged packets */
#define CTL_BYTE	0xee
#define CTL_PEER_QPN	0xabcde		/* their peer QP, which does not exist */

static const uint32_t send_len[NREAL] = { 1, 64, 1023, 1024, 1025, 2049, 3001, 4096 };
static const uint32_t write_len[NREAL] = { 7, 1024, 4096, 2047, 1, 6000, 3333, 8000 };

/* The memory of one victim QP (rbuf, wbuf) or of its real peer (sbuf). */
struct victim_mem {
	const char *name;	/* the QP's, in messages */
	unsigned int seed;	/* of its patterns */
	int nrecv;		/* receive WQEs in rbuf */
	uint8_t *rbuf, *wbuf, *sbuf;
	struct ibv_mr *rmr, *wmr, *smr;
};

/* The RoCE v2 GID of IPv4 or IPv6 address @text. */
static inline void addr_gid(const char *text, int ipv6, union ibv_gid *gid)
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

/* @size bytes of FILL at *@buf, registered on @pd with @access. */
static inline struct ibv_mr *victim_reg(struct ibv_pd *pd, uint8_t **buf,
					size_t size, unsigned int access,
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

/* The victim's receive and remote-write buffers, with their patterns. */
static inline void victim_alloc_target(struct victim_mem *m, struct ibv_pd *pd)
{
	m->rmr = victim_reg(pd, &m->rbuf, m->nrecv * SLOT,
			    IBV_ACCESS_LOCAL_WRITE, "receives");
	m->wmr = victim_reg(pd, &m->wbuf, WSIZE, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE, "write target");
	fill_pattern(m->rbuf, m->nrecv * SLOT, m->seed, 0);
	fill_pattern(m->wbuf, WSIZE, m->seed + 1, 0);
}

/* The real peer's sources (filled when it sends). */
static inline void victim_alloc_sources(struct victim_mem *m,
					struct ibv_pd *pd)
{
	m->smr = victim_reg(pd, &m->sbuf, SSIZE, IBV_ACCESS_LOCAL_WRITE,
			    "sources");
}

/* 1 if every MR of @m that exists was deregistered, else 0. */
static inline int victim_dereg(struct victim_mem *m)
{
	return (!m->rmr || !ibv_dereg_mr(m->rmr)) &&
	       (!m->wmr || !ibv_dereg_mr(m->wmr)) &&
	       (!m->smr || !ibv_dereg_mr(m->smr));
}

/* The victim's nrecv receive WQEs on @qp, WQE i with wr_id i. */
static inline void victim_post_recvs(struct victim_mem *m, struct ibv_qp *qp)
{
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, err;

	for (i = 0; i < m->nrecv; i++) {
		sge.addr = (uintptr_t)(m->rbuf + i * SLOT);
		sge.length = SLOT;
		sge.lkey = m->rmr->lkey;
		wr.wr_id = i;
		err = ibv_post_recv(qp, &wr, &bad);
		CHECK(!err, "%s: post_recv %d: %s", m->name, i, strerror(err));
	}
}

/* Both buffers still hold their patterns after the forged packets. */
static inline void victim_check_patterns(struct victim_mem *m)
{
	char what[96];

	snprintf(what, sizeof(what), "%s: receive buffer after the forged packets",
		 m->name);
	check_pattern(m->rbuf, m->nrecv * SLOT, m->seed, 0, what);
	snprintf(what, sizeof(what), "%s: write buffer after the forged packets",
		 m->name);
	check_pattern(m->wbuf, WSIZE, m->seed + 1, 0, what);
}

/* The @n bytes at @p are all CTL_BYTE. */
static inline void check_ctl_bytes(const uint8_t *p, size_t n,
				   const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		CHECK(p[i] == CTL_BYTE, "%s: byte %zu is %#x, not the forged %#x",
		      what, i, p[i], CTL_BYTE);
}

/*
 * A control (@qp, completing on @cq; @who names its side) took the SEND
 * and the WRITE forged from its peer's address, and nothing else.
 */
static inline void victim_check_control(struct victim_mem *m,
					struct ibv_cq *cq, struct ibv_qp *qp,
					const char *who)
{
	struct ibv_wc wc;
	char what[96];

	snprintf(what, sizeof(what),
		 "%s: SEND from the peer's address (the forger's packets valid?)",
		 m->name);
	conn_expect_wc(cq, qp, who, what, &wc, 0, IBV_WC_SUCCESS,
		       IBV_WC_RECV, WAIT_MS);
	CHECK(wc.byte_len == CTL_LEN, "%s: byte_len %u, not %u", what,
	      wc.byte_len, CTL_LEN);
	conn_expect_no_wc(cq, who, what, 1);
	CHECK(conn_qp_state(qp) == IBV_QPS_RTS, "%s: QP left RTS", what);
	check_ctl_bytes(m->rbuf, CTL_LEN, what);
	check_pattern(m->rbuf + CTL_LEN, m->nrecv * SLOT - CTL_LEN, m->seed,
		      CTL_LEN, what);
	snprintf(what, sizeof(what),
		 "%s: WRITE from the peer's address (the forger's packets valid?)",
		 m->name);
	check_ctl_bytes(m->wbuf, CTL_LEN, what);
	check_pattern(m->wbuf + CTL_LEN, WSIZE - CTL_LEN, m->seed + 1, CTL_LEN,
		      what);
	printf("ok %s: the SEND and the WRITE from the peer's address taken\n",
	       m->name);
}

/*
 * The real peer (@qp, completing on @cq; @who names it; sources in @m)
 * sends its NREAL WRITEs and SENDs by turns, WRITE first, in one post, to
 * the victim's write buffer at @va with @rkey; all complete in order.
 */
static inline void victim_send_real(struct victim_mem *m, struct ibv_cq *cq,
				    struct ibv_qp *qp, const char *who,
				    uint64_t va, uint32_t rkey)
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
		uint8_t *src = m->sbuf + i * SSTRIDE;

		fill_pattern(src, len, m->seed + 100 + i, 0);
		sge[i].addr = (uintptr_t)src;
		sge[i].length = len;
		sge[i].lkey = m->smr->lkey;
		wr[i].wr_id = 1000 + i;
		wr[i].next = i + 1 < 2 * NREAL ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		if (is_send) {
			wr[i].opcode = IBV_WR_SEND;
		} else {
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			wr[i].wr.rdma.remote_addr = va + k * WSTRIDE + 5;
			wr[i].wr.rdma.rkey = rkey;
		}
	}
	err = ibv_post_send(qp, wr, &bad);
	CHECK(!err, "%s: %s post_send: %s", m->name, who, strerror(err));
	for (i = 0; i < 2 * NREAL; i++) {
		snprintf(what, sizeof(what), "%s: %s's WR %d", m->name, who, i);
		conn_expect_wc(cq, qp, who, what, &wc, 1000 + i,
			       IBV_WC_SUCCESS,
			       i % 2 ? IBV_WC_SEND : IBV_WC_RDMA_WRITE, WAIT_MS);
	}
}

/*
 * The victim (@qp, completing on @cq; @who names it) took the real peer's
 * SENDs and WRITEs (@peer names it), every byte of them: exactly NREAL
 * receive completions, in order, each of its length, and both buffers
 * hold what the peer sent or still the patterns.
 */
static inline void victim_check_real(struct victim_mem *m, struct ibv_cq *cq,
				     struct ibv_qp *qp, const char *who,
				     const char *peer)
{
	struct ibv_wc wc;
	char what[96];
	int i;

	for (i = 0; i < NREAL; i++) {
		snprintf(what, sizeof(what), "%s: SEND %d from %s", m->name, i,
			 peer);
		conn_expect_wc(cq, qp, who, what, &wc, i, IBV_WC_SUCCESS,
			       IBV_WC_RECV, WAIT_MS);
		CHECK(wc.byte_len == send_len[i], "%s: byte_len %u, not %u",
		      what, wc.byte_len, send_len[i]);
	}
	snprintf(what, sizeof(what), "%s: after %s's %d SENDs", m->name, peer,
		 NREAL);
	conn_expect_no_wc(cq, who, what, 50);

	/* The last SEND came after every WRITE: all of them are placed. */
	for (i = 0; i < m->nrecv; i++) {
		uint8_t *slot = m->rbuf + i * SLOT;
		uint32_t len = i < NREAL ? send_len[i] : 0;

		snprintf(what, sizeof(what), "%s: receive WQE %d", m->name, i);
		if (len)
			check_pattern(slot, len, m->seed + 100 + 2 * i + 1, 0,
				      what);
		check_pattern(slot + len, SLOT - len, m->seed, i * SLOT + len,
			      what);
	}
	for (i = 0; i < NREAL; i++) {
		size_t at = i * WSTRIDE, len = write_len[i];

		snprintf(what, sizeof(what), "%s: WRITE %d", m->name, i);
		check_pattern(m->wbuf + at, 5, m->seed + 1, at, what);
		check_pattern(m->wbuf + at + 5, len, m->seed + 100 + 2 * i, 0,
			      what);
		check_pattern(m->wbuf + at + 5 + len, WSTRIDE - 5 - len,
			      m->seed + 1, at + 5 + len, what);
	}
	printf("ok %s: %d SENDs and %d WRITEs from %s, every byte, %d receive completions\n",
	       m->name, NREAL, NREAL, peer, NREAL);
}

#endif /* SROCE_TEST_FORGE_VICTIM_H */
