/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Responder resources (IBTA 9.5): the ring of reads and atomics an RC
 * responder has executed, kept to send their responses and to answer
 * duplicates of them (resp_res.c). Pure C, shared by the module
 * (responder.c) and the unit tests (tests/unit/test_resp_res.c).
 *
 * A resource is "used" once it holds a request, "pending" while it has
 * responses to send, "answered" once all of them went out once. A
 * duplicate of a read asks for some of its responses again:
 *
 *   - while the read is still being sent, a run that lies wholly behind
 *     the responses sent so far is a "patch": sent first, then the read
 *     goes on where it was (the requester placed what came and lacks
 *     only that run). A patch replaces one under way only if it covers
 *     what that one still has to send: a late duplicate of an older
 *     repeat must not cut it short.
 *   - any other repeat replaces what was being sent and runs on to the
 *     end of what was being sent, so as not to cut that off; once the
 *     read was answered, it runs as asked.
 *   - nothing beyond the read's own PSNs is ever sent.
 *
 * A duplicate atomic is answered again from its saved result.
 *
 * Slots are taken in ring order. The requester starts a new read or
 * atomic only once it has retired its oldest one, the one in the next
 * slot: if that slot is still pending, what it queues is a replay for a
 * duplicate that nobody waits for any more once it was answered, and it
 * is dropped; a slot not yet answered means the requester has more
 * outstanding than we have resources, an invalid request.
 *
 * Context: the QP's receive engine, under rcv.lock. Only resp_res.c
 * writes a ring and its resources.
 */
#ifndef _SROCE_RESP_RES_H
#define _SROCE_RESP_RES_H

#include <sroce/wire_types.h>

/* Where a read's responses are sent from: one execution of a request. */
struct sroce_resp_cursor {
	u64 va;
	u32 psn;		/* next response PSN to send */
	u32 length;
	u32 offset;		/* bytes already sent */
};

/*
 * 64 bytes, so that a QP's SROCE_MAX_RD_ATOMIC of them fit one 8 KiB
 * allocation.
 */
struct sroce_resp_res {
	u32 first_psn;
	u32 last_psn;
	u32 rkey;
	/* Bits, so that the resource stays 64 bytes. */
	u8 atomic:1;
	u8 used:1;		/* holds a request (for duplicates) */
	u8 pending:1;		/* responses still to send */
	u8 answered:1;		/* all sent once; kept for duplicates */
	u8 patch_on:1;		/* reads: @patch goes before the rest of @cur */
	struct sroce_resp_cursor cur;
	union {
		struct sroce_resp_cursor patch;		/* reads */
		u64 orig;	/* atomics: the value before the operation */
	};
};
_Static_assert(sizeof(struct sroce_resp_res) <= 64, "resource too large");

struct sroce_rres_ring {
	struct sroce_resp_res *res;	/* @slots entries */
	u32 slots;
	u32 next;		/* slot of the next new resource */
	u32 pending;		/* resources with responses to send */
};

/* What a duplicate read asks to be sent again (sroce_rres_read_again()). */
struct sroce_rres_again {
	u32 psn;
	u64 va;
	u64 len;
	bool patch;
};

/* The PSN of the last response to a read of @len bytes from @psn. */
u32 sroce_rres_read_last(u32 mtu, u32 psn, u64 len);

void sroce_rres_reset(struct sroce_rres_ring *ring);
struct sroce_resp_res *sroce_rres_new(struct sroce_rres_ring *ring);
/* Whether sroce_rres_new() would find a slot; changes nothing. */
bool sroce_rres_has_room(const struct sroce_rres_ring *ring);
void sroce_rres_start_read(struct sroce_rres_ring *ring,
			   struct sroce_resp_res *res, u32 mtu, u32 psn,
			   u64 va, u32 len, u32 rkey);
void sroce_rres_start_atomic(struct sroce_rres_ring *ring,
			     struct sroce_resp_res *res, u32 psn, u64 orig);
struct sroce_resp_res *sroce_rres_find(const struct sroce_rres_ring *ring,
				       u32 psn, bool atomic);
bool sroce_rres_read_again(const struct sroce_resp_res *res, u32 mtu,
			   u32 max_len, u32 psn, u64 va, u64 len, u32 rkey,
			   struct sroce_rres_again *again);
void sroce_rres_replay_read(struct sroce_rres_ring *ring,
			    struct sroce_resp_res *res,
			    const struct sroce_rres_again *again, u32 rkey);
void sroce_rres_replay_atomic(struct sroce_rres_ring *ring,
			      struct sroce_resp_res *res);
bool sroce_rres_sent(struct sroce_rres_ring *ring, struct sroce_resp_res *res,
		     u32 payload, bool last);
void sroce_rres_abort(struct sroce_rres_ring *ring,
		      struct sroce_resp_res *res);

/* The cursor the next response of @res is sent from. */
static inline struct sroce_resp_cursor *
sroce_rres_cursor(struct sroce_resp_res *res)
{
	return res->patch_on ? &res->patch : &res->cur;
}

#endif /* _SROCE_RESP_RES_H */
