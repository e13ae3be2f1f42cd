// SPDX-License-Identifier: GPL-2.0
/*
 * Receive batching. While the NIC's NAPI poll runs, the packets of one
 * flow (same addresses and UDP ports, as the IP and UDP GRO layers below
 * us have checked, same destination QP, consecutive PSNs) are chained on
 * the first one's frag_list, as the kernel's own frag-list UDP GRO does,
 * and go up as one skb of type SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST: one pass
 * through the IP layer, netfilter, the route lookup and the UDP socket
 * lookup for the whole chain. The UDP layer then unchains it for our
 * socket (udp_unexpected_gso(), udp_rcv_segment()), and each packet comes
 * to sroce_recv() as it arrived, to be checked on its own: its ICRC, its
 * header, its PSN.
 *
 * "As it arrived" is why only frag-list chaining will do: every packet
 * keeps its own IP and UDP headers, which its ICRC covers. Segmentation
 * would still rewrite IPv4 identification i as the first one's plus i,
 * which a sender owes us no reason to have used: SKB_GSO_TCP_FIXEDID
 * tells inet_gso_segment() to leave identifications alone, which it
 * allows only with DF set (every RoCE v2 sender sets it; a packet without
 * it is not chained). A packet with a UDP checksum is not chained either:
 * RoCE v2 sends zero, and the chain's one checksum state must hold for
 * every packet in it.
 *
 * A host that forwards RoCE traffic it does not terminate finds our
 * socket for it too (the lookup is by port); such a chain is cut into
 * the same datagrams again before the NIC, as any frag-list GSO skb.
 */
#include <linux/ip.h>
#include <linux/udp.h>
#include <net/gro.h>

#include <sroce/bth.h>
#include <sroce/psn.h>

#include "sroce.h"
#include "gro.h"

static bool sroce_gro_rx = true;
module_param_named(gro_rx, sroce_gro_rx, bool, 0644);
MODULE_PARM_DESC(gro_rx,
		 "Chain received packets of one flow in GRO, to cross the IP stack once (default: Y)");

/* The IP and UDP lengths of the chain as one packet are 16 bits. */
#define SROCE_GRO_MAX_LEN	0xffff
/* Bounds the work one chain makes in the softirq that unchains it. */
#define SROCE_GRO_MAX_SEGS	64

/* The BTH of the last packet of @p's chain (of @p itself, at first). */
static bool sroce_gro_last_bth(struct sk_buff *p, struct sroce_bth *bth)
{
	struct sk_buff *last = NAPI_GRO_CB(p)->last;
	int off = 0;

	/* Chained packets start at their BTH (sroce_gro_chain()). */
	if (last == p)
		off = skb_transport_offset(p) + sizeof(struct udphdr);
	return !skb_copy_bits(last, off, bth, sizeof(*bth));
}

/* Whether @skb, whose UDP header is @uh, may be chained at all. */
static bool sroce_gro_may_chain(struct sk_buff *skb, const struct udphdr *uh)
{
	if (!READ_ONCE(sroce_gro_rx) || NAPI_GRO_CB(skb)->flush || uh->check)
		return false;
	if (NAPI_GRO_CB(skb)->is_ipv6)
		return true;
	return ((struct iphdr *)skb_gro_network_header(skb))->frag_off &
	       htons(IP_DF);
}

static void sroce_gro_chain(struct sk_buff *p, struct sk_buff *skb)
{
	struct sk_buff *last = NAPI_GRO_CB(p)->last;

	if (last == p)
		skb_shinfo(p)->frag_list = skb;
	else
		last->next = skb;
	__skb_pull(skb, skb_gro_offset(skb));
	NAPI_GRO_CB(p)->last = skb;
	NAPI_GRO_CB(p)->count++;
	p->data_len += skb->len;
	p->len += skb->len;
	p->truesize += skb->truesize;
	skb_shinfo(p)->flags |= skb_shinfo(skb)->flags & SKBFL_SHARED_FRAG;
	NAPI_GRO_CB(skb)->same_flow = 1;
}

/*
 * @skb: skb_gro_offset() at its BTH. Returns a chain to send up now (one
 * that cannot grow), or NULL. @skb joins a chain (same_flow), or, if not,
 * is held as the start of a new one unless its flush is set.
 */
struct sk_buff *sroce_gro_receive(struct sock *sk, struct list_head *head,
				  struct sk_buff *skb)
{
	unsigned int off = skb_gro_offset(skb);
	const struct sroce_bth *bth;
	const struct udphdr *uh;
	struct sroce_bth last;
	struct sk_buff *p;

	uh = skb_gro_header(skb, off + sizeof(*bth), off - sizeof(*uh));
	if (!uh || !sroce_gro_may_chain(skb, uh)) {
		NAPI_GRO_CB(skb)->flush = 1;
		return NULL;
	}
	bth = (const struct sroce_bth *)(uh + 1);

	list_for_each_entry(p, head, list) {
		if (!NAPI_GRO_CB(p)->same_flow)
			continue;
		if (!sroce_gro_last_bth(p, &last) ||
		    sroce_bth_qpn(&last) != sroce_bth_qpn(bth) ||
		    sroce_bth_psn(bth) !=
		    sroce_psn_add(sroce_bth_psn(&last), 1)) {
			NAPI_GRO_CB(p)->same_flow = 0;
			continue;
		}
		/*
		 * The chain this packet follows. A packet longer than the
		 * first (gso_size) would not fit the chain's geometry.
		 */
		if (NAPI_GRO_CB(p)->flush ||
		    p->len + skb_gro_len(skb) > SROCE_GRO_MAX_LEN ||
		    skb_gro_len(skb) > skb_shinfo(p)->gso_size ||
		    !pskb_may_pull(skb, off)) {
			NAPI_GRO_CB(p)->same_flow = 0;
			return p;
		}
		sroce_gro_chain(p, skb);
		/* A shorter packet ends a chain, as the end of a message. */
		if (NAPI_GRO_CB(p)->count >= SROCE_GRO_MAX_SEGS ||
		    skb_gro_len(skb) < skb_shinfo(p)->gso_size)
			return p;
		return NULL;
	}
	return NULL;
}

/*
 * A chain of two or more goes up. udp_gro_complete() has set the UDP
 * length (and the IP layer the IP length) to the chain's, and made it a
 * tunnel packet, which it is not: it becomes the frag-list GSO skb that
 * the UDP layer unchains. gso_size is the first packet's UDP payload,
 * as the GRO core set it when it held that packet.
 */
int sroce_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff)
{
	u16 segs = NAPI_GRO_CB(skb)->count;
	struct sroce_dev *sdev;

	skb->encapsulation = 0;
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
	if (skb->protocol == htons(ETH_P_IP))
		skb_shinfo(skb)->gso_type |= SKB_GSO_TCP_FIXEDID;
	skb_shinfo(skb)->gso_segs = segs;
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb->csum_level = 0;

	rcu_read_lock();
	sdev = sroce_dev_find_rcu(skb->dev);
	if (sdev) {
		sroce_count(sdev, SROCE_CNT_RX_GRO_SKBS);
		sroce_count_n(sdev, SROCE_CNT_RX_GRO_PACKETS, segs);
	}
	rcu_read_unlock();
	return 0;
}
