// SPDX-License-Identifier: GPL-2.0
/*
 * Memory keys: the table shared by regions and windows, and the engines'
 * operations on a key of either kind. The rules are written down in
 * keys.h.
 */
#include "sroce.h"
#include "keys.h"
#include "mr.h"
#include "mw.h"

/* 24-bit index, 0 left out so that a zero key never names an object. */
#define SROCE_KEY_INDEX_LIMIT	XA_LIMIT(1, (1U << 24) - 1)

void sroce_key_table_init(struct sroce_key_table *t)
{
	xa_init_flags(&t->xa, XA_FLAGS_ALLOC);
	t->next = 1;
	t->key_gen = 0;
}

/*
 * The core destroys every user object, and kernel consumers must have
 * released theirs, before the device goes: an entry left here is a leak.
 */
void sroce_key_table_destroy(struct sroce_key_table *t)
{
	WARN_ON(!xa_empty(&t->xa));
	xa_destroy(&t->xa);
}

int sroce_key_reserve(struct sroce_key_table *t, u32 *index, u32 *key)
{
	int ret;

	/* A NULL entry reserves the index: xa_load() returns NULL for it. */
	xa_lock(&t->xa);
	ret = __xa_alloc_cyclic(&t->xa, index, NULL, SROCE_KEY_INDEX_LIMIT,
				&t->next, GFP_KERNEL);
	if (ret == 1)
		t->key_gen++;	/* the cursor wrapped: see keys.h */
	*key = *index << 8 | t->key_gen;
	xa_unlock(&t->xa);
	return ret < 0 ? ret : 0;
}

int sroce_key_publish(struct sroce_key_table *t, u32 index, void *obj,
		      enum sroce_key_kind kind)
{
	return xa_err(xa_store(&t->xa, index, xa_tag_pointer(obj, kind),
			       GFP_KERNEL));
}

void sroce_key_erase(struct sroce_key_table *t, u32 index)
{
	xa_erase(&t->xa, index);
}

void *sroce_key_lookup_rcu(struct sroce_key_table *t, u32 key,
			   enum sroce_key_kind *kind)
{
	void *entry = xa_load(&t->xa, sroce_key_index(key));

	*kind = xa_pointer_tag(entry);
	return xa_untag_pointer(entry);
}

struct sroce_mr *sroce_rkey_get(struct ib_qp *qp, u32 rkey, int access,
				u64 va, u64 len, u64 *iova)
{
	struct sroce_key_table *t = &to_sroce_dev(qp->device)->keys;
	struct sroce_mr *mr = NULL;
	enum sroce_key_kind kind;
	void *obj;

	*iova = va;
	rcu_read_lock();
	obj = sroce_key_lookup_rcu(t, rkey, &kind);
	if (obj && kind == SROCE_KEY_MR)
		mr = sroce_mr_get_rcu(obj, rkey, qp->pd, access, va, len);
	else if (obj && kind == SROCE_KEY_MW)
		mr = sroce_mw_get_mr_rcu(obj, rkey, qp, access, va, len, iova);
	rcu_read_unlock();
	return mr;
}

int sroce_key_invalidate(struct ib_qp *qp, u32 key, bool remote)
{
	struct sroce_key_table *t = &to_sroce_dev(qp->device)->keys;
	enum sroce_key_kind kind;
	int ret = -EINVAL;
	void *obj;

	rcu_read_lock();
	obj = sroce_key_lookup_rcu(t, key, &kind);
	if (obj && kind == SROCE_KEY_MR)
		ret = sroce_mr_invalidate(obj, key, qp->pd);
	else if (obj && kind == SROCE_KEY_MW)
		ret = sroce_mw_invalidate(obj, key, qp, remote);
	rcu_read_unlock();
	return ret;
}
