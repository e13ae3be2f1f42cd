// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel functions behind swin_shim.h. The queue calls are those of
 * queue.c for the one case the send window meets: an SQ that user space
 * produces (its index read from the ring, masked with the kernel's mask)
 * and the kernel consumes (its own private index).
 */
#include "swin_shim.h"

struct kshim_log kshim_log;

u32 sroce_queue_producer_index(const struct sroce_queue *q)
{
	return READ_ONCE(q->buf->producer_index) & q->index_mask;
}

u32 sroce_queue_consumer_index(const struct sroce_queue *q)
{
	return q->cons;
}

void sroce_queue_pop(struct sroce_queue *q)
{
	u32 next = sroce_queue_next(q, q->cons);

	q->buf->consumer_index = next;
	q->cons = next;
}

int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	(void)solicited;
	if (!cq->room || cq->n == KSHIM_CQ_SIZE)
		return -ENOSPC;
	cq->room--;
	cq->wc[cq->n++] = *wc;
	return 0;
}

void sroce_qp_set_error(struct sroce_qp *qp)
{
	kshim_log.set_error++;
	qp->state = IB_QPS_ERR;
}

void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	(void)qp;
	if (type == IB_EVENT_QP_FATAL)
		kshim_log.fatal++;
	else
		kshim_log.other_events++;
}

void trace_sroce_wc_error(const struct ib_device *dev, u32 qpn, u64 wr_id,
			  int opcode, int status)
{
	(void)dev;
	(void)qpn;
	(void)wr_id;
	(void)opcode;
	(void)status;
	kshim_log.wc_errors++;
}
