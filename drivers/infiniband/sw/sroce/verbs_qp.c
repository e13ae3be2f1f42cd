// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pair verbs: create, query, destroy. State changes live in
 * qp_state.c, the send doorbell and kernel work requests in verbs_post.c.
 *
 * QPNs: QP1 (GSI) has its fixed number; every other QP gets a number from
 * the device's qp_xa, allocated cyclically so that a number is not reused
 * at once (stale packets for a destroyed QP must not reach its successor).
 */
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "sroce.h"
#include "limits.h"
#include "cq.h"
#include "qp.h"
#include "srq.h"

#define SROCE_FIRST_QPN		16
/* 0xffffff is the multicast QPN (IB_MULTICAST_QPN). */
#define SROCE_MAX_QPN		(IB_MULTICAST_QPN - 1)

struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp_ref *ref;
	struct sroce_qp *qp = NULL;

	rcu_read_lock();
	ref = xa_load(&sdev->qp_xa, qpn);
	if (ref && refcount_inc_not_zero(&ref->count))
		qp = ref->qp;
	rcu_read_unlock();
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref->count))
		complete(&qp->ref->released);
}

static int sroce_qp_check_cap(struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;

	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	if (!init->srq && (cap->max_recv_wr > SROCE_MAX_QP_WR ||
			   cap->max_recv_sge > SROCE_MAX_SGE))
		return -EINVAL;
	return 0;
}

/*
 * The send ring's slots hold a WQE followed by either SGEs or inline data;
 * the provider writes up to the limits we report, so report what fits.
 */
static int sroce_qp_init_sq(struct sroce_qp *qp, struct sroce_dev *sdev,
			    struct ib_qp_init_attr *init, struct ib_udata *udata,
			    struct rxe_create_qp_resp __user *uresp)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 room = max_t(u32, cap->max_send_sge * sizeof(struct rxe_sge),
			 cap->max_inline_data);
	u32 num = max_t(u32, cap->max_send_wr, 1);
	int err;

	room = max_t(u32, room, sizeof(struct rxe_sge));
	err = sroce_queue_init(&qp->sq, sdev, udata, SROCE_QUEUE_SQ, &num,
			       sizeof(struct rxe_send_wqe) + room,
			       uresp ? &uresp->sq_mi : NULL);
	if (err)
		return err;
	qp->sq_max_sge = room / sizeof(struct rxe_sge);
	qp->sq_max_inline = room;
	cap->max_send_wr = num;
	cap->max_send_sge = qp->sq_max_sge;
	cap->max_inline_data = qp->sq_max_inline;
	return 0;
}

static int sroce_qp_init_rq(struct sroce_qp *qp, struct sroce_dev *sdev,
			    struct ib_qp_init_attr *init, struct ib_udata *udata,
			    struct rxe_create_qp_resp __user *uresp)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 sge = max_t(u32, cap->max_recv_sge, 1);
	u32 num = max_t(u32, cap->max_recv_wr, 1);
	int err;

	/* With an SRQ there is no RQ: librxe maps none (rq_mi stays 0). */
	qp->srq = to_sroce_srq(init->srq);
	if (qp->srq) {
		qp->rq_max_sge = qp->srq->max_sge;
		qp->rq_slot_size = qp->srq->slot_size;
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}
	err = sroce_queue_init(&qp->rq, sdev, udata, SROCE_QUEUE_RQ, &num,
			       sizeof(struct rxe_recv_wqe) +
			       sge * sizeof(struct rxe_sge),
			       uresp ? &uresp->rq_mi : NULL);
	if (err)
		return err;
	qp->has_rq = true;
	qp->rq_max_sge = sge;
	qp->rq_slot_size = 1U << qp->rq.log2_elem_size;
	cap->max_recv_wr = num;
	cap->max_recv_sge = sge;
	return 0;
}

static int sroce_qp_alloc_qpn(struct sroce_dev *sdev, struct sroce_qp *qp,
			      enum ib_qp_type type)
{
	u32 qpn;
	int err;

	if (type == IB_QPT_GSI) {
		err = xa_insert(&sdev->qp_xa, 1, qp->ref, GFP_KERNEL);
		qpn = 1;
	} else {
		err = xa_alloc_cyclic(&sdev->qp_xa, &qpn, qp->ref,
				      XA_LIMIT(SROCE_FIRST_QPN, SROCE_MAX_QPN),
				      &sdev->next_qpn, sroce_obj_gfp(qp->user));
		err = err < 0 ? err : 0;
	}
	if (err)
		return err == -EBUSY ? -ENOMEM : err;
	qp->ib_qp.qp_num = qpn;
	return 0;
}

static void sroce_qp_free_engine(struct sroce_qp *qp)
{
	sroce_swin_free(&qp->swin);
	kfree(qp->resp.rwqe);
	kfree(qp->resp.rres.res);
	qp->resp.rwqe = NULL;
	qp->resp.rres.res = NULL;
}

/* The engine's own copies: shadow send ring, receive WQE, resources. */
static int sroce_qp_alloc_engine(struct sroce_qp *qp)
{
	u32 slots = qp->sq.index_mask + 1;
	gfp_t gfp = sroce_obj_gfp(qp->user) | __GFP_NOWARN;

	if (sroce_swin_alloc(&qp->swin, slots, 1U << qp->sq.log2_elem_size,
			     gfp))
		goto nomem;
	if (qp->has_rq || qp->srq) {
		qp->resp.rwqe = kmalloc(qp->rq_slot_size, gfp);
		if (!qp->resp.rwqe)
			goto nomem;
	}
	if (qp->ib_qp.qp_type == IB_QPT_RC) {
		qp->resp.rres.res = kcalloc(SROCE_MAX_RD_ATOMIC,
					    sizeof(*qp->resp.rres.res), gfp);
		if (!qp->resp.rres.res)
			goto nomem;
		qp->resp.rres.slots = SROCE_MAX_RD_ATOMIC;
	}
	return 0;
nomem:
	sroce_qp_free_engine(qp);
	return -ENOMEM;
}

static int sroce_create_qp(struct ib_qp *ib_qp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_qp->device);
	struct sroce_qp *qp = to_sroce_qp(ib_qp);
	struct rxe_create_qp_resp __user *uresp = NULL;
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* QP1 is the MAD layer's, created once per port. */
		if (udata || init->port_num != SROCE_PORT)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (udata) {
		if (udata->inlen || udata->outlen < sizeof(*uresp))
			return -EINVAL;
		uresp = udata->outbuf;
	}
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	err = sroce_qp_check_cap(init);
	if (err)
		return err;

	if (atomic_inc_return(&sdev->num_qp) > SROCE_MAX_QP) {
		err = -ENOMEM;
		goto err_count;
	}

	qp->ref = kzalloc(sizeof(*qp->ref), sroce_obj_gfp(!!udata));
	if (!qp->ref) {
		err = -ENOMEM;
		goto err_count;
	}
	refcount_set(&qp->ref->count, 1);
	init_completion(&qp->ref->released);
	qp->ref->qp = qp;
	mutex_init(&qp->lock);
	sroce_engine_setup(qp);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->user = !!udata;
	qp->state = IB_QPS_RESET;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_sroce_cq(init->send_cq);
	qp->rcq = to_sroce_cq(init->recv_cq);
	qp->attr.port_num = SROCE_PORT;
	qp->attr.path_mtu = IB_MTU_1024;
	qp->mtu = ib_mtu_enum_to_int(IB_MTU_1024);

	/* librxe maps the RQ first: rq_mi precedes sq_mi in the response. */
	err = sroce_qp_init_rq(qp, sdev, init, udata, uresp);
	if (err)
		goto err_count;
	err = sroce_qp_init_sq(qp, sdev, init, udata, uresp);
	if (err)
		goto err_rq;
	err = sroce_qp_alloc_engine(qp);
	if (err)
		goto err_sq;
	err = dst_cache_init(&qp->dst_cache, sroce_obj_gfp(qp->user));
	if (err)
		goto err_engine;
	/* Last: from here on packets can find the QP. */
	err = sroce_qp_alloc_qpn(sdev, qp, init->qp_type);
	if (err)
		goto err_dst;
	return 0;

err_dst:
	dst_cache_destroy(&qp->dst_cache);
err_engine:
	sroce_qp_free_engine(qp);
err_sq:
	sroce_queue_cleanup(&qp->sq);
err_rq:
	sroce_queue_cleanup(&qp->rq);
err_count:
	kfree(qp->ref);
	atomic_dec(&sdev->num_qp);
	return err;
}

static int sroce_destroy_qp(struct ib_qp *ib_qp, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_qp->device);
	struct sroce_qp *qp = to_sroce_qp(ib_qp);

	/* Out of any multicast group first (uverbs normally did it). */
	sroce_mcast_qp_destroy(qp);
	xa_erase(&sdev->qp_xa, ib_qp->qp_num);
	/* Lookups that found the QP before the erase hold a reference. */
	sroce_qp_put(qp);
	wait_for_completion(&qp->ref->released);
	kfree_rcu(qp->ref, rcu);
	sroce_engine_stop(qp);
	dst_cache_destroy(&qp->dst_cache);
	sroce_qp_free_engine(qp);
	sroce_queue_cleanup(&qp->sq);
	if (qp->has_rq)
		sroce_queue_cleanup(&qp->rq);
	atomic_dec(&sdev->num_qp);
	return 0;
}

static int sroce_query_qp(struct ib_qp *ib_qp, struct ib_qp_attr *attr,
			  int mask, struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sroce_qp(ib_qp);

	mutex_lock(&qp->lock);
	sroce_engine_lock(qp);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->sq_draining = qp->state == IB_QPS_SQD &&
			    !sroce_swin_drained(qp);
	sroce_engine_unlock(qp);
	if (attr->qp_state != IB_QPS_RESET && ib_qp->qp_type != IB_QPT_UD)
		sroce_av_to_attr(&qp->av, &attr->ah_attr);
	mutex_unlock(&qp->lock);

	attr->cap.max_send_wr = sroce_queue_capacity(&qp->sq);
	attr->cap.max_send_sge = qp->sq_max_sge;
	attr->cap.max_inline_data = qp->sq_max_inline;
	attr->cap.max_recv_wr = qp->has_rq ? sroce_queue_capacity(&qp->rq) : 0;
	attr->cap.max_recv_sge = qp->has_rq ? qp->rq_max_sge : 0;

	memset(init, 0, sizeof(*init));
	init->qp_type = ib_qp->qp_type;
	init->send_cq = ib_qp->send_cq;
	init->recv_cq = ib_qp->recv_cq;
	init->srq = ib_qp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

static int sroce_modify_qp(struct ib_qp *ib_qp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sroce_qp(ib_qp);
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen)
		return -EOPNOTSUPP;

	mutex_lock(&qp->lock);
	err = sroce_qp_modify_locked(qp, attr, mask);
	mutex_unlock(&qp->lock);
	return err;
}

const struct ib_device_ops sroce_qp_ops = {
	.create_qp = sroce_create_qp,
	.destroy_qp = sroce_destroy_qp,
	.query_qp = sroce_query_qp,
	.modify_qp = sroce_modify_qp,
	.fill_res_qp_entry = sroce_cc_fill_res_qp,
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ib_qp),
};
