// SPDX-License-Identifier: GPL-2.0
/*
 * Completer: what comes back for our requests - ACKs, NAKs, read
 * responses, atomic acknowledgements - and the send completions (engine
 * context).
 *
 * A WQE is "done" when nothing more is expected for it: acknowledged
 * (RC), sent (UC/UD, local operations), its last read response or its
 * atomic result placed, or failed. Done WQEs complete strictly in ring
 * order (sroce_completer_retire()); an error completion moves the QP to
 * ERR, which flushes everything after it.
 *
 * Retransmission is go-back-N from the oldest unacknowledged PSN: on a
 * PSN sequence error NAK or a gap in read responses (a fast retransmit),
 * on a tail-loss probe (rtt.c), on the local ACK timeout (retry_cnt
 * times), and after an RNR NAK once the RNR timer has run (rnr_retry
 * times, 7 = for ever).
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/packet.h>
#include <sroce/psn.h>

#include "sroce.h"
#include "cq.h"
#include "qp.h"
#include "sge.h"
#include "trace.h"

static enum ib_wc_opcode sroce_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case SROCE_WR_ATOMIC_WRITE:
		return SROCE_WC_ATOMIC_WRITE;
	default:
		return IB_WC_SEND;
	}
}

/* Something has been sent and is neither acknowledged nor failed. */
static bool sroce_comp_outstanding(struct sroce_qp *qp)
{
	return sroce_queue_consumer_index(&qp->sq) != qp->req.idx ||
	       qp->req.offset;
}

/* The PSN from which the oldest unfinished WQE must be sent again. */
static u32 sroce_comp_resume_psn(struct sroce_qp *qp,
				 const struct sroce_send_state *st)
{
	if (st->rd_atomic)
		return sroce_psn_add(st->first_psn, st->done_bytes / qp->mtu);
	if (sroce_psn_after(qp->req.acked_psn, st->first_psn))
		return qp->req.acked_psn;
	return st->first_psn;
}

/* The responder moved on: the retry budget and the timers start afresh. */
static void sroce_comp_progress(struct sroce_qp *qp)
{
	qp->req.retry_left = qp->attr.retry_cnt;
	sroce_rtt_acked(qp);
	if (sroce_comp_outstanding(qp))
		sroce_retx_arm(qp);
	else
		sroce_retx_stop(qp);
}

/* Completes done WQEs, oldest first; see the top of the file. */
void sroce_completer_retire(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	while (qp->state != IB_QPS_ERR) {
		u32 idx = sroce_queue_consumer_index(&qp->sq);
		struct sroce_send_state *st = sroce_sq_state(qp, idx);
		struct rxe_send_wqe *wqe = sroce_sq_shadow(qp, idx);
		bool passed = idx != req->idx;

		if (idx == req->fetch_idx || !st->done)
			break;
		if (!passed) {
			req->idx = sroce_queue_next(&qp->sq, idx);
			req->offset = 0;
		} else if (st->rd_atomic) {
			req->rd_atomic--;
		}
		/* The slot goes back to the user before its completion. */
		sroce_queue_pop(&qp->sq);
		if (st->status != IB_WC_SUCCESS || qp->sig_all ||
		    (wqe->wr.send_flags & IB_SEND_SIGNALED)) {
			/* Built only when wanted: most sends are unsignalled. */
			struct ib_wc wc = {
				.qp = &qp->ib_qp,
				.wr_id = wqe->wr.wr_id,
				.status = st->status,
				.opcode = sroce_wc_opcode(wqe->wr.opcode),
				.byte_len = st->length,
			};

			if (st->status != IB_WC_SUCCESS &&
			    st->status != IB_WC_WR_FLUSH_ERR)
				trace_sroce_wc_error(qp->ib_qp.device,
						     qp->ib_qp.qp_num,
						     wc.wr_id, wqe->wr.opcode,
						     st->status);
			if (sroce_cq_post(qp->scq, &wc, false)) {
				sroce_qp_set_error(qp);
				return;
			}
		}
		if (st->status != IB_WC_SUCCESS) {
			sroce_qp_set_error(qp);
			return;
		}
	}
	if (qp->state == IB_QPS_SQD && !req->sqd_notified &&
	    sroce_queue_consumer_index(&qp->sq) == req->fetch_idx) {
		req->sqd_notified = true;
		if (qp->attr.en_sqd_async_notify)
			sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
	}
}

/* Oldest WQE that is not done, or NULL. */
static struct sroce_send_state *sroce_comp_oldest(struct sroce_qp *qp,
						  u32 *idxp)
{
	u32 idx = sroce_queue_consumer_index(&qp->sq);

	for (; idx != qp->req.fetch_idx; idx = sroce_queue_next(&qp->sq, idx)) {
		struct sroce_send_state *st = sroce_sq_state(qp, idx);

		if (!st->done) {
			*idxp = idx;
			return st;
		}
	}
	return NULL;
}

/* A PSN we sent and that is not acknowledged yet. */
static bool sroce_comp_psn_valid(struct sroce_qp *qp, u32 psn)
{
	return sroce_psn_after_eq(psn, qp->req.acked_psn) &&
	       sroce_psn_before(psn, qp->req.sent_end);
}

/*
 * Everything up to and including @psn has been executed by the responder.
 * A read or atomic in that range whose response we lack was lost on the
 * way back: ask again from where its data stopped.
 */
static void sroce_comp_ack(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 end = sroce_psn_add(psn, 1);
	u32 idx = sroce_queue_consumer_index(&qp->sq);

	if (!sroce_comp_psn_valid(qp, psn))
		return;
	for (; idx != req->fetch_idx; idx = sroce_queue_next(&qp->sq, idx)) {
		struct sroce_send_state *st = sroce_sq_state(qp, idx);

		if (st->done)
			continue;
		if (st->status != IB_WC_SUCCESS ||
		    sroce_psn_after(st->first_psn, psn))
			break;
		if (st->rd_atomic) {
			req->acked_psn = sroce_comp_resume_psn(qp, st);
			sroce_requester_seek(qp, req->acked_psn);
			sroce_comp_progress(qp);
			return;
		}
		if (sroce_psn_after(st->last_psn, psn))
			break;
		st->done = true;
	}
	req->acked_psn = end;
	if (sroce_psn_before(req->psn, end))
		sroce_requester_seek(qp, end);
	sroce_comp_progress(qp);
}

/* The requester is sent back to @psn for @cause. */
static void sroce_comp_trace_retx(struct sroce_qp *qp, u32 psn,
				  enum sroce_retx_cause cause)
{
	trace_sroce_retransmit(qp->ib_qp.device, qp->ib_qp.qp_num, psn, cause,
			       qp->req.srtt_us, qp->req.rttvar_us);
}

/* Fails the oldest unfinished WQE with @status. */
static void sroce_comp_fail_oldest(struct sroce_qp *qp,
				   enum ib_wc_status status)
{
	struct sroce_send_state *st;
	u32 idx;

	st = sroce_comp_oldest(qp, &idx);
	if (st) {
		st->status = status;
		st->done = true;
	}
}

static void sroce_comp_rnr(struct sroce_qp *qp, u32 psn, u8 timer_code)
{
	struct sroce_req *req = &qp->req;

	if (!sroce_comp_psn_valid(qp, psn))
		return;
	sroce_count(to_sroce_dev(qp->ib_qp.device), SROCE_CNT_RNR_NAK_RCVD);
	trace_sroce_nak_rcvd(qp->ib_qp.device, qp->ib_qp.qp_num, psn,
			     sroce_syndrome_make(SROCE_AETH_RNR_NAK,
						 timer_code));
	if (psn != req->acked_psn)
		sroce_comp_ack(qp, sroce_psn_sub(psn, 1));
	if (!req->rnr_left) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_RNR_RETRY_EXCEEDED);
		trace_sroce_retry_exceeded(qp->ib_qp.device, qp->ib_qp.qp_num,
					   psn, true);
		sroce_comp_fail_oldest(qp, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	/* rnr_retry 7 means "retry for ever" (IBTA 9.7.5.2.8). */
	if (req->rnr_left != 7)
		req->rnr_left--;
	trace_sroce_rnr_wait(qp->ib_qp.device, qp->ib_qp.qp_num, psn,
			     sroce_rnr_timer_us(timer_code), req->rnr_left);
	sroce_comp_trace_retx(qp, psn, SROCE_RETX_CAUSE_RNR);
	sroce_requester_seek(qp, psn);
	req->rnr_wait = true;
	sroce_retx_stop(qp);
	sroce_engine_arm_rnr(qp, sroce_rnr_timer_us(timer_code));
}

static void sroce_comp_nak(struct sroce_qp *qp, u32 psn, u8 code)
{
	static const u8 status[] = {
		[SROCE_NAK_INVALID_REQ] = IB_WC_REM_INV_REQ_ERR,
		[SROCE_NAK_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
		[SROCE_NAK_REM_OP_ERR] = IB_WC_REM_OP_ERR,
		[SROCE_NAK_INVALID_RD_REQ] = IB_WC_REM_INV_RD_REQ_ERR,
	};

	if (!sroce_comp_psn_valid(qp, psn))
		return;
	trace_sroce_nak_rcvd(qp->ib_qp.device, qp->ib_qp.qp_num, psn,
			     sroce_syndrome_make(SROCE_AETH_NAK, code));
	if (psn != qp->req.acked_psn)
		sroce_comp_ack(qp, sroce_psn_sub(psn, 1));
	if (code == SROCE_NAK_PSN_SEQ_ERR) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_SEQ_NAK_RCVD);
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_FAST_RETRANSMITS);
		sroce_comp_trace_retx(qp, psn, SROCE_RETX_CAUSE_SEQ_NAK);
		sroce_requester_seek(qp, psn);
		sroce_comp_progress(qp);
		return;
	}
	sroce_comp_fail_oldest(qp, code < ARRAY_SIZE(status) && status[code] ?
				   status[code] : IB_WC_REM_INV_REQ_ERR);
}

/*
 * The read or atomic WQE a response with @psn is for: the oldest not
 * done, once every SEND/WRITE before it is taken as acknowledged (a
 * response for a later PSN implies it).
 */
static struct sroce_send_state *sroce_comp_response_wqe(struct sroce_qp *qp,
							 u32 psn, u32 *idxp)
{
	u32 idx = sroce_queue_consumer_index(&qp->sq);

	if (!sroce_comp_psn_valid(qp, psn))
		return NULL;
	for (; idx != qp->req.fetch_idx; idx = sroce_queue_next(&qp->sq, idx)) {
		struct sroce_send_state *st = sroce_sq_state(qp, idx);

		if (st->done)
			continue;
		if (st->status != IB_WC_SUCCESS ||
		    sroce_psn_after(st->first_psn, psn))
			return NULL;
		if (st->rd_atomic) {
			*idxp = idx;
			return sroce_psn_before_eq(psn, st->last_psn) ? st :
									 NULL;
		}
		if (sroce_psn_after_eq(st->last_psn, psn))
			return NULL;
		st->done = true;
	}
	return NULL;
}

/* Read or atomic data has arrived in order: account for it. */
static void sroce_comp_response_done(struct sroce_qp *qp, u32 idx,
				     struct sroce_send_state *st, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 end = sroce_psn_add(psn, 1);

	if (sroce_psn_after(end, req->acked_psn))
		req->acked_psn = end;
	/* A retry had rewound the requester to this WQE: skip what came. */
	if (idx == req->idx && sroce_psn_before(req->psn, end) &&
	    !st->done) {
		req->psn = end;
		req->offset = st->done_bytes;
	} else if (idx == req->idx && st->done) {
		sroce_requester_seek(qp, end);
	}
	sroce_comp_progress(qp);
}

static void sroce_comp_read(struct sroce_qp *qp, struct sk_buff *skb,
			    const struct sroce_packet_info *info)
{
	u32 idx, expect, want;
	struct sroce_send_state *st;
	struct rxe_send_wqe *wqe;
	struct sroce_sge_list l;
	enum ib_wc_status status;

	st = sroce_comp_response_wqe(qp, info->psn, &idx);
	if (!st)
		return;
	wqe = sroce_sq_shadow(qp, idx);
	if (wqe->wr.opcode != IB_WR_RDMA_READ)
		return;
	expect = sroce_psn_add(st->first_psn, st->done_bytes / qp->mtu);
	if (info->psn != expect) {
		/*
		 * A response was lost: ask again from where it stopped, once;
		 * the rest of the old stream is still arriving.
		 */
		if (sroce_psn_after(info->psn, expect) &&
		    !(qp->req.gap_pending && qp->req.gap_psn == expect)) {
			sroce_count(to_sroce_dev(qp->ib_qp.device),
				    SROCE_CNT_FAST_RETRANSMITS);
			sroce_comp_trace_retx(qp, expect,
					      SROCE_RETX_CAUSE_READ_GAP);
			sroce_requester_seek(qp, expect);
			qp->req.gap_pending = true;
			qp->req.gap_psn = expect;
		}
		return;
	}
	qp->req.gap_pending = false;
	/*
	 * Every response but the message's last carries a full MTU. FIRST
	 * and LAST mark each request's response, and a read is asked for in
	 * chunks (and again after a loss): they say nothing about the WQE.
	 */
	want = min(st->length - st->done_bytes, qp->mtu);
	if (info->payload_len != want) {
		st->status = IB_WC_BAD_RESP_ERR;
		st->done = true;
		return;
	}
	l = sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma, qp->sq_max_sge);
	status = sroce_sge_write_skb(&l, st->done_bytes, skb,
				     sizeof(struct udphdr) + info->payload_off,
				     want);
	if (status != IB_WC_SUCCESS) {
		st->status = status;
		st->done = true;
		return;
	}
	st->done_bytes += want;
	if (st->done_bytes == st->length)
		st->done = true;
	sroce_comp_response_done(qp, idx, st, info->psn);
}

static void sroce_comp_atomic(struct sroce_qp *qp, struct sk_buff *skb,
			      const struct sroce_packet_info *info)
{
	const u8 *bth = skb->data + sizeof(struct udphdr);
	const struct sroce_atmack *ack =
		sroce_hdr_ptr(bth, info->op, SROCE_HDR_ATMACK);
	struct sroce_send_state *st;
	struct rxe_send_wqe *wqe;
	struct sroce_sge_list l;
	u64 orig;
	u32 idx;

	st = sroce_comp_response_wqe(qp, info->psn, &idx);
	if (!st || info->psn != st->first_psn)
		return;
	wqe = sroce_sq_shadow(qp, idx);
	if (wqe->wr.opcode == IB_WR_RDMA_READ)
		return;
	orig = sroce_atmack_orig(ack);
	l = sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma, qp->sq_max_sge);
	st->status = sroce_sge_write(&l, 0, &orig, sizeof(orig));
	st->done = true;
	sroce_comp_response_done(qp, idx, st, info->psn);
}

/* What became of @skb: used, or why it is to be dropped. */
enum sroce_drop_reason sroce_completer_recv(struct sroce_qp *qp,
					    struct sk_buff *skb)
{
	const struct sroce_packet_info *info = sroce_skb_info(skb);
	const u8 *bth = skb->data + sizeof(struct udphdr);
	const struct sroce_aeth *aeth;
	u8 syndrome;

	if (!sroce_qp_is_rc(qp))
		return SROCE_DROP_WRONG_TRANSPORT;
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return SROCE_DROP_QP_STATE;

	switch (info->opcode) {
	case SROCE_OP_RC_ACKNOWLEDGE:
		aeth = sroce_hdr_ptr(bth, info->op, SROCE_HDR_AETH);
		syndrome = sroce_aeth_syndrome(aeth);
		switch (sroce_syndrome_type(syndrome)) {
		case SROCE_AETH_ACK:
			sroce_comp_ack(qp, info->psn);
			break;
		case SROCE_AETH_RNR_NAK:
			sroce_comp_rnr(qp, info->psn,
				       sroce_syndrome_value(syndrome));
			break;
		case SROCE_AETH_NAK:
			sroce_comp_nak(qp, info->psn,
				       sroce_syndrome_value(syndrome));
			break;
		default:
			break;
		}
		break;
	case SROCE_OP_RC_ATOMIC_ACKNOWLEDGE:
		sroce_comp_atomic(qp, skb, info);
		break;
	default:
		if (info->op->flags & SROCE_OPF_READ)
			sroce_comp_read(qp, skb, info);
		break;
	}
	sroce_completer_retire(qp);
	return SROCE_RX_USED;
}

/*
 * The retransmission timer fired: a tail-loss probe or the local ACK
 * timeout sends again from the oldest unacknowledged PSN (rtt.c). Only
 * the timeout counts as a retry.
 */
void sroce_completer_timeout(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_req *req = &qp->req;
	enum sroce_retx_due due;
	struct sroce_send_state *st;
	u32 idx;

	if (!sroce_qp_is_rc(qp) || req->rnr_wait)
		return;
	due = sroce_retx_due(qp);
	if (due == SROCE_RETX_NONE)
		return;
	sroce_completer_retire(qp);
	st = sroce_comp_oldest(qp, &idx);
	if (qp->state == IB_QPS_ERR || !sroce_comp_outstanding(qp) || !st) {
		sroce_retx_stop(qp);
		return;
	}
	if (due == SROCE_RETX_PROBE && st->rd_atomic) {
		sroce_retx_skip_probe(qp);
		return;
	}
	if (due == SROCE_RETX_PROBE) {
		sroce_count(sdev, SROCE_CNT_TAIL_PROBES);
		sroce_retx_probed(qp);
	} else {
		sroce_count(sdev, SROCE_CNT_RETRY_TIMEOUT);
		if (!req->retry_left) {
			sroce_count(sdev, SROCE_CNT_RETRY_EXCEEDED);
			trace_sroce_retry_exceeded(&sdev->ib_dev,
						   qp->ib_qp.qp_num,
						   sroce_comp_resume_psn(qp, st),
						   false);
			st->status = IB_WC_RETRY_EXC_ERR;
			st->done = true;
			sroce_completer_retire(qp);
			return;
		}
		req->retry_left--;
		sroce_retx_arm(qp);
	}
	req->gap_pending = false;
	sroce_rtt_discard(qp);
	sroce_comp_trace_retx(qp, sroce_comp_resume_psn(qp, st),
			      due == SROCE_RETX_PROBE ?
			      SROCE_RETX_CAUSE_TAIL_PROBE :
			      SROCE_RETX_CAUSE_TIMEOUT);
	sroce_requester_seek(qp, sroce_comp_resume_psn(qp, st));
}

/*
 * ERR: every WQE still in the ring completes, in order, with its own
 * error or IB_WC_WR_FLUSH_ERR (IBTA 10.8.3.1), signalled or not. WQEs
 * the requester never copied are read from the ring as plain values. A
 * full CQ ends the flush.
 */
void sroce_completer_flush(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 prod = sroce_queue_producer_index(&qp->sq);
	bool fetched = true;

	while (sroce_queue_consumer_index(&qp->sq) != prod) {
		u32 idx = sroce_queue_consumer_index(&qp->sq);
		struct ib_wc wc = {
			.qp = &qp->ib_qp,
			.status = IB_WC_WR_FLUSH_ERR,
		};

		if (idx == req->fetch_idx)
			fetched = false;
		if (fetched) {
			struct sroce_send_state *st = sroce_sq_state(qp, idx);
			struct rxe_send_wqe *wqe = sroce_sq_shadow(qp, idx);

			wc.wr_id = wqe->wr.wr_id;
			wc.opcode = sroce_wc_opcode(wqe->wr.opcode);
			if (st->done && st->status != IB_WC_SUCCESS)
				wc.status = st->status;
		} else {
			struct rxe_send_wqe *wqe =
				sroce_queue_addr(&qp->sq, idx);

			wc.wr_id = READ_ONCE(wqe->wr.wr_id);
			wc.opcode = sroce_wc_opcode(READ_ONCE(wqe->wr.opcode));
		}
		sroce_queue_pop(&qp->sq);
		if (sroce_cq_post(qp->scq, &wc, false))
			break;
	}
	req->idx = sroce_queue_consumer_index(&qp->sq);
	req->fetch_idx = req->idx;
	req->offset = 0;
	req->rd_atomic = 0;
}
