// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit batching. The packets that one engine step sends to the wire
 * leave as one GSO skb of type SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST: they
 * cross routing, netfilter, the qdisc and the device queue once, and are
 * cut into datagrams only just before the driver (validate_xmit_skb()),
 * or, through a veth, at the peer's UDP socket (udp_rcv_segment()).
 *
 * Why the frag-list kind rather than plain UDP GSO. Every RoCE packet has
 * its own BTH and ICRC, and the ICRC covers the IPv4 identification and
 * the IP and UDP lengths of the datagram it travels in. Here each packet
 * stays an skb of its own, chained on the first one's frag_list, with its
 * own IP and UDP headers written in full and its ICRC computed before it
 * leaves; segmentation unchains them, copies only the link-layer header
 * and rewrites identification i as the first one's plus i, which is the
 * value written here. Plain UDP GSO cuts one buffer at gso_size and copies
 * the first headers onto each piece: it would need the ICRC of each piece
 * known in advance all the same, it requires a UDP checksum
 * (CHECKSUM_PARTIAL) where RoCE v2 sends zero, and a NIC that segments it
 * in hardware (USO) numbers IPv4 identifications by rules of its own,
 * which would break every ICRC. No NIC takes frag-list skbs, so the
 * kernel's own segmentation always does the cutting.
 *
 * The datagrams on the wire are the ones sroce_tx_send() would have sent
 * one at a time, UDP checksum zero included.
 *
 * Packets for a device of this host never meet the stack (net_tx.c); a
 * step's worth of them is handed over as one batch instead, so that the
 * receiving engine is kicked, and runs, once for them all.
 */
#include <linux/ip.h>
#include <linux/udp.h>
#include <net/ip.h>

#include "sroce.h"
#include "drop.h"
#include "net_tx.h"
#include "tx_burst.h"

static bool sroce_gso_tx = true;
module_param_named(gso_tx, sroce_gso_tx, bool, 0644);
MODULE_PARM_DESC(gso_tx,
		 "Send the packets of one engine run as one GSO skb (default: Y)");

static bool sroce_local_batch = true;
module_param_named(local_batch, sroce_local_batch, bool, 0644);
MODULE_PARM_DESC(local_batch,
		 "Hand the packets of one engine run for a device of this host over as one batch (default: Y)");

/* IPv4's total length and the UDP length are 16 bits, for the whole skb. */
#define SROCE_TX_BURST_MAX_IP_LEN	0xffff
/* A local batch is bounded by the engine's budget; this only bounds it. */
#define SROCE_TX_BURST_MAX_LOCAL	64

void sroce_tx_burst_init(struct sroce_tx_burst *b)
{
	__skb_queue_head_init(&b->q);
}

static u32 sroce_udp_payload_len(const struct sk_buff *skb)
{
	return skb->len - skb_transport_offset(skb) - sizeof(struct udphdr);
}

bool sroce_tx_burst_add(struct sroce_tx_burst *b, struct sroce_dev *sdev,
			const struct sroce_av *av, struct dst_cache *cache,
			struct sk_buff *skb)
{
	u32 seg_len = sroce_udp_payload_len(skb);

	if (!skb_queue_empty(&b->q) &&
	    (!READ_ONCE(sroce_gso_tx) || b->local || b->closed ||
	     b->av != av || b->cache != cache || seg_len > b->seg_len ||
	     b->ip_len + seg_len > SROCE_TX_BURST_MAX_IP_LEN))
		sroce_tx_flush(b);
	if (!READ_ONCE(sroce_gso_tx))
		return false;
	if (skb_queue_empty(&b->q)) {
		b->sdev = sdev;
		b->av = av;
		b->cache = cache;
		b->seg_len = seg_len;
		b->ip_len = skb->len;
		b->closed = false;
		b->local = false;
	} else {
		b->ip_len += seg_len;
		b->closed = seg_len < b->seg_len;
	}
	__skb_queue_tail(&b->q, skb);
	return true;
}

bool sroce_tx_burst_add_local(struct sroce_tx_burst *b,
			      struct sroce_dev *sdev,
			      const struct sroce_av *av, u32 src_qpn,
			      struct sk_buff *skb)
{
	if (!skb_queue_empty(&b->q) &&
	    (!READ_ONCE(sroce_local_batch) || !b->local || b->av != av ||
	     b->src_qpn != src_qpn ||
	     skb_queue_len(&b->q) >= SROCE_TX_BURST_MAX_LOCAL))
		sroce_tx_flush(b);
	if (!READ_ONCE(sroce_local_batch))
		return false;
	if (skb_queue_empty(&b->q)) {
		b->sdev = sdev;
		b->av = av;
		b->src_qpn = src_qpn;
		b->local = true;
	}
	__skb_queue_tail(&b->q, skb);
	return true;
}

/*
 * Gives each packet its IPv4 identification, the first one's plus its
 * place (the numbers segmentation will write), and its ICRC.
 */
static int sroce_tx_burst_seal(struct sroce_tx_burst *b)
{
	struct sk_buff *skb = skb_peek(&b->q);
	bool ipv4 = skb->protocol == htons(ETH_P_IP);
	u16 id = 0;
	int err;

	if (ipv4) {
		__ip_select_ident(b->sdev->net, ip_hdr(skb),
				  skb_queue_len(&b->q));
		id = ntohs(ip_hdr(skb)->id);
	}
	skb_queue_walk(&b->q, skb) {
		if (ipv4) {
			ip_hdr(skb)->id = htons(id++);
			ip_send_check(ip_hdr(skb));
		}
		err = sroce_tx_seal(skb);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The packets after the first go on its frag_list, each with skb->data at
 * its BTH and its own IP and UDP headers in front, where segmentation
 * expects them (skb_segment_list()). The first one's UDP length becomes
 * that of them all, as the receive path checks it against the skb before
 * it segments; segmentation gives the first datagram its own back.
 */
static struct sk_buff *sroce_tx_burst_chain(struct sroce_tx_burst *b,
					    u32 *zero_copy)
{
	struct sk_buff *head = __skb_dequeue(&b->q);
	unsigned int segs = 1 + skb_queue_len(&b->q);
	struct sk_buff *skb, **link;

	*zero_copy = skb_is_nonlinear(head);
	link = &skb_shinfo(head)->frag_list;
	while ((skb = __skb_dequeue(&b->q))) {
		*zero_copy += skb_is_nonlinear(skb);
		__skb_pull(skb, skb_transport_offset(skb) +
				sizeof(struct udphdr));
		*link = skb;
		link = &skb->next;
		head->len += skb->len;
		head->data_len += skb->len;
		head->truesize += skb->truesize;
	}
	udp_hdr(head)->len = htons(head->len - skb_transport_offset(head));
	skb_shinfo(head)->gso_size = b->seg_len;
	skb_shinfo(head)->gso_segs = segs;
	skb_shinfo(head)->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
	/* No UDP checksum to fill in: RoCE v2 sends zero. */
	head->ip_summed = CHECKSUM_UNNECESSARY;
	return head;
}

void sroce_tx_flush(struct sroce_tx_burst *b)
{
	u32 segs = skb_queue_len(&b->q), zero_copy;
	struct sroce_dev *sdev = b->sdev;
	struct sk_buff *head;
	int err;

	if (!segs)
		return;
	if (b->local) {
		sroce_tx_local_list(sdev, b->av, &b->q, b->src_qpn);
		return;
	}
	if (segs == 1) {
		sroce_tx_one(sdev, b->av, __skb_dequeue(&b->q), b->cache);
		return;
	}
	err = sroce_tx_burst_seal(b);
	if (err) {
		/* Cannot happen: every packet here was built to its length. */
		sroce_count_n(sdev, SROCE_CNT_TX_ERRORS, segs);
		while ((head = __skb_dequeue(&b->q)))
			sroce_drop_skb(&sdev->ib_dev, 0, head,
				       SROCE_DROP_TX_ABORTED);
		return;
	}
	head = sroce_tx_burst_chain(b, &zero_copy);
	err = sroce_tx_output(sdev, b->av, b->cache, head);
	if (err) {
		sroce_count_n(sdev, SROCE_CNT_TX_ERRORS, segs);
		return;
	}
	sroce_count_n(sdev, SROCE_CNT_TX_PACKETS, segs);
	sroce_count_n(sdev, SROCE_CNT_TX_ZERO_COPY, zero_copy);
	sroce_count(sdev, SROCE_CNT_TX_GSO_SKBS);
	sroce_count_n(sdev, SROCE_CNT_TX_GSO_PACKETS, segs);
}
