/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queues: the object and the interface the transport engines
 * use to complete work requests.
 *
 * A CQ is a ring of 128-byte slots (queue.h). A user CQ is mapped by
 * librxe, which drains it without calling into the kernel; its slots hold
 * struct ib_uverbs_wc, the layout librxe copies out as struct ibv_wc. A
 * kernel CQ is drained by sroce_poll_cq() and its slots hold struct ib_wc.
 *
 * Lifetime: the RDMA core allocates and frees struct sroce_cq. It refuses
 * to destroy a CQ whose usecnt is not zero (ib_destroy_cq_user()), and
 * every QP counts once on its send CQ and once on its receive CQ from
 * creation until its destroy_qp has returned (ib_qp_usecnt_inc/dec). So a
 * QP needs no reference of its own on its CQs: its destroy_qp must only
 * make sure that none of its engines is still inside sroce_cq_post() when
 * it returns. After that nothing posts to the CQ, and sroce_destroy_cq()
 * can free the ring.
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

/*
 * Completion of an ATOMIC WRITE, which the 6.1 kernel API does not know:
 * a driver-private ib_wc_opcode, only ever posted to user CQs, where it
 * becomes IBV_WC_ATOMIC_WRITE (9).
 */
#define SROCE_WC_ATOMIC_WRITE	((enum ib_wc_opcode)0x40)
#define SROCE_UWC_ATOMIC_WRITE	9

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_user_verbs.h>

#include "queue.h"

/* One CQ slot; its size rounds up to 128 bytes. */
union sroce_cqe {
	struct ib_wc ibwc;		/* kernel CQs */
	struct ib_uverbs_wc uibwc;	/* user CQs */
};

struct sroce_cq {
	struct ib_cq ib_cq;
	/*
	 * Taken with interrupts off (kernel consumers may poll from any
	 * context but hard irq). Protects the kernel's sides of queue (the
	 * producer always; the consumer of a kernel CQ), the swap of queue
	 * on resize, ib_cq.cqe, notify and error.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	/* 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP: what arms comp_handler. */
	u8 notify;
	/* Overflowed: takes no more completions until destroyed. */
	bool error;
	/* Mapped by user space; slots hold struct ib_uverbs_wc. */
	bool user;
};

static inline struct sroce_cq *to_sroce_cq(struct ib_cq *ib_cq)
{
	return container_of(ib_cq, struct sroce_cq, ib_cq);
}

/*
 * Adds a completion to @cq. @wc is in kernel form (wc->qp may be NULL);
 * for a user CQ it is converted to the user ABI. @solicited: the
 * completion is for a message with the solicited-event bit.
 *
 * Returns 0, -ENOSPC if the CQ is full or already in error (the first
 * overflow puts it in error and dispatches IB_EVENT_CQ_ERR once; the
 * caller then moves its QP to the error state), or -EINVAL for an opcode
 * user space cannot represent (IB_WC_REG_MR and the masked atomics must
 * never reach a user CQ).
 *
 * Callable from process and softirq context, never from hard irq. If the
 * CQ was armed it calls ib_cq.comp_handler after dropping the CQ lock; the
 * caller must not hold a lock the consumer's handler could take (consumer
 * handlers of the core - uverbs, ib_cq - only queue work, but a legacy
 * kernel ULP may post from its handler: do not hold a QP lock here).
 */
int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited);

#endif /* SROCE_CQ_H */
