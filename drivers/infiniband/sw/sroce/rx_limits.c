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
static atomic64_t sroce_held_total = ATOMIC64_INIT(0);

/* Parameters are in KiB; as bytes they need 64 bits. */
static u64 sroce_kib(const unsigned int *param)
{
	return (u64)READ_ONCE(*param) * SZ_1K;
}

u64 sroce_rx_queue_cap(void)
{
	return sroce_kib(&sroce_rx_queue_kib);
}

unsigned long sroce_hold_age(void)
{
	return msecs_to_jiffies(READ_ONCE(sroce_hold_ms)) ? : 1;
}

/* Adds @n to @v unless that passes @cap. */
static bool sroce_charge_capped(atomic64_t *v, s64 n, u64 cap)
{
	if (atomic64_add_return(n, v) <= cap)
		return true;
	atomic64_sub(n, v);
	return false;
}

/* Takes @n bytes off what @qp, its device and the module hold. */
static void sroce_hold_release(struct sroce_qp *qp, unsigned int n)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);

	qp->resp.held_bytes -= n;
	atomic64_sub(n, &sdev->held_bytes);
	atomic64_sub(n, &sroce_held_total);
}

/*
 * A packet that costs at least twice what a copy of it would (a small
 * one in a page-sized or larger receive buffer): the copy, or NULL.
 */
static struct sk_buff *sroce_hold_condense(const struct sk_buff *skb)
{
	struct sk_buff *copy;

	if (skb->truesize < 2 * SKB_TRUESIZE(skb_headroom(skb) + skb->len))
		return NULL;
	copy = skb_copy(skb, GFP_ATOMIC | __GFP_NOWARN);
	if (copy && copy->truesize >= skb->truesize) {
		consume_skb(copy);
		copy = NULL;
	}
	return copy;
}

bool sroce_hold_charge(struct sroce_qp *qp, struct sk_buff **skbp)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sk_buff *copy = sroce_hold_condense(*skbp);
	unsigned int size = copy ? copy->truesize : (*skbp)->truesize;

	lockdep_assert_held(&qp->rcv.lock);
	if ((u64)qp->resp.held_bytes + size > sroce_kib(&sroce_hold_qp_kib))
		goto refuse;
	if (!sroce_charge_capped(&sdev->held_bytes, size,
				 sroce_kib(&sroce_hold_dev_kib)))
		goto refuse;
	if (!sroce_charge_capped(&sroce_held_total, size,
				 sroce_kib(&sroce_hold_max_kib))) {
		atomic64_sub(size, &sdev->held_bytes);
		goto refuse;
	}
	qp->resp.held_bytes += size;
	if (copy) {
		consume_skb(*skbp);
		*skbp = copy;
	}
	return true;

refuse:
	/* The caller still has the original, and drops it. */
	if (copy)
		consume_skb(copy);
	return false;
}

void sroce_hold_uncharge(struct sroce_qp *qp, const struct sk_buff *skb)
{
	sroce_hold_release(qp, skb->truesize);
}
