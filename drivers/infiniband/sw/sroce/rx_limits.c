// SPDX-License-Identifier: GPL-2.0
/* Receive-side memory bounds; see rx_limits.h. */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sizes.h>

#include "sroce.h"
#include "qp.h"
#include "rx_limits.h"

/*
 * The defaults: a QP holds what a full window of 4 KiB packets costs
 * (SROCE_HOLD_MAX of them, at up to about 16 KiB of truesize each once
 * reassembled or received into large buffers); a device what 16 such QPs
 * hold at once; the module what 4 such devices do. A gap that has not
 * moved for 100 ms is either lost for good (the requester's retry
 * timeout resends it, and what was held behind it) or was never
 * going to be filled (forged).
 */
static unsigned int sroce_hold_qp_kib = 2048;
module_param_named(hold_qp_kib, sroce_hold_qp_kib, uint, 0644);
MODULE_PARM_DESC(hold_qp_kib,
		 "Bytes (KiB, skb truesize) one RC QP may hold ahead of a gap (default: 2048)");

static unsigned int sroce_hold_dev_kib = 32768;
module_param_named(hold_dev_kib, sroce_hold_dev_kib, uint, 0644);
MODULE_PARM_DESC(hold_dev_kib,
		 "Bytes (KiB) all QPs of one device may hold ahead of gaps (default: 32768)");

static unsigned int sroce_hold_max_kib = 131072;
module_param_named(hold_max_kib, sroce_hold_max_kib, uint, 0644);
MODULE_PARM_DESC(hold_max_kib,
		 "Bytes (KiB) all devices may hold ahead of gaps (default: 131072)");

static unsigned int sroce_hold_ms = 100;
module_param_named(hold_ms, sroce_hold_ms, uint, 0644);
MODULE_PARM_DESC(hold_ms,
		 "Held packets of a gap that made no progress for this long are dropped (ms, default: 100)");

static unsigned int sroce_rx_queue_kib = 4096;
module_param_named(rx_queue_kib, sroce_rx_queue_kib, uint, 0644);
MODULE_PARM_DESC(rx_queue_kib,
		 "Bytes (KiB) queued for one QP engine before arrivals are dropped (default: 4096)");

/* Truesize of every packet held by any QP of any device. */
static atomic_long_t sroce_held_total = ATOMIC_LONG_INIT(0);

unsigned int sroce_rx_queue_cap(void)
{
	return READ_ONCE(sroce_rx_queue_kib) * SZ_1K;
}

unsigned long sroce_hold_age(void)
{
	return msecs_to_jiffies(READ_ONCE(sroce_hold_ms)) ? : 1;
}

/* Adds @n to @v unless that passes @cap_kib. */
static bool sroce_charge_capped(atomic_long_t *v, long n, unsigned int cap_kib)
{
	long cap = (long)cap_kib * SZ_1K;

	if (atomic_long_add_return(n, v) <= cap)
		return true;
	atomic_long_sub(n, v);
	return false;
}

/* Takes @n bytes off what @qp, its device and the module hold. */
static void sroce_hold_release(struct sroce_qp *qp, unsigned int n)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);

	qp->resp.held_bytes -= n;
	atomic_long_sub(n, &sdev->held_bytes);
	atomic_long_sub(n, &sroce_held_total);
}

/*
 * A packet that costs at least twice what a copy of it would (a small
 * one in a page-sized or larger receive buffer): the copy, or NULL.
 */
static struct sk_buff *sroce_hold_condense(const struct sk_buff *skb)
{
	if (skb->truesize < 2 * SKB_TRUESIZE(skb_headroom(skb) + skb->len))
		return NULL;
	return skb_copy(skb, GFP_ATOMIC | __GFP_NOWARN);
}

bool sroce_hold_charge(struct sroce_qp *qp, struct sk_buff **skbp)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sk_buff *skb = *skbp, *copy;
	unsigned int size = skb->truesize;

	lockdep_assert_held(&qp->rcv.lock);
	if (qp->resp.held_bytes + size > READ_ONCE(sroce_hold_qp_kib) * SZ_1K)
		return false;
	if (!sroce_charge_capped(&sdev->held_bytes, size,
				 READ_ONCE(sroce_hold_dev_kib)))
		return false;
	if (!sroce_charge_capped(&sroce_held_total, size,
				 READ_ONCE(sroce_hold_max_kib))) {
		atomic_long_sub(size, &sdev->held_bytes);
		return false;
	}
	qp->resp.held_bytes += size;

	/* Charged at the original's size: the copy is smaller. */
	copy = sroce_hold_condense(skb);
	if (copy && copy->truesize >= size) {
		consume_skb(copy);
	} else if (copy) {
		sroce_hold_release(qp, size - copy->truesize);
		consume_skb(skb);
		*skbp = copy;
	}
	return true;
}

void sroce_hold_uncharge(struct sroce_qp *qp, const struct sk_buff *skb)
{
	sroce_hold_release(qp, skb->truesize);
}
