// SPDX-License-Identifier: GPL-2.0
/*
 * QP state machine (IBTA Vol. 1, 10.3): which transitions and attributes
 * are allowed comes from the core's table (ib_modify_qp_is_ok); the values
 * are checked here. Entering ERR completes every outstanding WQE with a
 * flush error; entering RESET discards them silently.
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/ib_user_verbs.h>

#include "sroce.h"
#include "limits.h"
#include "cq.h"
#include "qp.h"

#define SROCE_PSN_MASK		0xffffff

static enum ib_wc_opcode sroce_wr_to_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Visits every WQE up to the producer index as read once at the start: a
 * user writing the index meanwhile cannot keep the kernel looping. @fn
 * (NULL: just consume) may stop the walk by returning false; it runs
 * under @lock, the queue's consumer lock. It gives the slot back to the
 * user (the consumer advances) before posting the slot's completion.
 */
static void sroce_qp_drain(struct sroce_queue *q, spinlock_t *lock,
			   struct sroce_qp *qp,
			   bool (*fn)(struct sroce_qp *qp, void *wqe))
{
	u32 prod = sroce_queue_producer_index(q);
	bool more = true;

	while (more) {
		spin_lock_bh(lock);
		if (sroce_queue_consumer_index(q) == prod) {
			spin_unlock_bh(lock);
			break;
		}
		if (fn) {
			more = fn(qp, sroce_queue_addr(q,
					sroce_queue_consumer_index(q)));
		} else {
			sroce_queue_pop(q);
		}
		spin_unlock_bh(lock);
		cond_resched();
	}
}

/*
 * Flush errors (IBTA 10.8.3.1): every outstanding WQE completes with
 * IB_WC_WR_FLUSH_ERR, signalled or not. The ring is untrusted memory:
 * only plain values are read from it. A full CQ ends the flush.
 */
static bool sroce_qp_flush_send_wqe(struct sroce_qp *qp, void *slot)
{
	struct rxe_send_wqe *wqe = slot;
	struct ib_wc wc = {
		.wr_id = READ_ONCE(wqe->wr.wr_id),
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = sroce_wr_to_wc_opcode(READ_ONCE(wqe->wr.opcode)),
		.qp = &qp->ib_qp,
	};

	sroce_queue_pop(&qp->sq);
	return !sroce_cq_post(qp->scq, &wc, false);
}

static bool sroce_qp_flush_recv_wqe(struct sroce_qp *qp, void *slot)
{
	struct rxe_recv_wqe *wqe = slot;
	struct ib_wc wc = {
		.wr_id = READ_ONCE(wqe->wr_id),
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ib_qp,
	};

	sroce_queue_pop(&qp->rq);
	return !sroce_cq_post(qp->rcq, &wc, false);
}

void sroce_qp_flush_sq(struct sroce_qp *qp)
{
	sroce_qp_drain(&qp->sq, &qp->sq_lock, qp, sroce_qp_flush_send_wqe);
}

static void sroce_qp_flush_rq(struct sroce_qp *qp)
{
	if (qp->has_rq)
		sroce_qp_drain(&qp->rq, &qp->rq_lock, qp,
			       sroce_qp_flush_recv_wqe);
}

/* RESET forgets all work: consume without completing. */
static void sroce_qp_discard(struct sroce_qp *qp)
{
	sroce_qp_drain(&qp->sq, &qp->sq_lock, qp, NULL);
	if (qp->has_rq)
		sroce_qp_drain(&qp->rq, &qp->rq_lock, qp, NULL);
}

static int sroce_qp_check_attr(struct sroce_qp *qp, struct ib_qp_attr *attr,
			       int mask, struct sroce_av *av)
{
	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index != 0)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC)))
		return -EINVAL;
	/* Automatic path migration needs a second port: not on RoCE here. */
	if (mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE))
		return -EOPNOTSUPP;
	if (mask & IB_QP_AV)
		return sroce_av_from_attr(av, &attr->ah_attr);
	return 0;
}

/* Copies each attribute named in @mask into the QP's current set. */
static void sroce_qp_apply_attr(struct sroce_qp *qp, struct ib_qp_attr *attr,
				int mask)
{
	struct ib_qp_attr *cur = &qp->attr;

	if (mask & IB_QP_PKEY_INDEX)
		cur->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		cur->qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		cur->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PATH_MTU)
		cur->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		cur->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		cur->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		cur->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		cur->rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		cur->sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		cur->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		cur->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		cur->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_DEST_QPN)
		cur->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		cur->en_sqd_async_notify = attr->en_sqd_async_notify;
}

static void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event event = {
		.device = qp->ib_qp.device,
		.element.qp = &qp->ib_qp,
		.event = type,
	};

	if (qp->ib_qp.event_handler)
		qp->ib_qp.event_handler(&event, qp->ib_qp.qp_context);
}

int sroce_qp_modify_locked(struct sroce_qp *qp, struct ib_qp_attr *attr,
			   int mask)
{
	enum ib_qp_state cur = qp->state, next;
	struct sroce_av av;
	int err;

	lockdep_assert_held(&qp->lock);
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return -EINVAL;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, qp->ib_qp.qp_type, mask))
		return -EINVAL;
	err = sroce_qp_check_attr(qp, attr, mask, &av);
	if (err)
		return err;

	sroce_qp_apply_attr(qp, attr, mask);
	if (mask & IB_QP_AV)
		qp->av = av;
	if (mask & IB_QP_SQ_PSN) {
		spin_lock_bh(&qp->sq_lock);
		qp->sq_psn = qp->attr.sq_psn;
		spin_unlock_bh(&qp->sq_lock);
	}
	if (!(mask & IB_QP_STATE))
		return 0;

	WRITE_ONCE(qp->state, next);
	switch (next) {
	case IB_QPS_RESET:
		sroce_qp_discard(qp);
		break;
	case IB_QPS_ERR:
		sroce_qp_flush_sq(qp);
		sroce_qp_flush_rq(qp);
		break;
	case IB_QPS_SQD:
		/* No request is ever in flight yet: drained at once. */
		if (qp->attr.en_sqd_async_notify)
			sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
		break;
	default:
		break;
	}
	return 0;
}

/* A fatal error found by the data path (process context): to ERR, flushed. */
void sroce_qp_error(struct sroce_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	mutex_lock(&qp->lock);
	if (qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET)
		sroce_qp_modify_locked(qp, &attr, IB_QP_STATE);
	mutex_unlock(&qp->lock);
}
