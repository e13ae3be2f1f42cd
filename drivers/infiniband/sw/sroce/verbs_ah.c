// SPDX-License-Identifier: GPL-2.0
/* Address handle verbs; numbering and lifetime are described in ah.h. */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "sroce.h"
#include "limits.h"
#include "ah.h"

/*
 * What ah_xa points at: immutable once published, freed a grace period
 * after its number is erased.
 */
struct sroce_ah_entry {
	struct sroce_av av;
	const struct ib_pd *pd;
	struct rcu_head rcu;
};

int sroce_ah_lookup_av(struct sroce_dev *sdev, u32 ah_num,
		       const struct ib_pd *pd, struct sroce_av *out)
{
	struct sroce_ah_entry *entry;
	int err = -EINVAL;

	rcu_read_lock();
	entry = xa_load(&sdev->ah_xa, ah_num);
	if (entry && entry->pd == pd) {
		*out = entry->av;
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/*
 * Publishes @ah under a fresh number. Visible to lookups on return, so
 * the entry is complete before it is stored.
 */
static int sroce_ah_add_number(struct sroce_dev *sdev, struct sroce_ah *ah,
			       gfp_t gfp)
{
	struct sroce_ah_entry *entry;
	int err;

	entry = kmalloc(sizeof(*entry), gfp);
	if (!entry)
		return -ENOMEM;
	entry->av = ah->av;
	entry->pd = ah->ib_ah.pd;
	err = xa_alloc_cyclic(&sdev->ah_xa, &ah->ah_num, entry,
			      XA_LIMIT(1, SROCE_AH_NUM_MAX), &sdev->next_ah,
			      gfp);
	if (err < 0) {
		kfree(entry);
		return err == -EBUSY ? -ENOMEM : err;
	}
	return 0;
}

static void sroce_ah_del_number(struct sroce_dev *sdev, struct sroce_ah *ah)
{
	struct sroce_ah_entry *entry;

	entry = xa_erase(&sdev->ah_xa, ah->ah_num);
	/* A lookup may still be copying from it: no sleeping, no waiting. */
	if (!WARN_ON(!entry))
		kfree_rcu(entry, rcu);
	ah->ah_num = 0;
}

/*
 * Both create_ah (kernel, udata NULL) and create_user_ah. Kernel callers
 * may be atomic: without RDMA_CREATE_AH_SLEEPABLE nothing here sleeps.
 */
static int sroce_create_ah(struct ib_ah *ib_ah,
			   struct rdma_ah_init_attr *init_attr,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_ah->device);
	struct sroce_ah *ah = to_sroce_ah(ib_ah);
	gfp_t gfp = init_attr->flags & RDMA_CREATE_AH_SLEEPABLE ?
		    sroce_obj_gfp(!!udata) : GFP_ATOMIC;
	struct rxe_create_ah_resp resp = {};
	int err;

	if (udata && udata->inlen)
		return -EINVAL;
	err = sroce_av_from_attr(&ah->av, init_attr->ah_attr);
	if (err)
		return err;

	if (atomic_inc_return(&sdev->num_ah) > SROCE_MAX_AH) {
		err = -ENOMEM;
		goto err_count;
	}

	ah->ah_num = 0;
	/* Older providers have no room for a number: they send the AV. */
	if (!udata || udata->outlen < sizeof(resp))
		return 0;

	err = sroce_ah_add_number(sdev, ah, gfp);
	if (err)
		goto err_count;
	resp.ah_num = ah->ah_num;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_number;
	return 0;

err_number:
	sroce_ah_del_number(sdev, ah);
err_count:
	atomic_dec(&sdev->num_ah);
	return err;
}

/* Without RDMA_DESTROY_AH_SLEEPABLE the caller may be atomic: never sleep. */
static int sroce_destroy_ah(struct ib_ah *ib_ah, u32 flags)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_ah->device);
	struct sroce_ah *ah = to_sroce_ah(ib_ah);

	/* Only uverbs AHs have a number; uverbs destroys in process context. */
	if (ah->ah_num)
		sroce_ah_del_number(sdev, ah);
	atomic_dec(&sdev->num_ah);
	return 0;
}

static int sroce_query_ah(struct ib_ah *ib_ah, struct rdma_ah_attr *attr)
{
	struct sroce_ah *ah = to_sroce_ah(ib_ah);

	sroce_av_to_attr(&ah->av, attr);
	rdma_ah_set_port_num(attr, SROCE_PORT);
	return 0;
}

const struct ib_device_ops sroce_ah_ops = {
	.create_ah = sroce_create_ah,
	.create_user_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
	.query_ah = sroce_query_ah,
	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ib_ah),
};
