/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared receive queues (IBTA Vol. 1, 10.2.9): one receive ring that the
 * responders of many QPs take WQEs from.
 *
 * The ring has the rxe user-ABI layout (queue.h): user space produces,
 * the kernel consumes. A responder copies the next WQE out of the ring
 * and advances the consumer index at once (sroce_srq_take()), so the WQE
 * belongs to that QP from then on and the slot goes back to user space
 * before the message has arrived - unlike a QP's own RQ, where the slot
 * is released at completion.
 *
 * Locking: @lock serialises the kernel (consumer) side: every responder
 * taking a WQE (each under its QP's receive engine lock, bottom halves
 * off) and modify_srq (resize, limit). It is taken with bottom halves
 * disabled and nests inside a QP's receive engine lock. A kernel SRQ's
 * producers (ib_post_srq_recv, verbs_post.c) are serialised by
 * @post_lock, irq-safe; a kernel resize takes it outside @lock to hold
 * both sides.
 *
 * Lifetime: the RDMA core allocates and frees struct sroce_srq, and
 * refuses to destroy an SRQ that a QP still uses (srq->usecnt), so a QP
 * needs no reference of its own.
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

struct sroce_srq {
	struct ib_srq ib_srq;
	spinlock_t lock;
	spinlock_t post_lock;		/* kernel SRQs: the producer side */
	struct sroce_queue rq;		/* consumer side under @lock */
	u32 max_sge;			/* SGEs a WQE may use; fixed */
	u32 slot_size;			/* bytes per slot; fixed */
	u32 limit;			/* armed low watermark, 0: disarmed */
};

static inline struct sroce_srq *to_sroce_srq(struct ib_srq *ib_srq)
{
	return ib_srq ? container_of(ib_srq, struct sroce_srq, ib_srq) : NULL;
}

/*
 * Copies the next WQE (slot_size bytes) to @wqe and hands its slot back
 * to user space. Returns false when the SRQ is empty. Raises the limit
 * event, once, when the count drops below the armed limit. Engine
 * context (bottom halves off).
 */
bool sroce_srq_take(struct sroce_srq *srq, void *wqe);

extern const struct ib_device_ops sroce_srq_ops;

#endif /* SROCE_SRQ_H */
