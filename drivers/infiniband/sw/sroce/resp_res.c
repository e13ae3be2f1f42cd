// SPDX-License-Identifier: GPL-2.0
/*
 * Responder resources: the ring of sroce/resp_res.h, whose comment says
 * what a duplicate read or atomic gets. Pure C: built into the module
 * and into the unit tests.
 */
#include <sroce/psn.h>
#include <sroce/resp_res.h>

u32 sroce_rres_read_last(u32 mtu, u32 psn, u64 len)
{
	u64 npkts = len ? (len + mtu - 1) / mtu : 1;

	return sroce_psn_add(psn, (u32)npkts - 1);
}

/* Every slot free, from slot 0 on (entering RTR). */
void sroce_rres_reset(struct sroce_rres_ring *ring)
{
	if (ring->res)
		memset(ring->res, 0, ring->slots * sizeof(*ring->res));
	ring->next = 0;
	ring->pending = 0;
}

bool sroce_rres_has_room(const struct sroce_rres_ring *ring)
{
	const struct sroce_resp_res *res = &ring->res[ring->next];

	return !res->pending || res->answered;
}

/* The slot for a new read or atomic, or NULL: too many outstanding. */
struct sroce_resp_res *sroce_rres_new(struct sroce_rres_ring *ring)
{
	struct sroce_resp_res *res = &ring->res[ring->next];

	if (!sroce_rres_has_room(ring))
		return NULL;
	if (res->pending) {
		/* A replay for a duplicate, which nobody waits for. */
		res->pending = 0;
		ring->pending--;
	}
	ring->next = (ring->next + 1) % ring->slots;
	memset(res, 0, sizeof(*res));
	res->used = 1;
	return res;
}

static void sroce_rres_queue(struct sroce_rres_ring *ring,
			     struct sroce_resp_res *res)
{
	if (!res->pending) {
		res->pending = 1;
		ring->pending++;
	}
}

/* A new read of @len bytes at @va, its first response at @psn. */
void sroce_rres_start_read(struct sroce_rres_ring *ring,
			   struct sroce_resp_res *res, u32 mtu, u32 psn,
			   u64 va, u32 len, u32 rkey)
{
	res->first_psn = psn;
	res->last_psn = sroce_rres_read_last(mtu, psn, len);
	res->cur.psn = psn;
	res->cur.va = va;
	res->cur.length = len;
	res->rkey = rkey;
	sroce_rres_queue(ring, res);
}

/* A new atomic at @psn, executed: @orig was in memory before. */
void sroce_rres_start_atomic(struct sroce_rres_ring *ring,
			     struct sroce_resp_res *res, u32 psn, u64 orig)
{
	res->atomic = 1;
	res->first_psn = psn;
	res->last_psn = psn;
	res->cur.psn = psn;
	res->orig = orig;
	sroce_rres_queue(ring, res);
}

/* The resource holding @psn (a read's response range, an atomic's PSN). */
struct sroce_resp_res *sroce_rres_find(const struct sroce_rres_ring *ring,
				       u32 psn, bool atomic)
{
	u32 i;

	for (i = 0; i < ring->slots; i++) {
		struct sroce_resp_res *res = &ring->res[i];

		if (res->used && res->atomic == atomic &&
		    sroce_psn_after_eq(psn, res->first_psn) &&
		    sroce_psn_before_eq(psn, res->last_psn))
			return res;
	}
	return NULL;
}

/*
 * Whether a patch for [@psn, @last] may replace the one under way: only
 * if it covers what that one has still to send.
 */
static bool sroce_rres_patch_covers(const struct sroce_resp_res *res,
				    u32 mtu, u32 psn, u32 last)
{
	const struct sroce_resp_cursor *p = &res->patch;

	if (!res->patch_on)
		return true;
	return sroce_psn_before_eq(psn, p->psn) &&
	       sroce_psn_after_eq(last, sroce_rres_read_last(mtu, p->psn,
						p->length - p->offset));
}

/*
 * A duplicate READ request for @len bytes at @va from @psn, of the read
 * of @res: what to send again, in *@again, or false if nothing (a request
 * longer than @max_len, or reaching past the read). The caller checks
 * the rkey for the range in *@again, then replays it.
 */
bool sroce_rres_read_again(const struct sroce_resp_res *res, u32 mtu,
			   u32 max_len, u32 psn, u64 va, u64 len, u32 rkey,
			   struct sroce_rres_again *again)
{
	const struct sroce_resp_cursor *c = &res->cur;
	bool sending = res->pending && rkey == res->rkey;
	u32 last;

	if (len > max_len)
		return false;
	again->patch = false;
	last = sroce_rres_read_last(mtu, psn, len);
	if (sending && sroce_psn_before(last, c->psn) &&
	    sroce_rres_patch_covers(res, mtu, psn, last)) {
		again->patch = true;
	} else if (sending && c->va + c->length > va + len) {
		len = c->va + c->length - va;
		if (len > max_len)
			return false;
		last = sroce_rres_read_last(mtu, psn, len);
	}
	if (sroce_psn_after(last, res->last_psn))
		return false;
	again->psn = psn;
	again->va = va;
	again->len = len;
	return true;
}

void sroce_rres_replay_read(struct sroce_rres_ring *ring,
			    struct sroce_resp_res *res,
			    const struct sroce_rres_again *again, u32 rkey)
{
	struct sroce_resp_cursor *c = again->patch ? &res->patch : &res->cur;

	res->patch_on = again->patch;
	c->psn = again->psn;
	c->va = again->va;
	c->length = again->len;
	c->offset = 0;
	res->rkey = rkey;
	sroce_rres_queue(ring, res);
}

/*
 * A duplicate atomic: its saved result again, with the request's PSN
 * (sending the acknowledgement moved the cursor past it).
 */
void sroce_rres_replay_atomic(struct sroce_rres_ring *ring,
			      struct sroce_resp_res *res)
{
	res->cur.psn = res->first_psn;
	sroce_rres_queue(ring, res);
}

/*
 * A response of @payload bytes went out from the cursor; @last: the
 * cursor's last. Returns true if that ended a patch (the read goes on
 * where it was).
 */
bool sroce_rres_sent(struct sroce_rres_ring *ring, struct sroce_resp_res *res,
		     u32 payload, bool last)
{
	struct sroce_resp_cursor *c = sroce_rres_cursor(res);

	c->psn = sroce_psn_add(c->psn, 1);
	c->offset += payload;
	if (!last)
		return false;
	if (res->patch_on) {
		res->patch_on = 0;
		return true;
	}
	res->pending = 0;
	res->answered = 1;
	ring->pending--;
	return false;
}

/* Its responses cannot be sent (the region went away): none are. */
void sroce_rres_abort(struct sroce_rres_ring *ring,
		      struct sroce_resp_res *res)
{
	res->pending = 0;
	ring->pending--;
}
