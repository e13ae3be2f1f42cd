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

#include <sroce/bth.h>
#include <sroce/psn.h>

#include "sroce.h"
#include "limits.h"
#include "cq.h"
#include "odp.h"
#include "qp.h"
#include "trace.h"

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
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_BTH_QPN_MASK)
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
		cur->rq_psn = sroce_psn_mask(attr->rq_psn);
	if (mask & IB_QP_SQ_PSN)
		cur->sq_psn = sroce_psn_mask(attr->sq_psn);
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

void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event event = {
		.device = qp->ib_qp.device,
		.element.qp = &qp->ib_qp,
		.event = type,
	};

	if (qp->ib_qp.event_handler)
		qp->ib_qp.event_handler(&event, qp->ib_qp.qp_context);
}

/*
 * Applies a validated change under both engine locks. An engine may have
 * moved the QP to ERR since the caller looked: the transition is checked
 * again here.
 */
static int sroce_qp_apply_locked(struct sroce_qp *qp, struct ib_qp_attr *attr,
				 int mask, const struct sroce_av *av)
{
	enum ib_qp_state cur = qp->state;
	enum ib_qp_state next = (mask & IB_QP_STATE) ? attr->qp_state : cur;

	lockdep_assert_held(&qp->snd.lock);
	lockdep_assert_held(&qp->rcv.lock);
	if (!ib_modify_qp_is_ok(cur, next, qp->ib_qp.qp_type, mask))
		return -EINVAL;
	sroce_qp_apply_attr(qp, attr, mask);
	if (mask & IB_QP_AV) {
		qp->av = *av;
		dst_cache_reset(&qp->dst_cache);
		/* They passed the peer check against the old path. */
		sroce_responder_drop_held(qp);
	}
	/*
	 * Both ends segment and check read responses at the path MTU they
	 * agreed on: it is used as given, not clamped to the port's.
	 */
	if (mask & IB_QP_PATH_MTU)
		qp->mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	if (!(mask & IB_QP_STATE))
		return 0;

	if (next != cur)
		trace_sroce_qp_state(qp->ib_qp.device, qp->ib_qp.qp_num, cur,
				     next);
	WRITE_ONCE(qp->state, next);
	switch (next) {
	case IB_QPS_RESET:
		del_timer(&qp->retry_timer);
		del_timer(&qp->rnr_timer);
		del_timer(&qp->hold_timer);
		clear_bit(SROCE_ENG_RETRY, &qp->snd.flags);
		clear_bit(SROCE_ENG_RNR, &qp->snd.flags);
		clear_bit(SROCE_ENG_HOLD, &qp->rcv.flags);
		sroce_engine_drop_rx(qp);
		sroce_requester_discard(qp);
		sroce_responder_discard(qp);
		sroce_odp_fault_forget(&qp->odp_snd);
		sroce_odp_fault_forget(&qp->odp_rcv);
		break;
	case IB_QPS_INIT:
		/* Sends posted in RESET failed (verbs_post.c): drop them. */
		if (cur == IB_QPS_RESET)
			sroce_requester_discard(qp);
		break;
	case IB_QPS_RTR:
		if (cur == IB_QPS_INIT)
			sroce_responder_reset(qp);
		break;
	case IB_QPS_RTS:
		if (cur == IB_QPS_RTR)
			sroce_requester_reset(qp);
		break;
	case IB_QPS_SQD:
		sroce_completer_sqd_begin(qp);
		break;
	case IB_QPS_ERR:
		sroce_qp_set_error(qp);
		break;
	default:
		break;
	}
	return 0;
}

int sroce_qp_modify_locked(struct sroce_qp *qp, struct ib_qp_attr *attr,
			   int mask)
{
	enum ib_qp_state cur, next;
	struct sroce_av av;
	int err;

	lockdep_assert_held(&qp->lock);
	cur = READ_ONCE(qp->state);

	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		return -EINVAL;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, qp->ib_qp.qp_type, mask))
		return -EINVAL;
	err = sroce_qp_check_attr(qp, attr, mask, &av);
	if (err)
		return err;

	sroce_engine_lock(qp);
	err = sroce_qp_apply_locked(qp, attr, mask, &av);
	sroce_engine_unlock(qp);
	/* Start sending, flush, or notice SQD drained, right away. */
	if (!err && (mask & IB_QP_STATE))
		sroce_engine_kick(qp);
	return err;
}

/*
 * A fatal error, found by an engine (holding its own lock) or asked for
 * by modify (holding both): both engines run once more to complete every
 * outstanding WQE with a flush error. The engine that found it kicks the
 * other at the end of its run (sroce_engine_run()). Timers are
 * left to run out: in ERR they only kick the send engine to no effect.
 */
void sroce_qp_set_error(struct sroce_qp *qp)
{
	lockdep_assert(lockdep_is_held(&qp->snd.lock) ||
		       lockdep_is_held(&qp->rcv.lock));
	if (qp->state != IB_QPS_ERR) {
		trace_sroce_qp_error(qp->ib_qp.device, qp->ib_qp.qp_num,
				     _RET_IP_);
		trace_sroce_qp_state(qp->ib_qp.device, qp->ib_qp.qp_num,
				     qp->state, IB_QPS_ERR);
	}
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	set_bit(SROCE_ENG_PENDING, &qp->snd.flags);
	set_bit(SROCE_ENG_PENDING, &qp->rcv.flags);
}
