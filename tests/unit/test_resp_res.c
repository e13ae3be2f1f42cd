// SPDX-License-Identifier: GPL-2.0
/*
 * Responder resources (sroce/resp_res.h): scripted reads, atomics and
 * their duplicates against a small ring, with the responses each must
 * make the responder send, in order.
 */
#include <stdio.h>

#include <sroce/psn.h>
#include <sroce/resp_res.h>
#include "unit.h"

#define MTU		1024
#define MAX_LEN		(1U << 31)
#define SLOTS		4
#define VA		0x10000ull
#define RKEY		0x55

enum ev {
	READ,		/* a new read: psn, len (from VA, RKEY) */
	ATOMIC,		/* a new atomic: psn, orig = len */
	DUP_READ,	/* a duplicate read: psn, len, va offset, rkey */
	DUP_ATOMIC,	/* a duplicate atomic: psn */
	SEND,		/* the responder sends up to n = psn responses */
	STOP,
};

struct step {
	enum ev ev;
	u32 psn;
	u64 len;
	u64 va_off;		/* DUP_READ: va = VA + va_off */
	u32 rkey;		/* DUP_READ: 0 means RKEY */
	int want;		/* READ, ATOMIC: 1 = a slot, 0 = refused */
	const char *sent;	/* SEND: "psn@offset ..." expected; "p" marks
				 * the response that ended a patch */
};

struct script {
	struct sroce_resp_res slot[SLOTS];
	struct sroce_rres_ring ring;
	char out[160];
};

/* What the responder's send loop does, oldest resource first. */
static void send_responses(struct script *sc, u32 budget)
{
	struct sroce_rres_ring *ring = &sc->ring;
	size_t n = 0;
	u32 i;

	sc->out[0] = 0;
	for (i = 0; i < ring->slots && ring->pending; i++) {
		struct sroce_resp_res *res =
			&ring->res[(ring->next + i) % ring->slots];

		while (res->pending && budget) {
			struct sroce_resp_cursor *c = sroce_rres_cursor(res);
			u32 left = c->length - c->offset;
			u32 payload = res->atomic ? 0 : (left < MTU ? left : MTU);
			bool last = res->atomic || payload == left;
			bool patch_end;
			u32 psn = c->psn;
			u64 at = res->atomic ? res->orig : c->va + c->offset;

			patch_end = sroce_rres_sent(ring, res, payload, last);
			n += snprintf(sc->out + n, sizeof(sc->out) - n,
				      "%s%x@%llx%s", n ? " " : "", psn,
				      (unsigned long long)(res->atomic ? at :
							   at - VA),
				      patch_end ? "p" : "");
			budget--;
		}
	}
}

static void run_script(const struct step *steps, struct script *sc)
{
	const struct step *s;
	int n;

	memset(sc, 0, sizeof(*sc));
	sc->ring.res = sc->slot;
	sc->ring.slots = SLOTS;
	sroce_rres_reset(&sc->ring);
	for (n = 0, s = steps; s->ev != STOP; s++, n++) {
		struct sroce_resp_res *res;
		struct sroce_rres_again again;

		switch (s->ev) {
		case READ:
		case ATOMIC:
			/* The responder asks first, then executes, then takes. */
			if (sroce_rres_has_room(&sc->ring) != s->want)
				UNIT_FAIL("step %d: has_room %d, want %d", n,
					  sroce_rres_has_room(&sc->ring),
					  s->want);
			res = sroce_rres_new(&sc->ring);
			if (!!res != s->want)
				UNIT_FAIL("step %d: slot %p, want %d", n,
					  (void *)res, s->want);
			if (res && s->ev == READ)
				sroce_rres_start_read(&sc->ring, res, MTU,
						      s->psn, VA, s->len,
						      RKEY);
			else if (res)
				sroce_rres_start_atomic(&sc->ring, res, s->psn,
							s->len);
			break;
		case DUP_READ:
			res = sroce_rres_find(&sc->ring, s->psn, false);
			if (res && sroce_rres_read_again(res, MTU, MAX_LEN,
					s->psn, VA + s->va_off, s->len,
					s->rkey ? s->rkey : RKEY, &again))
				sroce_rres_replay_read(&sc->ring, res, &again,
						       s->rkey ? s->rkey : RKEY);
			break;
		case DUP_ATOMIC:
			res = sroce_rres_find(&sc->ring, s->psn, true);
			if (res)
				sroce_rres_replay_atomic(&sc->ring, res);
			break;
		case SEND:
			send_responses(sc, s->psn);
			if (strcmp(sc->out, s->sent))
				UNIT_FAIL("step %d: sent \"%s\", want \"%s\"",
					  n, sc->out, s->sent);
			break;
		case STOP:
			break;
		}
	}
}

#define END		{ .ev = STOP }
#define DUP(p, l, off) \
	{ .ev = DUP_READ, .psn = (p), .len = (l), .va_off = (off) }
#define DUPK(p, l, off, k) \
	{ .ev = DUP_READ, .psn = (p), .len = (l), .va_off = (off), .rkey = (k) }
#define DUPA(p)		{ .ev = DUP_ATOMIC, .psn = (p) }

static void read_in_order(void)
{
	static const struct step s[] = {
		{ READ, 0x100, 4 * MTU, .want = 1 },
		{ SEND, 2, .sent = "100@0 101@400" },
		{ SEND, 9, .sent = "102@800 103@c00" },
		{ SEND, 9, .sent = "" },
		END,
	};
	struct script sc;

	CALL(run_script(s, &sc));
	CHECK_EQ(sc.ring.pending, 0);
	CHECK(sc.slot[0].answered && !sc.slot[0].pending);
	CHECK_EQ(sc.slot[0].last_psn, 0x103);
}

/* A lost run behind what was sent goes first, then the read goes on. */
static void patch_then_resume(void)
{
	static const struct step s[] = {
		{ READ, 0x100, 8 * MTU, .want = 1 },
		{ SEND, 5, .sent = "100@0 101@400 102@800 103@c00 104@1000" },
		DUP(0x102, MTU, 2 * MTU),
		{ SEND, 9, .sent = "102@800p 105@1400 106@1800 107@1c00" },
		END,
	};
	struct script sc;

	CALL(run_script(s, &sc));
	CHECK_EQ(sc.ring.pending, 0);
}

/*
 * A late duplicate of an older repeat does not cut the patch under way
 * short: it restarts the read from its PSN, to the end, instead.
 */
static void late_repeat_restarts(void)
{
	static const struct step s[] = {
		{ READ, 0x100, 8 * MTU, .want = 1 },
		{ SEND, 6, .sent = "100@0 101@400 102@800 103@c00 104@1000 "
				   "105@1400" },
		DUP(0x101, 3 * MTU, 1 * MTU),
		{ SEND, 1, .sent = "101@400" },
		/* The patch still owes 102 and 103; this asks for 102. */
		DUP(0x102, MTU, 2 * MTU),
		{ SEND, 9, .sent = "102@800 103@c00 104@1000 105@1400 "
				   "106@1800 107@1c00" },
		END,
	};
	struct script sc;

	run_script(s, &sc);
}

/* A repeat that covers what the patch under way owes replaces it. */
static void covering_patch_replaces(void)
{
	static const struct step s[] = {
		{ READ, 0x100, 8 * MTU, .want = 1 },
		{ SEND, 6, .sent = "100@0 101@400 102@800 103@c00 104@1000 "
				   "105@1400" },
		DUP(0x102, 2 * MTU, 2 * MTU),
		{ SEND, 1, .sent = "102@800" },
		DUP(0x101, 3 * MTU, 1 * MTU),
		{ SEND, 9, .sent = "101@400 102@800 103@c00p 106@1800 "
				   "107@1c00" },
		END,
	};
	struct script sc;

	run_script(s, &sc);
}

/* Once answered, a repeat is served as asked; never past the read. */
static void repeat_after_answered(void)
{
	static const struct step s[] = {
		{ READ, 0x100, 4 * MTU, .want = 1 },
		{ SEND, 9, .sent = "100@0 101@400 102@800 103@c00" },
		DUP(0x101, 2 * MTU, 1 * MTU),
		{ SEND, 9, .sent = "101@400 102@800" },
		/* 0x102..0x105: past the read's last PSN. */
		DUP(0x102, 4 * MTU, 2 * MTU),
		{ SEND, 9, .sent = "" },
		/* Not a PSN of the read at all. */
		DUP(0x104, MTU, 4 * MTU),
		{ SEND, 9, .sent = "" },
		/* Longer than any message. */
		DUP(0x100, 1ull << 32, 0),
		{ SEND, 9, .sent = "" },
		END,
	};
	struct script sc;

	run_script(s, &sc);
}

/*
 * While sending, a repeat from inside the read runs to the end of what
 * was being sent, so as not to cut it off; with another rkey it is a
 * different request and runs as asked.
 */
static void repeat_while_sending(void)
{
	static const struct step s[] = {
		{ READ, 0x100, 8 * MTU, .want = 1 },
		{ SEND, 2, .sent = "100@0 101@400" },
		DUP(0x101, 2 * MTU, 1 * MTU),
		{ SEND, 9, .sent = "101@400 102@800 103@c00 104@1000 "
				   "105@1400 106@1800 107@1c00" },
		{ READ, 0x200, 8 * MTU, .want = 1 },
		{ SEND, 2, .sent = "200@0 201@400" },
		DUPK(0x201, MTU, 1 * MTU, 0x66),
		{ SEND, 9, .sent = "201@400" },
		END,
	};
	struct script sc;

	CALL(run_script(s, &sc));
	CHECK_EQ(sc.slot[1].rkey, 0x66);
}

/*
 * The slot of a new request still sending a replay that nobody waits for
 * is taken; one still sending its first responses means too many.
 */
static void slot_reuse(void)
{
	static const struct step s[] = {
		{ READ, 0x10, MTU, .want = 1 },
		{ READ, 0x11, MTU, .want = 1 },
		{ READ, 0x12, MTU, .want = 1 },
		{ ATOMIC, 0x13, 7, .want = 1 },
		{ READ, 0x14, MTU, .want = 0 },
		{ SEND, 9, .sent = "10@0 11@0 12@0 13@7" },
		DUP(0x10, MTU, 0),
		DUPA(0x13),
		/* Slot 0 holds a replay of 0x10: dropped for the new one. */
		{ READ, 0x14, 2 * MTU, .want = 1 },
		{ SEND, 1, .sent = "13@7" },
		{ SEND, 9, .sent = "14@0 15@400" },
		/* 0x10 is gone with its slot. */
		DUP(0x10, MTU, 0),
		{ SEND, 9, .sent = "" },
		END,
	};
	struct script sc;

	CALL(run_script(s, &sc));
	CHECK_EQ(sc.ring.pending, 0);
	CHECK_EQ(sc.ring.next, 1);
}

static void atomic_replay(void)
{
	static const struct step s[] = {
		{ ATOMIC, 0x200, 0x1234, .want = 1 },
		{ SEND, 9, .sent = "200@1234" },
		DUPA(0x200),
		DUPA(0x200),
		{ SEND, 9, .sent = "200@1234" },
		DUPA(0x201),
		/* A read at an atomic's PSN finds nothing. */
		DUP(0x200, 8, 0),
		{ SEND, 9, .sent = "" },
		END,
	};
	struct script sc;

	run_script(s, &sc);
}

/* A zero-length read is one response; PSNs wrap at 2^24. */
static void zero_length_and_wrap(void)
{
	static const struct step s[] = {
		{ READ, 0xfffffe, 4 * MTU, .want = 1 },
		{ READ, 0x000002, 0, .want = 1 },
		{ SEND, 3, .sent = "fffffe@0 ffffff@400 0@800" },
		DUP(0xffffff, MTU, 1 * MTU),
		{ SEND, 9, .sent = "ffffff@400p 1@c00 2@0" },
		END,
	};
	struct script sc;

	CALL(run_script(s, &sc));
	CHECK_EQ(sc.slot[0].last_psn, 0x000001);
	CHECK_EQ(sc.slot[1].last_psn, 0x000002);
	CHECK_EQ(sroce_rres_read_last(MTU, 0xffffff, 1), 0xffffff);
	CHECK_EQ(sroce_rres_read_last(MTU, 0xffffff, MTU + 1), 0);
}

/* A read whose region went away sends nothing more. */
static void abort_read(void)
{
	struct script sc;
	static const struct step s[] = {
		{ READ, 0x100, 4 * MTU, .want = 1 },
		{ READ, 0x104, MTU, .want = 1 },
		END,
	};

	CALL(run_script(s, &sc));
	CHECK_EQ(sc.ring.pending, 2);
	sroce_rres_abort(&sc.ring, &sc.slot[0]);
	CHECK_EQ(sc.ring.pending, 1);
	send_responses(&sc, 9);
	CHECK(!strcmp(sc.out, "104@0"));
}

UNIT_MAIN(UNIT_CASE(read_in_order), UNIT_CASE(patch_then_resume),
	  UNIT_CASE(late_repeat_restarts), UNIT_CASE(covering_patch_replaces),
	  UNIT_CASE(repeat_after_answered), UNIT_CASE(repeat_while_sending),
	  UNIT_CASE(slot_reuse), UNIT_CASE(atomic_replay),
	  UNIT_CASE(zero_length_and_wrap), UNIT_CASE(abort_read))
