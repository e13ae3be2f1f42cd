// SPDX-License-Identifier: GPL-2.0
/*
 * The RC loss recovery state machine (sroce/recovery.h), driven by
 * scripted sequences of events: each step is what the completer would
 * report, and what the machine must answer and become.
 */
#include <sroce/psn.h>
#include <sroce/recovery.h>
#include "unit.h"

enum ev {
	HOLE,		/* rec_hole(): psn, arg = sent_end */
	EXEC,		/* rec_executed(): psn */
	NAK,		/* rec_nak(): psn, F_OUT */
	ACK,		/* rec_ack(): psn, arg = acked_psn */
	RNR,		/* rec_rnr(): psn, arg = resume_psn */
	RNR_EXPIRED,	/* rec_rnr_expired() */
	END,		/* rec_end() */
	STOP,		/* the script's end */
};

/* Step flags. */
#define F_NAK		0x01	/* HOLE: shown by a NAK */
#define F_NOTHING	0x02	/* HOLE: the responder holds nothing */
#define F_OFF		0x04	/* HOLE: resends alone switched off */
#define F_NOT_ONE	0x08	/* HOLE: the packet cannot go alone */
#define F_OUT		0x10	/* NAK: no resend alone waits to go out */

#define ANY		(-1)

struct step {
	enum ev ev;
	u32 psn;
	u32 arg;
	unsigned int flags;
	int want;		/* HOLE: action; NAK, ACK, RNR: returned */
	int want_nothing;	/* ACK returning true: *held_nothing */
	int state;		/* after the step */
	int misses;		/* after the step, or ANY */
};

#define STEPS_END	{ .ev = STOP }

/* Runs @steps (up to STOP) on @r; stops at the first mismatch. */
static void run_steps(struct sroce_recovery *r, const struct step *steps)
{
	const struct step *s;
	int n;

	for (n = 0, s = steps; s->ev != STOP; s++, n++) {
		struct sroce_rec_hole h = {
			.psn = s->psn,
			.sent_end = s->arg,
			.by_nak = s->flags & F_NAK,
			.held_nothing = s->flags & F_NOTHING,
			.allowed = !(s->flags & F_OFF),
			.one_ok = !(s->flags & F_NOT_ONE),
		};
		bool nothing = false;
		int got = 0;

		switch (s->ev) {
		case HOLE:
			got = sroce_rec_hole(r, &h);
			break;
		case EXEC:
			sroce_rec_executed(r, s->psn);
			break;
		case NAK:
			got = sroce_rec_nak(r, s->psn, s->flags & F_OUT);
			break;
		case ACK:
			got = sroce_rec_ack(r, s->psn, s->arg, &nothing);
			if (got && (int)nothing != s->want_nothing)
				UNIT_FAIL("step %d: held_nothing %d, want %d",
					  n, nothing, s->want_nothing);
			break;
		case RNR:
			got = sroce_rec_rnr(r, s->psn, s->arg);
			break;
		case RNR_EXPIRED:
			sroce_rec_rnr_expired(r);
			break;
		case END:
			sroce_rec_end(r);
			break;
		case STOP:
			return;
		}
		if (s->ev != EXEC && s->ev != RNR_EXPIRED && s->ev != END &&
		    got != s->want)
			UNIT_FAIL("step %d: returned %d, want %d", n, got,
				  s->want);
		if (s->state != ANY && r->state != s->state)
			UNIT_FAIL("step %d: state %d, want %d", n, r->state,
				  s->state);
		if (s->misses != ANY && r->misses != s->misses)
			UNIT_FAIL("step %d: misses %d, want %d", n, r->misses,
				  s->misses);
	}
}

static void run_script(const struct step *steps)
{
	struct sroce_recovery r;

	sroce_rec_reset(&r);
	run_steps(&r, steps);
}

#define OPEN		SROCE_REC_OPEN
#define RESEND_NAK	SROCE_REC_RESEND_NAK
#define RESEND_ACK	SROCE_REC_RESEND_ACK
#define GO_BACK		SROCE_REC_GO_BACK
#define RNR_WAIT	SROCE_REC_RNR_WAIT
#define NONE		SROCE_REC_NONE
#define ONE		SROCE_REC_RESEND_ONE
#define GBN		SROCE_REC_GO_BACK_N

/*
 * A peer that holds: the NAK's packet goes alone, the ACK covers it and
 * what was held, and the second hole it shows goes alone too, once.
 */
static void peer_holds(void)
{
	static const struct step s[] = {
		{ HOLE, 10, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ ACK, 14, 15, 0, 1, 0, OPEN, 0 },
		{ HOLE, 15, 20, 0, ONE, 0, RESEND_ACK, 0 },
		/* That resend's ACK decides nothing. */
		{ ACK, 16, 17, 0, 0, 0, OPEN, 0 },
		STEPS_END,
	};

	run_script(s);
}

/*
 * A peer that drops what comes out of order (rdma_rxe): the ACK names
 * the resent packet alone, so the next hole goes back N.
 */
static void peer_drops(void)
{
	static const struct step s[] = {
		{ HOLE, 10, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ ACK, 10, 11, 0, 1, 1, OPEN, 1 },
		{ HOLE, 11, 20, F_NOTHING, GBN, 0, GO_BACK, 1 },
		{ EXEC, 10, 0, 0, 0, 0, GO_BACK, 1 },
		{ EXEC, 11, 0, 0, 0, 0, OPEN, 1 },
		STEPS_END,
	};

	run_script(s);
}

/* After two misses holes go back N, and every 16th tries alone again. */
static void learns_and_retries(void)
{
	static const struct step miss[] = {
		{ HOLE, 10, 20, F_NAK, ONE, 0, RESEND_NAK, ANY },
		{ ACK, 10, 11, 0, 1, 1, OPEN, ANY },
		STEPS_END,
	};
	struct sroce_recovery r;
	struct sroce_rec_hole h = { .psn = 30, .sent_end = 1000,
				    .by_nak = true, .allowed = true,
				    .one_ok = true };
	bool nothing = true;
	int i;

	sroce_rec_reset(&r);
	CALL(run_steps(&r, miss));
	CHECK_EQ(r.misses, 1);
	CALL(run_steps(&r, miss));
	CHECK_EQ(r.misses, SROCE_REC_MISSES);
	for (i = 1; i < SROCE_REC_RETRY; i++) {
		h.psn = sroce_psn_add(h.psn, 2);
		CHECK_EQ(sroce_rec_hole(&r, &h), SROCE_REC_GO_BACK_N);
		sroce_rec_executed(&r, h.psn);
	}
	h.psn = sroce_psn_add(h.psn, 2);
	CHECK_EQ(sroce_rec_hole(&r, &h), SROCE_REC_RESEND_ONE);
	CHECK_EQ(r.misses, SROCE_REC_MISSES - 1);
	/* It held: back to resending alone every time. */
	CHECK(sroce_rec_ack(&r, sroce_psn_add(h.psn, 3),
			    sroce_psn_add(h.psn, 4), &nothing));
	CHECK(!nothing);
	CHECK_EQ(r.misses, 0);
	CHECK_EQ(r.state, SROCE_REC_OPEN);
}

/* The ACK and the NAK of one gap, or a duplicated NAK: repaired once. */
static void same_hole_once(void)
{
	static const struct step s[] = {
		{ HOLE, 10, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ HOLE, 10, 20, F_NAK, NONE, 0, RESEND_NAK, 0 },
		{ HOLE, 10, 20, 0, NONE, 0, RESEND_NAK, 0 },
		/* Another hole replaces it. */
		{ HOLE, 12, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ EXEC, 12, 0, 0, 0, 0, OPEN, 0 },
		/* Once over, the same PSN is a new hole. */
		{ HOLE, 12, 20, F_NAK | F_NOT_ONE, GBN, 0, GO_BACK, 0 },
		{ HOLE, 12, 20, F_NAK, NONE, 0, GO_BACK, 0 },
		STEPS_END,
	};

	run_script(s);
}

/* A NAK right after the packet resent alone: nothing was held. */
static void nak_after_resend(void)
{
	static const struct step s[] = {
		{ HOLE, 10, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		/* Not yet out: the NAK crossed the resend. */
		{ NAK, 11, 0, 0, 0, 0, RESEND_NAK, 0 },
		{ NAK, 12, 0, F_OUT, 0, 0, RESEND_NAK, 0 },
		{ NAK, 11, 0, F_OUT, 1, 0, RESEND_NAK, 1 },
		{ EXEC, 10, 0, 0, 0, 0, OPEN, 1 },
		{ HOLE, 11, 20, F_NAK | F_NOTHING, GBN, 0, GO_BACK, 1 },
		/* Going back N teaches nothing. */
		{ NAK, 12, 0, F_OUT, 0, 0, GO_BACK, 1 },
		STEPS_END,
	};

	run_script(s);
}

/* The resend an ACK started is not learnt from, by NAK or by ACK. */
static void resend_ack_not_learnt(void)
{
	static const struct step s[] = {
		{ HOLE, 10, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ ACK, 12, 13, 0, 1, 0, OPEN, 0 },
		{ HOLE, 13, 20, 0, ONE, 0, RESEND_ACK, 0 },
		{ NAK, 14, 0, F_OUT, 1, 0, RESEND_ACK, 0 },
		{ ACK, 13, 14, 0, 0, 0, OPEN, 0 },
		STEPS_END,
	};

	run_script(s);
}

/* ACKs that do not cover the hole, or went back to a read. */
static void ack_cases(void)
{
	static const struct step s[] = {
		{ HOLE, 10, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ ACK, 8, 9, 0, 0, 0, RESEND_NAK, 0 },
		/* The window stopped at a read before 15: no new hole. */
		{ ACK, 14, 12, 0, 0, 0, OPEN, 0 },
		{ HOLE, 20, 30, F_NAK, ONE, 0, RESEND_NAK, 0 },
		/* Past everything sent before the resend: nothing left. */
		{ ACK, 29, 30, 0, 0, 0, OPEN, 0 },
		/* Without a resend under way an ACK decides nothing. */
		{ ACK, 31, 32, 0, 0, 0, OPEN, 0 },
		STEPS_END,
	};

	run_script(s);
}

/* An RNR NAK pauses everything; the same NAK again is one wait. */
static void rnr_wait(void)
{
	static const struct step s[] = {
		{ HOLE, 10, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ RNR, 10, 10, 0, 1, 0, RNR_WAIT, 0 },
		/* Its wait sends again from 10: a hole changes nothing. */
		{ HOLE, 12, 20, F_NAK, NONE, 0, RNR_WAIT, 0 },
		{ EXEC, 15, 0, 0, 0, 0, RNR_WAIT, 0 },
		{ ACK, 15, 16, 0, 0, 0, RNR_WAIT, 0 },
		{ NAK, 11, 0, F_OUT, 0, 0, RNR_WAIT, 0 },
		/* Crossed by a resend: the same NAK, where sending resumes. */
		{ RNR, 10, 10, 0, 0, 0, RNR_WAIT, 0 },
		/* One for another PSN waits again, then is the same one. */
		{ RNR, 16, 10, 0, 1, 0, RNR_WAIT, 0 },
		{ RNR, 16, 16, 0, 0, 0, RNR_WAIT, 0 },
		{ RNR_EXPIRED, 0, 0, 0, 0, 0, OPEN, 0 },
		{ RNR_EXPIRED, 0, 0, 0, 0, 0, OPEN, 0 },
		{ HOLE, 16, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ END, 0, 0, 0, 0, 0, OPEN, 0 },
		STEPS_END,
	};
	struct sroce_recovery r;

	CALL(run_script(s));
	sroce_rec_reset(&r);
	CHECK(!sroce_rec_paused(&r));
	CHECK(sroce_rec_rnr(&r, 5, 5));
	CHECK(sroce_rec_paused(&r));
	sroce_rec_rnr_expired(&r);
	CHECK(!sroce_rec_paused(&r));
}

/* Switched off, or impossible: back N, and the learning is kept. */
static void no_resend_alone(void)
{
	static const struct step s[] = {
		{ HOLE, 10, 20, F_NAK | F_OFF, GBN, 0, GO_BACK, 0 },
		{ END, 0, 0, 0, 0, 0, OPEN, 0 },
		{ HOLE, 10, 20, F_NAK | F_NOT_ONE, GBN, 0, GO_BACK, 0 },
		{ EXEC, 10, 0, 0, 0, 0, OPEN, 0 },
		{ HOLE, 11, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ ACK, 11, 12, 0, 1, 1, OPEN, 1 },
		{ HOLE, 12, 20, F_NOTHING, GBN, 0, GO_BACK, 1 },
		{ EXEC, 12, 0, 0, 0, 0, OPEN, 1 },
		{ HOLE, 13, 20, F_NAK, ONE, 0, RESEND_NAK, 1 },
		{ ACK, 13, 14, 0, 1, 1, OPEN, 2 },
		{ EXEC, 14, 0, 0, 0, 0, OPEN, 2 },
		/* Switched off: the count towards a retry stays. */
		{ HOLE, 14, 20, F_NAK | F_OFF, GBN, 0, GO_BACK, 2 },
		{ HOLE, 15, 20, F_NAK, GBN, 0, GO_BACK, 3 },
		STEPS_END,
	};

	run_script(s);
}

/* PSNs that wrap around 2^24. */
static void psn_wrap(void)
{
	static const struct step s[] = {
		{ HOLE, 0xfffffe, 5, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ EXEC, 0xfffffd, 0, 0, 0, 0, RESEND_NAK, 0 },
		{ ACK, 0xfffffd, 0xfffffe, 0, 0, 0, RESEND_NAK, 0 },
		{ ACK, 1, 2, 0, 1, 0, OPEN, 0 },
		{ HOLE, 2, 5, 0, ONE, 0, RESEND_ACK, 0 },
		{ END, 0, 0, 0, 0, 0, OPEN, 0 },
		{ HOLE, 0xffffff, 3, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ NAK, 0, 0, F_OUT, 1, 0, RESEND_NAK, 1 },
		{ EXEC, 0xffffff, 0, 0, 0, 0, OPEN, 1 },
		{ HOLE, 0, 3, F_NAK | F_NOTHING, GBN, 0, GO_BACK, 1 },
		{ EXEC, 0xffffff, 0, 0, 0, 0, GO_BACK, 1 },
		{ EXEC, 2, 0, 0, 0, 0, OPEN, 1 },
		STEPS_END,
	};

	run_script(s);
}

/* Timeouts and probes go back N from the oldest PSN: any repair ends. */
static void end_from_any(void)
{
	static const struct step s[] = {
		{ HOLE, 10, 20, F_NAK, ONE, 0, RESEND_NAK, 0 },
		{ END, 0, 0, 0, 0, 0, OPEN, 0 },
		{ ACK, 12, 13, 0, 0, 0, OPEN, 0 },
		{ HOLE, 13, 20, F_NAK | F_NOTHING, GBN, 0, GO_BACK, 0 },
		{ END, 0, 0, 0, 0, 0, OPEN, 0 },
		{ HOLE, 13, 20, F_NAK | F_NOTHING, GBN, 0, GO_BACK, 0 },
		STEPS_END,
	};

	run_script(s);
}

UNIT_MAIN(UNIT_CASE(peer_holds), UNIT_CASE(peer_drops),
	  UNIT_CASE(learns_and_retries), UNIT_CASE(same_hole_once),
	  UNIT_CASE(nak_after_resend), UNIT_CASE(resend_ack_not_learnt),
	  UNIT_CASE(ack_cases), UNIT_CASE(rnr_wait),
	  UNIT_CASE(no_resend_alone), UNIT_CASE(psn_wrap),
	  UNIT_CASE(end_from_any))
