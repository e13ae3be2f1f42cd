// SPDX-License-Identifier: GPL-2.0
/*
 * Posting work: the send doorbell of user QPs, and ib_post_send(),
 * ib_post_recv() and ib_post_srq_recv() for kernel consumers.
 *
 * A kernel work request is written into the QP's (or SRQ's) kernel ring
 * in the WQE layout librxe uses, so that the engines execute one kind of
 * WQE whoever posted it. What the consumer can be told at once with an
 * errno and bad_wr is checked here: the opcode for the QP type, the SGE
 * count, the inline size, room in the ring, the QP state. Keys, ranges
 * and rights are checked when the engine executes the WQE, as for user
 * WQEs, and fail with an error completion.
 *
 * Addresses: sroce registers no DMA device, so the core gives kernel
 * consumers kernel virtual addresses as DMA addresses (ib_uses_virt_dma):
 * an SGE's addr is dereferenced directly for inline data, and through the
 * lkey's region (its DMA MR, or a fast-reg MR) by the engine otherwise.
 *
 * Locking: the producer locks (qp.h: sq_lock, rq_lock; srq.h: post_lock)
 * are taken with interrupts saved and are never held while kicking the
 * engine, so a completion handler that posts again cannot deadlock.
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "sroce.h"
#include "limits.h"
#include "qp.h"
#include "srq.h"

/* Copies the SGE list; -EINVAL if it is longer than @max_sge allows. */
static int sroce_post_sges(struct rxe_dma_info *dma, const struct ib_sge *sg,
			   int num_sge, u32 max_sge)
{
	u64 total = 0;
	int i;

	if (num_sge < 0 || num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < num_sge; i++) {
		dma->sge[i].addr = sg[i].addr;
		dma->sge[i].length = sg[i].length;
		dma->sge[i].lkey = sg[i].lkey;
		total += sg[i].length;
	}
	if (total > SROCE_MAX_MSG_SIZE)
		return -EINVAL;
	dma->num_sge = num_sge;
	dma->length = total;
	dma->resid = total;
	return 0;
}

/* Inline data: copied from the consumer's buffers now (IB_SEND_INLINE). */
static int sroce_post_inline(struct sroce_qp *qp, struct rxe_dma_info *dma,
			     const struct ib_send_wr *wr)
{
	u8 *dst = dma->inline_data;
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (len > qp->sq_max_inline - total)
			return -EINVAL;
		memcpy(dst + total, (void *)(uintptr_t)wr->sg_list[i].addr,
		       len);
		total += len;
	}
	dma->length = total;
	dma->resid = total;
	return 0;
}

/* Writes @wr as a WQE into the free slot @wqe. */
static int sroce_post_build_send(struct sroce_qp *qp,
				 const struct ib_send_wr *wr,
				 struct rxe_send_wqe *wqe)
{
	struct rxe_send_wr *w = &wqe->wr;
	u32 op = wr->opcode;

	if (!sroce_qp_op_allowed(qp, op))
		return -EINVAL;
	if (wr->send_flags & ~(IB_SEND_FENCE | IB_SEND_SIGNALED |
			       IB_SEND_SOLICITED | IB_SEND_INLINE))
		return -EINVAL;

	memset(wqe, 0, sizeof(*wqe));
	w->wr_id = wr->wr_id;
	w->opcode = op;
	w->send_flags = wr->send_flags;
	switch (op) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		w->ex.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		w->ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	switch (op) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		w->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		w->wr.atomic.swap = atomic_wr(wr)->swap;
		w->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		if (!reg_wr(wr)->mr)
			return -EINVAL;
		w->wr.reg.mr = reg_wr(wr)->mr;
		w->wr.reg.key = reg_wr(wr)->key;
		w->wr.reg.access = reg_wr(wr)->access;
		return 0;
	case IB_WR_LOCAL_INV:
		return 0;
	default:
		break;
	}

	if (sroce_qp_is_ud(qp)) {
		if (!ud_wr(wr)->ah || ud_wr(wr)->ah->device != qp->ib_qp.device)
			return -EINVAL;
		w->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		w->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		w->wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		sroce_wqe_set_kernel_ah(wqe, ud_wr(wr)->ah);
	}
	if ((wr->send_flags & IB_SEND_INLINE) && sroce_wr_carries_data(op))
		return sroce_post_inline(qp, &wqe->dma, wr);
	wqe->wr.send_flags &= ~IB_SEND_INLINE;
	return sroce_post_sges(&wqe->dma, wr->sg_list, wr->num_sge,
			       qp->sq_max_sge);
}

static int sroce_post_send_kernel(struct sroce_qp *qp,
				  const struct ib_send_wr *wr,
				  const struct ib_send_wr **bad_wr)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		struct rxe_send_wqe *wqe = sroce_queue_tail(&qp->sq);

		if (!wqe) {
			err = -ENOMEM;
			break;
		}
		err = sroce_post_build_send(qp, wr, wqe);
		if (err)
			break;
		sroce_queue_push(&qp->sq);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * User QPs: the doorbell of the rxe user ABI. librxe has written WQEs into
 * the send ring and calls post_send with no work request. Kernel QPs:
 * the work requests are written into the ring here.
 *
 * Either way: refused in RESET (IBTA 10.8.2: an immediate error; a WQE
 * librxe wrote meanwhile is dropped when the QP leaves RESET); queued
 * until RTS in INIT and RTR, as on hardware; sent in RTS; flushed in ERR
 * (ib_drain_sq() relies on it).
 */
static int sroce_post_send(struct ib_qp *ib_qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sroce_qp(ib_qp);
	int err = 0;

	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (!qp->user) {
		err = sroce_post_send_kernel(qp, wr, bad_wr);
		if (err && *bad_wr == wr)
			return err;
	}
	sroce_engine_kick_send(qp);
	return err;
}

/* Writes @wr as a receive WQE into the free slot @wqe. */
static int sroce_post_build_recv(const struct ib_recv_wr *wr,
				 struct rxe_recv_wqe *wqe, u32 max_sge)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	return sroce_post_sges(&wqe->dma, wr->sg_list, wr->num_sge, max_sge);
}

/* Posts @wr..., under @lock, into the kernel ring @q. */
static int sroce_post_recv_list(struct sroce_queue *q, spinlock_t *lock,
				u32 max_sge, const struct ib_recv_wr *wr,
				const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(lock, flags);
	for (; wr; wr = wr->next) {
		struct rxe_recv_wqe *wqe = sroce_queue_tail(q);

		if (!wqe) {
			err = -ENOMEM;
			break;
		}
		err = sroce_post_build_recv(wr, wqe, max_sge);
		if (err)
			break;
		sroce_queue_push(q);
	}
	spin_unlock_irqrestore(lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * Kernel QPs only (user RQs are filled by librxe). Receives may be posted
 * from INIT on; in ERR they are flushed (ib_drain_rq() relies on it).
 */
static int sroce_post_recv(struct ib_qp *ib_qp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sroce_qp(ib_qp);
	int err;

	if (qp->user || qp->srq || READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	err = sroce_post_recv_list(&qp->rq, &qp->rq_lock, qp->rq_max_sge, wr,
				   bad_wr);
	/*
	 * Pairs with the barrier in sroce_engine_kick() after a move to
	 * ERR: either that flush sees these WQEs or we see ERR.
	 */
	smp_mb();
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_engine_kick_recv(qp);
	return err;
}

/*
 * Kernel SRQs only. The responders take WQEs when messages arrive: no
 * engine needs a kick.
 */
static int sroce_post_srq_recv(struct ib_srq *ib_srq,
			       const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_sroce_srq(ib_srq);

	if (srq->rq.user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	return sroce_post_recv_list(&srq->rq, &srq->post_lock, srq->max_sge,
				    wr, bad_wr);
}

const struct ib_device_ops sroce_post_ops = {
	.post_send = sroce_post_send,
	.post_recv = sroce_post_recv,
	.post_srq_recv = sroce_post_srq_recv,
};
