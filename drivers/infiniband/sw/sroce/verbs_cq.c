// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queue verbs, and sroce_cq_post() for the transport engines.
 * The object, its locking and its lifetime are described in cq.h.
 */
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "sroce.h"
#include "compat.h"
#include "limits.h"
#include "queue.h"
#include "cq.h"

/*
 * libibverbs' wc_flags (enum ibv_wc_flags). They differ from the kernel's
 * enum ib_wc_flags from bit 2 on, and no uapi header names them.
 */
#define SROCE_UWC_GRH		(1U << 0)
#define SROCE_UWC_WITH_IMM	(1U << 1)
#define SROCE_UWC_IP_CSUM_OK	(1U << 2)
#define SROCE_UWC_WITH_INV	(1U << 3)

/*
 * A user UD receive completion has no network_hdr_type: like RoCE NICs
 * (mlx5's CQE, passed on by its provider), sroce reports the L3 header in
 * front of the data in the sl field, which RoCE does not carry otherwise.
 * UCX's UD transport relies on it to find the destination address in
 * the 40-byte GRH area (IPv4 in its last 20 bytes, IPv6 in all 40).
 */
#define SROCE_UWC_SL_IPV6	1
#define SROCE_UWC_SL_IPV4	2

/* The largest CQ we report in query_device and accept. */
#define SROCE_CQE_MAX		(SROCE_MAX_CQE - 1)

static_assert(sizeof(union sroce_cqe) <= 128);

static u32 sroce_uwc_flags(int flags)
{
	u32 uflags = 0;

	if (flags & IB_WC_GRH)
		uflags |= SROCE_UWC_GRH;
	if (flags & IB_WC_WITH_IMM)
		uflags |= SROCE_UWC_WITH_IMM;
	if (flags & IB_WC_IP_CSUM_OK)
		uflags |= SROCE_UWC_IP_CSUM_OK;
	if (flags & IB_WC_WITH_INVALIDATE)
		uflags |= SROCE_UWC_WITH_INV;
	return uflags;
}

static u8 sroce_uwc_sl(const struct ib_wc *wc)
{
	if (!(wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE))
		return wc->sl;
	switch (wc->network_hdr_type) {
	case RDMA_NETWORK_IPV4:
		return SROCE_UWC_SL_IPV4;
	case RDMA_NETWORK_IPV6:
		return SROCE_UWC_SL_IPV6;
	default:
		return wc->sl;
	}
}

/*
 * Kernel to user completion; -EINVAL for a successful one whose opcode user
 * space has no value for.
 */
static int sroce_wc_to_user(const struct ib_wc *wc, struct ib_uverbs_wc *uwc)
{
	u32 opcode = wc->opcode;

	switch (opcode) {
	case IB_WC_SEND:
	case IB_WC_RDMA_WRITE:
	case IB_WC_RDMA_READ:
	case IB_WC_COMP_SWAP:
	case IB_WC_FETCH_ADD:
	case IB_WC_BIND_MW:
	case IB_WC_LOCAL_INV:
	case IB_WC_LSO:
	case IB_WC_RECV:
	case IB_WC_RECV_RDMA_WITH_IMM:
		/* Same values as IB_UVERBS_WC_* and IBV_WC_*. */
		break;
	case SROCE_WC_ATOMIC_WRITE:
		opcode = SROCE_UWC_ATOMIC_WRITE;
		break;
	default:
		/*
		 * A user WQE with a kernel-only opcode (IB_WR_REG_MR) fails,
		 * and its error completion must still reach the process:
		 * for a failed work request only wr_id, status, qp_num and
		 * vendor_err are defined, so the opcode is reported as 0.
		 */
		if (wc->status == IB_WC_SUCCESS)
			return -EINVAL;
		opcode = IB_WC_SEND;
		break;
	}

	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	if (wc->wc_flags & IB_WC_WITH_IMM)
		uwc->ex.imm_data = wc->ex.imm_data;
	else
		uwc->ex.invalidate_rkey = wc->ex.invalidate_rkey;
	uwc->qp_num = wc->qp ? wc->qp->qp_num : 0;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = sroce_uwc_flags(wc->wc_flags);
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = wc->slid;
	uwc->sl = sroce_uwc_sl(wc);
	uwc->dlid_path_bits = wc->dlid_path_bits;
	return 0;
}

static void sroce_cq_overflow_event(struct sroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ib_cq.device,
		.element.cq = &cq->ib_cq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ib_cq.event_handler)
		cq->ib_cq.event_handler(&ev, cq->ib_cq.cq_context);
}

int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct ib_uverbs_wc uwc;
	bool overflow = false, fire = false;
	union sroce_cqe *cqe;
	unsigned long flags;
	int err = 0;

	/* user is fixed at creation: no lock needed to look at it. */
	if (cq->user) {
		err = sroce_wc_to_user(wc, &uwc);
		if (err)
			return err;
	}

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->error) {
		err = -ENOSPC;
		goto out_unlock;
	}
	cqe = sroce_queue_tail(&cq->queue);
	if (!cqe) {
		cq->error = true;
		overflow = true;
		err = -ENOSPC;
		goto out_unlock;
	}
	if (cq->user)
		memcpy(&cqe->uibwc, &uwc, sizeof(uwc));
	else
		cqe->ibwc = *wc;
	sroce_queue_push(&cq->queue);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED && solicited)) {
		/* One notification per arming, as IBA requires. */
		cq->notify = 0;
		fire = true;
	}
out_unlock:
	spin_unlock_irqrestore(&cq->lock, flags);

	/*
	 * Outside the lock: a handler may poll and re-arm at once. The core
	 * keeps the ib_cq alive, see cq.h.
	 */
	if (overflow)
		sroce_cq_overflow_event(cq);
	if (fire && cq->ib_cq.comp_handler)
		cq->ib_cq.comp_handler(&cq->ib_cq, cq->ib_cq.cq_context);
	return err;
}

/*
 * librxe sends no driver data with CQ commands (zeroes are tolerated) and
 * wants the ring's mminfo back in a response of @resp_len bytes.
 */
static bool sroce_cq_udata_ok(struct ib_udata *udata, size_t resp_len)
{
	return udata->outlen >= resp_len &&
	       (!udata->inlen || ib_is_udata_cleared(udata, 0, udata->inlen));
}

static int sroce_create_cq(struct ib_cq *ib_cq,
			   const struct ib_cq_init_attr *attr,
			   sroce_create_cq_arg_t *uarg)
{
	struct ib_udata *udata = sroce_create_cq_udata(uarg);
	struct sroce_dev *sdev = to_sroce_dev(ib_cq->device);
	struct sroce_cq *cq = to_sroce_cq(ib_cq);
	struct rxe_create_cq_resp __user *uresp = NULL;
	u32 num = attr->cqe;
	int err;

	/* No completion timestamps, and overruns are never ignored. */
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SROCE_CQE_MAX ||
	    attr->comp_vector >= ib_cq->device->num_comp_vectors)
		return -EINVAL;
	if (udata) {
		if (!sroce_cq_udata_ok(udata, sizeof(*uresp)))
			return -EINVAL;
		uresp = udata->outbuf;
	}

	if (atomic_inc_return(&sdev->num_cq) > SROCE_MAX_CQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	err = sroce_queue_init(&cq->queue, sdev, udata, SROCE_QUEUE_CQ, &num,
			       sizeof(union sroce_cqe),
			       uresp ? &uresp->mi : NULL);
	if (err)
		goto err_count;

	/* The rounded capacity, which the core reports to the caller. */
	ib_cq->cqe = num;
	return 0;

err_count:
	atomic_dec(&sdev->num_cq);
	return err;
}

/*
 * The core calls this only when no QP uses the CQ any more (cq.h), so no
 * completion can be in flight. The core frees the sroce_cq afterwards.
 */
static int sroce_destroy_cq(struct ib_cq *ib_cq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_sroce_cq(ib_cq);

	sroce_queue_cleanup(&cq->queue);
	atomic_dec(&to_sroce_dev(ib_cq->device)->num_cq);
	return 0;
}

/*
 * A new ring, holding the entries not yet consumed. For a user CQ the
 * consumer index is librxe's, which holds its CQ lock across the call and
 * maps the new ring (new mminfo) afterwards; the old ring's pages stay
 * valid until it unmaps them.
 */
static int sroce_resize_cq(struct ib_cq *ib_cq, int cqe,
			   struct ib_udata *udata)
{
	struct sroce_cq *cq = to_sroce_cq(ib_cq);
	struct rxe_resize_cq_resp __user *uresp = NULL;
	struct sroce_queue new_q;
	unsigned long flags;
	u32 num_req, num;
	int err;

	if (cqe < 1 || cqe > SROCE_CQE_MAX)
		return -EINVAL;
	num_req = cqe;
	num = cqe;
	if (udata) {
		if (!sroce_cq_udata_ok(udata, sizeof(*uresp)))
			return -EINVAL;
		uresp = udata->outbuf;
	}

	err = sroce_queue_init(&new_q, to_sroce_dev(ib_cq->device), udata,
			       SROCE_QUEUE_CQ, &num, sizeof(union sroce_cqe),
			       uresp ? &uresp->mi : NULL);
	if (err)
		return err;

	spin_lock_irqsave(&cq->lock, flags);
	/*
	 * Asking for fewer entries than are queued is an error even when the
	 * rounded-up ring would hold them: the request is what the consumer
	 * expects to be able to hold. rxe checks the same way.
	 */
	if (sroce_queue_count(&cq->queue) > num_req)
		err = -EINVAL;
	else
		err = sroce_queue_replace(&cq->queue, &new_q);
	if (!err)
		ib_cq->cqe = num;
	spin_unlock_irqrestore(&cq->lock, flags);

	/* The old ring on success, the unused new one on failure. */
	sroce_queue_cleanup(&new_q);
	return err;
}

static int sroce_poll_cq(struct ib_cq *ib_cq, int num_entries,
			 struct ib_wc *wc)
{
	struct sroce_cq *cq = to_sroce_cq(ib_cq);
	union sroce_cqe *cqe;
	unsigned long flags;
	int n;

	/* User CQs are polled in user space; uverbs has no POLL_CQ for us. */
	if (cq->user)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		cqe = sroce_queue_head(&cq->queue);
		if (!cqe)
			break;
		wc[n] = cqe->ibwc;
		sroce_queue_pop(&cq->queue);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/*
 * Arms the CQ for the next completion, or the next solicited one. An
 * armed NEXT_COMP is not narrowed by a later SOLICITED request. With
 * IB_CQ_REPORT_MISSED_EVENTS, returns 1 if completions are already queued
 * (the caller must poll: they will not raise an event).
 */
static int sroce_req_notify_cq(struct ib_cq *ib_cq,
			       enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_sroce_cq(ib_cq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    !sroce_queue_empty(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

const struct ib_device_ops sroce_cq_ops = {
	.create_cq = sroce_create_cq,
	.destroy_cq = sroce_destroy_cq,
	.resize_cq = sroce_resize_cq,
	.poll_cq = sroce_poll_cq,
	.req_notify_cq = sroce_req_notify_cq,
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ib_cq),
};
