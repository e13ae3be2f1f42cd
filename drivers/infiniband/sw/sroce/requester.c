// SPDX-License-Identifier: GPL-2.0
/*
 * Requester: turns send WQEs into request packets (engine context).
 *
 * The send window (send_window.h) copies each WQE out of the user's ring
 * into the QP's shadow ring when the requester first reaches it; the copy
 * is what the requester validates, sends, and resends on a retry. The
 * requester gives it its PSN range then, so a retransmission can start
 * again at any PSN, and sends from the window's position.
 *
 * RC flow control: at most SROCE_MAX_INFLIGHT packets beyond the newest
 * acknowledged PSN, at most max_rd_atomic reads/atomics outstanding, and a
 * fenced WQE waits until every earlier read/atomic has completed.
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/packet.h>
#include <sroce/psn.h>

#include "sroce.h"
#include "ah.h"
#include "limits.h"
#include "keys.h"
#include "mr.h"
#include "mw.h"
#include "net_tx.h"
#include "qp.h"
#include "sge.h"

/* Ask for an ACK this often within long messages, not only at their end. */
#define SROCE_ACKREQ_EVERY	32

bool sroce_qp_op_allowed(const struct sroce_qp *qp, u32 op)
{
	switch (op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return true;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_LOCAL_INV:
		return !sroce_qp_is_ud(qp);
	/* A REG_MR WQE carries a kernel pointer: kernel rings only. */
	case IB_WR_REG_MR:
		return !qp->user && !sroce_qp_is_ud(qp);
	/* What only librxe writes (kernel consumers have no such WR). */
	case IB_WR_BIND_MW:
		return qp->user && !sroce_qp_is_ud(qp);
	case SROCE_WR_ATOMIC_WRITE:
		return qp->user && sroce_qp_is_rc(qp);
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_SEND_WITH_INV:
		return sroce_qp_is_rc(qp);
	default:
		return false;
	}
}


bool sroce_wr_carries_data(u32 op)
{
	return op != IB_WR_RDMA_READ && !sroce_wr_is_atomic(op) &&
	       !sroce_wr_is_local(op);
}

/* Validates a copied WQE and computes its message length. */
static enum ib_wc_status sroce_req_check(const struct sroce_qp *qp,
					 const struct rxe_send_wqe *wqe,
					 u32 *len)
{
	u32 op = wqe->wr.opcode;
	u64 total = 0;
	u32 i;

	*len = 0;
	if (!sroce_qp_op_allowed(qp, op))
		return IB_WC_LOC_QP_OP_ERR;
	if (sroce_wr_is_local(op))
		return IB_WC_SUCCESS;
	if (op == SROCE_WR_ATOMIC_WRITE) {
		*len = sizeof(u64);
		return IB_WC_SUCCESS;
	}
	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if (!sroce_wr_carries_data(op))
			return IB_WC_LOC_QP_OP_ERR;
		if (wqe->dma.length > qp->sq_max_inline)
			return IB_WC_LOC_LEN_ERR;
		*len = wqe->dma.length;
		return IB_WC_SUCCESS;
	}
	if (wqe->dma.num_sge > qp->sq_max_sge)
		return IB_WC_LOC_QP_OP_ERR;
	for (i = 0; i < wqe->dma.num_sge; i++)
		total += wqe->dma.sge[i].length;
	if (total > SROCE_MAX_MSG_SIZE)
		return IB_WC_LOC_LEN_ERR;
	if (sroce_wr_is_atomic(op)) {
		if (total < sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		total = sizeof(u64);
	}
	*len = total;
	return IB_WC_SUCCESS;
}

/* Fetches the next posted WQE into the send window; NULL if none. */
static struct sroce_send_state *sroce_req_fetch(struct sroce_qp *qp)
{
	struct sroce_send_state *st;
	struct rxe_send_wqe *wqe;
	u32 npkts;

	/* SQD: what was started finishes, nothing new starts. */
	if (qp->state != IB_QPS_RTS)
		return NULL;
	wqe = sroce_swin_fetch(qp, &st);
	if (!wqe)
		return NULL;
	st->status = sroce_req_check(qp, wqe, &st->length);
	st->rd_atomic = wqe->wr.opcode == IB_WR_RDMA_READ ||
			sroce_wr_is_atomic(wqe->wr.opcode);

	if (st->status != IB_WC_SUCCESS || sroce_wr_is_local(wqe->wr.opcode))
		npkts = 0;
	else if (sroce_wr_is_atomic(wqe->wr.opcode) ||
		 sroce_qp_is_ud(qp))
		npkts = 1;
	else
		npkts = max_t(u32, 1, DIV_ROUND_UP(st->length, qp->mtu));
	sroce_swin_admit(qp, st, npkts);
	return st;
}

static u8 sroce_req_opcode(const struct sroce_qp *qp, u32 op, bool first,
			   bool last)
{
	bool write = op == IB_WR_RDMA_WRITE || op == IB_WR_RDMA_WRITE_WITH_IMM;
	bool imm = op == IB_WR_SEND_WITH_IMM || op == IB_WR_RDMA_WRITE_WITH_IMM;
	u8 base = qp->ib_qp.qp_type == IB_QPT_UC ? SROCE_OP_TRANSPORT_UC :
						   SROCE_OP_TRANSPORT_RC;
	u8 code;

	if (op == SROCE_WR_ATOMIC_WRITE)
		return SROCE_OP_RC_ATOMIC_WRITE;
	if (op == IB_WR_SEND_WITH_INV && last)
		return first ? SROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE :
			       SROCE_OP_RC_SEND_LAST_WITH_INVALIDATE;
	if (first && last)
		code = write ? SROCE_OP_RC_RDMA_WRITE_ONLY : SROCE_OP_RC_SEND_ONLY;
	else if (first)
		code = write ? SROCE_OP_RC_RDMA_WRITE_FIRST :
			       SROCE_OP_RC_SEND_FIRST;
	else if (last)
		code = write ? SROCE_OP_RC_RDMA_WRITE_LAST : SROCE_OP_RC_SEND_LAST;
	else
		code = write ? SROCE_OP_RC_RDMA_WRITE_MIDDLE :
			       SROCE_OP_RC_SEND_MIDDLE;
	/* The _WITH_IMMEDIATE variant directly follows LAST and ONLY. */
	if (imm && last)
		code++;
	return base | code;
}

/* Source port spreads a QP's flows (A17.3.1); fixed per connection. */
u16 sroce_qp_udp_sport(const struct sroce_qp *qp, u32 dest_qpn)
{
	return rdma_get_udp_sport(qp->av.flow_label, qp->ib_qp.qp_num,
				  dest_qpn);
}

int sroce_send_packet(struct sroce_qp *qp, struct sroce_engine *e,
		      struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);

	/* What the requester sends counts against its rate (cc.c). */
	if (e == &qp->snd)
		sroce_cc_sent(qp, skb->len);
	return sroce_tx_queue(sdev, &qp->av, skb,
			      sroce_qp_udp_sport(qp, qp->attr.dest_qp_num),
			      &qp->dst_cache, qp->ib_qp.qp_num, &e->tx);
}

/*
 * What a requester step did. SROCE_REQ_NOMEM and SROCE_REQ_FAULT leave
 * the QP as it was, so the same step is tried again on a later run (for a
 * fault, the run its kick starts); SROCE_REQ_FAILED ends the WQE, with
 * the completion status the step stored in its @status.
 */
enum sroce_req_result {
	SROCE_REQ_DONE,		/* sent, performed, or nothing to send */
	SROCE_REQ_NOMEM,	/* no packet could be allocated */
	SROCE_REQ_FAULT,	/* parked for an on-demand page fault */
	SROCE_REQ_FAILED,	/* the WQE completes with *@status */
};

static enum sroce_req_result sroce_req_fail(enum ib_wc_status *status,
					    enum ib_wc_status why)
{
	*status = why;
	return SROCE_REQ_FAILED;
}

/*
 * The packet with @f's headers and @len payload bytes of @wqe from message
 * offset @offset, to @av, in *@skbp. An RC payload in a user QP's
 * registered memory is referenced rather than copied when
 * sroce_tx_zero_copy() says it pays (kernel users' memory may be slab,
 * which an skb must not reference); one that cannot be (e.g. too many
 * pieces) is copied after all.
 */
static enum sroce_req_result sroce_req_packet(struct sroce_qp *qp,
					      const struct rxe_send_wqe *wqe,
					      const struct sroce_av *av,
					      const struct sroce_hdr_fields *f,
					      u32 offset, u32 len,
					      struct sk_buff **skbp,
					      enum ib_wc_status *status)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_sge_list l = sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma,
						   qp->sq_max_sge,
						   &qp->odp_snd);
	/* An atomic write's value sits where inline data would. */
	bool inline_data = (wqe->wr.send_flags & IB_SEND_INLINE) ||
			   wqe->wr.opcode == SROCE_WR_ATOMIC_WRITE;
	enum ib_wc_status copied;
	struct sk_buff *skb;

	if (qp->user && !inline_data && sroce_qp_is_rc(qp) &&
	    sroce_tx_zero_copy(len)) {
		skb = sroce_tx_build_zc(sdev, av, f, len);
		if (!skb)
			return SROCE_REQ_NOMEM;
		if (sroce_sge_attach(&l, offset, skb, len,
				     SROCE_TX_PAYLOAD_FRAGS)) {
			*skbp = skb;
			return SROCE_REQ_DONE;
		}
		consume_skb(skb);
	}

	skb = sroce_tx_build(sdev, av, f, len);
	if (!skb)
		return SROCE_REQ_NOMEM;
	if (inline_data) {
		memcpy(skb_put(skb, len), wqe->dma.inline_data + offset, len);
		copied = IB_WC_SUCCESS;
	} else {
		copied = sroce_sge_read(&l, offset, skb_put(skb, len), len);
	}
	if (copied != IB_WC_SUCCESS) {
		sroce_drop_skb(qp->ib_qp.device, qp->ib_qp.qp_num, skb,
			       SROCE_DROP_TX_ABORTED);
		if (copied == SROCE_WC_FAULT_PENDING)
			return SROCE_REQ_FAULT;
		return sroce_req_fail(status, copied);
	}
	*skbp = skb;
	return SROCE_REQ_DONE;
}

static enum sroce_req_result sroce_req_send_ud(struct sroce_qp *qp,
					       const struct rxe_send_wqe *wqe,
					       struct sroce_send_state *st,
					       enum ib_wc_status *status)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_hdr_fields f = {
		.opcode = wqe->wr.opcode == IB_WR_SEND_WITH_IMM ?
			  SROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE :
			  SROCE_OP_UD_SEND_ONLY,
		.se = !!(wqe->wr.send_flags & IB_SEND_SOLICITED),
		.pkey = SROCE_DEFAULT_PKEY,
		.dest_qpn = wqe->wr.wr.ud.remote_qpn & SROCE_BTH_QPN_MASK,
		.qkey = wqe->wr.wr.ud.remote_qkey,
		.src_qpn = qp->ib_qp.qp_num,
		.imm = wqe->wr.ex.imm_data,
		.psn = qp->swin.psn,
	};
	enum sroce_req_result ret;
	struct sroce_av av;
	struct sk_buff *skb;

	/*
	 * Kernel WQEs carry the AH pointer; user ones an AH number or, with
	 * ah_num 0, the AV itself (the provider's old-kernel way).
	 */
	if (!qp->user)
		av = *sroce_ah_av(sroce_wqe_kernel_ah(wqe));
	else if (wqe->wr.wr.ud.ah_num ?
		 sroce_ah_lookup_av(sdev, wqe->wr.wr.ud.ah_num, qp->ib_qp.pd,
				    &av) :
		 sroce_av_from_user(&sdev->ib_dev, &wqe->wr.wr.ud.av, &av))
		return sroce_req_fail(status, IB_WC_LOC_QP_OP_ERR);
	/* Bit 31 set: use the QP's own Q_Key (IBTA 10.2.4). */
	if (f.qkey & 0x80000000)
		f.qkey = qp->attr.qkey;
	/* Larger than the path MTU: completes, but is not sent (C10-93.1.1). */
	if (st->length > ib_mtu_enum_to_int(sroce_port_active_mtu(sdev)))
		return SROCE_REQ_DONE;

	ret = sroce_req_packet(qp, wqe, &av, &f, 0, st->length, &skb, status);
	if (ret != SROCE_REQ_DONE)
		return ret;
	/* A datagram lost in the network is not an error of the sender. */
	sroce_tx_send(sdev, &av, skb, sroce_qp_udp_sport(qp, f.dest_qpn), NULL,
		      qp->ib_qp.qp_num);
	return SROCE_REQ_DONE;
}

/* One SEND or RDMA WRITE packet (RC/UC) at the current position. */
static enum sroce_req_result sroce_req_send_data(struct sroce_qp *qp,
						 const struct rxe_send_wqe *wqe,
						 struct sroce_send_state *st,
						 bool *last,
						 enum ib_wc_status *status)
{
	const struct sroce_send_window *w = &qp->swin;
	u32 op = wqe->wr.opcode;
	u32 payload = min(st->length - w->offset, qp->mtu);
	bool first = w->offset == 0;
	struct sroce_hdr_fields f = {
		.pkey = SROCE_DEFAULT_PKEY,
		.dest_qpn = qp->attr.dest_qp_num,
		.psn = w->psn,
		.va = wqe->wr.wr.rdma.remote_addr,
		.rkey = wqe->wr.wr.rdma.rkey,
		.dma_len = st->length,
		.imm = wqe->wr.ex.imm_data,
		.inv_rkey = wqe->wr.ex.invalidate_rkey,
	};
	enum sroce_req_result ret;
	struct sk_buff *skb;

	*last = w->offset + payload == st->length;
	f.opcode = sroce_req_opcode(qp, op, first, *last);
	f.se = *last && (wqe->wr.send_flags & IB_SEND_SOLICITED);
	/*
	 * The newest packet sent, sent again, is a probe, and a packet
	 * resent alone repairs a gap: they ask too; so does the last one
	 * the window lets go before an ACK.
	 */
	f.ackreq = sroce_qp_is_rc(qp) &&
		   (*last || !(w->psn % SROCE_ACKREQ_EVERY) ||
		    w->psn == sroce_psn_sub(w->sent_end, 1) || w->one_shot ||
		    sroce_psn_diff(w->psn, w->acked_psn) + 1 >=
		    sroce_retx_window(qp));

	ret = sroce_req_packet(qp, wqe, &qp->av, &f, w->offset, payload,
			       &skb, status);
	if (ret != SROCE_REQ_DONE)
		return ret;
	sroce_rtt_sent(qp, f.psn, f.ackreq);
	sroce_send_packet(qp, &qp->snd, skb);
	sroce_swin_sent(qp, 1, payload);
	return SROCE_REQ_DONE;
}

/*
 * An RDMA READ request for the next chunk of what has not arrived yet, or
 * an atomic. A read is asked for in chunks of at most SROCE_MAX_INFLIGHT
 * packets, the next one once the last has arrived: nothing paces read
 * responses on the way back but the requester, and one 8 MiB request at
 * a small MTU would flood the receiving host with tens of thousands of
 * packets at once. (Each chunk is an ordinary read request for part of
 * the message, with the PSNs of that part.) It fails the WQE only if the
 * local sink is an on-demand range that cannot be faulted in.
 */
static enum sroce_req_result
sroce_req_send_rd_atomic(struct sroce_qp *qp, const struct rxe_send_wqe *wqe,
			 struct sroce_send_state *st, bool *last,
			 enum ib_wc_status *status)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	const struct sroce_send_window *w = &qp->swin;
	u32 chunk = SROCE_MAX_INFLIGHT * qp->mtu;
	u32 op = wqe->wr.opcode;
	struct sroce_hdr_fields f = {
		.pkey = SROCE_DEFAULT_PKEY,
		.dest_qpn = qp->attr.dest_qp_num,
		.psn = w->psn,
		.ackreq = true,
	};
	struct sroce_sge_list l = sroce_sge_list_of(qp->ib_qp.pd, &wqe->dma,
						   qp->sq_max_sge,
						   &qp->odp_snd);
	enum ib_wc_status sink;
	struct sk_buff *skb;

	if (op == IB_WR_RDMA_READ) {
		f.opcode = SROCE_OP_RC_RDMA_READ_REQUEST;
		f.va = wqe->wr.wr.rdma.remote_addr + w->offset;
		f.rkey = wqe->wr.wr.rdma.rkey;
		/*
		 * A read asked for again from inside a chunk (a lost
		 * response) asks for the rest of that chunk only: a
		 * responder serves a repeated read within the original
		 * request's PSNs (IBTA 9.9.2.2), ours refuses more.
		 */
		f.dma_len = min(st->length - w->offset,
				chunk - w->offset % chunk);
		/* Only the run of missing responses (read_gap.c). */
		if (w->one_shot)
			f.dma_len = min(f.dma_len, w->rereq_pkts * qp->mtu);
	} else {
		f.opcode = op == IB_WR_ATOMIC_CMP_AND_SWP ?
			   SROCE_OP_RC_COMPARE_SWAP : SROCE_OP_RC_FETCH_ADD;
		f.va = wqe->wr.wr.atomic.remote_addr;
		f.rkey = wqe->wr.wr.atomic.rkey;
		f.swap_add = op == IB_WR_ATOMIC_CMP_AND_SWP ?
			     wqe->wr.wr.atomic.swap :
			     wqe->wr.wr.atomic.compare_add;
		f.compare = wqe->wr.wr.atomic.compare_add;
	}
	/*
	 * The responses land in on-demand pages only if they are there:
	 * fault the sink in first (the completer never waits).
	 */
	if (op == IB_WR_RDMA_READ)
		sink = sroce_sge_prefault(&l, w->offset, f.dma_len);
	else
		sink = sroce_sge_prefault(&l, 0, sizeof(u64));
	if (sink == SROCE_WC_FAULT_PENDING)
		return SROCE_REQ_FAULT;
	if (sink != IB_WC_SUCCESS)
		return sroce_req_fail(status, sink);

	skb = sroce_tx_build(sdev, &qp->av, &f, 0);
	if (!skb)
		return SROCE_REQ_NOMEM;
	sroce_rtt_sent(qp, f.psn, true);
	sroce_send_packet(qp, &qp->snd, skb);
	if (op == IB_WR_RDMA_READ)
		sroce_swin_sent(qp, max_t(u32, 1,
					  DIV_ROUND_UP(f.dma_len, qp->mtu)),
				f.dma_len);
	else
		sroce_swin_sent(qp, 1, st->length - w->offset);
	*last = w->offset == st->length;
	return SROCE_REQ_DONE;
}

static void sroce_req_advance(struct sroce_qp *qp, struct sroce_send_state *st)
{
	sroce_swin_pass(qp, st);
	/* Unreliable transports and local operations are done once sent. */
	if (!sroce_qp_is_rc(qp) || st->first_psn == sroce_psn_add(st->last_psn, 1))
		sroce_swin_finish(st, IB_WC_SUCCESS);
}

/*
 * Sends the next packet (or performs a local operation). A failed step
 * stores in *@status the completion status the WQE gets.
 */
static enum sroce_req_result sroce_req_step(struct sroce_qp *qp,
					    struct rxe_send_wqe *wqe,
					    struct sroce_send_state *st,
					    enum ib_wc_status *status)
{
	enum ib_wc_status bind_status;
	enum sroce_req_result ret;
	struct sroce_mr *mr;
	bool last = true;

	switch (wqe->wr.opcode) {
	case IB_WR_LOCAL_INV:
		/* A fast-reg region or a type 2 window of the QP's PD. */
		if (sroce_key_invalidate(&qp->ib_qp,
					 wqe->wr.ex.invalidate_rkey, false))
			return sroce_req_fail(status, IB_WC_LOC_PROT_ERR);
		ret = SROCE_REQ_DONE;
		break;
	case IB_WR_BIND_MW:
		bind_status = sroce_mw_bind(&qp->ib_qp, &wqe->wr);
		if (bind_status != IB_WC_SUCCESS)
			return sroce_req_fail(status, bind_status);
		ret = SROCE_REQ_DONE;
		break;
	case IB_WR_REG_MR:
		/* The MR must belong to the QP's PD (IBTA 10.6.7.2.4). */
		mr = to_sroce_mr(wqe->wr.wr.reg.mr);
		if (mr->pd != qp->ib_qp.pd ||
		    sroce_mr_fast_reg(mr, wqe->wr.wr.reg.key,
				      wqe->wr.wr.reg.access))
			return sroce_req_fail(status, IB_WC_LOC_PROT_ERR);
		ret = SROCE_REQ_DONE;
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		ret = sroce_req_send_rd_atomic(qp, wqe, st, &last, status);
		break;
	default:
		if (sroce_qp_is_ud(qp)) {
			ret = sroce_req_send_ud(qp, wqe, st, status);
			if (ret == SROCE_REQ_DONE)
				sroce_swin_sent(qp, 1, 0);
		} else {
			ret = sroce_req_send_data(qp, wqe, st, &last, status);
		}
		break;
	}
	if (ret != SROCE_REQ_DONE)
		return ret;
	if (sroce_qp_is_rc(qp) && !sroce_retx_armed(qp))
		sroce_retx_arm(qp);
	if (last)
		sroce_req_advance(qp, st);
	return SROCE_REQ_DONE;
}

/* RC limits on starting (or continuing) the WQE at the position. */
static bool sroce_req_may_send(struct sroce_qp *qp,
			       const struct rxe_send_wqe *wqe,
			       const struct sroce_send_state *st)
{
	const struct sroce_send_window *w = &qp->swin;

	if (!sroce_qp_is_rc(qp))
		return true;
	if (sroce_psn_diff(w->psn, w->acked_psn) >= sroce_retx_window(qp))
		return false;
	/* The next chunk of a read once the last one has arrived. */
	if (w->offset)
		return !st->rd_atomic || st->done_bytes == w->offset;
	if ((wqe->wr.send_flags & IB_SEND_FENCE) && w->rd_atomic)
		return false;
	if (st->rd_atomic &&
	    w->rd_atomic >= max_t(u32, 1, qp->attr.max_rd_atomic))
		return false;
	return true;
}

/*
 * Sends while there is something to send, the limits allow and @budget
 * lasts. Returns true if it stopped only for the budget.
 */
bool sroce_requester_run(struct sroce_qp *qp, int *budget)
{
	const struct sroce_send_window *w = &qp->swin;
	bool more = false;

	if ((qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) ||
	    sroce_rec_paused(&qp->rec))
		return false;

	for (;;) {
		struct sroce_send_state *st;
		enum sroce_req_result ret;
		struct rxe_send_wqe *wqe;
		enum ib_wc_status status;

		if (w->idx == w->fetch_idx && !sroce_req_fetch(qp))
			break;
		if (*budget <= 0) {
			more = true;
			break;
		}
		st = sroce_swin_state(w, w->idx);
		wqe = sroce_swin_wqe(w, w->idx);
		if (st->status != IB_WC_SUCCESS) {
			/* Completes in order, then the QP goes to ERR. */
			sroce_swin_finish(st, st->status);
			break;
		}
		/*
		 * A retransmission walks again over local operations that
		 * follow the packets it resends: they took effect once
		 * (a second REG_MR would find its MR valid and fail).
		 */
		if (st->done && sroce_wr_is_local(wqe->wr.opcode)) {
			sroce_swin_pass(qp, st);
			continue;
		}
		if (!sroce_req_may_send(qp, wqe, st) || !sroce_cc_may_send(qp))
			break;
		ret = sroce_req_step(qp, wqe, st, &status);
		if (ret == SROCE_REQ_NOMEM) {
			/* The same step, on the next run. */
			more = true;
			break;
		}
		/* The same step, when the fault's kick comes. */
		if (ret == SROCE_REQ_FAULT)
			break;
		if (ret == SROCE_REQ_FAILED) {
			sroce_swin_finish(st, status);
			break;
		}
		(*budget)--;
		sroce_swin_resend_done(qp);
	}
	sroce_completer_retire(qp);
	return more && qp->state != IB_QPS_ERR;
}

/* Entering RTS from RTR: a fresh start at the SQ PSN. */
void sroce_requester_reset(struct sroce_qp *qp)
{
	sroce_swin_reset(qp, qp->attr.sq_psn);
	sroce_completer_reset(qp);
	sroce_cc_reset(qp);
}

/* RESET: every posted WQE is forgotten, without completions. */
void sroce_requester_discard(struct sroce_qp *qp)
{
	sroce_swin_discard(qp);
	sroce_requester_reset(qp);
}
