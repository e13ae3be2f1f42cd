// SPDX-License-Identifier: GPL-2.0
/*
 * Responder: executes incoming requests (engine context) - places SENDs
 * into receive WQEs and RDMA WRITEs into registered memory straight from
 * the skb fragments, answers RDMA READs and atomics, and acknowledges.
 *
 * RC (IBTA 9.7): packets are executed in PSN order only. A PSN ahead of
 * the expected one is held until the gap fills, and the gap gets one
 * sequence-error NAK when it looks lost (sroce_resp_hold()); one behind
 * it is a duplicate: SEND/WRITE are acknowledged again, READs
 * are executed again and atomics answered from the saved result. ACKs are
 * coalesced: one per engine run, sent after any read response that
 * precedes it. Errors NAK the request and move the QP to ERR with an
 * async event; a missing receive WQE gets an RNR NAK.
 *
 * UC: no ACKs; a gap drops the message in progress, and whatever is
 * wrong with a message drops just that message.
 *
 * UD: one packet per message, Q_Key checked, the GRH in front of the
 * data.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/packet.h>
#include <sroce/psn.h>

#include "sroce.h"
#include "cq.h"
#include "keys.h"
#include "limits.h"
#include "mr.h"
#include "srq.h"
#include "net_tx.h"
#include "qp.h"
#include "rx_limits.h"
#include "sge.h"
#include "trace.h"

#define SROCE_GRH_BYTES		40
/* Packets held ahead of a gap: at most this far ahead, and this many. */
#define SROCE_HOLD_MAX		128
/* Held packets after which a gap is taken for a loss and NAKed. */
#define SROCE_HOLD_NAK		3

/* Outcome of executing one in-order request packet. */
enum sroce_resp_result {
	SROCE_RESP_OK,
	SROCE_RESP_RNR,		/* no receive WQE */
	SROCE_RESP_INV_REQ,	/* malformed sequence, length, alignment */
	SROCE_RESP_ACCESS,	/* R_Key, range or rights */
	SROCE_RESP_OP_ERR,	/* our own side failed (receive WQE) */
	SROCE_RESP_FAULT,	/* an on-demand page is being faulted in */
};

/*
 * Whether an access that found an on-demand page missing (-EAGAIN from
 * the copy engine) waits for the fault, or fails for good. @rest: the
 * bytes of the message from @iova on, faulted in with it up to a bound.
 */
static bool sroce_resp_fault(struct sroce_qp *qp, struct sroce_mr *mr,
			     u64 iova, u32 len, u64 rest, bool write)
{
	return sroce_odp_fault_ask(&qp->odp_rcv, mr, iova, len, rest,
				   write) == -EINPROGRESS;
}

static const u8 *sroce_resp_bth(const struct sk_buff *skb)
{
	return skb->data + sizeof(struct udphdr);
}

static int sroce_resp_payload_off(const struct sroce_packet_info *info)
{
	return sizeof(struct udphdr) + info->payload_off;
}

static struct sroce_sge_list sroce_rwqe_sges(struct sroce_qp *qp)
{
	struct rxe_recv_wqe *wqe = qp->resp.rwqe;

	return sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma, qp->rq_max_sge,
				 &qp->odp_rcv);
}

/* Copies the next receive WQE out of the RQ or SRQ, if there is one. */
static bool sroce_resp_take_rwqe(struct sroce_qp *qp)
{
	void *slot;

	if (qp->resp.have_rwqe)
		return true;
	if (qp->srq) {
		qp->resp.have_rwqe = sroce_srq_take(qp->srq, qp->resp.rwqe);
		return qp->resp.have_rwqe;
	}
	slot = sroce_queue_head(&qp->rq);
	if (!slot)
		return false;
	sroce_recv_wqe_copy(qp->resp.rwqe, slot, qp->rq_slot_size);
	qp->resp.have_rwqe = true;
	return true;
}

/* Completes the receive WQE in resp.rwqe with @wc. */
static void sroce_resp_complete(struct sroce_qp *qp, struct ib_wc *wc,
				bool solicited)
{
	struct rxe_recv_wqe *wqe = qp->resp.rwqe;

	wc->wr_id = wqe->wr_id;
	wc->qp = &qp->ib_qp;
	wc->port_num = SROCE_PORT;
	/* The slot goes back to the user before its completion. */
	if (!qp->srq)
		sroce_queue_pop(&qp->rq);
	qp->resp.have_rwqe = false;
	if (sroce_cq_post(qp->rcq, wc, solicited))
		sroce_qp_set_error(qp);
}

static void sroce_resp_send_ack(struct sroce_qp *qp, u32 psn, u8 syndrome)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_hdr_fields f = {
		.opcode = SROCE_OP_RC_ACKNOWLEDGE,
		.pkey = SROCE_DEFAULT_PKEY,
		.dest_qpn = qp->attr.dest_qp_num,
		.psn = psn,
		.syndrome = syndrome,
		.msn = qp->resp.msn,
	};
	struct sk_buff *skb = sroce_tx_build(sdev, &qp->av, &f, 0);

	if (sroce_syndrome_type(syndrome) != SROCE_AETH_ACK)
		trace_sroce_nak_sent(&sdev->ib_dev, qp->ib_qp.qp_num, psn,
				     syndrome);
	if (skb)
		sroce_send_packet(qp, &qp->rcv, skb);
}

static u8 sroce_resp_ack_syndrome(void)
{
	return sroce_syndrome_ack(SROCE_AETH_CREDITS_INVALID);
}

/* A request we cannot execute (RC): NAK it, then ERR and an event. */
static void sroce_resp_fatal(struct sroce_qp *qp, u32 psn,
			     enum sroce_resp_result result)
{
	static const struct {
		u8 nak;
		enum ib_event_type event;
	} map[] = {
		[SROCE_RESP_INV_REQ] = { SROCE_NAK_INVALID_REQ,
					 IB_EVENT_QP_REQ_ERR },
		[SROCE_RESP_ACCESS] = { SROCE_NAK_REM_ACCESS_ERR,
					IB_EVENT_QP_ACCESS_ERR },
		[SROCE_RESP_OP_ERR] = { SROCE_NAK_REM_OP_ERR,
					IB_EVENT_QP_FATAL },
	};

	sroce_resp_send_ack(qp, psn, sroce_syndrome_nak(map[result].nak));
	sroce_qp_set_error(qp);
	sroce_qp_event(qp, map[result].event);
}

/*
 * Does the QP and the region or window named by @rkey allow @access on
 * the range?
 */
static bool sroce_resp_rkey_ok(struct sroce_qp *qp, u32 rkey, int access,
			       u64 va, u32 len)
{
	struct sroce_mr *mr;
	u64 iova;

	if (!(qp->attr.qp_access_flags & access))
		return false;
	/* A zero-length transfer checks no key (IBTA 9.4.4, 9.4.5). */
	if (!len)
		return true;
	mr = sroce_rkey_get(&qp->ib_qp, rkey, access, va, len, &iova);
	if (!mr)
		return false;
	sroce_mr_put(mr);
	return true;
}

static enum sroce_resp_result sroce_resp_send(struct sroce_qp *qp,
					      struct sk_buff *skb,
					      const struct sroce_packet_info *info)
{
	struct sroce_resp *resp = &qp->resp;
	const u8 *bth = sroce_resp_bth(skb);
	u32 flags = info->op->flags;
	struct sroce_sge_list l;
	struct ib_wc wc = {
		.opcode = IB_WC_RECV,
		.src_qp = qp->attr.dest_qp_num,
	};

	if (flags & SROCE_OPF_FIRST) {
		if (!sroce_resp_take_rwqe(qp))
			return SROCE_RESP_RNR;
		resp->in_msg = true;
		resp->msg_write = false;
		resp->offset = 0;
	}
	l = sroce_rwqe_sges(qp);
	wc.status = sroce_sge_write_skb(&l, resp->offset, skb,
					sroce_resp_payload_off(info),
					info->payload_len);
	if (wc.status == SROCE_WC_FAULT_PENDING) {
		/* Not taken: it is sent again (RC) or lost (UC). */
		if (flags & SROCE_OPF_FIRST)
			resp->in_msg = false;
		return SROCE_RESP_FAULT;
	}
	resp->offset += info->payload_len;
	if (wc.status == IB_WC_SUCCESS && !(flags & SROCE_OPF_LAST))
		return SROCE_RESP_OK;

	resp->in_msg = false;
	wc.byte_len = resp->offset;
	if (flags & SROCE_OPF_IMM) {
		wc.ex.imm_data = sroce_immdt_imm(sroce_hdr_ptr(bth, info->op,
							       SROCE_HDR_IMMDT));
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	if ((flags & SROCE_OPF_INV) && wc.status == IB_WC_SUCCESS) {
		u32 rkey = sroce_ieth_rkey(sroce_hdr_ptr(bth, info->op,
							 SROCE_HDR_IETH));

		/* A fast-reg region, or a type 2 window bound to this QP. */
		if (sroce_key_invalidate(&qp->ib_qp, rkey, true)) {
			wc.status = IB_WC_REM_INV_REQ_ERR;
		} else {
			wc.ex.invalidate_rkey = rkey;
			wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		}
	}
	sroce_resp_complete(qp, &wc, sroce_bth_se((const void *)bth));
	if (wc.status == IB_WC_SUCCESS) {
		resp->msn++;
		return SROCE_RESP_OK;
	}
	return wc.status == IB_WC_LOC_LEN_ERR ? SROCE_RESP_INV_REQ :
						SROCE_RESP_OP_ERR;
}

static enum sroce_resp_result sroce_resp_write(struct sroce_qp *qp,
					       struct sk_buff *skb,
					       const struct sroce_packet_info *info)
{
	struct sroce_resp *resp = &qp->resp;
	const u8 *bth = sroce_resp_bth(skb);
	u32 flags = info->op->flags, len = info->payload_len;
	struct sroce_mr *mr;
	int err;

	/* Check for the receive WQE before anything changes: RNR retries. */
	if ((flags & SROCE_OPF_IMM) && !sroce_resp_take_rwqe(qp))
		return SROCE_RESP_RNR;
	if (flags & SROCE_OPF_FIRST) {
		const struct sroce_reth *reth =
			sroce_hdr_ptr(bth, info->op, SROCE_HDR_RETH);

		resp->va = sroce_reth_va(reth);
		resp->rkey = sroce_reth_rkey(reth);
		resp->dma_len = sroce_reth_len(reth);
		resp->offset = 0;
		if (!sroce_resp_rkey_ok(qp, resp->rkey, IB_ACCESS_REMOTE_WRITE,
					resp->va, resp->dma_len))
			return SROCE_RESP_ACCESS;
		resp->in_msg = true;
		resp->msg_write = true;
	}
	if (len > resp->dma_len - resp->offset ||
	    ((flags & SROCE_OPF_LAST) && resp->offset + len != resp->dma_len)) {
		resp->in_msg = false;
		return SROCE_RESP_INV_REQ;
	}
	if (len) {
		u64 va = resp->va + resp->offset, iova;

		mr = sroce_rkey_get(&qp->ib_qp, resp->rkey,
				    IB_ACCESS_REMOTE_WRITE, va, len, &iova);
		if (!mr)
			return SROCE_RESP_ACCESS;
		err = sroce_mr_copy_skb(mr, iova, skb,
					sroce_resp_payload_off(info), len);
		if (err == -EAGAIN &&
		    sroce_resp_fault(qp, mr, iova, len,
				     resp->dma_len - resp->offset, true))
			err = -EINPROGRESS;
		sroce_mr_put(mr);
		if (err == -EINPROGRESS) {
			if (flags & SROCE_OPF_FIRST)
				resp->in_msg = false;
			return SROCE_RESP_FAULT;
		}
		if (err)
			return SROCE_RESP_ACCESS;
	}
	resp->offset += len;
	if (!(flags & SROCE_OPF_LAST))
		return SROCE_RESP_OK;

	resp->in_msg = false;
	resp->msn++;
	if (flags & SROCE_OPF_IMM) {
		struct ib_wc wc = {
			.opcode = IB_WC_RECV_RDMA_WITH_IMM,
			.src_qp = qp->attr.dest_qp_num,
			.byte_len = resp->dma_len,
			.wc_flags = IB_WC_WITH_IMM,
			.ex.imm_data = sroce_immdt_imm(
				sroce_hdr_ptr(bth, info->op, SROCE_HDR_IMMDT)),
		};

		sroce_resp_complete(qp, &wc, sroce_bth_se((const void *)bth));
	}
	return SROCE_RESP_OK;
}

static enum sroce_resp_result sroce_resp_read(struct sroce_qp *qp,
					      struct sk_buff *skb,
					      const struct sroce_packet_info *info)
{
	struct sroce_resp *resp = &qp->resp;
	const struct sroce_reth *reth =
		sroce_hdr_ptr(sroce_resp_bth(skb), info->op, SROCE_HDR_RETH);
	u32 len = sroce_reth_len(reth);
	struct sroce_resp_res *res;

	if (len > SROCE_MAX_MSG_SIZE)
		return SROCE_RESP_INV_REQ;
	if (!sroce_resp_rkey_ok(qp, sroce_reth_rkey(reth),
				IB_ACCESS_REMOTE_READ, sroce_reth_va(reth),
				len))
		return SROCE_RESP_ACCESS;
	res = sroce_rres_new(&resp->rres);
	if (!res)
		return SROCE_RESP_INV_REQ;
	sroce_rres_start_read(&resp->rres, res, qp->mtu, info->psn,
			      sroce_reth_va(reth), len, sroce_reth_rkey(reth));
	resp->psn = sroce_psn_add(res->last_psn, 1);
	resp->msn++;
	/* The read response acknowledges everything before it. */
	resp->ack_pending = false;
	return SROCE_RESP_OK;
}

static enum sroce_resp_result sroce_resp_atomic(struct sroce_qp *qp,
						struct sk_buff *skb,
						const struct sroce_packet_info *info)
{
	const struct sroce_atmeth *ae =
		sroce_hdr_ptr(sroce_resp_bth(skb), info->op, SROCE_HDR_ATMETH);
	bool cas = info->opcode == SROCE_OP_RC_COMPARE_SWAP;
	u64 va = sroce_atmeth_va(ae);
	struct sroce_resp_res *res;
	struct sroce_mr *mr;
	u64 orig, iova;
	int err;

	if (va & 7)
		return SROCE_RESP_INV_REQ;
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC))
		return SROCE_RESP_ACCESS;
	mr = sroce_rkey_get(&qp->ib_qp, sroce_atmeth_rkey(ae),
			    IB_ACCESS_REMOTE_ATOMIC, va, sizeof(u64), &iova);
	if (!mr)
		return SROCE_RESP_ACCESS;
	/* The slot is taken only once the atomic has executed. */
	if (!sroce_rres_has_room(&qp->resp.rres)) {
		sroce_mr_put(mr);
		return SROCE_RESP_INV_REQ;
	}
	err = sroce_mr_atomic(mr, iova, cas ? SROCE_ATOMIC_CMP_SWAP :
					      SROCE_ATOMIC_FETCH_ADD,
			      cas ? sroce_atmeth_compare(ae) :
				    sroce_atmeth_swap_add(ae),
			      sroce_atmeth_swap_add(ae), &orig);
	if (err == -EAGAIN &&
	    sroce_resp_fault(qp, mr, iova, sizeof(u64), sizeof(u64), true))
		err = -EINPROGRESS;
	sroce_mr_put(mr);
	if (err == -EINPROGRESS)
		return SROCE_RESP_FAULT;
	if (err)
		return SROCE_RESP_ACCESS;
	res = sroce_rres_new(&qp->resp.rres);
	sroce_rres_start_atomic(&qp->resp.rres, res, info->psn, orig);
	qp->resp.psn = sroce_psn_add(info->psn, 1);
	qp->resp.msn++;
	qp->resp.ack_pending = false;
	return SROCE_RESP_OK;
}

/*
 * ATOMIC WRITE (IBTA 1.5, A19): an RDMA WRITE of exactly 8 bytes to an
 * aligned address, stored as one unit. Acknowledged like a write; a
 * duplicate is acknowledged again, never stored twice.
 */
static enum sroce_resp_result
sroce_resp_atomic_write(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_packet_info *info)
{
	const struct sroce_reth *reth =
		sroce_hdr_ptr(sroce_resp_bth(skb), info->op, SROCE_HDR_RETH);
	u64 va = sroce_reth_va(reth), iova, value, unused;
	struct sroce_mr *mr;
	int err;

	if (sroce_reth_len(reth) != sizeof(u64) ||
	    info->payload_len != sizeof(u64) || (va & 7))
		return SROCE_RESP_INV_REQ;
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return SROCE_RESP_ACCESS;
	if (skb_copy_bits(skb, sroce_resp_payload_off(info), &value,
			  sizeof(value)))
		return SROCE_RESP_INV_REQ;
	mr = sroce_rkey_get(&qp->ib_qp, sroce_reth_rkey(reth),
			    IB_ACCESS_REMOTE_WRITE, va, sizeof(u64), &iova);
	if (!mr)
		return SROCE_RESP_ACCESS;
	/* The payload is the value in memory order (as a WRITE lands). */
	err = sroce_mr_atomic(mr, iova, SROCE_ATOMIC_WRITE, 0, value, &unused);
	if (err == -EAGAIN &&
	    sroce_resp_fault(qp, mr, iova, sizeof(u64), sizeof(u64), true))
		err = -EINPROGRESS;
	sroce_mr_put(mr);
	if (err == -EINPROGRESS)
		return SROCE_RESP_FAULT;
	if (err)
		return err == -EINVAL ? SROCE_RESP_INV_REQ : SROCE_RESP_ACCESS;
	qp->resp.msn++;
	return SROCE_RESP_OK;
}

/* An in-order packet of an RC or UC QP. */
static enum sroce_resp_result sroce_resp_execute(struct sroce_qp *qp,
						 struct sk_buff *skb,
						 const struct sroce_packet_info *info)
{
	u32 flags = info->op->flags;

	if (qp->resp.in_msg) {
		if ((flags & SROCE_OPF_FIRST) ||
		    !!(flags & SROCE_OPF_WRITE) != qp->resp.msg_write)
			return SROCE_RESP_INV_REQ;
	} else if (!(flags & SROCE_OPF_FIRST)) {
		return SROCE_RESP_INV_REQ;
	}
	if (flags & SROCE_OPF_SEND)
		return sroce_resp_send(qp, skb, info);
	if (info->opcode == SROCE_OP_RC_ATOMIC_WRITE)
		return sroce_resp_atomic_write(qp, skb, info);
	if (flags & SROCE_OPF_WRITE)
		return sroce_resp_write(qp, skb, info);
	if (flags & SROCE_OPF_READ)
		return sroce_resp_read(qp, skb, info);
	if (flags & SROCE_OPF_ATOMIC)
		return sroce_resp_atomic(qp, skb, info);
	return SROCE_RESP_INV_REQ;
}

/*
 * A repeated RDMA READ request for the responses of @res from @psn on:
 * they are executed again (IBTA 9.9.2.2), as much of them as
 * sroce/resp_res.h says, and only where the rkey still allows.
 */
static void sroce_resp_read_again(struct sroce_qp *qp,
				  struct sroce_resp_res *res, u32 psn,
				  u64 va, u32 rkey, u64 len)
{
	struct sroce_rres_again again;

	if (!sroce_rres_read_again(res, qp->mtu, SROCE_MAX_MSG_SIZE, psn, va,
				   len, rkey, &again) ||
	    !sroce_resp_rkey_ok(qp, rkey, IB_ACCESS_REMOTE_READ, again.va,
				again.len))
		return;
	sroce_rres_replay_read(&qp->resp.rres, res, &again, rkey);
}

/* A request with a PSN we have executed before (RC). */
static void sroce_resp_duplicate(struct sroce_qp *qp, struct sk_buff *skb,
				 const struct sroce_packet_info *info)
{
	u32 flags = info->op->flags;
	struct sroce_resp_res *res;

	if (flags & SROCE_OPF_READ) {
		const struct sroce_reth *reth = sroce_hdr_ptr(
			sroce_resp_bth(skb), info->op, SROCE_HDR_RETH);
		u64 va = sroce_reth_va(reth);
		u32 rkey = sroce_reth_rkey(reth);
		u64 len = sroce_reth_len(reth);

		res = sroce_rres_find(&qp->resp.rres, info->psn, false);
		if (res)
			sroce_resp_read_again(qp, res, info->psn, va, rkey, len);
		return;
	}
	if (flags & SROCE_OPF_ATOMIC) {
		res = sroce_rres_find(&qp->resp.rres, info->psn, true);
		if (res)
			sroce_rres_replay_atomic(&qp->resp.rres, res);
		return;
	}
	/* SEND/WRITE: acknowledge again, with the newest PSN. */
	qp->resp.ack_pending = true;
	qp->resp.ack_psn = sroce_psn_sub(qp->resp.psn, 1);
}

/*
 * Where a packet for @psn goes among the held ones: after *@pos (the
 * list head itself for the front). False if one with @psn is held.
 */
static bool sroce_resp_hold_pos(struct sk_buff_head *held, u32 psn,
				struct sk_buff **pos)
{
	struct sk_buff *p;

	skb_queue_reverse_walk(held, p) {
		s32 d = sroce_psn_diff(psn, sroce_skb_info(p)->psn);

		if (!d)
			return false;
		if (d > 0)
			break;
	}
	*pos = p;
	return true;
}

/*
 * A packet ahead of the expected PSN (RC). A go-back-N requester sends
 * everything again from the PSN a sequence NAK names, so NAKing a packet
 * that is only late (reordered on the way) costs a round trip of
 * duplicates, and dropping what came early means sending it again. So
 * such a packet is held, by PSN, and executed once the gap has filled
 * (still in PSN order: the requester cannot tell). The gap is NAKed,
 * once, when it looks lost: SROCE_HOLD_NAK packets are held behind it,
 * or the held one asks for an ACK (the end of a message or of a burst:
 * its requester waits for an answer), or it cannot be held. When the
 * gap fills, the ACK that follows names everything executed, and a
 * requester that was sending again from the gap moves on past it.
 *
 * What is held is bounded in count (SROCE_HOLD_MAX), in bytes per QP,
 * device and module, and in time (rx_limits.h): a gap that makes no
 * progress for sroce_hold_age() loses its held packets
 * (sroce_responder_age_held()).
 * Returns SROCE_RX_HELD if @skb was taken, else why it is dropped.
 */
static enum sroce_drop_reason sroce_resp_hold(struct sroce_qp *qp,
					      struct sk_buff *skb,
					      const struct sroce_packet_info *info,
					      s32 ahead)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_resp *resp = &qp->resp;
	enum sroce_drop_reason fate = SROCE_RX_HELD;
	bool ackreq = sroce_bth_ackreq((const void *)sroce_resp_bth(skb));
	struct sk_buff *pos;

	if (ahead >= SROCE_HOLD_MAX ||
	    skb_queue_len(&resp->held) >= SROCE_HOLD_MAX) {
		fate = SROCE_DROP_OUT_OF_SEQUENCE;
	} else if (!sroce_resp_hold_pos(&resp->held, info->psn, &pos)) {
		fate = SROCE_DROP_DUPLICATE;
	} else if (!sroce_hold_charge(qp, &skb)) {
		sroce_count(sdev, SROCE_CNT_RX_HOLD_FULL);
		fate = SROCE_DROP_HOLD_FULL;
	} else {
		/* @info may have gone with the original of a condensed @skb. */
		if (skb_queue_empty(&resp->held)) {
			resp->hold_since = jiffies;
			sroce_engine_arm_hold(qp, jiffies + sroce_hold_age());
		}
		__skb_queue_after(&resp->held, pos, skb);
		/* It may wait long: pin no route (nor its netdev) meanwhile. */
		skb_dst_drop(skb);
	}
	/*
	 * Not while the expected packet waits for its fault: the NAK after
	 * the fault asks for it (a requester repairs a hole once).
	 */
	if (!resp->nak_sent && !resp->odp_nudge &&
	    (fate != SROCE_RX_HELD ||
	     skb_queue_len(&resp->held) >= SROCE_HOLD_NAK || ackreq)) {
		resp->nak_sent = true;
		sroce_count(sdev, SROCE_CNT_SEQ_NAK_SENT);
		sroce_resp_send_ack(qp, resp->psn,
				    sroce_syndrome_nak(SROCE_NAK_PSN_SEQ_ERR));
	}
	return fate;
}

/* An RC packet with the expected PSN. */
static enum sroce_resp_result
sroce_resp_rc_execute(struct sroce_qp *qp, struct sk_buff *skb,
		      const struct sroce_packet_info *info)
{
	struct sroce_resp *resp = &qp->resp;
	u32 flags = info->op->flags;
	enum sroce_resp_result result;

	resp->nak_sent = false;
	result = sroce_resp_execute(qp, skb, info);
	switch (result) {
	case SROCE_RESP_OK:
		if (flags & (SROCE_OPF_READ | SROCE_OPF_ATOMIC))
			break;
		resp->psn = sroce_psn_add(info->psn, 1);
		if ((flags & SROCE_OPF_LAST) ||
		    sroce_bth_ackreq((const void *)sroce_resp_bth(skb))) {
			resp->ack_pending = true;
			resp->ack_psn = info->psn;
		}
		break;
	case SROCE_RESP_RNR:
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_RX_NO_RECV_WQE);
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_RNR_NAK_SENT);
		sroce_resp_send_ack(qp, info->psn,
				    sroce_syndrome_rnr(qp->attr.min_rnr_timer));
		break;
	case SROCE_RESP_FAULT:
		/*
		 * Dropped, as if lost. No RNR NAK: that would spend the
		 * requester's rnr_retry on what is no missing receive WQE.
		 * Once the fault is served, a sequence NAK asks for it
		 * again (sroce_responder_send()).
		 */
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_ODP_FAULT_DROPS);
		resp->odp_nudge = true;
		break;
	default:
		sroce_resp_fatal(qp, info->psn, result);
		break;
	}
	return result;
}

/*
 * Executes the held packets that the gap's filling made the expected
 * ones, and drops those a resend overtook. The ACK that follows names
 * the newest PSN executed.
 */
static void sroce_resp_rc_release(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sk_buff *skb;
	bool executed = false;

	while ((skb = skb_peek(&resp->held)) &&
	       READ_ONCE(qp->state) != IB_QPS_ERR) {
		const struct sroce_packet_info *info = sroce_skb_info(skb);
		s32 d = sroce_psn_diff(info->psn, resp->psn);

		if (d > 0)
			break;
		__skb_unlink(skb, &resp->held);
		sroce_hold_uncharge(qp, skb);
		if (d) {
			/* A resend got here first. */
			sroce_drop_skb(qp->ib_qp.device, qp->ib_qp.qp_num,
				       skb, SROCE_DROP_DUPLICATE);
			continue;
		}
		if (sroce_resp_rc_execute(qp, skb, info) == SROCE_RESP_FAULT) {
			sroce_drop_skb(qp->ib_qp.device, qp->ib_qp.qp_num,
				       skb, SROCE_DROP_ODP_FAULT);
			break;
		}
		executed = true;
		consume_skb(skb);
	}
	if (executed) {
		resp->ack_pending = true;
		resp->ack_psn = sroce_psn_sub(resp->psn, 1);
	}
	/* The gap moved: what is still held gets a new lease. */
	if (!skb_queue_empty(&resp->held))
		resp->hold_since = jiffies;
}

static enum sroce_drop_reason sroce_resp_rc(struct sroce_qp *qp,
					    struct sk_buff *skb,
					    const struct sroce_packet_info *info)
{
	struct sroce_resp *resp = &qp->resp;
	s32 diff = sroce_psn_diff(info->psn, resp->psn);

	if (diff > 0) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_RX_OUT_OF_SEQUENCE);
		return sroce_resp_hold(qp, skb, info, diff);
	}
	if (diff < 0) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_RX_DUPLICATE);
		/* Answered again (ACK, read or atomic replay): used. */
		sroce_resp_duplicate(qp, skb, info);
		return SROCE_RX_USED;
	}
	if (sroce_resp_rc_execute(qp, skb, info) == SROCE_RESP_FAULT)
		return SROCE_DROP_ODP_FAULT;
	if (!skb_queue_empty(&resp->held))
		sroce_resp_rc_release(qp);
	return SROCE_RX_USED;
}

static enum sroce_drop_reason sroce_resp_uc(struct sroce_qp *qp,
					    struct sk_buff *skb,
					    const struct sroce_packet_info *info)
{
	struct sroce_resp *resp = &qp->resp;
	bool first = info->op->flags & SROCE_OPF_FIRST;
	enum sroce_resp_result result;

	/*
	 * From before the expected PSN: a duplicate, or a straggler the
	 * network let others overtake (a whole burst of them, as one GSO
	 * skb, behind netem). Taking it would deliver an older message
	 * after a newer one, or break the message in progress: UC delivers
	 * in order or not at all. Dropped, and nothing else changes.
	 */
	if (sroce_psn_before(info->psn, resp->psn)) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_RX_OUT_OF_SEQUENCE);
		return SROCE_DROP_OUT_OF_SEQUENCE;
	}
	/* A gap, or a new message before the end of the last: drop it. */
	if (info->psn != resp->psn || (resp->in_msg && first))
		resp->in_msg = false;
	resp->psn = sroce_psn_add(info->psn, 1);
	if (!resp->in_msg && !first) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_RX_OUT_OF_SEQUENCE);
		return SROCE_DROP_OUT_OF_SEQUENCE;
	}
	result = sroce_resp_execute(qp, skb, info);
	if (result != SROCE_RESP_OK) {
		/* UC has no resend: a missing page loses the message. */
		resp->in_msg = false;
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_RX_DROPPED_MSG);
	}
	if (result == SROCE_RESP_FAULT) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_ODP_FAULT_DROPS);
		return SROCE_DROP_ODP_FAULT;
	}
	return SROCE_RX_USED;
}

/* The 40 bytes a UD receive buffer starts with (IBTA 11.4.1.1, A17). */
static void sroce_make_grh(const struct sk_buff *skb, u8 *grh)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		memset(grh, 0, SROCE_GRH_BYTES - sizeof(struct iphdr));
		memcpy(grh + SROCE_GRH_BYTES - sizeof(struct iphdr),
		       ip_hdr(skb), sizeof(struct iphdr));
	} else {
		memcpy(grh, ipv6_hdr(skb), SROCE_GRH_BYTES);
	}
}

static enum sroce_drop_reason sroce_resp_ud(struct sroce_qp *qp,
					    struct sk_buff *skb,
					    const struct sroce_packet_info *info)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	const u8 *bth = sroce_resp_bth(skb);
	const struct sroce_deth *deth =
		sroce_hdr_ptr(bth, info->op, SROCE_HDR_DETH);
	const struct sroce_immdt *immdt =
		sroce_hdr_ptr(bth, info->op, SROCE_HDR_IMMDT);
	u8 grh[SROCE_GRH_BYTES];
	struct sroce_sge_list l;
	struct ib_wc wc = {
		.opcode = IB_WC_RECV,
		.src_qp = sroce_deth_sqpn(deth),
		.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE,
		.network_hdr_type = skb->protocol == htons(ETH_P_IP) ?
				    RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6,
		.byte_len = SROCE_GRH_BYTES + info->payload_len,
	};

	if (sroce_deth_qkey(deth) != qp->attr.qkey) {
		sroce_count(sdev, SROCE_CNT_RX_QKEY_VIOLATION);
		return SROCE_DROP_QKEY;
	}
	/* UD has no flow control: no buffer, no message. */
	if (!sroce_resp_take_rwqe(qp)) {
		sroce_count(sdev, SROCE_CNT_RX_NO_RECV_WQE);
		return SROCE_DROP_NO_RECV_WQE;
	}
	if (immdt) {
		wc.ex.imm_data = sroce_immdt_imm(immdt);
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	sroce_make_grh(skb, grh);
	l = sroce_rwqe_sges(qp);
	wc.status = sroce_sge_write(&l, 0, grh, SROCE_GRH_BYTES);
	if (wc.status == IB_WC_SUCCESS)
		wc.status = sroce_sge_write_skb(&l, SROCE_GRH_BYTES, skb,
						sroce_resp_payload_off(info),
						info->payload_len);
	/* UD has no resend: the WQE waits for the next datagram. */
	if (wc.status == SROCE_WC_FAULT_PENDING) {
		sroce_count(sdev, SROCE_CNT_ODP_FAULT_DROPS);
		return SROCE_DROP_ODP_FAULT;
	}
	sroce_resp_complete(qp, &wc, sroce_bth_se((const void *)bth));
	return SROCE_RX_USED;
}

/*
 * What became of @skb: used, held (sroce_resp_hold()), or why it is to be
 * dropped. The caller frees it accordingly.
 */
enum sroce_drop_reason sroce_responder_recv(struct sroce_qp *qp,
					    struct sk_buff *skb)
{
	const struct sroce_packet_info *info = sroce_skb_info(skb);
	u32 flags = info->op->flags;

	if (qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR ||
	    (!qp->has_rq && !qp->srq))
		return SROCE_DROP_QP_STATE;
	switch (qp->ib_qp.qp_type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
		if (flags & SROCE_OPF_UD)
			return sroce_resp_ud(qp, skb, info);
		break;
	case IB_QPT_UC:
		if (flags & SROCE_OPF_UC)
			return sroce_resp_uc(qp, skb, info);
		break;
	case IB_QPT_RC:
		if (flags & SROCE_OPF_RC)
			return sroce_resp_rc(qp, skb, info);
		break;
	default:
		break;
	}
	return SROCE_DROP_WRONG_TRANSPORT;
}

/* One read response packet of @res, or its atomic acknowledgement. */
static bool sroce_resp_send_res(struct sroce_qp *qp,
				struct sroce_resp_res *res)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_resp_cursor *c = sroce_rres_cursor(res);
	u32 left = c->length - c->offset;
	u32 payload = min(left, qp->mtu);
	bool first = !c->offset;
	bool last = payload == left;
	struct sroce_hdr_fields f = {
		.pkey = SROCE_DEFAULT_PKEY,
		.dest_qpn = qp->attr.dest_qp_num,
		.psn = c->psn,
		.syndrome = sroce_resp_ack_syndrome(),
		.msn = qp->resp.msn,
	};
	struct sroce_mr *mr;
	struct sk_buff *skb;
	int err;

	if (res->atomic) {
		f.opcode = SROCE_OP_RC_ATOMIC_ACKNOWLEDGE;
		f.orig = res->orig;
		payload = 0;
		last = true;
	} else if (first && last) {
		f.opcode = SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
	} else if (first) {
		f.opcode = SROCE_OP_RC_RDMA_READ_RESPONSE_FIRST;
	} else if (last) {
		f.opcode = SROCE_OP_RC_RDMA_READ_RESPONSE_LAST;
	} else {
		f.opcode = SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
	}
	skb = sroce_tx_build(sdev, &qp->av, &f, payload);
	if (!skb)
		return false;
	if (payload) {
		u64 va = c->va + c->offset, iova;

		mr = sroce_rkey_get(&qp->ib_qp, res->rkey,
				    IB_ACCESS_REMOTE_READ, va, payload, &iova);
		err = mr ? sroce_mr_copy(mr, iova, skb_put(skb, payload),
					 payload, SROCE_COPY_FROM_MR) : -EFAULT;
		if (err == -EAGAIN &&
		    sroce_resp_fault(qp, mr, iova, payload, left, false))
			err = -EINPROGRESS;
		if (mr)
			sroce_mr_put(mr);
		if (err == -EINPROGRESS) {
			/* This response again, once the fault's kick comes. */
			sroce_drop_skb(qp->ib_qp.device, qp->ib_qp.qp_num,
				       skb, SROCE_DROP_TX_ABORTED);
			return false;
		}
		if (err) {
			/* The region went away under the read. */
			sroce_drop_skb(qp->ib_qp.device, qp->ib_qp.qp_num,
				       skb, SROCE_DROP_TX_ABORTED);
			sroce_rres_abort(&qp->resp.rres, res);
			sroce_resp_fatal(qp, c->psn, SROCE_RESP_ACCESS);
			return false;
		}
	}
	sroce_send_packet(qp, &qp->rcv, skb);
	/* After a patch, the rest of the read goes on where it was. */
	if (sroce_rres_sent(&qp->resp.rres, res, payload, last))
		sroce_count(sdev, SROCE_CNT_READ_PATCHES);
	return true;
}

/*
 * Sends read responses and atomic acknowledgements, oldest first, then
 * the coalesced ACK once nothing is ahead of it. Returns true if it
 * stopped only for the budget.
 */
bool sroce_responder_send(struct sroce_qp *qp, int *budget)
{
	struct sroce_resp *resp = &qp->resp;
	u32 i;

	if (!sroce_qp_is_rc(qp) || qp->state < IB_QPS_RTR)
		return false;
	/* A request dropped for a fault that is served now: ask again. */
	if (resp->odp_nudge && !sroce_odp_fault_pending(&qp->odp_rcv)) {
		resp->odp_nudge = false;
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_SEQ_NAK_SENT);
		sroce_resp_send_ack(qp, resp->psn,
				    sroce_syndrome_nak(SROCE_NAK_PSN_SEQ_ERR));
	}
	for (i = 0; i < resp->rres.slots && resp->rres.pending; i++) {
		struct sroce_resp_res *res = &resp->rres.res[
			(resp->rres.next + i) % resp->rres.slots];

		while (res->pending && *budget > 0) {
			if (!sroce_resp_send_res(qp, res))
				return qp->state != IB_QPS_ERR &&
				       !sroce_odp_fault_pending(&qp->odp_rcv);
			(*budget)--;
		}
		if (*budget <= 0)
			return resp->rres.pending != 0;
	}
	if (resp->ack_pending && !resp->rres.pending) {
		resp->ack_pending = false;
		sroce_resp_send_ack(qp, resp->ack_psn,
				    sroce_resp_ack_syndrome());
	}
	return false;
}

/* Drops every held packet for @reason; returns how many. */
static u32 sroce_resp_drop_held(struct sroce_qp *qp,
				enum sroce_drop_reason reason)
{
	struct sk_buff *skb;
	u32 n = 0;

	while ((skb = __skb_dequeue(&qp->resp.held))) {
		sroce_hold_uncharge(qp, skb);
		sroce_drop_skb(qp->ib_qp.device, qp->ib_qp.qp_num, skb,
			       reason);
		n++;
	}
	return n;
}

/* Held packets are dropped (a state change, destroy). */
void sroce_responder_drop_held(struct sroce_qp *qp)
{
	sroce_resp_drop_held(qp, SROCE_DROP_HELD_PURGED);
}

/*
 * The hold timer fired: a gap that has not moved for sroce_hold_age()
 * loses what was held behind it, as if it had never arrived. The
 * requester sends it again after its NAK, probe or timeout, and a gap
 * that nobody fills (forged packets ahead of it) pins nothing for
 * longer. A later packet ahead of the gap may NAK it again.
 */
void sroce_responder_age_held(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	unsigned long expiry = resp->hold_since + sroce_hold_age();
	u32 n;

	if (skb_queue_empty(&resp->held))
		return;
	if (time_before(jiffies, expiry)) {
		sroce_engine_arm_hold(qp, expiry);
		return;
	}
	n = sroce_resp_drop_held(qp, SROCE_DROP_HELD_EXPIRED);
	sroce_count_n(to_sroce_dev(qp->ib_qp.device), SROCE_CNT_RX_HELD_EXPIRED,
		      n);
	resp->nak_sent = false;
}

/* Entering RTR: expect the RQ PSN, nothing in progress. */
void sroce_responder_reset(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_rres_ring rres = resp->rres;
	void *rwqe = resp->rwqe;

	sroce_responder_drop_held(qp);
	memset(resp, 0, sizeof(*resp));
	__skb_queue_head_init(&resp->held);
	resp->rwqe = rwqe;
	resp->rres = rres;
	sroce_rres_reset(&resp->rres);
	resp->psn = qp->attr.rq_psn;
}

/*
 * ERR: every receive WQE of the QP completes with a flush error, in
 * order. With an SRQ that is only the one it had taken; the others
 * belong to the SRQ, and the consumer learns that this QP will take no
 * more from the last-WQE-reached event (IBTA 11.6.3.1).
 */
static void sroce_responder_flush_srq(struct sroce_qp *qp)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
	};

	if (qp->resp.have_rwqe) {
		qp->resp.have_rwqe = false;
		wc.wr_id = ((struct rxe_recv_wqe *)qp->resp.rwqe)->wr_id;
		wc.qp = &qp->ib_qp;
		sroce_cq_post(qp->rcq, &wc, false);
	}
	if (!qp->resp.last_wqe_reported) {
		qp->resp.last_wqe_reported = true;
		sroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	}
}

void sroce_responder_flush(struct sroce_qp *qp)
{
	u32 prod;

	sroce_responder_drop_held(qp);
	if (qp->srq) {
		qp->resp.in_msg = false;
		sroce_responder_flush_srq(qp);
		return;
	}
	qp->resp.have_rwqe = false;
	qp->resp.in_msg = false;
	if (!qp->has_rq)
		return;
	prod = sroce_queue_producer_index(&qp->rq);
	while (sroce_queue_consumer_index(&qp->rq) != prod) {
		struct rxe_recv_wqe *wqe = sroce_queue_head(&qp->rq);
		struct ib_wc wc = {
			.status = IB_WC_WR_FLUSH_ERR,
			.opcode = IB_WC_RECV,
			.qp = &qp->ib_qp,
		};

		if (!wqe)
			break;
		wc.wr_id = READ_ONCE(wqe->wr_id);
		sroce_queue_pop(&qp->rq);
		if (sroce_cq_post(qp->rcq, &wc, false))
			break;
	}
}

/* RESET: receive WQEs are forgotten, without completions. */
void sroce_responder_discard(struct sroce_qp *qp)
{
	u32 prod;

	if (qp->has_rq) {
		prod = sroce_queue_producer_index(&qp->rq);
		while (sroce_queue_consumer_index(&qp->rq) != prod)
			sroce_queue_pop(&qp->rq);
	}
	sroce_responder_reset(qp);
}
