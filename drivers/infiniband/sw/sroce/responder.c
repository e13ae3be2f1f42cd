// SPDX-License-Identifier: GPL-2.0
/*
 * Responder: places an incoming message into the buffers of a receive
 * WQE and completes it. Runs in the receive softirq, one packet at a time
 * per QP (rq_lock); the payload goes straight from the skb fragments into
 * the registered pages, without linearising the packet.
 *
 * This first version serves UD; connected QPs come with the RC engine.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/packet.h>

#include "sroce.h"
#include "cq.h"
#include "mr.h"
#include "qp.h"

#define SROCE_GRH_BYTES		40

/* Where the next byte of a message goes in a receive WQE's SGE list. */
struct sroce_scatter {
	struct sroce_qp *qp;
	const struct rxe_sge *sges;	/* untrusted: read with memcpy */
	u32 num_sge;
	u32 cur;
	u32 offset;			/* into sges[cur] */
};

/*
 * Copies @len bytes, from @buf or else from @skb at @skb_off, into the
 * SGEs. Returns a completion status.
 */
static enum ib_wc_status sroce_scatter(struct sroce_scatter *sc,
				       const void *buf,
				       const struct sk_buff *skb, int skb_off,
				       u32 len)
{
	struct sroce_dev *sdev = to_sroce_dev(sc->qp->ib_qp.device);

	while (len) {
		enum ib_wc_status status;
		struct sroce_mr *mr;
		struct rxe_sge sge;
		u32 n;
		int err;

		if (sc->cur >= sc->num_sge)
			return IB_WC_LOC_LEN_ERR;
		memcpy(&sge, &sc->sges[sc->cur], sizeof(sge));
		if (sc->offset >= sge.length) {
			sc->cur++;
			sc->offset = 0;
			continue;
		}
		n = min(len, sge.length - sc->offset);
		mr = sroce_mr_get(sdev, sge.lkey, sc->qp->ib_qp.pd,
				  IB_ACCESS_LOCAL_WRITE, sge.addr + sc->offset,
				  n, &status);
		if (!mr)
			return status;
		if (buf)
			err = sroce_mr_copy(mr, sge.addr + sc->offset,
					    (void *)buf, n, SROCE_COPY_TO_MR);
		else
			err = sroce_mr_copy_skb(mr, sge.addr + sc->offset, skb,
						skb_off, n);
		sroce_mr_put(mr);
		if (err)
			return IB_WC_LOC_PROT_ERR;
		if (buf)
			buf = (const u8 *)buf + n;
		else
			skb_off += n;
		sc->offset += n;
		len -= n;
	}
	return IB_WC_SUCCESS;
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

static void sroce_responder_ud(struct sroce_qp *qp, struct sk_buff *skb,
			       const struct sroce_packet_info *info)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	const u8 *bth = skb->data + sizeof(struct udphdr);
	const struct sroce_deth *deth =
		sroce_hdr_ptr(bth, info->op, SROCE_HDR_DETH);
	const struct sroce_immdt *immdt =
		sroce_hdr_ptr(bth, info->op, SROCE_HDR_IMMDT);
	struct sroce_scatter sc = { .qp = qp };
	struct rxe_recv_wqe wqe;
	u8 grh[SROCE_GRH_BYTES];
	struct ib_wc wc = {
		.qp = &qp->ib_qp,
		.opcode = IB_WC_RECV,
		.src_qp = sroce_deth_sqpn(deth),
		.wc_flags = IB_WC_GRH,
		.port_num = SROCE_PORT,
		.network_hdr_type = skb->protocol == htons(ETH_P_IP) ?
				    RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6,
	};
	void *slot;

	if (sroce_deth_qkey(deth) != READ_ONCE(qp->attr.qkey)) {
		sroce_count(sdev, SROCE_CNT_RX_QKEY_VIOLATION);
		return;
	}
	if (immdt) {
		wc.ex.imm_data = sroce_immdt_imm(immdt);
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	sroce_make_grh(skb, grh);

	spin_lock(&qp->rq_lock);
	slot = sroce_queue_head(&qp->rq);
	if (!slot) {
		/* UD has no flow control: no buffer, no message. */
		spin_unlock(&qp->rq_lock);
		sroce_count(sdev, SROCE_CNT_RX_NO_RECV_WQE);
		return;
	}
	memcpy(&wqe, slot, sizeof(wqe));
	sc.sges = (const struct rxe_sge *)((u8 *)slot + sizeof(wqe));
	sc.num_sge = min_t(u32, wqe.dma.num_sge, qp->rq_max_sge);

	wc.status = sroce_scatter(&sc, grh, NULL, 0, SROCE_GRH_BYTES);
	if (wc.status == IB_WC_SUCCESS)
		wc.status = sroce_scatter(&sc, NULL, skb,
					  sizeof(struct udphdr) +
					  info->payload_off,
					  info->payload_len);
	wc.wr_id = wqe.wr_id;
	wc.byte_len = SROCE_GRH_BYTES + info->payload_len;
	/* The slot goes back to the user before its completion. */
	sroce_queue_pop(&qp->rq);
	spin_unlock(&qp->rq_lock);
	sroce_cq_post(qp->rcq, &wc, sroce_bth_se((const struct sroce_bth *)bth));
}

void sroce_responder_recv(struct sroce_qp *qp, struct sk_buff *skb,
			  const struct sroce_packet_info *info)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (state < IB_QPS_RTR || state == IB_QPS_ERR || !qp->has_rq)
		return;
	if (qp->ib_qp.qp_type == IB_QPT_UD && (info->op->flags & SROCE_OPF_UD))
		sroce_responder_ud(qp, skb, info);
}
