/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory keys: the per-device table that turns an L_Key or R_Key into the
 * memory region or memory window it names, and the key operations of the
 * transport engines that work on either kind.
 *
 * Layout. key = index << 8 | key byte. The 24-bit index names a slot of the
 * table; regions and windows share one index space, so an R_Key that
 * arrives from the wire names exactly one object of either kind and the
 * responder needs no other hint. Index 0 is never used: a zeroed SGE or
 * WQE never names anything. Indexes are allocated cyclically, so a freed
 * index is handed out again only after the cursor went once round the
 * whole space; every wrap bumps the key byte given to new objects, so a
 * stale key matches a new object only after 256 wraps (2^32 allocations).
 * Objects that change their key later (fast-reg MRs, windows on bind) keep
 * the index and take a new key byte.
 *
 * Locking. The xarray's own lock serialises writers, which run in process
 * context only (the verbs that create and destroy objects). Readers look
 * up under RCU from any context; the entry is a tagged pointer whose tag
 * is the object's kind. An object is freed only after an RCU grace period
 * once unpublished (kfree_rcu), so a reader may always look at what it
 * found; whether it may keep it is the object's business (mr.h, mw.h).
 */
#ifndef SROCE_KEYS_H
#define SROCE_KEYS_H

#include <linux/types.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

enum sroce_key_kind {
	SROCE_KEY_MR = 0,	/* struct sroce_mr */
	SROCE_KEY_MW = 1,	/* struct sroce_mw; xarray pointer tag 1 */
};

struct sroce_key_table {
	/* index -> tagged object pointer; NULL while only reserved. */
	struct xarray xa;
	/* Allocation cursor and wrap count; under the xarray lock. */
	u32 next;
	u8 key_gen;
};

static inline u32 sroce_key_index(u32 key)
{
	return key >> 8;
}

void sroce_key_table_init(struct sroce_key_table *t);
void sroce_key_table_destroy(struct sroce_key_table *t);

/* Process context. Reserve a slot: its index and a first key for it. */
int sroce_key_reserve(struct sroce_key_table *t, u32 *index, u32 *key);
/* Make the object in slot @index visible to lookups (a release). */
int sroce_key_publish(struct sroce_key_table *t, u32 index, void *obj,
		      enum sroce_key_kind kind);
/* Unpublish, or undo a reservation. Readers may still hold the pointer. */
void sroce_key_erase(struct sroce_key_table *t, u32 index);

/*
 * Under rcu_read_lock(): the object in @key's slot, its kind in *@kind;
 * NULL if there is none. Only the index is looked at: the caller checks
 * the whole key against the object's.
 */
void *sroce_key_lookup_rcu(struct sroce_key_table *t, u32 key,
			   enum sroce_key_kind *kind);

struct sroce_mr;

/*
 * Responder: the memory behind [@va, @va + @len) of the R_Key @rkey, for
 * @access (one IB_ACCESS_REMOTE_* right), as seen by QP @qp: a region of
 * the QP's PD, or a window bound in that PD (and, for type 2, to that
 * QP). Returns the region with a reference (sroce_mr_put()) and in @iova
 * where the range starts in the region's address space; NULL if the key,
 * the rights or the range do not allow the access. Any context.
 */
struct sroce_mr *sroce_rkey_get(struct ib_qp *qp, u32 rkey, int access,
				u64 va, u64 len, u64 *iova);

/*
 * LOCAL_INV (@remote false) and SEND_WITH_INV (@remote true) on QP @qp:
 * the fast-reg region or type 2 window named by @key becomes invalid.
 * 0, or -EINVAL if @key names nothing that @qp may invalidate. Any
 * context.
 */
int sroce_key_invalidate(struct ib_qp *qp, u32 key, bool remote);

#endif /* SROCE_KEYS_H */
