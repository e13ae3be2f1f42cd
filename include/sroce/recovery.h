/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RC loss recovery: the state machine that decides how a requester
 * repairs a hole the responder reports (recovery.c). Pure C, shared by
 * the module (the completer feeds it, completer.c) and the unit tests
 * (tests/unit/test_recovery.c), like the wire layer.
 *
 * A hole is the first PSN the responder lacks: named by a sequence NAK,
 * or shown by the ACK that a packet resent alone draws. The machine says
 * whether to resend that one packet alone (the responder may hold what
 * came after it) or to go back N from it, and it learns from the ACKs
 * whether the peer holds at all. The send window (send_window.h) carries
 * the action out; the read-gap repair (read_gap.c) and the deadlines
 * (rtt.c) are apart from it.
 *
 * States:
 *
 *   OPEN        nothing is being repaired.
 *   RESEND_NAK  the packet at @hole, named by a sequence NAK, was resent
 *               alone; the first ACK to cover it tells whether the
 *               responder held what came after it.
 *   RESEND_ACK  that ACK showed a second hole among the packets sent
 *               before the resend (before @sent_end): it was resent
 *               alone, once. Later ACKs may only be slower than packets
 *               still on the way, so this one's ACK decides nothing.
 *   GO_BACK     everything from @hole on is being sent again.
 *   RNR_WAIT    an RNR NAK paused sending until its timer; then it goes
 *               on from the NAK's PSN, so nothing else is repaired.
 *
 * Transitions (event: function):
 *
 *   state            event                        next         action
 *   ---------------  ---------------------------  -----------  -----------
 *   OPEN, RESEND_*,  hole, worth one resend and   RESEND_NAK   resend one
 *   GO_BACK (for     it can go alone: rec_hole()  (by NAK) or
 *   another hole)                                 RESEND_ACK
 *                    hole, otherwise              GO_BACK      go back N
 *   RESEND_*,        the same hole again          unchanged    none
 *   GO_BACK
 *   RNR_WAIT         a hole                       RNR_WAIT     none (*)
 *   RESEND_*,        the responder executed       OPEN         none
 *   GO_BACK          @hole: rec_executed()
 *   RESEND_NAK       an ACK covers @hole:         OPEN, then   learn; a
 *                    rec_ack()                    a new hole   second hole
 *                                                 maybe        before
 *                                                              @sent_end
 *                                                              is repaired
 *   RESEND_*         a NAK for @hole + 1 after    (then hole)  held nothing
 *                    the resend: rec_nak()                     (learnt in
 *                                                              RESEND_NAK)
 *   any              RNR NAK: rec_rnr()           RNR_WAIT     wait
 *   RNR_WAIT         the same RNR NAK again       RNR_WAIT     none
 *   RNR_WAIT         RNR timer: rec_rnr_expired() OPEN         send again
 *   RNR_WAIT         retry timer (rec_paused())   RNR_WAIT     timer off
 *   other            retry timer, going back N,   OPEN         go back N
 *                    or RNR retries exhausted:
 *                    rec_end()
 *
 *   (*) The wait already sends again from the RNR NAK's PSN, and the
 *   hole lies at or after it.
 *
 * Learning: an ACK that covers the resent packet and more means the
 * responder held what came after it (misses = 0); an ACK for the resent
 * packet alone, or a NAK right after it, means it held nothing, like
 * rdma_rxe and RoCE hardware, which drop what comes out of order, or the
 * next packet was lost too. After SROCE_REC_MISSES such answers in a row
 * a hole goes back N at once, and only every SROCE_REC_RETRY-th tries a
 * resend alone again (the peer may have changed; two packets lost in a
 * row also look like a miss).
 *
 * Context: the QP's send engine, under snd.lock; reset under both engine
 * locks. Only recovery.c writes struct sroce_recovery.
 */
#ifndef _SROCE_RECOVERY_H
#define _SROCE_RECOVERY_H

#include <sroce/wire_types.h>

#define SROCE_REC_MISSES	2
#define SROCE_REC_RETRY		16

enum sroce_rec_state {
	SROCE_REC_OPEN,
	SROCE_REC_RESEND_NAK,
	SROCE_REC_RESEND_ACK,
	SROCE_REC_GO_BACK,
	SROCE_REC_RNR_WAIT,
};

/* What to do about a hole. */
enum sroce_rec_action {
	SROCE_REC_NONE,		/* already under repair, or waiting */
	SROCE_REC_RESEND_ONE,	/* resend the packet at the hole alone */
	SROCE_REC_GO_BACK_N,	/* send again from the hole on */
};

struct sroce_recovery {
	u8 state;		/* enum sroce_rec_state */
	u8 misses;		/* answers in a row that held nothing */
	u32 hole;		/* RESEND_*, GO_BACK: the PSN repaired */
	u32 sent_end;		/* RESEND_*: one past the newest PSN then */
};

/* A hole the responder reported, and what the window allows. */
struct sroce_rec_hole {
	u32 psn;		/* the first PSN the responder lacks */
	u32 sent_end;		/* one past the newest PSN sent */
	bool by_nak;		/* a NAK showed it, not an ACK */
	bool held_nothing;	/* the responder is known to hold nothing */
	bool allowed;		/* resends alone are switched on */
	bool one_ok;		/* the packet at @psn may be resent alone */
};

void sroce_rec_reset(struct sroce_recovery *r);
enum sroce_rec_action sroce_rec_hole(struct sroce_recovery *r,
				     const struct sroce_rec_hole *h);
void sroce_rec_executed(struct sroce_recovery *r, u32 psn);
bool sroce_rec_nak(struct sroce_recovery *r, u32 psn, bool resend_out);
bool sroce_rec_ack(struct sroce_recovery *r, u32 psn, u32 acked_psn,
		   bool *held_nothing);
bool sroce_rec_rnr(struct sroce_recovery *r, u32 psn, u32 resume_psn);
void sroce_rec_rnr_expired(struct sroce_recovery *r);
void sroce_rec_end(struct sroce_recovery *r);

/* Sending waits for the RNR timer. */
static inline bool sroce_rec_paused(const struct sroce_recovery *r)
{
	return r->state == SROCE_REC_RNR_WAIT;
}

#endif /* _SROCE_RECOVERY_H */
