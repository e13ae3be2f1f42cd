// SPDX-License-Identifier: GPL-2.0
/*
 * RC loss recovery: the state machine of include/sroce/recovery.h, whose
 * comment has the states and the transition table. Pure C: built into
 * the module and into the unit tests.
 */
#include <sroce/psn.h>
#include <sroce/recovery.h>

void sroce_rec_reset(struct sroce_recovery *r)
{
	memset(r, 0, sizeof(*r));
}

static bool sroce_rec_repairing(const struct sroce_recovery *r)
{
	return r->state == SROCE_REC_RESEND_NAK ||
	       r->state == SROCE_REC_RESEND_ACK ||
	       r->state == SROCE_REC_GO_BACK;
}

/* What the ACK after a resend alone said: did the responder hold? */
static void sroce_rec_learn(struct sroce_recovery *r, bool held)
{
	if (held)
		r->misses = 0;
	else if (r->misses < SROCE_REC_MISSES)
		r->misses++;
}

/*
 * Is a resend alone worth a round trip? Not towards a peer that held
 * nothing SROCE_REC_MISSES times in a row, but every SROCE_REC_RETRY-th
 * hole asks again.
 */
static bool sroce_rec_worth(struct sroce_recovery *r, bool allowed)
{
	if (!allowed)
		return false;
	if (r->misses < SROCE_REC_MISSES)
		return true;
	if (++r->misses < SROCE_REC_MISSES + SROCE_REC_RETRY)
		return false;
	r->misses = SROCE_REC_MISSES - 1;
	return true;
}

/*
 * The responder lacks h->psn. A hole already under repair is left alone:
 * the ACK and the NAK a gap draws may both come, and a network may
 * duplicate the NAK.
 */
enum sroce_rec_action sroce_rec_hole(struct sroce_recovery *r,
				     const struct sroce_rec_hole *h)
{
	if (r->state == SROCE_REC_RNR_WAIT ||
	    (sroce_rec_repairing(r) && r->hole == h->psn))
		return SROCE_REC_NONE;
	r->hole = h->psn;
	r->sent_end = h->sent_end;
	if (!h->held_nothing && sroce_rec_worth(r, h->allowed) && h->one_ok) {
		r->state = h->by_nak ? SROCE_REC_RESEND_NAK :
				       SROCE_REC_RESEND_ACK;
		return SROCE_REC_RESEND_ONE;
	}
	r->state = SROCE_REC_GO_BACK;
	return SROCE_REC_GO_BACK_N;
}

/*
 * The responder has executed up to @psn (an ACK, or what a NAK or a
 * response implies): once that covers the hole, its repair is over.
 */
void sroce_rec_executed(struct sroce_recovery *r, u32 psn)
{
	if (sroce_rec_repairing(r) && sroce_psn_after_eq(psn, r->hole))
		r->state = SROCE_REC_OPEN;
}

/*
 * A NAK for @psn arrived; @resend_out: no resend alone waits to go out.
 * Returns true if it comes right after the packet resent alone: the
 * responder held nothing behind it.
 */
bool sroce_rec_nak(struct sroce_recovery *r, u32 psn, bool resend_out)
{
	bool held_nothing;

	held_nothing = (r->state == SROCE_REC_RESEND_NAK ||
			r->state == SROCE_REC_RESEND_ACK) && resend_out &&
		       psn == sroce_psn_add(r->hole, 1);
	if (held_nothing && r->state == SROCE_REC_RESEND_NAK)
		sroce_rec_learn(r, false);
	return held_nothing;
}

/*
 * An ACK for @psn moved the window's acknowledged PSN to @acked_psn.
 * After a resend alone that a NAK started, the first ACK to cover it
 * names what the responder has: the resent packet and all it held. A
 * hole left right after it, among the packets sent before the resend,
 * is another loss: returns true, and the caller reports it (rec_hole()),
 * with *@held_nothing if the ACK named the resent packet alone.
 */
bool sroce_rec_ack(struct sroce_recovery *r, u32 psn, u32 acked_psn,
		   bool *held_nothing)
{
	u32 next = sroce_psn_add(psn, 1);
	bool held;

	if (r->state != SROCE_REC_RESEND_NAK ||
	    sroce_psn_before(psn, r->hole)) {
		sroce_rec_executed(r, psn);
		return false;
	}
	held = psn != r->hole;
	sroce_rec_learn(r, held);
	r->state = SROCE_REC_OPEN;
	/* Not where the ACK sent the window back to a read. */
	if (acked_psn != next || !sroce_psn_before(next, r->sent_end))
		return false;
	*held_nothing = !held;
	return true;
}

/*
 * An RNR NAK for @psn; sending would go on from @resume_psn. Returns
 * false for the NAK already waited for (a resend crossed it): one wait,
 * one retry.
 */
bool sroce_rec_rnr(struct sroce_recovery *r, u32 psn, u32 resume_psn)
{
	if (r->state == SROCE_REC_RNR_WAIT && psn == resume_psn)
		return false;
	r->state = SROCE_REC_RNR_WAIT;
	return true;
}

void sroce_rec_rnr_expired(struct sroce_recovery *r)
{
	if (r->state == SROCE_REC_RNR_WAIT)
		r->state = SROCE_REC_OPEN;
}

/* Going back N from the oldest PSN, or giving up: nothing is repaired. */
void sroce_rec_end(struct sroce_recovery *r)
{
	r->state = SROCE_REC_OPEN;
}
