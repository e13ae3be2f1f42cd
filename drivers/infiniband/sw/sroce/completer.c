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
 * tail-loss probe (rtt.c), on the local ACK timeout (retry_cnt times),
 * and after an RNR NAK once the RNR timer has run (rnr_retry times, 7 =
 * for ever). A PSN sequence error NAK first resends only the packet it
 * names (sroce_comp_repair()). Read responses are placed as they come,
 * and only the missing ones are asked for again (sroce_comp_read_gap()),
 * by a probe too, and when an ACK for a later request shows the
 * responder has sent them all: that ACK waits in the send window until
 * the read is done, and nothing after the read is sent again.
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
	/*
	 * The same NAK again (a resend crossed it): one wait, one retry.
	 * A read asked for again meanwhile (sroce_comp_read_gap()) goes
	 * out first; sending then goes on from the NAK's PSN.
	 */
	if (req->rnr_wait && psn == sroce_swin_resume_at(&qp->swin))
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

/*
 * Read responses ahead of a gap. A responder sends a read's responses in
 * PSN order, so one that is missing while later ones arrive was lost,
 * or overtaken on the way. Each response's place in the read is fixed by
 * its PSN: those that come ahead are written to the buffer at once and
 * marked in req->rd_ahead, to be counted when the gap before them fills,
 * and only the missing run is asked for again (sroce_comp_read_gap()).
 * The responder serves such a shortened request within the original
 * one's PSNs (IBTA 9.9.2.2: rdma_rxe and sroce do). Going back N instead
 * would ask again for everything after the gap, and throw away what
 * already came, in every read in flight.
 */

/* Missing responses count as lost once this many later ones came. */
#define SROCE_RD_DUPTHRESH	3

/* The next response expected for the read of @st. */
static u32 sroce_comp_read_expect(const struct sroce_qp *qp,
				  const struct sroce_send_state *st)
{
	return sroce_psn_add(st->first_psn, st->done_bytes / qp->mtu);
}

/* The payload the response at @psn of the read of @st must carry. */
static u32 sroce_comp_read_want(const struct sroce_qp *qp,
				const struct sroce_send_state *st, u32 psn)
{
	u32 off = sroce_psn_diff(psn, st->first_psn) * qp->mtu;

	return min(st->length - off, qp->mtu);
}

/* rd_base catches up with acked_psn, and the bitmap moves with it. */
static void sroce_comp_ahead_sync(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	s32 d = sroce_psn_diff(qp->swin.acked_psn, req->rd_base);

	if (!d)
		return;
	req->rd_base = qp->swin.acked_psn;
	if (bitmap_empty(req->rd_ahead, SROCE_RD_AHEAD_BITS))
		return;
	if (d < 0 || d >= SROCE_RD_AHEAD_BITS)
		bitmap_zero(req->rd_ahead, SROCE_RD_AHEAD_BITS);
	else
		bitmap_shift_right(req->rd_ahead, req->rd_ahead, d,
				   SROCE_RD_AHEAD_BITS);
}

/* The bit of @psn in req->rd_ahead, or -1 if it lies outside the map. */
static s32 sroce_comp_ahead_bit(const struct sroce_req *req, u32 psn)
{
	s32 i = sroce_psn_diff(psn, req->rd_base);

	return i >= 0 && i < SROCE_RD_AHEAD_BITS ? i : -1;
}

/* The response for @psn came ahead and is not counted yet. */
static bool sroce_comp_read_has(const struct sroce_req *req, u32 psn)
{
	s32 i = sroce_comp_ahead_bit(req, psn);

	return i >= 0 && test_bit(i, req->rd_ahead);
}

/* Writes response data of the read in slot @idx at the offset of @psn. */
static enum ib_wc_status
sroce_comp_read_place(struct sroce_qp *qp, u32 idx,
		      const struct sroce_send_state *st, struct sk_buff *skb,
		      const struct sroce_packet_info *info)
{
	struct rxe_send_wqe *wqe = sroce_swin_wqe(&qp->swin, idx);
	u32 off = sroce_psn_diff(info->psn, st->first_psn) * qp->mtu;
	struct sroce_sge_list l;

	l = sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma, qp->sq_max_sge);
	return sroce_sge_write_skb(&l, off, skb,
				   sizeof(struct udphdr) + info->payload_off,
				   info->payload_len);
}

/*
 * A response for a read that is not the next one expected: kept if it
 * has its place, and not there already. Anything odd about it is left
 * for the in-order path to judge when it is asked for again.
 */
static void sroce_comp_read_ahead(struct sroce_qp *qp, struct sk_buff *skb,
				  const struct sroce_packet_info *info)
{
	struct sroce_req *req = &qp->req;
	struct sroce_send_state *st;
	s32 bit;
	u32 idx;

	sroce_comp_ahead_sync(qp);
	bit = sroce_comp_ahead_bit(req, info->psn);
	if (bit < 0 || test_bit(bit, req->rd_ahead))
		return;
	st = sroce_swin_read_at(qp, info->psn, &idx);
	if (!st ||
	    sroce_psn_before(info->psn, sroce_comp_read_expect(qp, st)) ||
	    info->payload_len != sroce_comp_read_want(qp, st, info->psn) ||
	    sroce_comp_read_place(qp, idx, st, skb, info) != IB_WC_SUCCESS)
		return;
	__set_bit(bit, req->rd_ahead);
	if (req->gap_pending && sroce_psn_after_eq(info->psn, req->gap_psn) &&
	    sroce_psn_before(info->psn, req->gap_end))
		req->gap_ahead++;
	sroce_count(to_sroce_dev(qp->ib_qp.device),
		    SROCE_CNT_READ_RESP_AHEAD);
}

/* Read data up to @psn of the read in slot @idx is all there. */
static void sroce_comp_read_counted(struct sroce_qp *qp, u32 idx,
				    struct sroce_send_state *st, u32 psn)
{
	st->done_bytes += sroce_comp_read_want(qp, st, psn);
	if (st->done_bytes == st->length)
		sroce_swin_finish(st, IB_WC_SUCCESS);
	sroce_comp_response_done(qp, idx, st, psn);
}

/* The gap before responses that came ahead has filled: count them. */
static void sroce_comp_read_advance(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_send_state *st;
	u32 bit, psn, idx;

	while (!bitmap_empty(req->rd_ahead, SROCE_RD_AHEAD_BITS)) {
		sroce_comp_ahead_sync(qp);
		bit = find_first_bit(req->rd_ahead, SROCE_RD_AHEAD_BITS);
		if (bit >= SROCE_RD_AHEAD_BITS)
			break;
		psn = sroce_psn_add(req->rd_base, bit);
		st = sroce_swin_response(qp, psn, &idx);
		if (!st || psn != sroce_comp_read_expect(qp, st))
			break;
		__clear_bit(bit, req->rd_ahead);
		sroce_comp_read_counted(qp, idx, st, psn);
	}
}

/*
 * The responses of the read of @st from @hole on that one request may
 * ask for: to the end of the read, or of the chunk that holds @hole.
 */
static u32 sroce_comp_read_chunk_left(const struct sroce_send_state *st,
				      u32 hole)
{
	u32 in_wqe = sroce_psn_diff(hole, st->first_psn);

	return min((u32)sroce_psn_diff(st->last_psn, hole) + 1,
		   SROCE_MAX_INFLIGHT - in_wqe % SROCE_MAX_INFLIGHT);
}

/* @npkts responses from @hole on have been asked for again. */
static void sroce_comp_read_asked(struct sroce_qp *qp, u32 hole, u32 npkts)
{
	struct sroce_req *req = &qp->req;

	req->gap_sent_end = qp->swin.sent_end;
	req->gap_pending = true;
	req->gap_psn = hole;
	req->gap_end = sroce_psn_add(hole, npkts);
	req->gap_ahead = 0;
}

/*
 * Asks again for the oldest read's (@st) responses from @hole, the next
 * one it expects: up to the next one already there, at most to the end
 * of the chunk that holds @hole.
 */
static bool sroce_comp_read_ask(struct sroce_qp *qp,
				const struct sroce_send_state *st, u32 hole)
{
	struct sroce_req *req = &qp->req;
	s32 i = sroce_comp_ahead_bit(req, hole);
	u32 npkts;

	if (i < 0 || test_bit(i, req->rd_ahead))
		return false;
	npkts = find_next_bit(req->rd_ahead, SROCE_RD_AHEAD_BITS, i) - i;
	npkts = min(npkts, sroce_comp_read_chunk_left(st, hole));
	if (!sroce_swin_rerequest(qp, hole, npkts))
		return false;
	sroce_comp_read_asked(qp, hole, npkts);
	return true;
}

/* The oldest WQE not done, if it is a read, and the next PSN it expects. */
static struct sroce_send_state *sroce_comp_read_oldest(struct sroce_qp *qp,
						       u32 *hole)
{
	struct sroce_send_state *st = sroce_swin_oldest(qp);
	u32 idx;

	if (!st)
		return NULL;
	*hole = sroce_comp_read_expect(qp, st);
	if (sroce_swin_read_at(qp, *hole, &idx) != st)
		return NULL;
	sroce_comp_ahead_sync(qp);
	return st;
}

/*
 * Responses came ahead of the oldest read's next one: once enough of
 * them did, or the newest response asked for did (nothing later will
 * come to tell), the missing run is asked for again. A read that an ACK
 * for a later request passed (held in the send window) has been sent
 * whole: its missing runs are asked for as the hole reaches each one.
 * A gap inside a run already asked for again is judged by the responses
 * of that run alone, or by an ACK for a request sent after the run was
 * asked for: the responder answers in order, so that run or the request
 * for it was lost (without it, a QP with no ACK timeout would wait for
 * ever).
 */
static void sroce_comp_read_gap(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_req *req = &qp->req;
	struct sroce_send_state *st;
	bool passed;
	u32 hole;

	if (bitmap_empty(req->rd_ahead, SROCE_RD_AHEAD_BITS) &&
	    !qp->swin.ack_held)
		return;
	st = sroce_comp_read_oldest(qp, &hole);
	if (!st)
		return;
	passed = sroce_swin_executed(&qp->swin, st->last_psn);
	if (req->gap_pending && sroce_psn_after_eq(hole, req->gap_psn) &&
	    sroce_psn_before(hole, req->gap_end)) {
		if (req->gap_ahead < SROCE_RD_DUPTHRESH &&
		    !sroce_comp_read_has(req, sroce_psn_sub(req->gap_end, 1)) &&
		    !sroce_swin_executed(&qp->swin, req->gap_sent_end))
			return;
	} else if (!passed &&
		   bitmap_weight(req->rd_ahead, SROCE_RD_AHEAD_BITS) <
		   SROCE_RD_DUPTHRESH &&
		   !sroce_comp_read_has(req,
					sroce_psn_sub(qp->swin.sent_end, 1))) {
		return;
	}
	if (!sroce_comp_read_ask(qp, st, hole))
		return;
	sroce_count(sdev, SROCE_CNT_FAST_RETRANSMITS);
	if (passed)
		sroce_count(sdev, SROCE_CNT_READ_GAPS_ACKED);
	sroce_comp_trace_retx(qp, hole, SROCE_RETX_CAUSE_READ_GAP);
}

static void sroce_comp_read(struct sroce_qp *qp, struct sk_buff *skb,
			    const struct sroce_packet_info *info)
{
	struct sroce_send_state *st;
	enum ib_wc_status status;
	u32 idx;

	st = sroce_swin_response(qp, info->psn, &idx);
	if (st &&
	    sroce_swin_wqe(&qp->swin, idx)->wr.opcode != IB_WR_RDMA_READ)
		return;
	if (!st || info->psn != sroce_comp_read_expect(qp, st)) {
		sroce_comp_read_ahead(qp, skb, info);
	} else {
		/*
		 * Every response but the message's last carries a full MTU.
		 * FIRST and LAST mark each request's response, and a read is
		 * asked for in chunks (and again after a loss): they say
		 * nothing about the WQE.
		 */
		if (info->payload_len !=
		    sroce_comp_read_want(qp, st, info->psn)) {
			sroce_swin_finish(st, IB_WC_BAD_RESP_ERR);
			return;
		}
		status = sroce_comp_read_place(qp, idx, st, skb, info);
		if (status != IB_WC_SUCCESS) {
			sroce_swin_finish(st, status);
			return;
		}
		sroce_comp_read_counted(qp, idx, st, info->psn);
	}
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
	/*
	 * A NAK's seek forward dropped a request for a read's missing run
	 * before it went out (the engine sends after taking what came):
	 * the run is not awaited, it is asked for again below. (Its
	 * responses coming also end such a request, and then nothing is
	 * missing; going back N sends the read's request anyway.)
	 */
	if (asking && !sroce_swin_asking(&qp->swin) &&
	    sroce_psn_after(qp->swin.psn, qp->req.gap_psn))
		qp->req.gap_pending = false;
	/*
	 * What came may have filled the gap before responses held ahead,
	 * finished the read an ACK was held behind, or shown another gap.
	 */
	sroce_comp_read_advance(qp);
	if (sroce_swin_release_ack(qp))
		sroce_comp_progress(qp);
	sroce_comp_read_gap(qp);
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

	if (!sroce_qp_is_rc(qp))
		return;
	/*
	 * Progress during an RNR wait armed the timer; the requester arms
	 * it again when it sends after the wait, but only if it is off.
	 */
	if (req->rnr_wait) {
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
		/*
		 * A read's probe asks again for its missing run, the whole
		 * rest of its chunk if nothing came; a request for it about
		 * to go out counts as the probe. An atomic waits for the ACK
		 * timeout.
		 */
		if (sroce_comp_read_oldest(qp, &psn) != st) {
			sroce_retx_skip_probe(qp);
			return;
		}
		if (qp->swin.one_shot) {
			sroce_retx_probed(qp);
			return;
		}
		if (!sroce_comp_read_ask(qp, st, psn)) {
			sroce_retx_skip_probe(qp);
			return;
		}
		sroce_count(sdev, SROCE_CNT_TAIL_PROBES);
		sroce_retx_probed(qp);
		sroce_rtt_discard(qp);
		sroce_comp_trace_retx(qp, psn, SROCE_RETX_CAUSE_TAIL_PROBE);
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
	sroce_comp_repair_end(qp);
	sroce_rtt_discard(qp);
	sroce_comp_trace_retx(qp, psn, due == SROCE_RETX_PROBE ?
			      SROCE_RETX_CAUSE_TAIL_PROBE :
			      SROCE_RETX_CAUSE_TIMEOUT);
	sroce_swin_seek(qp, psn);
	/* Going back N asks for the rest of a read's chunk again. */
	req->gap_pending = false;
	if (sroce_comp_read_oldest(qp, &psn) == st)
		sroce_comp_read_asked(qp, psn,
				      sroce_comp_read_chunk_left(st, psn));
}
