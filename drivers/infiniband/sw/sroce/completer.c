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
 * What to send again is decided by three units the completer feeds: the
 * loss recovery state machine (sroce/recovery.h) for the holes a NAK or
 * an ACK shows, the read-gap repair (read_gap.c) for missing read
 * responses, and the deadlines (rtt.c) for tail-loss probes and the
 * local ACK timeout (retry_cnt times). After an RNR NAK the requester
 * waits for the RNR timer (rnr_retry times, 7 = for ever).
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/packet.h>
#include <sroce/psn.h>

#include "sroce.h"
#include "qp.h"
#include "read_gap.h"
#include "rtt.h"
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

/* Entering RTS: full retry budgets, nothing under repair (both locks). */
void sroce_completer_reset(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	req->retry_left = qp->attr.retry_cnt;
	req->rnr_left = qp->attr.rnr_retry;
	req->sqd_notified = false;
	sroce_rec_reset(&qp->rec);
	sroce_rgap_reset(qp);
	sroce_rtt_reset(qp);
}

static bool sroce_selective_resend = true;
module_param_named(selective_resend, sroce_selective_resend, bool, 0644);
MODULE_PARM_DESC(selective_resend,
		 "Resend only the packet a sequence NAK names, first (default: on)");

/*
 * Everything up to and including @psn has been executed by the responder.
 * Returns false for a PSN outside the window, and for an ACK held behind
 * a read that says no more than the one held: neither is progress.
 */
static bool sroce_comp_ack(struct sroce_qp *qp, u32 psn)
{
	if (!sroce_swin_ack(qp, psn))
		return false;
	sroce_comp_progress(qp);
	return true;
}

/*
 * The responder lacks @hole (recovery.h): the packet alone is resent, or
 * everything from it on. @by_nak: a NAK, not an ACK, showed it;
 * @held_nothing: the responder is known to hold nothing behind it.
 */
static void sroce_comp_hole(struct sroce_qp *qp, u32 hole, bool by_nak,
			    bool held_nothing)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	const struct sroce_rec_hole h = {
		.psn = hole,
		.sent_end = qp->swin.sent_end,
		.by_nak = by_nak,
		.held_nothing = held_nothing,
		.allowed = READ_ONCE(sroce_selective_resend),
		.one_ok = sroce_swin_may_resend_one(qp, hole),
	};

	switch (sroce_rec_hole(&qp->rec, &h)) {
	case SROCE_REC_NONE:
		return;
	case SROCE_REC_RESEND_ONE:
		sroce_count(sdev, SROCE_CNT_FAST_RETRANSMITS);
		sroce_count(sdev, SROCE_CNT_SELECTIVE_RESENDS);
		sroce_rtt_trace_retx(qp, hole, SROCE_RETX_CAUSE_SELECTIVE);
		sroce_swin_resend_one(qp, hole);
		return;
	case SROCE_REC_GO_BACK_N:
		sroce_count(sdev, SROCE_CNT_FAST_RETRANSMITS);
		sroce_rtt_trace_retx(qp, hole, SROCE_RETX_CAUSE_SEQ_NAK);
		sroce_swin_seek(qp, hole);
		return;
	}
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
	/*
	 * The same NAK again (a resend crossed it): one wait, one retry.
	 * A read asked for again meanwhile (sroce_rgap_check()) goes out
	 * first; sending then goes on from the NAK's PSN.
	 */
	if (!sroce_rec_rnr(&qp->rec, psn, sroce_swin_resume_at(&qp->swin)))
		return;
	if (psn != qp->swin.acked_psn)
		sroce_comp_ack(qp, sroce_psn_sub(psn, 1));
	if (!req->rnr_left) {
		sroce_rec_end(&qp->rec);
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
	sroce_rtt_trace_retx(qp, psn, SROCE_RETX_CAUSE_RNR);
	sroce_swin_seek(qp, psn);
	sroce_retx_stop(qp);
	sroce_engine_arm_rnr(qp, sroce_rnr_timer_us(timer_code));
}

/* The RNR timer ran out: the requester goes on from where the NAK put it. */
void sroce_completer_rnr_expired(struct sroce_qp *qp)
{
	sroce_rec_rnr_expired(&qp->rec);
}

static void sroce_comp_nak(struct sroce_qp *qp, u32 psn, u8 code)
{
	static const u8 status[] = {
		[SROCE_NAK_INVALID_REQ] = IB_WC_REM_INV_REQ_ERR,
		[SROCE_NAK_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
		[SROCE_NAK_REM_OP_ERR] = IB_WC_REM_OP_ERR,
		[SROCE_NAK_INVALID_RD_REQ] = IB_WC_REM_INV_RD_REQ_ERR,
	};
	bool held_nothing;

	if (!sroce_swin_psn_valid(qp, psn))
		return;
	trace_sroce_nak_rcvd(qp->ib_qp.device, qp->ib_qp.qp_num, psn,
			     sroce_syndrome_make(SROCE_AETH_NAK, code));
	held_nothing = sroce_rec_nak(&qp->rec, psn, !qp->swin.one_shot);
	if (psn != qp->swin.acked_psn)
		sroce_comp_ack(qp, sroce_psn_sub(psn, 1));
	sroce_rec_executed(&qp->rec, sroce_psn_sub(psn, 1));
	if (code == SROCE_NAK_PSN_SEQ_ERR) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_SEQ_NAK_RCVD);
		sroce_comp_hole(qp, psn, true, held_nothing);
		sroce_comp_progress(qp);
		return;
	}
	sroce_comp_fail_oldest(qp, code < ARRAY_SIZE(status) && status[code] ?
				   status[code] : IB_WC_REM_INV_REQ_ERR);
}

/* An ACK for @psn; a hole right after it may need repair too. */
static void sroce_comp_ack_rcvd(struct sroce_qp *qp, u32 psn)
{
	bool held_nothing;

	if (!sroce_comp_ack(qp, psn))
		return;
	if (sroce_rec_ack(&qp->rec, psn, qp->swin.acked_psn, &held_nothing))
		sroce_comp_hole(qp, sroce_psn_add(psn, 1), false,
				held_nothing);
}

void sroce_completer_placed(struct sroce_qp *qp, u32 idx,
			    const struct sroce_send_state *st, u32 psn)
{
	sroce_swin_placed(qp, idx, st, psn);
	sroce_rec_executed(&qp->rec, psn);
	sroce_comp_progress(qp);
}

static void sroce_comp_atomic(struct sroce_qp *qp, struct sk_buff *skb,
			      const struct sroce_packet_info *info)
{
	const u8 *bth = skb->data + sizeof(struct udphdr);
	const struct sroce_atmack *ack =
		sroce_hdr_ptr(bth, info->op, SROCE_HDR_ATMACK);
	struct sroce_send_state *st;
	struct rxe_send_wqe *wqe;
	enum ib_wc_status status;
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
	l = sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma, qp->sq_max_sge,
			      &qp->odp_snd);
	status = sroce_sge_write(&l, 0, &orig, sizeof(orig));
	/* The sink lost its page since the request: the resend answers. */
	if (status == SROCE_WC_FAULT_PENDING)
		return;
	sroce_swin_finish(st, status);
	sroce_completer_placed(qp, idx, st, info->psn);
}

/* What became of @skb: used, or why it is to be dropped. */
enum sroce_drop_reason sroce_completer_recv(struct sroce_qp *qp,
					    struct sk_buff *skb)
{
	const struct sroce_packet_info *info = sroce_skb_info(skb);
	const u8 *bth = skb->data + sizeof(struct udphdr);
	const struct sroce_aeth *aeth;
	bool asking;
	u8 syndrome;

	if (!sroce_qp_is_rc(qp))
		return SROCE_DROP_WRONG_TRANSPORT;
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return SROCE_DROP_QP_STATE;

	asking = sroce_swin_asking(&qp->swin);
	switch (info->opcode) {
	case SROCE_OP_RC_ACKNOWLEDGE:
		aeth = sroce_hdr_ptr(bth, info->op, SROCE_HDR_AETH);
		syndrome = sroce_aeth_syndrome(aeth);
		switch (sroce_syndrome_type(syndrome)) {
		case SROCE_AETH_ACK:
			sroce_comp_ack_rcvd(qp, info->psn);
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
			sroce_rgap_response(qp, skb, info);
		break;
	}
	sroce_rgap_ask_dropped(qp, asking);
	/*
	 * What came may have filled the gap before responses held ahead,
	 * finished the read an ACK was held behind, or shown another gap.
	 */
	sroce_rgap_advance(qp);
	if (sroce_swin_release_ack(qp))
		sroce_comp_progress(qp);
	sroce_rgap_check(qp);
	sroce_completer_retire(qp);
	return SROCE_RX_USED;
}

/*
 * A probe with a read or an atomic at the head of the queue: a read's
 * asks again for its missing run, the whole rest of its chunk if nothing
 * came; a request for it about to go out counts as the probe. An atomic
 * waits for the ACK timeout.
 */
static void sroce_comp_probe_read(struct sroce_qp *qp,
				  const struct sroce_send_state *st)
{
	u32 psn;

	if (sroce_rgap_oldest(qp, &psn) != st) {
		sroce_retx_skip_probe(qp);
		return;
	}
	if (qp->swin.one_shot) {
		sroce_retx_probed(qp);
		return;
	}
	if (!sroce_rgap_ask(qp, st, psn)) {
		sroce_retx_skip_probe(qp);
		return;
	}
	sroce_count(to_sroce_dev(qp->ib_qp.device), SROCE_CNT_TAIL_PROBES);
	sroce_retx_probed(qp);
	sroce_rtt_discard(qp);
	sroce_rtt_trace_retx(qp, psn, SROCE_RETX_CAUSE_TAIL_PROBE);
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

	if (!sroce_qp_is_rc(qp))
		return;
	/*
	 * Progress during an RNR wait armed the timer; the requester arms
	 * it again when it sends after the wait, but only if it is off.
	 */
	if (sroce_rec_paused(&qp->rec)) {
		sroce_retx_stop(qp);
		return;
	}
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
		sroce_comp_probe_read(qp, st);
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
		sroce_retx_timed_out(qp);
		sroce_retx_arm(qp);
	}
	sroce_rec_end(&qp->rec);
	sroce_rtt_discard(qp);
	sroce_rtt_trace_retx(qp, psn, due == SROCE_RETX_PROBE ?
			     SROCE_RETX_CAUSE_TAIL_PROBE :
			     SROCE_RETX_CAUSE_TIMEOUT);
	sroce_swin_seek(qp, psn);
	/* Going back N asks for the rest of a read's chunk again. */
	sroce_rgap_went_back(qp, st);
}
