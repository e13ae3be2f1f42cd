// SPDX-License-Identifier: GPL-2.0
/*
 * Requester: turns send WQEs into packets. Runs in the context of the
 * send doorbell (process context), one caller at a time per QP (sq_lock).
 *
 * The send ring is user memory: each WQE is copied out before it is
 * looked at, every length and count is re-checked against what the QP
 * was created with, and the message length is recomputed from the SGEs.
 *
 * This first version speaks UD; connected QPs come with the RC engine.
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/packet.h>

#include "sroce.h"
#include "ah.h"
#include "cq.h"
#include "mr.h"
#include "net_tx.h"
#include "qp.h"

/* Sums the SGE lengths, refusing more SGEs than the QP has room for. */
static enum ib_wc_status sroce_wqe_length(struct sroce_qp *qp,
					  const struct rxe_send_wqe *wqe,
					  const void *slot, u32 *len)
{
	const struct rxe_sge *sge = (const struct rxe_sge *)
		((const u8 *)slot + sizeof(*wqe));
	u64 total = 0;
	u32 i;

	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if (wqe->dma.length > qp->sq_max_inline)
			return IB_WC_LOC_LEN_ERR;
		*len = wqe->dma.length;
		return IB_WC_SUCCESS;
	}
	if (wqe->dma.num_sge > qp->sq_max_sge)
		return IB_WC_LOC_QP_OP_ERR;
	for (i = 0; i < wqe->dma.num_sge; i++)
		total += READ_ONCE(sge[i].length);
	if (total > U32_MAX)
		return IB_WC_LOC_LEN_ERR;
	*len = total;
	return IB_WC_SUCCESS;
}

/* Appends the message payload, gathered from the SGEs or the inline copy. */
static enum ib_wc_status sroce_gather(struct sroce_qp *qp,
				      const struct rxe_send_wqe *wqe,
				      const void *slot, struct sk_buff *skb,
				      u32 len)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	const u8 *data = (const u8 *)slot + sizeof(*wqe);
	const struct rxe_sge *sges = (const struct rxe_sge *)data;
	enum ib_wc_status status;
	u32 i;

	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		skb_put_data(skb, data, len);
		return IB_WC_SUCCESS;
	}
	for (i = 0; i < wqe->dma.num_sge; i++) {
		struct rxe_sge sge;
		struct sroce_mr *mr;
		int err;

		memcpy(&sge, &sges[i], sizeof(sge));
		if (!sge.length)
			continue;
		/* Never more than the length that sized the skb. */
		if (sge.length > len)
			return IB_WC_LOC_LEN_ERR;
		mr = sroce_mr_get(sdev, sge.lkey, qp->ib_qp.pd, 0, sge.addr,
				  sge.length, &status);
		if (!mr)
			return status;
		err = sroce_mr_copy(mr, sge.addr, skb_put(skb, sge.length),
				    sge.length, SROCE_COPY_FROM_MR);
		sroce_mr_put(mr);
		if (err)
			return IB_WC_LOC_PROT_ERR;
		len -= sge.length;
	}
	/* The user may have shrunk the SGEs since they were summed. */
	return len ? IB_WC_LOC_LEN_ERR : IB_WC_SUCCESS;
}

static enum ib_wc_status sroce_send_ud(struct sroce_qp *qp,
				       const struct rxe_send_wqe *wqe,
				       const void *slot)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	bool imm = wqe->wr.opcode == IB_WR_SEND_WITH_IMM;
	struct sroce_hdr_fields f = {
		.opcode = imm ? SROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE :
				SROCE_OP_UD_SEND_ONLY,
		.se = !!(wqe->wr.send_flags & IB_SEND_SOLICITED),
		.pkey = SROCE_DEFAULT_PKEY,
		.dest_qpn = wqe->wr.wr.ud.remote_qpn & SROCE_BTH_QPN_MASK,
		.qkey = wqe->wr.wr.ud.remote_qkey,
		.src_qpn = qp->ib_qp.qp_num,
		.imm = wqe->wr.ex.imm_data,
	};
	enum ib_wc_status status;
	struct sroce_av av;
	struct sk_buff *skb;
	u32 len, mtu;
	int hdr_len;

	if (wqe->wr.opcode != IB_WR_SEND && !imm)
		return IB_WC_LOC_QP_OP_ERR;
	status = sroce_wqe_length(qp, wqe, slot, &len);
	if (status != IB_WC_SUCCESS)
		return status;
	/* ah_num 0 is the old-kernel embedded AV: not served. */
	if (sroce_ah_lookup_av(sdev, wqe->wr.wr.ud.ah_num, qp->ib_qp.pd, &av))
		return IB_WC_LOC_QP_OP_ERR;
	/* Bit 31 set: use the QP's own Q_Key (IBTA 10.2.4). */
	if (f.qkey & 0x80000000)
		f.qkey = qp->attr.qkey;

	/* Larger than the path MTU: completes, but is not sent (C10-93.1.1). */
	mtu = ib_mtu_enum_to_int(sroce_port_active_mtu(sdev));
	if (len > mtu)
		return IB_WC_SUCCESS;

	f.psn = qp->sq_psn;
	qp->sq_psn = (qp->sq_psn + 1) & SROCE_BTH_PSN_MASK;

	hdr_len = sroce_packet_header_len(f.opcode);
	skb = sroce_tx_alloc(sdev, &av, hdr_len + len, GFP_ATOMIC);
	if (!skb)
		return IB_WC_LOC_QP_OP_ERR;
	if (sroce_packet_build(skb_put(skb, hdr_len), hdr_len, &f, len) < 0) {
		kfree_skb(skb);
		return IB_WC_LOC_QP_OP_ERR;
	}
	status = sroce_gather(qp, wqe, slot, skb, len);
	if (status != IB_WC_SUCCESS) {
		kfree_skb(skb);
		return status;
	}
	/* A datagram lost in the network is not an error of the sender. */
	sroce_tx_send(sdev, &av, skb,
		      rdma_get_udp_sport(av.flow_label, qp->ib_qp.qp_num,
					 f.dest_qpn));
	return IB_WC_SUCCESS;
}

/*
 * Sends every WQE posted so far (producer read once). An error completes
 * the WQE with its status and moves the QP to ERR, which flushes the rest.
 */
void sroce_requester_run(struct sroce_qp *qp)
{
	u32 prod = sroce_queue_producer_index(&qp->sq);
	enum ib_wc_status status = IB_WC_SUCCESS;

	spin_lock_bh(&qp->sq_lock);
	while (sroce_queue_consumer_index(&qp->sq) != prod &&
	       READ_ONCE(qp->state) == IB_QPS_RTS) {
		void *slot = sroce_queue_addr(&qp->sq,
				sroce_queue_consumer_index(&qp->sq));
		struct rxe_send_wqe wqe;
		struct ib_wc wc = { .qp = &qp->ib_qp };

		memcpy(&wqe, slot, sizeof(wqe));
		if (qp->ib_qp.qp_type == IB_QPT_UD)
			status = sroce_send_ud(qp, &wqe, slot);
		else
			status = IB_WC_LOC_QP_OP_ERR;

		/* The slot goes back to the user before its completion. */
		sroce_queue_pop(&qp->sq);
		if (status != IB_WC_SUCCESS || qp->sig_all ||
		    (wqe.wr.send_flags & IB_SEND_SIGNALED)) {
			wc.wr_id = wqe.wr.wr_id;
			wc.status = status;
			wc.opcode = IB_WC_SEND;
			sroce_cq_post(qp->scq, &wc, false);
		}
		if (status != IB_WC_SUCCESS)
			break;
	}
	spin_unlock_bh(&qp->sq_lock);

	if (status != IB_WC_SUCCESS)
		sroce_qp_error(qp);
}
