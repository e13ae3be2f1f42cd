// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queue verbs and the responders' side of an SRQ; see
 * srq.h for locking and lifetime.
 *
 * Only basic SRQs (no XRC). Kernel SRQs are filled by ib_post_srq_recv()
 * (verbs_post.c).
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "sroce.h"
#include "limits.h"
#include "sge.h"
#include "srq.h"

static u32 sroce_srq_elem_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

static void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type)
{
	struct ib_event event = {
		.device = srq->ib_srq.device,
		.element.srq = &srq->ib_srq,
		.event = type,
	};

	if (srq->ib_srq.event_handler)
		srq->ib_srq.event_handler(&event, srq->ib_srq.srq_context);
}

bool sroce_srq_take(struct sroce_srq *srq, void *wqe)
{
	bool low = false;
	void *slot;

	spin_lock_bh(&srq->lock);
	slot = sroce_queue_head(&srq->rq);
	if (!slot) {
		spin_unlock_bh(&srq->lock);
		return false;
	}
	sroce_recv_wqe_copy(wqe, slot, srq->slot_size);
	sroce_queue_pop(&srq->rq);
	/* The limit event fires once per arming (IBTA 10.2.9.3). */
	if (srq->limit && sroce_queue_count(&srq->rq) < srq->limit) {
		srq->limit = 0;
		low = true;
	}
	spin_unlock_bh(&srq->lock);
	if (low)
		sroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return true;
}

static int sroce_create_srq(struct ib_srq *ib_srq,
			    struct ib_srq_init_attr *init,
			    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_srq->device);
	struct sroce_srq *srq = to_sroce_srq(ib_srq);
	struct rxe_create_srq_resp __user *uresp = NULL;
	struct ib_srq_attr *attr = &init->attr;
	u32 num, max_sge;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (udata) {
		if (udata->inlen || udata->outlen < sizeof(*uresp))
			return -EINVAL;
		uresp = udata->outbuf;
	}
	if (attr->max_wr > SROCE_MAX_SRQ_WR - 1 ||
	    attr->max_sge > SROCE_MAX_SGE)
		return -EINVAL;
	/* srq_limit is ignored here: only modify_srq arms the limit. */

	if (atomic_inc_return(&sdev->num_srq) > SROCE_MAX_SRQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&srq->lock);
	spin_lock_init(&srq->post_lock);
	max_sge = max_t(u32, attr->max_sge, 1);
	num = max_t(u32, attr->max_wr, 1);
	err = sroce_queue_init(&srq->rq, sdev, udata, SROCE_QUEUE_RQ, &num,
			       sroce_srq_elem_size(max_sge),
			       uresp ? &uresp->mi : NULL);
	if (err)
		goto err_count;
	srq->max_sge = max_sge;
	srq->slot_size = 1U << srq->rq.log2_elem_size;
	srq->limit = 0;
	attr->max_wr = num;
	attr->max_sge = max_sge;
	return 0;

err_count:
	atomic_dec(&sdev->num_srq);
	return err;
}

/*
 * A new ring holding the WQEs not yet taken. librxe holds its SRQ lock
 * across the call (its producer index cannot move) and maps the new ring
 * from the mminfo written to cmd.mmap_info_addr; the old ring's pages
 * stay valid until it unmaps them. A kernel SRQ's producers are held off
 * by post_lock.
 */
static int sroce_srq_resize(struct sroce_srq *srq, u32 max_wr,
			    struct ib_udata *udata)
{
	struct mminfo __user *mi = NULL;
	struct rxe_modify_srq_cmd cmd;
	struct sroce_queue new_q;
	unsigned long flags;
	u32 num = max_wr;
	int err;

	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		if (ib_copy_from_udata(&cmd, udata, sizeof(cmd)))
			return -EFAULT;
		mi = u64_to_user_ptr(cmd.mmap_info_addr);
	}
	if (max_wr < 1 || max_wr > SROCE_MAX_SRQ_WR - 1)
		return -EINVAL;
	err = sroce_queue_init(&new_q, to_sroce_dev(srq->ib_srq.device), udata,
			       SROCE_QUEUE_RQ, &num,
			       sroce_srq_elem_size(srq->max_sge), mi);
	if (err)
		return err;

	/* Interrupts off covers bottom halves for @lock too. */
	spin_lock_irqsave(&srq->post_lock, flags);
	spin_lock(&srq->lock);
	/* Fewer than are posted is refused, as for a CQ. */
	if (sroce_queue_count(&srq->rq) > max_wr ||
	    (srq->limit && srq->limit > num))
		err = -EINVAL;
	else
		err = sroce_queue_replace(&srq->rq, &new_q);
	spin_unlock(&srq->lock);
	spin_unlock_irqrestore(&srq->post_lock, flags);

	/* The old ring on success, the unused new one on failure. */
	sroce_queue_cleanup(&new_q);
	return err;
}

static int sroce_modify_srq(struct ib_srq *ib_srq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_sroce_srq(ib_srq);
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		err = sroce_srq_resize(srq, attr->max_wr, udata);
		if (err)
			return err;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_bh(&srq->lock);
		if (attr->srq_limit > sroce_queue_capacity(&srq->rq))
			err = -EINVAL;
		else
			srq->limit = attr->srq_limit;
		spin_unlock_bh(&srq->lock);
		if (err)
			return err;
	}
	return 0;
}

static int sroce_query_srq(struct ib_srq *ib_srq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_sroce_srq(ib_srq);

	spin_lock_bh(&srq->lock);
	attr->max_wr = sroce_queue_capacity(&srq->rq);
	attr->srq_limit = srq->limit;
	spin_unlock_bh(&srq->lock);
	attr->max_sge = srq->max_sge;
	return 0;
}

/* The core destroys an SRQ only once no QP uses it (srq.h). */
static int sroce_destroy_srq(struct ib_srq *ib_srq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_sroce_srq(ib_srq);

	sroce_queue_cleanup(&srq->rq);
	atomic_dec(&to_sroce_dev(ib_srq->device)->num_srq);
	return 0;
}

const struct ib_device_ops sroce_srq_ops = {
	.create_srq = sroce_create_srq,
	.modify_srq = sroce_modify_srq,
	.query_srq = sroce_query_srq,
	.destroy_srq = sroce_destroy_srq,
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ib_srq),
};
