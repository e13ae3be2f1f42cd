// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows: creation, binding, invalidation and the translation of
 * a remote access through a window into an access to its region. Types,
 * lifetime and locking are written down in mw.h.
 */
#include <linux/slab.h>

#include "sroce.h"
#include "keys.h"
#include "limits.h"
#include "mr.h"
#include "mw.h"

#define SROCE_MW_RIGHTS		(IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

/* --- creation and destruction ----------------------------------------- */

/* A free window with a first key, published. Counts against SROCE_MAX_MW. */
struct sroce_mw *sroce_mw_create(struct sroce_dev *sdev, struct ib_pd *pd,
				 enum ib_mw_type type)
{
	struct sroce_mw *mw;
	int ret;

	if (atomic_inc_return(&sdev->num_mw) > SROCE_MAX_MW) {
		ret = -ENOMEM;
		goto err_count;
	}
	/* Only user space allocates windows (uverbs): charge it. */
	mw = kzalloc(sizeof(*mw), sroce_obj_gfp(true));
	if (!mw) {
		ret = -ENOMEM;
		goto err_count;
	}
	mw->sdev = sdev;
	mw->pd = pd;
	mw->type = type;
	seqlock_init(&mw->lock);
	mw->state = SROCE_MW_FREE;

	ret = sroce_key_reserve(&sdev->keys, &mw->index, &mw->rkey);
	if (ret)
		goto err_free;
	ret = sroce_key_publish(&sdev->keys, mw->index, mw, SROCE_KEY_MW);
	if (ret) {
		sroce_key_erase(&sdev->keys, mw->index);
		goto err_free;
	}
	return mw;

err_free:
	kfree(mw);
err_count:
	atomic_dec(&sdev->num_mw);
	return ERR_PTR(ret);
}

/* Under @lock: no access through the window any more. */
static void sroce_mw_unbind_locked(struct sroce_mw *mw)
{
	if (mw->state == SROCE_MW_BOUND)
		sroce_mr_unbind_window(mw->mr);
	mw->state = SROCE_MW_FREE;
	mw->mr = NULL;
	mw->mr_key = 0;
	mw->access = 0;
	mw->length = 0;
}

/*
 * dealloc_mw, bound or not: the region is let go at once, and the memory
 * follows after a grace period (engines may be looking at it under RCU).
 */
void sroce_mw_destroy(struct sroce_mw *mw)
{
	struct sroce_dev *sdev = mw->sdev;
	unsigned long flags;

	write_seqlock_irqsave(&mw->lock, flags);
	sroce_mw_unbind_locked(mw);
	mw->state = SROCE_MW_DEAD;
	write_sequnlock_irqrestore(&mw->lock, flags);

	sroce_key_erase(&sdev->keys, mw->index);
	atomic_dec(&sdev->num_mw);
	kfree_rcu(mw, rcu);
}

/* --- bind ---------------------------------------------------------------- */

/*
 * Under @lock: the rules that depend on the window's state, then the new
 * binding. @mr (NULL: a type 1 unbind) is referenced by the caller and
 * was checked against the request.
 */
static int sroce_mw_bind_locked(struct sroce_mw *mw, struct ib_qp *qp,
				const struct rxe_send_wr *wr,
				struct sroce_mr *mr)
{
	int access = wr->wr.mw.access;

	if (mw->state == SROCE_MW_DEAD)
		return -EINVAL;
	if (mw->type == IB_MW_TYPE_1) {
		/*
		 * Named by its current R_Key (librxe keeps it in step) and
		 * addressed by virtual address only (o10-36.2.2).
		 */
		if (wr->wr.mw.mw_rkey != mw->rkey || (access & IB_ZERO_BASED))
			return -EINVAL;
	} else if (mw->state != SROCE_MW_FREE || !mr) {
		/*
		 * A type 2 window is bound only while free, and never to
		 * nothing: invalidation is what frees it. It is named by its
		 * index alone: the key byte is the consumer's to choose on
		 * every bind, and libibverbs does not track it in the handle.
		 */
		return -EINVAL;
	}

	/* Fails if the region was deregistered since the lookup. */
	if (mr && sroce_mr_bind_window(mr, wr->wr.mw.mr_lkey))
		return -EINVAL;
	/* A type 1 window may be bound again at once: leave the old region. */
	sroce_mw_unbind_locked(mw);

	mw->rkey = wr->wr.mw.rkey;
	if (!mr)
		return 0;
	mw->state = SROCE_MW_BOUND;
	mw->access = access & SROCE_MW_RIGHTS;
	mw->zero_based = access & IB_ZERO_BASED;
	mw->addr = wr->wr.mw.addr;
	mw->length = wr->wr.mw.length;
	mw->mr = mr;
	mw->mr_key = wr->wr.mw.mr_lkey;
	mw->qpn = qp->qp_num;
	return 0;
}

enum ib_wc_status sroce_mw_bind(struct ib_qp *qp,
				const struct rxe_send_wr *wr)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->device);
	u32 mw_rkey = wr->wr.mw.mw_rkey;
	int access = wr->wr.mw.access;
	struct sroce_mr *mr = NULL;
	enum sroce_key_kind kind;
	struct sroce_mw *mw;
	unsigned long flags;
	int ret = -EINVAL;

	/*
	 * Remote rights and the addressing mode are all a window has; local
	 * write and the optional hints mean nothing for it and are ignored.
	 */
	if (access & ~(SROCE_MW_RIGHTS | IB_ZERO_BASED |
		       IB_ACCESS_LOCAL_WRITE | IB_ACCESS_OPTIONAL))
		return IB_WC_MW_BIND_ERR;
	/* The new key names the same window: only its key byte is new. */
	if (sroce_key_index(wr->wr.mw.rkey) != sroce_key_index(mw_rkey))
		return IB_WC_MW_BIND_ERR;

	rcu_read_lock();
	mw = sroce_key_lookup_rcu(&sdev->keys, mw_rkey, &kind);
	/*
	 * The window, the QP and the region share one PD (C10-72 for type
	 * 2; for type 1 too, or a QP could expose another PD's memory).
	 */
	if (!mw || kind != SROCE_KEY_MW || mw->pd != qp->pd)
		goto out;
	if (wr->wr.mw.length) {
		enum ib_wc_status status;
		int need = IB_ACCESS_MW_BIND;		/* C10-73 */

		/* C10-74: writes through the window write the region. */
		if (access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC))
			need |= IB_ACCESS_LOCAL_WRITE;
		/* Also checks the window lies inside the region (C10-75). */
		mr = sroce_mr_get(sdev, wr->wr.mw.mr_lkey, mw->pd, need,
				  wr->wr.mw.addr, wr->wr.mw.length, &status);
		if (!mr)
			goto out;
	}
	write_seqlock_irqsave(&mw->lock, flags);
	ret = sroce_mw_bind_locked(mw, qp, wr, mr);
	write_sequnlock_irqrestore(&mw->lock, flags);
	if (mr)
		sroce_mr_put(mr);
out:
	rcu_read_unlock();
	return ret ? IB_WC_MW_BIND_ERR : IB_WC_SUCCESS;
}

/* --- invalidation and remote access -------------------------------------- */

int sroce_mw_invalidate(struct sroce_mw *mw, u32 rkey, struct ib_qp *qp,
			bool remote)
{
	unsigned long flags;
	int ret = -EINVAL;

	write_seqlock_irqsave(&mw->lock, flags);
	/*
	 * Only type 2 windows are invalidated: locally by a QP of their PD,
	 * remotely only through the QP they are bound to.
	 */
	if (mw->type == IB_MW_TYPE_2 && mw->state == SROCE_MW_BOUND &&
	    mw->rkey == rkey && mw->pd == qp->pd &&
	    (!remote || mw->qpn == qp->qp_num)) {
		sroce_mw_unbind_locked(mw);
		ret = 0;
	}
	write_sequnlock_irqrestore(&mw->lock, flags);
	return ret;
}

struct sroce_mr *sroce_mw_get_mr_rcu(struct sroce_mw *mw, u32 rkey,
				     struct ib_qp *qp, int access, u64 va,
				     u64 len, u64 *iova)
{
	struct sroce_mr *mr;
	unsigned int seq;
	u64 base, at;
	u32 mr_key;
	bool ok;

	do {
		seq = read_seqbegin(&mw->lock);
		base = mw->zero_based ? 0 : mw->addr;
		ok = mw->state == SROCE_MW_BOUND && mw->rkey == rkey &&
		     mw->pd == qp->pd &&
		     (mw->type == IB_MW_TYPE_1 || mw->qpn == qp->qp_num) &&
		     !(access & ~mw->access) &&
		     sroce_range_ok(base, mw->length, va, len);
		mr = mw->mr;
		mr_key = mw->mr_key;
		at = mw->addr + (va - base);
	} while (read_seqretry(&mw->lock, seq));
	if (!ok)
		return NULL;

	/*
	 * Still bound when we looked, so @mr is not freed before our RCU
	 * read section ends; the reference we take now keeps its pages. The
	 * window's rights were checked: the region only has to be the same
	 * valid registration.
	 */
	*iova = at;
	return sroce_mr_get_rcu(mr, mr_key, NULL, 0, at, len);
}
