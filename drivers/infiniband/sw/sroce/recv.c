// SPDX-License-Identifier: GPL-2.0
/*
 * Receive path entry: a RoCE v2 datagram handed over by the UDP tunnel
 * socket. Validates the transport headers and the ICRC without copying
 * the packet (the ICRC is computed across the skb fragments in place).
 *
 * A valid packet is queued for the engine of its destination QP, or,
 * for the multicast QPN, of every QP attached to its group (mcast.c).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ipv6.h>

#include <sroce/icrc.h>
#include <sroce/packet.h>

#include "sroce.h"
#include "qp.h"
#include "drop.h"
#include "skb_icrc.h"

/* The ICRC over everything from the BTH up to, not including, the ICRC. */
static bool sroce_recv_icrc_ok(const struct sk_buff *skb, unsigned int len)
{
	unsigned int icrc_off = skb_transport_offset(skb) +
				sizeof(struct udphdr) + len - SROCE_ICRC_BYTES;
	__le32 wire_icrc, icrc;

	if (skb_copy_bits(skb, icrc_off, &wire_icrc, sizeof(wire_icrc)) ||
	    sroce_skb_icrc(skb, len, &icrc))
		return false;
	return icrc == wire_icrc;
}

static bool sroce_recv_daddr_multicast(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ipv4_is_multicast(ip_hdr(skb)->daddr);
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
}

/*
 * The engine that the packets of a batch were last queued for, with a
 * reference on its QP: it is kicked once, when a packet goes elsewhere or
 * the batch ends, rather than once per packet.
 */
struct sroce_rx_kick {
	struct sroce_qp *qp;
	struct sroce_engine *e;
};

static void sroce_rx_kick_now(struct sroce_rx_kick *k)
{
	if (!k->qp)
		return;
	sroce_engine_kick_rx(k->qp, k->e);
	sroce_qp_put(k->qp);
	k->qp = NULL;
}

/* @skb queued for @qp's engine @e (NULL: dropped); takes the reference. */
static void sroce_rx_kick_later(struct sroce_rx_kick *k, struct sroce_qp *qp,
				struct sroce_engine *e)
{
	if (!e || (k->qp == qp && k->e == e)) {
		sroce_qp_put(qp);
		return;
	}
	sroce_rx_kick_now(k);
	k->qp = qp;
	k->e = e;
}

/*
 * @skb: data at the UDP header, network header set. @local_src: the QPN
 * of the QP of this host that sent it, handed over by net_tx.c (never on
 * a wire: it has no ICRC), or SROCE_RX_FROM_WIRE.
 */
static void sroce_recv_one(struct sroce_dev *sdev, struct sk_buff *skb,
			   u32 local_src, struct sroce_rx_kick *k)
{
	bool local = local_src != SROCE_RX_FROM_WIRE;
	struct sroce_packet_info info;
	struct sroce_qp *qp;
	const struct udphdr *udph;
	const struct sroce_bth *bth;
	unsigned int len, hdr_len;

	sroce_count(sdev, SROCE_CNT_RX_PACKETS);

	/* skb->data is at the UDP header; everything after it is ours. */
	if (skb->len < sizeof(*udph) + SROCE_BTH_BYTES + SROCE_ICRC_BYTES)
		goto bad_header;
	len = skb->len - sizeof(*udph);

	/*
	 * Make the headers (not the payload) linear: the parser reads only
	 * the BTH and the extension headers, and checks lengths against len.
	 */
	hdr_len = min_t(unsigned int, len, SROCE_MAX_HDR_BYTES);
	if (!pskb_may_pull(skb, sizeof(*udph) + hdr_len))
		goto bad_header;
	udph = udp_hdr(skb);
	bth = (const struct sroce_bth *)(udph + 1);

	if (sroce_packet_parse(bth, len, &info))
		goto bad_header;
	if (!local && !sroce_recv_icrc_ok(skb, len)) {
		sroce_count(sdev, SROCE_CNT_RX_BAD_ICRC);
		sroce_drop_skb(&sdev->ib_dev, info.dest_qpn, skb,
			       SROCE_DROP_BAD_ICRC);
		return;
	}

	if (info.dest_qpn == IB_MULTICAST_QPN) {
		sroce_mcast_recv(sdev, skb, &info);
		return;
	}
	/* A multicast destination is for the multicast QPN only. */
	if (sroce_recv_daddr_multicast(skb))
		goto bad_header;

	qp = sroce_qp_get(sdev, info.dest_qpn);
	if (!qp) {
		sroce_count(sdev, SROCE_CNT_RX_NO_QP);
		sroce_drop_skb(&sdev->ib_dev, info.dest_qpn, skb,
			       SROCE_DROP_NO_QP);
		return;
	}
	/*
	 * The engine checks a connected QP's packets against its path
	 * (sroce_av_sent_by_peer()). That cannot tell a peer QP on this
	 * host from a local user's socket sending from the same address,
	 * but sroce never sends to its own devices through the IP stack
	 * (net_tx.c hands such packets over itself, @local): one that
	 * came through the socket on the loopback device was sent by
	 * some process here, not by a peer.
	 */
	if (!local && !sroce_qp_is_ud(qp) && (skb->dev->flags & IFF_LOOPBACK)) {
		sroce_count(sdev, SROCE_CNT_RX_NOT_PEER);
		sroce_drop_skb(&sdev->ib_dev, info.dest_qpn, skb,
			       SROCE_DROP_NOT_PEER);
		sroce_qp_put(qp);
		return;
	}
	sroce_rx_kick_later(k, qp,
			    sroce_engine_rx_queue(qp, skb, &info, local_src));
	return;

bad_header:
	sroce_count(sdev, SROCE_CNT_RX_BAD_HEADER);
	sroce_drop_skb(&sdev->ib_dev, 0, skb, SROCE_DROP_BAD_HEADER);
}

void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb, u32 local_src)
{
	struct sroce_rx_kick k = {};

	sroce_recv_one(sdev, skb, local_src, &k);
	sroce_rx_kick_now(&k);
}

void sroce_recv_list(struct sroce_dev *sdev, struct sk_buff_head *list,
		     u32 local_src)
{
	struct sroce_rx_kick k = {};
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(list)))
		sroce_recv_one(sdev, skb, local_src, &k);
	sroce_rx_kick_now(&k);
}
