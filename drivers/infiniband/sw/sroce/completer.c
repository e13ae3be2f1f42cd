// SPDX-License-Identifier: GPL-2.0
/*
 * Completer: what comes back for our requests - ACKs, NAKs, read
 * responses, atomic acknowledgements - and the send completions (engine
 * context).
 *
 * A WQE is "done" when nothing more is expected for it: acknowledged
 * (RC), sent (UC/UD, local operations), its last read response or its
 * atomic result placed, or failed. The send window (send_window.h) keeps
 * the WQEs in flight; the completer tells it what came back and where
 * to send from again, and it retires done WQEs strictly in ring order; an
 * error completion moves the QP to ERR, which flushes everything after it.
 *
 * Retransmission is go-back-N from the oldest unacknowledged PSN: on a
 * gap in read responses (a fast retransmit), on a tail-loss probe
 * (rtt.c), on the local ACK timeout (retry_cnt times), and after an RNR
 * NAK once the RNR timer has run (rnr_retry times, 7 = for ever). A PSN
 * sequence error NAK first resends only the packet it names
 * (sroce_comp_repair()).
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/packet.h>
#include <sroce/psn.h>

#include "sroce.h"
#include "qp.h"
#include "send_window.h"
#include "sge.h"
#include "trace.h"

/* The responder moved on: the retry budget and the timers start afresh. */
static void sroce_comp_progress(struct sroce_qp *qp)
{
	qp->req.retry_left = qp->attr.retry_cnt;
	sroce_rtt_acked(qp);
	if (sroce_swin_outstanding(qp))
		sroce_retx_arm(qp);
	else
		sroce_retx_stop(qp);
}

/* Completes done WQEs, oldest first; notices a drained SQ in SQD. */
void sroce_completer_retire(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	sroce_swin_retire(qp);
	if (qp->state == IB_QPS_SQD && !req->sqd_notified &&
	    sroce_swin_drained(qp)) {
		req->sqd_notified = true;
		if (qp->attr.en_sqd_async_notify)
			sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
	}
}

/* Entering SQD: a drained SQ is reported once (under both engine locks). */
void sroce_completer_sqd_begin(struct sroce_qp *qp)
{
	qp->req.sqd_notified = false;
}

static bool sroce_selective_resend = true;
module_param_named(selective_resend, sroce_selective_resend, bool, 0644);
MODULE_PARM_DESC(selective_resend,
		 "Resend only the packet a sequence NAK names, first (default: on)");

/*
 * Everything up to and including @psn has been executed by the responder.
 * Returns false for a PSN outside the window.
 */
static bool sroce_comp_ack(struct sroce_qp *qp, u32 psn)
{
	if (!sroce_swin_ack(qp, psn))
		return false;
	sroce_comp_progress(qp);
	return true;
}

/* The requester is sent back to @psn for @cause. */
static void sroce_comp_trace_retx(struct sroce_qp *qp, u32 psn,
				  enum sroce_retx_cause cause)
{
	trace_sroce_retransmit(qp->ib_qp.device, qp->ib_qp.qp_num, psn, cause,
			       qp->req.srtt_us, qp->req.rttvar_us);
}

/* Whatever gap was being repaired, the requester now goes back N. */
static void sroce_comp_repair_end(struct sroce_qp *qp)
{
	qp->req.repair_on = false;
	qp->req.sel_on = false;
}

/*
 * A responder that held nothing behind SROCE_SEL_MISSES selective resends
 * in a row drops what comes out of order (rdma_rxe, hardware): each
 * selective resend costs it a round trip, so its gaps go back N at once,
 * and only every SROCE_SEL_RETRY-th tries a selective resend again (the
 * QP may have been connected elsewhere; a lost pair of packets also
 * looks like a miss).
 */
#define SROCE_SEL_MISSES	2
#define SROCE_SEL_RETRY		16

static bool sroce_comp_sel_worth(struct sroce_req *req)
{
	if (!READ_ONCE(sroce_selective_resend))
		return false;
	if (req->sel_misses < SROCE_SEL_MISSES)
		return true;
	if (++req->sel_misses < SROCE_SEL_MISSES + SROCE_SEL_RETRY)
		return false;
	req->sel_misses = SROCE_SEL_MISSES - 1;
	return true;
}

/* How a selective resend that a NAK started turned out. */
static void sroce_comp_sel_outcome(struct sroce_req *req, bool held)
{
	if (held)
		req->sel_misses = 0;
	else if (req->sel_misses < SROCE_SEL_MISSES)
		req->sel_misses++;
}

/*
 * The responder lacks @hole. A responder like ours holds what arrives
 * ahead of a gap, so the first repair resends only the packet at @hole
 * and lets the ACK it draws say what else is missing
 * (sroce_comp_repair_acked()); going back N would resend up to a window
 * of packets the responder already has. @gbn (a responder that held
 * nothing), or a packet that cannot be resent alone, goes back N. A hole
 * already being repaired is left alone: the ACK and the NAK that a gap
 * draws may both come, and a network may duplicate the NAK. @by_nak: a
 * NAK, not an ACK, showed the hole.
 */
static void sroce_comp_repair(struct sroce_qp *qp, u32 hole, bool gbn,
			      bool by_nak)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_req *req = &qp->req;

	if (req->repair_on && req->repair_psn == hole)
		return;
	sroce_count(sdev, SROCE_CNT_FAST_RETRANSMITS);
	req->repair_on = true;
	req->repair_psn = hole;
	req->sel_end = qp->swin.sent_end;
	req->sel_by_nak = by_nak;
	req->sel_on = !gbn && sroce_comp_sel_worth(req) &&
		      sroce_swin_resend_one(qp, hole);
	if (req->sel_on) {
		sroce_count(sdev, SROCE_CNT_SELECTIVE_RESENDS);
		sroce_comp_trace_retx(qp, hole, SROCE_RETX_CAUSE_SELECTIVE);
		return;
	}
	sroce_comp_trace_retx(qp, hole, SROCE_RETX_CAUSE_SEQ_NAK);
	sroce_swin_seek(qp, hole);
}

/*
 * The responder has executed up to @psn (an ACK, or what a NAK or a
 * response implies): once that covers the repaired gap, the repair is
 * over. Returns true if it was a selective resend that a NAK started.
 */
static bool sroce_comp_repair_passed(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	bool sel = req->sel_on && req->sel_by_nak;

	if (!req->repair_on || sroce_psn_before(psn, req->repair_psn))
		return false;
	sroce_comp_repair_end(qp);
	return sel;
}

/*
 * An ACK for @psn. After a selective resend that a NAK started, the
 * first ACK to cover it names what the responder has executed: the
 * resent packet and all it held behind it. A gap left among the packets
 * sent before the resend (before sel_end) is another loss, repaired the
 * same way, but once: later ACKs may only be slower than packets still
 * on the way, and a responder NAKs a real gap anyway as more packets
 * come. If the ACK names only the resent packet, the responder held
 * nothing behind it: either it drops what comes out of order (rdma_rxe,
 * hardware) or the next packet was lost too. Going back N from there
 * serves both.
 */
static void sroce_comp_repair_acked(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 hole = sroce_psn_add(psn, 1);

	if (!sroce_comp_repair_passed(qp, psn))
		return;
	sroce_comp_sel_outcome(req, psn != req->repair_psn);
	/* Not past a read the ACK sent the requester back to, nor an RNR. */
	if (req->rnr_wait || qp->swin.acked_psn != hole ||
	    !sroce_psn_before(hole, req->sel_end))
		return;
	sroce_comp_repair(qp, hole, psn == req->repair_psn, false);
}

/* Fails the oldest unfinished WQE with @status. */
static void sroce_comp_fail_oldest(struct sroce_qp *qp,
				   enum ib_wc_status status)
{
	struct sroce_send_state *st = sroce_swin_oldest(qp);

	if (st)
		sroce_swin_finish(st, status);
}

static void sroce_comp_rnr(struct sroce_qp *qp, u32 psn, u8 timer_code)
{
	struct sroce_req *req = &qp->req;

	if (!sroce_swin_psn_valid(qp, psn))
		return;
	sroce_count(to_sroce_dev(qp->ib_qp.device), SROCE_CNT_RNR_NAK_RCVD);
	trace_sroce_nak_rcvd(qp->ib_qp.device, qp->ib_qp.qp_num, psn,
			     sroce_syndrome_make(SROCE_AETH_RNR_NAK,
						 timer_code));
	/* The same NAK again (a resend crossed it): one wait, one retry. */
	if (req->rnr_wait && psn == qp->swin.psn)
		return;
	if (psn != qp->swin.acked_psn)
		sroce_comp_ack(qp, sroce_psn_sub(psn, 1));
	sroce_comp_repair_end(qp);
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
	sroce_swin_seek(qp, psn);
	req->rnr_wait = true;
	sroce_retx_stop(qp);
	sroce_engine_arm_rnr(qp, sroce_rnr_timer_us(timer_code));
}

/* The RNR timer ran out: the requester goes on from where the NAK put it. */
void sroce_completer_rnr_expired(struct sroce_qp *qp)
{
	qp->req.rnr_wait = false;
}

static void sroce_comp_nak(struct sroce_qp *qp, u32 psn, u8 code)
{
	static const u8 status[] = {
		[SROCE_NAK_INVALID_REQ] = IB_WC_REM_INV_REQ_ERR,
		[SROCE_NAK_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
		[SROCE_NAK_REM_OP_ERR] = IB_WC_REM_OP_ERR,
		[SROCE_NAK_INVALID_RD_REQ] = IB_WC_REM_INV_RD_REQ_ERR,
	};
	bool gbn;

	if (!sroce_swin_psn_valid(qp, psn))
		return;
	trace_sroce_nak_rcvd(qp->ib_qp.device, qp->ib_qp.qp_num, psn,
			     sroce_syndrome_make(SROCE_AETH_NAK, code));
	/* Right after a packet resent alone: nothing was held. */
	gbn = qp->req.sel_on && !qp->swin.one_shot &&
	      psn == sroce_psn_add(qp->req.repair_psn, 1);
	if (gbn && qp->req.sel_by_nak)
		sroce_comp_sel_outcome(&qp->req, false);
	if (psn != qp->swin.acked_psn)
		sroce_comp_ack(qp, sroce_psn_sub(psn, 1));
	sroce_comp_repair_passed(qp, sroce_psn_sub(psn, 1));
	if (code == SROCE_NAK_PSN_SEQ_ERR) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_SEQ_NAK_RCVD);
		sroce_comp_repair(qp, psn, gbn, true);
		sroce_comp_progress(qp);
		return;
	}
	sroce_comp_fail_oldest(qp, code < ARRAY_SIZE(status) && status[code] ?
				   status[code] : IB_WC_REM_INV_REQ_ERR);
}

/* Read or atomic data has arrived in order: account for it. */
static void sroce_comp_response_done(struct sroce_qp *qp, u32 idx,
				     const struct sroce_send_state *st, u32 psn)
{
	sroce_swin_placed(qp, idx, st, psn);
	sroce_comp_repair_passed(qp, psn);
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

	st = sroce_swin_response(qp, info->psn, &idx);
	if (!st)
		return;
	wqe = sroce_swin_wqe(&qp->swin, idx);
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
			sroce_swin_seek(qp, expect);
			sroce_comp_repair_end(qp);
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
		sroce_swin_finish(st, IB_WC_BAD_RESP_ERR);
		return;
	}
	l = sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma, qp->sq_max_sge);
	status = sroce_sge_write_skb(&l, st->done_bytes, skb,
				     sizeof(struct udphdr) + info->payload_off,
				     want);
	if (status != IB_WC_SUCCESS) {
		sroce_swin_finish(st, status);
		return;
	}
	st->done_bytes += want;
	if (st->done_bytes == st->length)
		sroce_swin_finish(st, IB_WC_SUCCESS);
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

	st = sroce_swin_response(qp, info->psn, &idx);
	if (!st || info->psn != st->first_psn)
		return;
	wqe = sroce_swin_wqe(&qp->swin, idx);
	if (wqe->wr.opcode == IB_WR_RDMA_READ)
		return;
	orig = sroce_atmack_orig(ack);
	l = sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma, qp->sq_max_sge);
	sroce_swin_finish(st, sroce_sge_write(&l, 0, &orig, sizeof(orig)));
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
			if (sroce_comp_ack(qp, info->psn))
				sroce_comp_repair_acked(qp, info->psn);
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
 * timeout sends again from the oldest unacknowledged PSN (rtt.c), the
 * first probe only the newest packet. Only the timeout counts as a
 * retry.
 */
void sroce_completer_timeout(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_req *req = &qp->req;
	enum sroce_retx_due due;
	struct sroce_send_state *st;
	u32 psn;

	if (!sroce_qp_is_rc(qp) || req->rnr_wait)
		return;
	due = sroce_retx_due(qp);
	if (due == SROCE_RETX_NONE)
		return;
	sroce_completer_retire(qp);
	st = sroce_swin_oldest(qp);
	if (qp->state == IB_QPS_ERR || !sroce_swin_outstanding(qp) || !st) {
		sroce_retx_stop(qp);
		return;
	}
	if (due == SROCE_RETX_PROBE && st->rd_atomic) {
		sroce_retx_skip_probe(qp);
		return;
	}
	psn = sroce_swin_resume_psn(qp, st);
	if (due == SROCE_RETX_PROBE) {
		sroce_count(sdev, SROCE_CNT_TAIL_PROBES);
		/*
		 * The first probe resends one packet, the newest: under a
		 * loaded scheduler most probes are only early, and then it is
		 * all they cost. The second goes back to the oldest, in case
		 * the NAK the first should have drawn was itself lost (a
		 * responder NAKs a gap once).
		 */
		if (sroce_retx_probed(qp))
			sroce_swin_probe_psn(qp, &psn);
	} else {
		sroce_count(sdev, SROCE_CNT_RETRY_TIMEOUT);
		if (!req->retry_left) {
			sroce_count(sdev, SROCE_CNT_RETRY_EXCEEDED);
			trace_sroce_retry_exceeded(&sdev->ib_dev,
						   qp->ib_qp.qp_num, psn,
						   false);
			sroce_swin_finish(st, IB_WC_RETRY_EXC_ERR);
			sroce_completer_retire(qp);
			return;
		}
		req->retry_left--;
		sroce_retx_arm(qp);
	}
	req->gap_pending = false;
	sroce_comp_repair_end(qp);
	sroce_rtt_discard(qp);
	sroce_comp_trace_retx(qp, psn, due == SROCE_RETX_PROBE ?
			      SROCE_RETX_CAUSE_TAIL_PROBE :
			      SROCE_RETX_CAUSE_TIMEOUT);
	sroce_swin_seek(qp, psn);
}
