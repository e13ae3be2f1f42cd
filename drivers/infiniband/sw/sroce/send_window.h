/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The send window: everything the kernel knows about a QP's send queue
 * between the user's ring and the wire (send_window.c). It has one owner;
 * the requester and the completer only call the operations below.
 *
 * The ring slots from the consumer index on fall into three runs:
 *
 *   cons ......... idx ............ fetch_idx ............ prod
 *   | sent, waiting | being sent,    | posted, not yet       |
 *   | to be done    | fetched        | copied                |
 *
 *  - [cons, fetch_idx) are "fetched": copied into the shadow ring (the
 *    user's slot is never read again) with their state, and given their
 *    PSNs: consecutive ranges [first_psn, last_psn], possibly empty (a
 *    local operation, a WQE that failed its checks), so the fetched WQEs
 *    cover one run of PSNs that ends just before next_psn.
 *  - The position (idx, offset, psn) is the next packet to send: byte
 *    offset of WQE idx, at PSN psn. Every WQE in [cons, idx) is sent
 *    whole. Retransmission moves the position back (seek); an
 *    acknowledgement beyond it moves it forward.
 *  - rd_atomic counts the reads and atomics in [cons, idx): started and
 *    not yet retired.
 *  - PSNs: acked_psn <= sent_end and psn <= sent_end <= next_psn; PSNs
 *    before acked_psn are acknowledged, sent_end is one past the newest
 *    PSN ever sent (a retransmission does not move it).
 *  - ack_held: an ACK came for a PSN after a read whose responses are
 *    not all in. The responder has executed everything before held_ack,
 *    so only the read's missing responses are asked for again; the
 *    position stays where it was, acked_psn stops at the read, and the
 *    WQEs after it are done once it is (sroce_swin_release_ack()).
 *    Going back N instead would send again every request after the
 *    read, all executed already.
 *  - one_shot: the position was moved back to resend one packet alone
 *    (sroce_swin_resend_one()), or one read request for a run of missing
 *    responses (sroce_swin_rerequest()); once it is sent the position
 *    returns to resume_psn, where it was. Any other seek ends it.
 *  - A WQE is "done" once nothing more is expected for it. Done WQEs
 *    retire (complete, and give their slot back) strictly in ring order
 *    from cons; the first failed one moves the QP to ERR, whose flush
 *    completes all that is left, fetched or not.
 *
 * Context: every operation runs in the QP's send engine, under snd.lock;
 * reset and discard run under both engine locks (modify_qp). The shadow
 * ring is allocated at create and freed at destroy, when no engine runs.
 * The fields below may be read by the send engine's other parts; only
 * send_window.c writes them. A WQE's state (struct sroce_send_state) is
 * filled at fetch; after that the requester and the completer mark it
 * done (sroce_swin_finish()), and the completer counts read data in it.
 */
#ifndef SROCE_SEND_WINDOW_H
#define SROCE_SEND_WINDOW_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/psn.h>

struct sroce_qp;

/*
 * RC flow control: at most this many PSNs beyond the oldest one not
 * acknowledged are sent; a read is asked for in chunks of as many
 * packets (requester.c).
 */
#define SROCE_MAX_INFLIGHT	128
/*
 * A read request may start just inside that limit and ask for a whole
 * chunk: its responses' PSNs stay within twice it of acked_psn.
 */
#define SROCE_RD_AHEAD_BITS	(2 * SROCE_MAX_INFLIGHT)

/* Work request kinds, by opcode. */
static inline bool sroce_wr_is_atomic(u32 op)
{
	return op == IB_WR_ATOMIC_CMP_AND_SWP ||
	       op == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* Executed by the requester itself: no packet, no SGEs. */
static inline bool sroce_wr_is_local(u32 op)
{
	return op == IB_WR_LOCAL_INV || op == IB_WR_BIND_MW ||
	       op == IB_WR_REG_MR;
}

/* What the kernel keeps about one fetched send WQE, indexed like the ring. */
struct sroce_send_state {
	u32 first_psn;
	u32 last_psn;		/* of the last request packet or response */
	u32 length;		/* message length, from the SGEs */
	u32 done_bytes;		/* reads: response bytes placed so far */
	u8 status;		/* enum ib_wc_status when done */
	bool done;		/* nothing more expected: may retire */
	bool rd_atomic;		/* read or atomic: needs a response */
};

struct sroce_send_window {
	/* The position: the next packet to send. */
	u32 idx;		/* SQ slot being sent */
	u32 offset;		/* bytes of slot idx already sent/requested */
	u32 psn;		/* PSN of the next packet */
	/* The fetched WQEs: from the ring's consumer index to fetch_idx. */
	u32 fetch_idx;		/* next slot to copy out of the ring */
	u32 next_psn;		/* first PSN of the next fetched WQE */
	u32 sent_end;		/* one past the newest PSN ever sent */
	u32 acked_psn;		/* one past the newest acknowledged PSN */
	u32 rd_atomic;		/* reads/atomics in [cons, idx) */
	/*
	 * A one-packet resend (rereq_pkts 0), or a read asked for again
	 * (rereq_pkts packets of it): after it, the position returns to
	 * resume_psn.
	 */
	bool one_shot;
	u32 resume_psn;
	u32 rereq_pkts;
	/* An ACK up to held_ack (one past its PSN) waits behind a read. */
	bool ack_held;
	u32 held_ack;
	/* The shadow ring: kernel copies of fetched WQEs, and their state. */
	void *shadow;
	struct sroce_send_state *state;
	u32 slot_size;
	u32 mask;		/* the SQ's index_mask */
};

/* The kernel copy of the WQE in SQ slot @idx, and its state. */
static inline struct rxe_send_wqe *
sroce_swin_wqe(const struct sroce_send_window *w, u32 idx)
{
	return (struct rxe_send_wqe *)((u8 *)w->shadow +
				       (size_t)(idx & w->mask) * w->slot_size);
}

static inline struct sroce_send_state *
sroce_swin_state(const struct sroce_send_window *w, u32 idx)
{
	return &w->state[idx & w->mask];
}

/* Nothing more is expected for the WQE of @st: it may retire. */
static inline void sroce_swin_finish(struct sroce_send_state *st, u8 status)
{
	st->status = status;
	st->done = true;
}

/* Create and destroy (process context). */
int sroce_swin_alloc(struct sroce_send_window *w, u32 slots, u32 slot_size,
		     gfp_t gfp);
void sroce_swin_free(struct sroce_send_window *w);

/* Both engine locks: an empty window from the consumer index at @psn. */
void sroce_swin_reset(struct sroce_qp *qp, u32 psn);
/* Both engine locks: every posted WQE goes, without completions. */
void sroce_swin_discard(struct sroce_qp *qp);

/*
 * Fetch: copies the next posted WQE into its shadow slot and returns it,
 * with its state zeroed in *@stp; NULL if there is none, or if the ring's
 * producer index is impossible (the QP is then in ERR). The caller checks
 * the copy, fills the state and admits it with the number of packets it
 * takes, before fetching again.
 */
struct rxe_send_wqe *sroce_swin_fetch(struct sroce_qp *qp,
				      struct sroce_send_state **stp);
void sroce_swin_admit(struct sroce_qp *qp, struct sroce_send_state *st,
		      u32 npkts);

/* The position went @npkts PSNs and @bytes of its WQE further. */
void sroce_swin_sent(struct sroce_qp *qp, u32 npkts, u32 bytes);
/* The position passed its WQE, @st, which is sent whole. */
void sroce_swin_pass(struct sroce_qp *qp, const struct sroce_send_state *st);
/* Moves the position to @psn: back for a retransmission, or forward. */
void sroce_swin_seek(struct sroce_qp *qp, u32 psn);

/* The newest PSN sent, if a one-packet probe may send it again. */
bool sroce_swin_probe_psn(struct sroce_qp *qp, u32 *psn);
/* @psn is data waiting for its ACK, and may be sent again alone. */
bool sroce_swin_may_resend_one(struct sroce_qp *qp, u32 psn);
/* Sends @psn again alone, then goes on; false where it does not apply. */
bool sroce_swin_resend_one(struct sroce_qp *qp, u32 psn);
/*
 * A read's missing responses: asks for @npkts packets from @psn again
 * alone, then goes on; false where it does not apply.
 */
bool sroce_swin_rerequest(struct sroce_qp *qp, u32 psn, u32 npkts);
/* A packet went out: a one-packet resend returns to where it was. */
void sroce_swin_resend_done(struct sroce_qp *qp);

/* A request for a read's missing responses waits to go out. */
static inline bool sroce_swin_asking(const struct sroce_send_window *w)
{
	return w->one_shot && w->rereq_pkts;
}

/* The PSN sending goes on from once any one-packet resend is out. */
static inline u32 sroce_swin_resume_at(const struct sroce_send_window *w)
{
	return w->one_shot ? w->resume_psn : w->psn;
}

/* Something has been sent and is neither acknowledged nor failed. */
bool sroce_swin_outstanding(const struct sroce_qp *qp);
/* A PSN we sent and that is not acknowledged yet. */
bool sroce_swin_psn_valid(const struct sroce_qp *qp, u32 psn);
/* The PSN from which the WQE of @st must be sent again. */
u32 sroce_swin_resume_psn(const struct sroce_qp *qp,
			  const struct sroce_send_state *st);
/* The oldest fetched WQE that is not done, or NULL. */
struct sroce_send_state *sroce_swin_oldest(struct sroce_qp *qp);

/*
 * Ack: the responder has executed everything up to and including @psn.
 * Returns false for a PSN outside the window (nothing changes), and for
 * an ACK held behind a read that says no more than the one held.
 */
bool sroce_swin_ack(struct sroce_qp *qp, u32 psn);
/*
 * A held ACK (ack_held) applies as far as the next read still missing
 * responses. Returns true if acked_psn moved.
 */
bool sroce_swin_release_ack(struct sroce_qp *qp);

/* The responder is known to have executed the request at @psn. */
static inline bool sroce_swin_executed(const struct sroce_send_window *w,
				       u32 psn)
{
	return sroce_psn_before(psn, w->acked_psn) ||
	       (w->ack_held && sroce_psn_before(psn, w->held_ack));
}

/* The read or atomic a response with @psn is for (implies older ACKs). */
struct sroce_send_state *sroce_swin_response(struct sroce_qp *qp, u32 psn,
					     u32 *idxp);
/* The read not done whose range holds @psn, sent and not acknowledged. */
struct sroce_send_state *sroce_swin_read_at(struct sroce_qp *qp, u32 psn,
					    u32 *idxp);
/* Response data up to @psn for WQE @idx (@st) has arrived in order. */
void sroce_swin_placed(struct sroce_qp *qp, u32 idx,
		       const struct sroce_send_state *st, u32 psn);

/* Retire: completes done WQEs in order; a failed one sets ERR. */
void sroce_swin_retire(struct sroce_qp *qp);
/* Flush (ERR): completes every posted WQE with an error, in order. */
void sroce_swin_flush(struct sroce_qp *qp);
/* Every fetched WQE has retired. */
bool sroce_swin_drained(const struct sroce_qp *qp);

#endif /* SROCE_SEND_WINDOW_H */
