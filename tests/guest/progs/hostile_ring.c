// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_ring DEV GID_INDEX: a process that writes garbage straight into
 * its mapped send ring. For each bad WQE (unknown opcode, too many SGEs, an
 * SGE past its MR, a bogus lkey, inline past the slot, an unknown AH) it
 * expects an error completion for that WQE and a flush error for the good
 * WQE posted behind it -- never a kernel fault. Also a UD WQE with the
 * AV embedded (ah_num 0, as librxe writes for kernels without AH numbers):
 * a valid one is delivered byte for byte, one naming a GID index that does
 * not exist fails like an unknown AH. Finds the send ring among the
 * process's mappings of the uverbs device by its header geometry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "check.h"
#include "open_device.h"
#include "rc_conn.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static struct ibv_ah *ah;
static char buf[4096];
static int gid_index;

/* The send ring: the mapping whose header says 256-byte slots. */
static struct rxe_queue_buf *find_sq(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	struct rxe_queue_buf *found = NULL;

	CHECK(f, "maps");
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		struct rxe_queue_buf *q;

		if (!strstr(line, "uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		q = (struct rxe_queue_buf *)start;
		if (q->log2_elem_size == 8)
			found = q;
	}
	fclose(f);
	return found;
}

static struct ibv_qp *make_qp_on(struct ibv_cq *qcq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = qcq, .recv_cq = qcq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	CHECK(qp, "create_qp: %s", strerror(errno));
	conn_ud_to_rts(qp, "UD QP", 0x11, 0);
	return qp;
}

static struct ibv_qp *make_qp(void)
{
	return make_qp_on(cq);
}

/*
 * One completion on @pcq within 10 s: 1, or 0 if none. (Every one polled
 * for must come; an emulated guest's 1 ms naps take longer than that.)
 */
static int poll_cq_one(struct ibv_cq *pcq, struct ibv_wc *wc)
{
	return conn_poll(pcq, wc, 10000);
}

static int poll_one(struct ibv_wc *wc)
{
	return poll_cq_one(cq, wc);
}

enum corruption { BAD_OPCODE, KERNEL_OPCODE, MANY_SGES, SGE_PAST_MR,
		  BAD_LKEY, BIG_INLINE, BAD_AH, BAD_EMBEDDED_AV,
		  NUM_CORRUPTIONS };
static const char *names[] = { "bad opcode", "kernel-only opcode (REG_MR)",
			       "too many SGEs", "SGE past its MR",
			       "bogus lkey", "inline past the slot",
			       "unknown AH", "embedded AV, bad GID index" };

/* The kernel's IB_WR_REG_MR: it carries a kernel pointer. */
#define KERNEL_WR_REG_MR	0x20

/* Makes @wqe carry its AV itself: to our own GID, GID index @sgid. */
static void embed_av(struct rxe_send_wqe *wqe, int sgid)
{
	struct rxe_av *av = &wqe->wr.wr.ud.av;
	union ibv_gid gid;

	CHECK(!ibv_query_gid(ctx, 1, gid_index, &gid), "gid");
	memset(av, 0, sizeof(*av));
	av->port_num = 1;
	memcpy(av->grh.dgid.raw, gid.raw, sizeof(gid.raw));
	av->grh.sgid_index = sgid;
	av->grh.hop_limit = 64;
	wqe->wr.wr.ud.ah_num = 0;
}

/* The slot at the producer index, a copy of the last WQE posted. */
static struct rxe_send_wqe *copy_last_wqe(struct rxe_queue_buf *q,
					  uint32_t *prod)
{
	struct rxe_send_wqe *last;

	*prod = q->producer_index & q->index_mask;
	last = (struct rxe_send_wqe *)(q->data +
		((size_t)((*prod + q->index_mask) & q->index_mask) <<
		 q->log2_elem_size));
	memcpy(q->data + ((size_t)*prod << q->log2_elem_size), last,
	       (size_t)1 << q->log2_elem_size);
	return (struct rxe_send_wqe *)(q->data +
				       ((size_t)*prod << q->log2_elem_size));
}

static void run(enum corruption c)
{
	struct ibv_qp *qp = make_qp();
	struct rxe_queue_buf *q = find_sq();
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 16,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED,
				  .wr.ud = { .ah = ah, .remote_qpn = 2,
					     .remote_qkey = 0x11 } }, *bad;
	struct rxe_send_wqe *wqe;
	struct rxe_sge *s;
	struct ibv_wc wc;
	uint32_t prod;

	CHECK(q, "send ring not found");
	/* A valid WQE first, through the provider; it fills every field. */
	CHECK(!ibv_post_send(qp, &wr, &bad), "first post");
	CHECK(poll_one(&wc) && wc.status == IBV_WC_SUCCESS && wc.wr_id == 2,
	      "valid send: status %d", wc.status);

	/* Then a copy of it, corrupted, written by hand at the producer. */
	wqe = copy_last_wqe(q, &prod);
	wqe->wr.wr_id = 1;
	s = wqe->dma.sge;
	switch (c) {
	case BAD_OPCODE: wqe->wr.opcode = 77; break;
	case KERNEL_OPCODE: wqe->wr.opcode = KERNEL_WR_REG_MR; break;
	case MANY_SGES: wqe->dma.num_sge = 1000; break;
	/* (A huge one is a message over the MTU: UD completes it unsent.) */
	case SGE_PAST_MR: s[0].addr = (uintptr_t)buf + 4000; s[0].length = 500;
			  wqe->dma.length = 500; break;
	case BAD_LKEY: s[0].lkey = 0xdeadbe00u; break;
	case BIG_INLINE: wqe->wr.send_flags |= IBV_SEND_INLINE;
			 wqe->dma.length = 100000; break;
	case BAD_AH: wqe->wr.wr.ud.ah_num = 0x7fffff; break;
	case BAD_EMBEDDED_AV: embed_av(wqe, 200); break;
	default: break;
	}
	__atomic_store_n(&q->producer_index, (prod + 1) & q->index_mask,
			 __ATOMIC_RELEASE);
	/* The provider posts its WQE behind ours and rings the doorbell. */
	wr.wr_id = 3;
	ibv_post_send(qp, &wr, &bad);

	CHECK(poll_one(&wc), "%s: no completion", names[c]);
	CHECK(wc.wr_id == 1 && wc.status != IBV_WC_SUCCESS,
	      "%s: wr_id %llu status %d", names[c],
	      (unsigned long long)wc.wr_id, wc.status);
	printf("%s: status %s\n", names[c], ibv_wc_status_str(wc.status));
	CHECK(poll_one(&wc) && wc.wr_id == 3 &&
	      wc.status == IBV_WC_WR_FLUSH_ERR,
	      "%s: good WQE after it: wr_id %llu status %d", names[c],
	      (unsigned long long)wc.wr_id, wc.status);
	CHECK(!ibv_destroy_qp(qp), "destroy");
}

/* A valid embedded AV: the message arrives, bytes and sender intact. */
static void embedded_av(void)
{
	struct ibv_cq *rcq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp *qp = make_qp(), *rqp;
	struct rxe_queue_buf *q = find_sq();
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 16,
			       .lkey = mr->lkey };
	struct ibv_sge rsge = { .addr = (uintptr_t)buf + 1024, .length = 1024,
				.lkey = mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct rxe_send_wqe *wqe;
	struct ibv_wc wc;
	uint32_t prod;
	int i;

	CHECK(rcq, "create_cq");
	rqp = make_qp_on(rcq);
	CHECK(q, "send ring not found");
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = rqp->qp_num;
	wr.wr.ud.remote_qkey = 0x11;
	for (i = 0; i < 2; i++) {
		rwr.wr_id = 10 + i;
		CHECK(!ibv_post_recv(rqp, &rwr, &rbad), "post_recv");
	}
	for (i = 0; i < 16; i++)
		buf[i] = (char)(0x40 + i);
	CHECK(!ibv_post_send(qp, &wr, &bad), "post through the AH");
	CHECK(poll_one(&wc) && wc.status == IBV_WC_SUCCESS, "send via AH");
	CHECK(poll_cq_one(rcq, &wc) && wc.status == IBV_WC_SUCCESS &&
	      wc.wr_id == 10, "receive via AH: status %d", wc.status);

	for (i = 0; i < 16; i++)
		buf[i] = (char)(0x60 + i);
	wqe = copy_last_wqe(q, &prod);
	wqe->wr.wr_id = 4;
	embed_av(wqe, gid_index);
	__atomic_store_n(&q->producer_index, (prod + 1) & q->index_mask,
			 __ATOMIC_RELEASE);
	/* The doorbell: an empty post_send is not possible; a real one. */
	wr.wr_id = 5;
	CHECK(!ibv_post_send(qp, &wr, &bad), "post behind the embedded AV");
	CHECK(poll_one(&wc) && wc.wr_id == 4 && wc.status == IBV_WC_SUCCESS,
	      "embedded AV: wr_id %llu status %d",
	      (unsigned long long)wc.wr_id, wc.status);
	CHECK(poll_cq_one(rcq, &wc) && wc.status == IBV_WC_SUCCESS &&
	      wc.wr_id == 11 && wc.byte_len == 40 + 16 &&
	      wc.src_qp == qp->qp_num,
	      "embedded AV: receive status %d wr_id %llu len %u src_qp %u",
	      wc.status, (unsigned long long)wc.wr_id, wc.byte_len,
	      wc.src_qp);
	for (i = 0; i < 16; i++)
		CHECK(buf[1024 + 40 + i] == (char)(0x60 + i),
		      "embedded AV: byte %d is %#x", i,
		      buf[1024 + 40 + i] & 0xff);
	CHECK(poll_one(&wc) && wc.wr_id == 5, "send after the embedded AV");
	printf("embedded AV: delivered\n");
	CHECK(!ibv_destroy_qp(qp) && !ibv_destroy_qp(rqp) &&
	      !ibv_destroy_cq(rcq), "destroy");
}

/*
 * The producer index moved back behind WQEs the kernel has already taken
 * (what a producer that ran more than the ring's size ahead of the consumer
 * also looks like): the kernel must refuse the ring -- QP to ERR, a
 * QP_FATAL event, flush errors for what the ring still holds -- and never
 * go round it again over WQEs in flight. The RC QP sends to a QPN nobody
 * has, so its WQEs stay unacknowledged for the whole case.
 */
static void overrun(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct conn_params p = { .mtu = IBV_MTU_1024, .rd_atomic = 1,
				 .rnr_retry = 7, .timeout = 20,
				 .gid_index = gid_index };
	struct conn_peer peer = { .qpn = 0xabcd };
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 16,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct rxe_queue_buf *q;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	void *element;
	int i, ev, flushed = 0;

	qp = ibv_create_qp(pd, &init);
	CHECK(qp, "overrun: create_qp: %s", strerror(errno));
	CHECK(!ibv_query_gid(ctx, 1, gid_index, &peer.gid), "gid");
	conn_to_rts(qp, "overrun", &p, &peer);
	q = find_sq();
	CHECK(q, "overrun: send ring not found");

	for (i = 1; i <= 4; i++) {
		wr.wr_id = i;
		CHECK(!ibv_post_send(qp, &wr, &bad), "overrun: post %d", i);
	}
	CHECK(!conn_poll(cq, &wc, 200), "overrun: unexpected completion");
	CHECK(__atomic_load_n(&q->consumer_index, __ATOMIC_ACQUIRE) == 0,
	      "overrun: a WQE completed without an ACK");

	/* Two slots back, then a real post rings the doorbell. */
	__atomic_store_n(&q->producer_index, 2, __ATOMIC_RELEASE);
	wr.wr_id = 9;
	CHECK(!ibv_post_send(qp, &wr, &bad), "overrun: doorbell post");

	ev = conn_async_event(ctx, 10000, &element);
	CHECK(ev == IBV_EVENT_QP_FATAL && element == qp,
	      "overrun: event %d (want QP_FATAL %d)", ev, IBV_EVENT_QP_FATAL);
	CHECK(conn_qp_state(qp) == IBV_QPS_ERR, "overrun: QP not in ERR");
	while (conn_poll(cq, &wc, 1000)) {
		CHECK(wc.status == IBV_WC_WR_FLUSH_ERR,
		      "overrun: wr_id %llu status %d",
		      (unsigned long long)wc.wr_id, wc.status);
		flushed++;
	}
	/* The slots the ring still claims: 0, 1 and the doorbell's. */
	CHECK(flushed == 3, "overrun: %d flushed, want 3", flushed);
	printf("overrun: refused, QP_FATAL, %d flushed\n", flushed);
	CHECK(!ibv_destroy_qp(qp), "destroy");
}

int main(int argc, char **argv)
{
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1 };
	int c;

	CHECK(argc == 3, "usage: hostile_ring DEV GID_INDEX");
	gid_index = atoi(argv[2]);
	ctx = open_by_name(argv[1]);
	CHECK(ctx, "open %s", argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	CHECK(pd && cq && mr, "pd/cq/mr");
	CHECK(!ibv_query_gid(ctx, 1, gid_index, &aha.grh.dgid), "gid");
	aha.grh.sgid_index = gid_index;
	ah = ibv_create_ah(pd, &aha);
	CHECK(ah, "create_ah: %s", strerror(errno));
	for (c = 0; c < NUM_CORRUPTIONS; c++)
		run(c);
	embedded_av();
	conn_async_nonblock(ctx);
	overrun();
	printf("hostile_ring all ok\n");
	return 0;
}
