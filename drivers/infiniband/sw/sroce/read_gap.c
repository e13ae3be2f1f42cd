// SPDX-License-Identifier: GPL-2.0
/*
 * Read responses, and the repair of their gaps (send engine context).
 *
 * A responder sends a read's responses in PSN order, so one that is
 * missing while later ones arrive was lost, or overtaken on the way.
 * Each response's place in the read is fixed by its PSN: those that come
 * ahead are written to the buffer at once and marked in rgap->ahead, to
 * be counted when the gap before them fills, and only the missing run is
 * asked for again (sroce_rgap_check()). The responder serves such a
 * shortened request within the original one's PSNs (IBTA 9.9.2.2:
 * rdma_rxe and sroce do). Going back N instead would ask again for
 * everything after the gap, and throw away what already came, in every
 * read in flight.
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

/* Missing responses count as lost once this many later ones came. */
#define SROCE_RD_DUPTHRESH	3

void sroce_rgap_reset(struct sroce_qp *qp)
{
	memset(&qp->rgap, 0, sizeof(qp->rgap));
}

/* The next response expected for the read of @st. */
static u32 sroce_rgap_expect(const struct sroce_qp *qp,
			     const struct sroce_send_state *st)
{
	return sroce_psn_add(st->first_psn, st->done_bytes / qp->mtu);
}

/* The payload the response at @psn of the read of @st must carry. */
static u32 sroce_rgap_want(const struct sroce_qp *qp,
			   const struct sroce_send_state *st, u32 psn)
{
	u32 off = sroce_psn_diff(psn, st->first_psn) * qp->mtu;

	return min(st->length - off, qp->mtu);
}

/* base catches up with acked_psn, and the bitmap moves with it. */
static void sroce_rgap_sync(struct sroce_qp *qp)
{
	struct sroce_read_gap *g = &qp->rgap;
	s32 d = sroce_psn_diff(qp->swin.acked_psn, g->base);

	if (!d)
		return;
	g->base = qp->swin.acked_psn;
	if (bitmap_empty(g->ahead, SROCE_RD_AHEAD_BITS))
		return;
	if (d < 0 || d >= SROCE_RD_AHEAD_BITS)
		bitmap_zero(g->ahead, SROCE_RD_AHEAD_BITS);
	else
		bitmap_shift_right(g->ahead, g->ahead, d,
				   SROCE_RD_AHEAD_BITS);
}

/* The bit of @psn in g->ahead, or -1 if it lies outside the map. */
static s32 sroce_rgap_bit(const struct sroce_read_gap *g, u32 psn)
{
	s32 i = sroce_psn_diff(psn, g->base);

	return i >= 0 && i < SROCE_RD_AHEAD_BITS ? i : -1;
}

/* The response for @psn came ahead and is not counted yet. */
static bool sroce_rgap_has(const struct sroce_read_gap *g, u32 psn)
{
	s32 i = sroce_rgap_bit(g, psn);

	return i >= 0 && test_bit(i, g->ahead);
}

/* Writes response data of the read in slot @idx at the offset of @psn. */
static enum ib_wc_status
sroce_rgap_place(struct sroce_qp *qp, u32 idx,
		 const struct sroce_send_state *st, struct sk_buff *skb,
		 const struct sroce_packet_info *info)
{
	struct rxe_send_wqe *wqe = sroce_swin_wqe(&qp->swin, idx);
	u32 off = sroce_psn_diff(info->psn, st->first_psn) * qp->mtu;
	struct sroce_sge_list l;

	l = sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma, qp->sq_max_sge,
			      &qp->odp_snd);
	return sroce_sge_write_skb(&l, off, skb,
				   sizeof(struct udphdr) + info->payload_off,
				   info->payload_len);
}

/*
 * A response for a read that is not the next one expected: kept if it
 * has its place, and not there already. Anything odd about it is left
 * for the in-order path to judge when it is asked for again.
 */
static void sroce_rgap_ahead(struct sroce_qp *qp, struct sk_buff *skb,
			     const struct sroce_packet_info *info)
{
	struct sroce_read_gap *g = &qp->rgap;
	struct sroce_send_state *st;
	s32 bit;
	u32 idx;

	sroce_rgap_sync(qp);
	bit = sroce_rgap_bit(g, info->psn);
	if (bit < 0 || test_bit(bit, g->ahead))
		return;
	st = sroce_swin_read_at(qp, info->psn, &idx);
	if (!st ||
	    sroce_psn_before(info->psn, sroce_rgap_expect(qp, st)) ||
	    info->payload_len != sroce_rgap_want(qp, st, info->psn) ||
	    sroce_rgap_place(qp, idx, st, skb, info) != IB_WC_SUCCESS)
		return;
	__set_bit(bit, g->ahead);
	if (g->pending && sroce_psn_after_eq(info->psn, g->psn) &&
	    sroce_psn_before(info->psn, g->end))
		g->nahead++;
	sroce_count(to_sroce_dev(qp->ib_qp.device),
		    SROCE_CNT_READ_RESP_AHEAD);
}

/* Read data up to @psn of the read in slot @idx is all there. */
static void sroce_rgap_counted(struct sroce_qp *qp, u32 idx,
			       struct sroce_send_state *st, u32 psn)
{
	st->done_bytes += sroce_rgap_want(qp, st, psn);
	if (st->done_bytes == st->length)
		sroce_swin_finish(st, IB_WC_SUCCESS);
	sroce_completer_placed(qp, idx, st, psn);
}

void sroce_rgap_advance(struct sroce_qp *qp)
{
	struct sroce_read_gap *g = &qp->rgap;
	struct sroce_send_state *st;
	u32 bit, psn, idx;

	while (!bitmap_empty(g->ahead, SROCE_RD_AHEAD_BITS)) {
		sroce_rgap_sync(qp);
		bit = find_first_bit(g->ahead, SROCE_RD_AHEAD_BITS);
		if (bit >= SROCE_RD_AHEAD_BITS)
			break;
		psn = sroce_psn_add(g->base, bit);
		st = sroce_swin_response(qp, psn, &idx);
		if (!st || psn != sroce_rgap_expect(qp, st))
			break;
		__clear_bit(bit, g->ahead);
		sroce_rgap_counted(qp, idx, st, psn);
	}
}

/*
 * The responses of the read of @st from @hole on that one request may
 * ask for: to the end of the read, or of the chunk that holds @hole.
 */
static u32 sroce_rgap_chunk_left(const struct sroce_send_state *st, u32 hole)
{
	u32 in_wqe = sroce_psn_diff(hole, st->first_psn);

	return min((u32)sroce_psn_diff(st->last_psn, hole) + 1,
		   SROCE_MAX_INFLIGHT - in_wqe % SROCE_MAX_INFLIGHT);
}

/* @npkts responses from @hole on have been asked for again. */
static void sroce_rgap_asked(struct sroce_qp *qp, u32 hole, u32 npkts)
{
	struct sroce_read_gap *g = &qp->rgap;

	g->sent_end = qp->swin.sent_end;
	g->pending = true;
	g->psn = hole;
	g->end = sroce_psn_add(hole, npkts);
	g->nahead = 0;
}

/*
 * Asks again for the oldest read's (@st) responses from @hole, the next
 * one it expects: up to the next one already there, at most to the end
 * of the chunk that holds @hole.
 */
bool sroce_rgap_ask(struct sroce_qp *qp, const struct sroce_send_state *st,
		    u32 hole)
{
	struct sroce_read_gap *g = &qp->rgap;
	s32 i = sroce_rgap_bit(g, hole);
	u32 npkts;

	if (i < 0 || test_bit(i, g->ahead))
		return false;
	npkts = find_next_bit(g->ahead, SROCE_RD_AHEAD_BITS, i) - i;
	npkts = min(npkts, sroce_rgap_chunk_left(st, hole));
	if (!sroce_swin_rerequest(qp, hole, npkts))
		return false;
	sroce_rgap_asked(qp, hole, npkts);
	return true;
}

struct sroce_send_state *sroce_rgap_oldest(struct sroce_qp *qp, u32 *hole)
{
	struct sroce_send_state *st = sroce_swin_oldest(qp);
	u32 idx;

	if (!st)
		return NULL;
	*hole = sroce_rgap_expect(qp, st);
	if (sroce_swin_read_at(qp, *hole, &idx) != st)
		return NULL;
	sroce_rgap_sync(qp);
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
void sroce_rgap_check(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_read_gap *g = &qp->rgap;
	struct sroce_send_state *st;
	bool passed;
	u32 hole;

	if (bitmap_empty(g->ahead, SROCE_RD_AHEAD_BITS) &&
	    !qp->swin.ack_held)
		return;
	st = sroce_rgap_oldest(qp, &hole);
	if (!st)
		return;
	passed = sroce_swin_executed(&qp->swin, st->last_psn);
	if (g->pending && sroce_psn_after_eq(hole, g->psn) &&
	    sroce_psn_before(hole, g->end)) {
		if (g->nahead < SROCE_RD_DUPTHRESH &&
		    !sroce_rgap_has(g, sroce_psn_sub(g->end, 1)) &&
		    !sroce_swin_executed(&qp->swin, g->sent_end))
			return;
	} else if (!passed &&
		   bitmap_weight(g->ahead, SROCE_RD_AHEAD_BITS) <
		   SROCE_RD_DUPTHRESH &&
		   !sroce_rgap_has(g, sroce_psn_sub(qp->swin.sent_end, 1))) {
		return;
	}
	if (!sroce_rgap_ask(qp, st, hole))
		return;
	sroce_count(sdev, SROCE_CNT_FAST_RETRANSMITS);
	if (passed)
		sroce_count(sdev, SROCE_CNT_READ_GAPS_ACKED);
	sroce_rtt_trace_retx(qp, hole, SROCE_RETX_CAUSE_READ_GAP);
}

/*
 * A NAK's seek forward dropped a request for a read's missing run
 * before it went out (the engine sends after taking what came): the run
 * is not awaited, it is asked for again. (Its responses coming also end
 * such a request, and then nothing is missing; going back N sends the
 * read's request anyway.)
 */
void sroce_rgap_ask_dropped(struct sroce_qp *qp, bool was_asking)
{
	if (was_asking && !sroce_swin_asking(&qp->swin) &&
	    sroce_psn_after(qp->swin.psn, qp->rgap.psn))
		qp->rgap.pending = false;
}

void sroce_rgap_went_back(struct sroce_qp *qp,
			  const struct sroce_send_state *st)
{
	u32 psn;

	qp->rgap.pending = false;
	if (sroce_rgap_oldest(qp, &psn) == st)
		sroce_rgap_asked(qp, psn, sroce_rgap_chunk_left(st, psn));
}

void sroce_rgap_response(struct sroce_qp *qp, struct sk_buff *skb,
			 const struct sroce_packet_info *info)
{
	struct sroce_send_state *st;
	enum ib_wc_status status;
	u32 idx;

	st = sroce_swin_response(qp, info->psn, &idx);
	if (st &&
	    sroce_swin_wqe(&qp->swin, idx)->wr.opcode != IB_WR_RDMA_READ)
		return;
	if (!st || info->psn != sroce_rgap_expect(qp, st)) {
		sroce_rgap_ahead(qp, skb, info);
		return;
	}
	/*
	 * Every response but the message's last carries a full MTU. FIRST
	 * and LAST mark each request's response, and a read is asked for
	 * in chunks (and again after a loss): they say nothing about the
	 * WQE.
	 */
	if (info->payload_len != sroce_rgap_want(qp, st, info->psn)) {
		sroce_swin_finish(st, IB_WC_BAD_RESP_ERR);
		return;
	}
	status = sroce_rgap_place(qp, idx, st, skb, info);
	/*
	 * The sink was faulted in before the request went out, and lost a
	 * page since: this response is as good as lost, and asked for
	 * again like one.
	 */
	if (status == SROCE_WC_FAULT_PENDING)
		return;
	if (status != IB_WC_SUCCESS) {
		sroce_swin_finish(st, status);
		return;
	}
	sroce_rgap_counted(qp, idx, st, info->psn);
}
