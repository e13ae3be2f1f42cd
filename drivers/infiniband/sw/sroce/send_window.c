// SPDX-License-Identifier: GPL-2.0
/*
 * The send window: the send queue's fetch position, its in-flight WQEs
 * and their PSNs, and the shadow ring (send engine context). The layout
 * and the invariants are described in send_window.h.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/psn.h>

#include "sroce.h"
#include "cq.h"
#include "qp.h"
#include "send_window.h"
#include "trace.h"

/* Every fetched WQE, oldest first: the one walk over the window. */
#define sroce_swin_for_each(qp, idx, st)				\
	for ((idx) = sroce_queue_consumer_index(&(qp)->sq);		\
	     (idx) != (qp)->swin.fetch_idx &&				\
	     ((st) = sroce_swin_state(&(qp)->swin, (idx)), true);	\
	     (idx) = sroce_queue_next(&(qp)->sq, (idx)))

int sroce_swin_alloc(struct sroce_send_window *w, u32 slots, u32 slot_size,
		     gfp_t gfp)
{
	w->slot_size = slot_size;
	w->mask = slots - 1;
	w->shadow = kvcalloc(slots, slot_size, gfp);
	w->state = kvcalloc(slots, sizeof(*w->state), gfp);
	if (w->shadow && w->state)
		return 0;
	sroce_swin_free(w);
	return -ENOMEM;
}

void sroce_swin_free(struct sroce_send_window *w)
{
	kvfree(w->shadow);
	kvfree(w->state);
	w->shadow = NULL;
	w->state = NULL;
}

void sroce_swin_reset(struct sroce_qp *qp, u32 psn)
{
	struct sroce_send_window *w = &qp->swin;
	u32 cons = sroce_queue_consumer_index(&qp->sq);

	w->idx = cons;
	w->fetch_idx = cons;
	w->offset = 0;
	w->rd_atomic = 0;
	w->psn = psn;
	w->next_psn = psn;
	w->sent_end = psn;
	w->acked_psn = psn;
	w->one_shot = false;
	w->ack_held = false;
}

void sroce_swin_discard(struct sroce_qp *qp)
{
	u32 prod = sroce_queue_producer_index(&qp->sq);

	while (sroce_queue_consumer_index(&qp->sq) != prod)
		sroce_queue_pop(&qp->sq);
	sroce_swin_reset(qp, qp->swin.psn);
}

/*
 * The producer index, read from user memory, must stay ahead of what has
 * already been fetched: fetched WQEs occupy the slots from the consumer
 * index up to fetch_idx. A producer that moved backwards, or ran more
 * than the ring's size ahead of the consumer (which looks the same once
 * masked), would send the requester round the ring over WQEs still in
 * flight. The QP is refused instead: ERR and a fatal event, so the
 * process learns that it broke the ring. The flush then completes what
 * the ring holds up to that producer index: WQEs fetched past it, which
 * the process took back, get no completion.
 */
static bool sroce_swin_overrun(struct sroce_qp *qp, u32 prod)
{
	u32 cons = sroce_queue_consumer_index(&qp->sq);
	u32 mask = qp->sq.index_mask;

	if (((qp->swin.fetch_idx - cons) & mask) < ((prod - cons) & mask))
		return false;
	sroce_count(to_sroce_dev(qp->ib_qp.device), SROCE_CNT_SQ_OVERRUN);
	sroce_qp_set_error(qp);
	sroce_qp_event(qp, IB_EVENT_QP_FATAL);
	return true;
}

/*
 * Copies one posted slot into its shadow: the fixed part, then only as
 * much of the SGE or inline area as the copied fixed part says is in use
 * (a slot is sized for the QP's largest WQE, usually far larger). The
 * area is clamped to the slot; a WQE whose counts exceed it fails the
 * requester's checks, so the shadow's stale rest is never read.
 */
static void sroce_swin_copy_slot(const struct sroce_send_window *w,
				 struct rxe_send_wqe *wqe, const void *slot)
{
	u32 room = w->slot_size - sizeof(*wqe);
	u32 used;

	memcpy(wqe, slot, sizeof(*wqe));
	if ((wqe->wr.send_flags & IB_SEND_INLINE) ||
	    wqe->wr.opcode == SROCE_WR_ATOMIC_WRITE)
		used = max_t(u32, wqe->dma.length, sizeof(u64));
	else
		used = min_t(u32, wqe->dma.num_sge,
			     room / sizeof(struct rxe_sge)) *
		       sizeof(struct rxe_sge);
	memcpy(wqe + 1, slot + sizeof(*wqe), min(used, room));
}

struct rxe_send_wqe *sroce_swin_fetch(struct sroce_qp *qp,
				      struct sroce_send_state **stp)
{
	struct sroce_send_window *w = &qp->swin;
	u32 prod = sroce_queue_producer_index(&qp->sq);
	struct rxe_send_wqe *wqe;

	if (w->fetch_idx == prod || sroce_swin_overrun(qp, prod))
		return NULL;
	wqe = sroce_swin_wqe(w, w->fetch_idx);
	sroce_swin_copy_slot(w, wqe, sroce_queue_addr(&qp->sq, w->fetch_idx));
	*stp = sroce_swin_state(w, w->fetch_idx);
	memset(*stp, 0, sizeof(**stp));
	return wqe;
}

void sroce_swin_admit(struct sroce_qp *qp, struct sroce_send_state *st,
		      u32 npkts)
{
	struct sroce_send_window *w = &qp->swin;

	st->first_psn = w->next_psn;
	st->last_psn = sroce_psn_sub(sroce_psn_add(st->first_psn, npkts), 1);
	w->next_psn = sroce_psn_add(w->next_psn, npkts);
	w->fetch_idx = sroce_queue_next(&qp->sq, w->fetch_idx);
}

void sroce_swin_sent(struct sroce_qp *qp, u32 npkts, u32 bytes)
{
	struct sroce_send_window *w = &qp->swin;

	w->offset += bytes;
	w->psn = sroce_psn_add(w->psn, npkts);
	if (sroce_psn_after(w->psn, w->sent_end))
		w->sent_end = w->psn;
}

void sroce_swin_pass(struct sroce_qp *qp, const struct sroce_send_state *st)
{
	struct sroce_send_window *w = &qp->swin;

	if (st->rd_atomic)
		w->rd_atomic++;
	w->idx = sroce_queue_next(&qp->sq, w->idx);
	w->offset = 0;
}

/* A WQE that takes no PSN (a local operation, or one that failed). */
static bool sroce_swin_empty_range(const struct sroce_send_state *st)
{
	return st->first_psn == sroce_psn_add(st->last_psn, 1);
}

/*
 * The WQEs between the oldest uncompleted one and the new position are
 * then all in flight; the position lands on the first WQE not done that
 * still has @psn to send, or a local operation not done at or after
 * @psn, at @psn (a WQE's first PSN for a failed one, an atomic, which is
 * never sent in part, or a @psn before its range).
 */
void sroce_swin_seek(struct sroce_qp *qp, u32 psn)
{
	struct sroce_send_window *w = &qp->swin;
	struct sroce_send_state *st = NULL;
	u32 rd_atomic = 0;
	u32 idx, op;

	w->one_shot = false;
	sroce_swin_for_each(qp, idx, st) {
		if (st->status != IB_WC_SUCCESS)
			break;
		/*
		 * A local operation not run yet (held by a fence, say) has
		 * no PSN of its own but sits at the first PSN of the next
		 * WQE: a seek to there or before must not pass it.
		 */
		if (!st->done &&
		    sroce_psn_before_eq(psn, sroce_swin_empty_range(st) ?
					     st->first_psn : st->last_psn))
			break;
		/* Passed, done or not: retiring it counts it down. */
		if (st->rd_atomic)
			rd_atomic++;
	}
	w->idx = idx;
	w->rd_atomic = rd_atomic;
	if (idx == w->fetch_idx) {
		w->psn = w->next_psn;
		w->offset = 0;
		return;
	}
	op = sroce_swin_wqe(w, idx)->wr.opcode;
	if (sroce_psn_before(psn, st->first_psn) ||
	    st->status != IB_WC_SUCCESS || sroce_wr_is_atomic(op))
		psn = st->first_psn;
	w->psn = psn;
	w->offset = sroce_psn_diff(psn, st->first_psn) * qp->mtu;
}

bool sroce_swin_outstanding(const struct sroce_qp *qp)
{
	return sroce_queue_consumer_index(&qp->sq) != qp->swin.idx ||
	       qp->swin.offset;
}

bool sroce_swin_psn_valid(const struct sroce_qp *qp, u32 psn)
{
	return sroce_psn_after_eq(psn, qp->swin.acked_psn) &&
	       sroce_psn_before(psn, qp->swin.sent_end);
}

/*
 * @psn belongs to a SEND or WRITE still waiting for its ACK, and the
 * position is at the newest PSN sent: nothing waits at a gate (a read's
 * next chunk, a fence) that a jump back and forth could pass.
 */
bool sroce_swin_may_resend_one(struct sroce_qp *qp, u32 psn)
{
	struct sroce_send_state *st;
	u32 idx;

	if (qp->swin.psn != qp->swin.sent_end ||
	    !sroce_swin_psn_valid(qp, psn))
		return false;
	sroce_swin_for_each(qp, idx, st) {
		if (st->done || sroce_psn_before(st->last_psn, psn))
			continue;
		return !st->rd_atomic && st->status == IB_WC_SUCCESS &&
		       sroce_psn_after_eq(psn, st->first_psn);
	}
	return false;
}

/*
 * A tail-loss probe that costs one packet: the newest PSN ever sent, if
 * it is data (above). Resent with AckReq, that packet draws an ACK for
 * everything if nothing was lost (the usual case: the ACK was only late),
 * or a sequence NAK naming the first lost PSN, which sends again from
 * there. Returns false, and leaves *@psn alone, where it does not apply.
 */
bool sroce_swin_probe_psn(struct sroce_qp *qp, u32 *psn)
{
	u32 newest = sroce_psn_sub(qp->swin.sent_end, 1);

	if (!sroce_swin_may_resend_one(qp, newest))
		return false;
	*psn = newest;
	return true;
}

/*
 * A selective resend: the packet at @psn goes out once more, alone (with
 * AckReq), and then the position returns to the newest PSN sent, where
 * it was. Only for data (above); reads and atomics, and resends already
 * under way, go back N instead.
 */
bool sroce_swin_resend_one(struct sroce_qp *qp, u32 psn)
{
	struct sroce_send_window *w = &qp->swin;
	u32 resume = w->psn;

	if (!sroce_swin_may_resend_one(qp, psn))
		return false;
	sroce_swin_seek(qp, psn);
	w->one_shot = true;
	w->resume_psn = resume;
	w->rereq_pkts = 0;
	return true;
}

/*
 * The responses of a read from @psn on are missing: a read request for
 * @npkts of them (the requester keeps it within the chunk that holds
 * @psn) goes out alone, and then the position returns to where it was.
 * Only while the position is past @psn and no other one-packet resend
 * waits; the caller knows that every request before @psn has been
 * executed (a later response implies it).
 */
bool sroce_swin_rerequest(struct sroce_qp *qp, u32 psn, u32 npkts)
{
	struct sroce_send_window *w = &qp->swin;
	u32 resume = w->psn;

	if (w->one_shot || !npkts || !sroce_psn_before(psn, resume))
		return false;
	if (sroce_psn_before(w->acked_psn, psn))
		w->acked_psn = psn;
	sroce_swin_seek(qp, psn);
	if (w->psn != psn) {
		sroce_swin_seek(qp, resume);
		return false;
	}
	w->one_shot = true;
	w->resume_psn = resume;
	w->rereq_pkts = npkts;
	return true;
}

void sroce_swin_resend_done(struct sroce_qp *qp)
{
	if (qp->swin.one_shot)
		sroce_swin_seek(qp, qp->swin.resume_psn);
}

/* A read resumes where its data stopped, others after the last ACK. */
u32 sroce_swin_resume_psn(const struct sroce_qp *qp,
			  const struct sroce_send_state *st)
{
	if (st->rd_atomic)
		return sroce_psn_add(st->first_psn, st->done_bytes / qp->mtu);
	if (sroce_psn_after(qp->swin.acked_psn, st->first_psn))
		return qp->swin.acked_psn;
	return st->first_psn;
}

struct sroce_send_state *sroce_swin_oldest(struct sroce_qp *qp)
{
	struct sroce_send_state *st;
	u32 idx;

	sroce_swin_for_each(qp, idx, st) {
		if (!st->done)
			return st;
	}
	return NULL;
}

/*
 * The responder has executed every request before @psn, and @psn itself
 * too if @incl: the SENDs and WRITEs among them are done. Returns the
 * read or atomic the walk stopped at (its response, not an ACK, makes it
 * done), with its slot in *@idxp; NULL where it stopped at anything else.
 */
static struct sroce_send_state *sroce_swin_pass_acked(struct sroce_qp *qp,
						      u32 psn, bool incl,
						      u32 *idxp)
{
	struct sroce_send_state *st;
	u32 idx;

	sroce_swin_for_each(qp, idx, st) {
		if (st->done)
			continue;
		if (st->status != IB_WC_SUCCESS ||
		    sroce_psn_after(st->first_psn, psn))
			return NULL;
		if (st->rd_atomic) {
			*idxp = idx;
			return st;
		}
		if (incl ? sroce_psn_after(st->last_psn, psn) :
			   sroce_psn_after_eq(st->last_psn, psn))
			return NULL;
		st->done = true;
	}
	return NULL;
}

/*
 * An ACK up to @end stopped at the read of @st, whose responses from
 * acked_psn on are missing. If it passes the read, the ACK is held
 * (ack_held) and the completer asks for those responses alone, provided
 * the position is past them and free to come back: a one-packet resend
 * waiting would not, a request for this read's missing run may. Once an
 * ACK is held, a later one that stops at the read (any ACK, reordered or
 * repeated) only adds to it. Returns false where the window must go back
 * N instead: an atomic, an ACK within the read with none held, or a
 * position not past the read.
 */
static bool sroce_swin_hold_ack(struct sroce_qp *qp, u32 idx,
				const struct sroce_send_state *st, u32 end)
{
	struct sroce_send_window *w = &qp->swin;
	u32 read_end = sroce_psn_add(st->last_psn, 1);
	bool asking = sroce_swin_asking(w) && w->idx == idx;

	if (sroce_swin_wqe(w, idx)->wr.opcode != IB_WR_RDMA_READ)
		return false;
	if (!w->ack_held || !sroce_psn_after(w->held_ack, read_end)) {
		if (!sroce_psn_after(end, read_end))
			return false;
		if (!asking &&
		    (w->one_shot || !sroce_psn_before(w->acked_psn, w->psn)))
			return false;
		w->held_ack = end;
	} else if (sroce_psn_after(end, w->held_ack)) {
		w->held_ack = end;
	}
	w->ack_held = true;
	return true;
}

/*
 * A read or atomic in the acknowledged range whose response we lack was
 * lost on the way back: a read's missing responses are asked for again
 * alone where the ACK can be held, anything else from where its data
 * stopped, going back N.
 */
bool sroce_swin_ack(struct sroce_qp *qp, u32 psn)
{
	struct sroce_send_window *w = &qp->swin;
	u32 end = sroce_psn_add(psn, 1);
	struct sroce_send_state *st;
	u32 idx, held;

	if (!sroce_swin_psn_valid(qp, psn))
		return false;
	st = sroce_swin_pass_acked(qp, psn, true, &idx);
	if (st) {
		held = w->ack_held ? w->held_ack : w->acked_psn;
		w->acked_psn = sroce_swin_resume_psn(qp, st);
		if (!sroce_swin_hold_ack(qp, idx, st, end)) {
			sroce_swin_seek(qp, w->acked_psn);
			return true;
		}
		/* A held ACK is news only if it goes further. */
		return w->held_ack != held;
	}
	w->acked_psn = end;
	/* Past a one-packet resend not sent yet: no need to send it. */
	if (w->one_shot && sroce_psn_before(end, w->resume_psn) &&
	    sroce_psn_after(end, w->psn))
		end = w->resume_psn;
	if (sroce_psn_before(w->psn, end))
		sroce_swin_seek(qp, end);
	return true;
}

bool sroce_swin_release_ack(struct sroce_qp *qp)
{
	struct sroce_send_window *w = &qp->swin;
	struct sroce_send_state *st;
	u32 before = w->acked_psn;
	u32 idx;

	if (!w->ack_held)
		return false;
	/* Still waiting for a read it passed: the ACK stays held. */
	sroce_swin_for_each(qp, idx, st) {
		if (st->done)
			continue;
		if (st->rd_atomic && st->status == IB_WC_SUCCESS &&
		    sroce_swin_wqe(w, idx)->wr.opcode == IB_WR_RDMA_READ &&
		    sroce_psn_before(st->last_psn, w->held_ack))
			return false;
		break;
	}
	w->ack_held = false;
	if (sroce_psn_after(w->held_ack, w->acked_psn))
		sroce_swin_ack(qp, sroce_psn_sub(w->held_ack, 1));
	return w->acked_psn != before;
}

/*
 * The oldest WQE not done, once every SEND/WRITE before it is taken as
 * acknowledged (a response for a later PSN implies it), if it is a read
 * or atomic whose range holds @psn.
 */
struct sroce_send_state *sroce_swin_response(struct sroce_qp *qp, u32 psn,
					     u32 *idxp)
{
	struct sroce_send_state *st;

	if (!sroce_swin_psn_valid(qp, psn))
		return NULL;
	st = sroce_swin_pass_acked(qp, psn, false, idxp);
	if (st && sroce_psn_before_eq(psn, st->last_psn))
		return st;
	return NULL;
}

/*
 * The read responses of @psn may come ahead of older ones that are
 * missing: they belong to the read whose range holds it, which may be
 * any read sent and not done, not only the oldest.
 */
struct sroce_send_state *sroce_swin_read_at(struct sroce_qp *qp, u32 psn,
					    u32 *idxp)
{
	struct sroce_send_state *st;
	u32 idx;

	if (!sroce_swin_psn_valid(qp, psn))
		return NULL;
	sroce_swin_for_each(qp, idx, st) {
		if (sroce_psn_after(st->first_psn, psn))
			break;
		if (st->done || sroce_psn_after(psn, st->last_psn))
			continue;
		if (!st->rd_atomic || st->status != IB_WC_SUCCESS ||
		    sroce_swin_wqe(&qp->swin, idx)->wr.opcode != IB_WR_RDMA_READ)
			break;
		*idxp = idx;
		return st;
	}
	return NULL;
}

void sroce_swin_placed(struct sroce_qp *qp, u32 idx,
		       const struct sroce_send_state *st, u32 psn)
{
	struct sroce_send_window *w = &qp->swin;
	u32 end = sroce_psn_add(psn, 1);

	if (sroce_psn_after(end, w->acked_psn))
		w->acked_psn = end;
	if (idx != w->idx)
		return;
	/*
	 * A request for this read's missing responses, not sent yet: what
	 * came meanwhile is not asked for, and once the read is done or
	 * the run has come, nothing is.
	 */
	if (w->one_shot) {
		u32 run_end = sroce_psn_add(w->psn, w->rereq_pkts);

		if (st->done || sroce_psn_after_eq(end, run_end)) {
			sroce_swin_seek(qp, w->resume_psn);
		} else if (sroce_psn_after(end, w->psn)) {
			w->rereq_pkts = sroce_psn_diff(run_end, end);
			w->psn = end;
			w->offset = st->done_bytes;
		}
		return;
	}
	/* A retry had rewound the position to this WQE: skip what came. */
	if (!st->done && sroce_psn_before(w->psn, end)) {
		w->psn = end;
		w->offset = st->done_bytes;
	} else if (st->done) {
		sroce_swin_seek(qp, end);
	}
}

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

/* The oldest fetched WQE leaves the window and gives its slot back. */
static void sroce_swin_pop(struct sroce_qp *qp,
			   const struct sroce_send_state *st)
{
	struct sroce_send_window *w = &qp->swin;
	u32 idx = sroce_queue_consumer_index(&qp->sq);
	bool at_position = idx == w->idx;

	/*
	 * Done at the position (a later response implied its ACK while a
	 * resend was to start in it): the next WQE starts at its own first
	 * PSN, and a one-packet resend has nothing left to send.
	 */
	if (at_position) {
		w->idx = sroce_queue_next(&qp->sq, idx);
		w->offset = 0;
		w->psn = sroce_psn_add(st->last_psn, 1);
	} else if (st->rd_atomic) {
		w->rd_atomic--;
	}
	sroce_queue_pop(&qp->sq);
	if (at_position && w->one_shot)
		sroce_swin_seek(qp, w->resume_psn);
}

void sroce_swin_retire(struct sroce_qp *qp)
{
	struct sroce_send_window *w = &qp->swin;

	while (qp->state != IB_QPS_ERR) {
		u32 idx = sroce_queue_consumer_index(&qp->sq);
		struct sroce_send_state *st = sroce_swin_state(w, idx);
		struct rxe_send_wqe *wqe = sroce_swin_wqe(w, idx);

		if (idx == w->fetch_idx || !st->done)
			break;
		/* The slot goes back to the user before its completion. */
		sroce_swin_pop(qp, st);
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
}

/*
 * Every WQE still in the ring completes, in order, with its own error or
 * IB_WC_WR_FLUSH_ERR (IBTA 10.8.3.1), signalled or not. WQEs never
 * fetched are read from the ring as plain values. A full CQ ends the
 * flush.
 */
void sroce_swin_flush(struct sroce_qp *qp)
{
	struct sroce_send_window *w = &qp->swin;
	u32 prod = sroce_queue_producer_index(&qp->sq);
	bool fetched = true;

	while (sroce_queue_consumer_index(&qp->sq) != prod) {
		u32 idx = sroce_queue_consumer_index(&qp->sq);
		struct ib_wc wc = {
			.qp = &qp->ib_qp,
			.status = IB_WC_WR_FLUSH_ERR,
		};

		if (idx == w->fetch_idx)
			fetched = false;
		if (fetched) {
			struct sroce_send_state *st = sroce_swin_state(w, idx);
			struct rxe_send_wqe *wqe = sroce_swin_wqe(w, idx);

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
	w->idx = sroce_queue_consumer_index(&qp->sq);
	/*
	 * Stopped by a full CQ inside the fetched run: the rest of it stays
	 * fetched, so the next flush reports the kernel's copies, not
	 * whatever the user has since written over those slots.
	 */
	if (!fetched || w->idx == prod)
		w->fetch_idx = w->idx;
	w->offset = 0;
	w->rd_atomic = 0;
}

bool sroce_swin_drained(const struct sroce_qp *qp)
{
	return sroce_queue_consumer_index(&qp->sq) == qp->swin.fetch_idx;
}
