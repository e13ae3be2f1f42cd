// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit: IP and UDP headers are written here rather than by the UDP
 * tunnel helpers because the ICRC covers the final IP header (its
 * identification field included), so it must be computed after the
 * header exists and before the packet leaves.
 *
 * A destination that an sroce device of this host owns is delivered to
 * it directly (sroce_tx_local_dev()). Anything else is routed; a connected
 * QP keeps its route in a dst_cache, which the FIB invalidates when
 * routes change.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/dst_cache.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp.h>
#include <rdma/ib_verbs.h>

#include <sroce/icrc.h>
#include <sroce/packet.h>

#include "sroce.h"
#include "net_tx.h"
#include "drop.h"
#include "skb_icrc.h"
#include "cc.h"
#include "tx_burst.h"

#define SROCE_TX_TTL		64

static bool sroce_zero_copy_tx = true;
module_param_named(zero_copy_tx, sroce_zero_copy_tx, bool, 0644);
MODULE_PARM_DESC(zero_copy_tx,
		 "Send RC payloads of user QPs from the registered pages without copying them (default: Y)");

bool sroce_tx_zero_copy(u32 payload_len)
{
	return payload_len >= SROCE_TX_ZERO_COPY_MIN &&
	       READ_ONCE(sroce_zero_copy_tx);
}

struct sk_buff *sroce_tx_alloc(struct sroce_dev *sdev,
			       const struct sroce_av *av, unsigned int len,
			       gfp_t gfp)
{
	unsigned int ip_len = av->network_type == RDMA_NETWORK_IPV6 ?
			      sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	unsigned int head = LL_RESERVED_SPACE(sdev->ndev) + ip_len +
			    sizeof(struct udphdr);
	struct sk_buff *skb;

	/* Room for the pad (up to 3 bytes) and the ICRC at the tail. */
	skb = alloc_skb(head + len + 3 + SROCE_ICRC_BYTES, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb_reset_transport_header(skb);
	return skb;
}

/* @room: bytes of the payload that will be put in the linear part. */
static struct sk_buff *sroce_tx_build_room(struct sroce_dev *sdev,
					   const struct sroce_av *av,
					   const struct sroce_hdr_fields *f,
					   u32 payload_len, u32 room)
{
	u32 hdr_len = sroce_packet_header_len(f->opcode);
	struct sk_buff *skb;

	skb = sroce_tx_alloc(sdev, av, hdr_len + room, GFP_ATOMIC);
	if (!skb)
		return NULL;
	if (sroce_packet_build(skb_put(skb, hdr_len), hdr_len, f,
			       payload_len) < 0) {
		sroce_drop_skb(&sdev->ib_dev, 0, skb, SROCE_DROP_TX_ABORTED);
		return NULL;
	}
	return skb;
}

struct sk_buff *sroce_tx_build(struct sroce_dev *sdev,
			       const struct sroce_av *av,
			       const struct sroce_hdr_fields *f,
			       u32 payload_len)
{
	return sroce_tx_build_room(sdev, av, f, payload_len, payload_len);
}

struct sk_buff *sroce_tx_build_zc(struct sroce_dev *sdev,
				  const struct sroce_av *av,
				  const struct sroce_hdr_fields *f,
				  u32 payload_len)
{
	return sroce_tx_build_room(sdev, av, f, payload_len, 0);
}

/* The cache (if any) only ever holds routes for this AV. */
static struct dst_entry *sroce_route4(struct sroce_dev *sdev,
				      const struct sroce_av *av,
				      struct dst_cache *cache)
{
	struct flowi4 fl = {
		.flowi4_oif = sdev->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = av->daddr.in4.sin_addr.s_addr,
		.saddr = av->saddr.in4.sin_addr.s_addr,
	};
	struct rtable *rt;
	__be32 saddr;

	if (cache) {
		rt = dst_cache_get_ip4(cache, &saddr);
		if (rt)
			return &rt->dst;
	}
	rt = ip_route_output_key(sdev->net, &fl);
	if (IS_ERR(rt))
		return ERR_CAST(rt);
	if (cache)
		dst_cache_set_ip4(cache, &rt->dst, fl.saddr);
	return &rt->dst;
}

static struct dst_entry *sroce_route6(struct sroce_dev *sdev,
				      const struct sroce_av *av,
				      struct dst_cache *cache)
{
	struct flowi6 fl = {
		.flowi6_oif = sdev->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = av->daddr.in6.sin6_addr,
		.saddr = av->saddr.in6.sin6_addr,
	};
	struct dst_entry *dst;
	struct in6_addr saddr;

	if (!IS_ENABLED(CONFIG_IPV6) || !ipv6_stub->ipv6_dst_lookup_flow)
		return ERR_PTR(-EAFNOSUPPORT);
	if (cache) {
		dst = dst_cache_get_ip6(cache, &saddr);
		if (dst)
			return dst;
	}
	dst = ipv6_stub->ipv6_dst_lookup_flow(sdev->net, NULL, &fl, NULL);
	if (!IS_ERR(dst) && cache)
		dst_cache_set_ip6(cache, dst, &fl.saddr);
	return dst;
}

static void sroce_push_udp(struct sk_buff *skb, u16 src_port)
{
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(src_port);
	uh->dest = htons(ROCE_V2_UDP_DPORT);
	uh->len = htons(skb->len);
	/* RoCE v2 leaves the UDP checksum at zero: the ICRC protects. */
	uh->check = 0;
}

static void sroce_push_ipv4(struct sk_buff *skb, const struct sroce_av *av,
			    u8 tos)
{
	struct iphdr *iph;

	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = tos;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ? av->hop_limit : SROCE_TX_TTL;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->saddr.in4.sin_addr.s_addr;
	iph->daddr = av->daddr.in4.sin_addr.s_addr;
	/* Identification and checksum when it leaves (not for local ones). */
	iph->id = 0;
	iph->check = 0;
	skb->protocol = htons(ETH_P_IP);
}

static void sroce_push_ipv6(struct sk_buff *skb, const struct sroce_av *av,
			    u8 tos)
{
	struct ipv6hdr *ip6h;

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, tos, htonl(av->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ? av->hop_limit : SROCE_TX_TTL;
	ip6h->saddr = av->saddr.in6.sin6_addr;
	ip6h->daddr = av->daddr.in6.sin6_addr;
	skb->protocol = htons(ETH_P_IPV6);
}

/*
 * A packet for an address of this host that an sroce device in the same
 * namespace owns goes straight to that device's receive path, as if it
 * had arrived: no trip through the loopback device and the UDP socket,
 * whose softirq may be deferred to ksoftirqd and then waits behind busy
 * processes. It never meets a wire, so it carries no ICRC and needs no
 * IP identification. The engine it lands in runs in place if idle
 * (trylock only: no lock order among QPs). Returns that device, or NULL;
 * the caller holds the RCU read lock.
 */
static struct sroce_dev *sroce_tx_local_dev(struct sroce_dev *sdev,
					    const struct sroce_av *av)
{
	if (av->network_type == RDMA_NETWORK_IPV6)
		return sroce_dev_by_addr_rcu(sdev->net, true,
					     &av->daddr.in6.sin6_addr);
	return sroce_dev_by_addr_rcu(sdev->net, false,
				     &av->daddr.in4.sin_addr.s_addr);
}

/* @list to @local, found under the RCU read lock that the caller holds. */
static void sroce_tx_local_hand_over(struct sroce_dev *sdev,
				     struct sroce_dev *local,
				     struct sk_buff_head *list, u32 src_qpn)
{
	u32 n = skb_queue_len(list);
	struct sk_buff *skb;

	if (n > 1) {
		sroce_count(sdev, SROCE_CNT_LOCAL_BATCHES);
		sroce_count_n(sdev, SROCE_CNT_LOCAL_BATCH_PACKETS, n);
	}
	skb_queue_walk(list, skb) {
		skb->dev = local->ndev;
		skb->pkt_type = PACKET_HOST;
		sroce_count(sdev, SROCE_CNT_TX_PACKETS);
		sroce_count(sdev, SROCE_CNT_LOCAL_DELIVERIES);
		if (skb_is_nonlinear(skb))
			sroce_count(sdev, SROCE_CNT_TX_ZERO_COPY);
	}
	sroce_recv_list(local, list, src_qpn);
}

void sroce_tx_local_list(struct sroce_dev *sdev, const struct sroce_av *av,
			 struct sk_buff_head *list, u32 src_qpn)
{
	struct sroce_dev *local;
	struct sk_buff *skb;

	rcu_read_lock();
	local = sroce_tx_local_dev(sdev, av);
	if (local) {
		sroce_tx_local_hand_over(sdev, local, list, src_qpn);
	} else {
		/* Its address went away since the packets were queued. */
		while ((skb = __skb_dequeue(list))) {
			sroce_count(sdev, SROCE_CNT_TX_ERRORS);
			sroce_drop_skb(&sdev->ib_dev, 0, skb,
				       SROCE_DROP_TX_NO_ROUTE);
		}
	}
	rcu_read_unlock();
}

/*
 * @len zero bytes at the end of @skb, for the pad and the ICRC. A packet
 * whose payload is in fragments gets them in one more fragment, from the
 * per-CPU page fragment cache. 0 or -ENOMEM.
 */
static int sroce_tx_trailer(struct sk_buff *skb, unsigned int len)
{
	struct page *page;
	u8 *p;

	if (!skb_is_nonlinear(skb)) {
		skb_put_zero(skb, len);
		return 0;
	}
	if (WARN_ON_ONCE(skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS))
		return -ENOMEM;
	p = netdev_alloc_frag(len);
	if (!p)
		return -ENOMEM;
	memset(p, 0, len);
	page = virt_to_head_page(p);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page,
			   p - (u8 *)page_address(page), len);
	skb_len_add(skb, len);
	return 0;
}

int sroce_tx_seal(struct sk_buff *skb)
{
	unsigned int len = skb->len - skb_transport_offset(skb) -
			   sizeof(struct udphdr);
	__le32 icrc;

	/* Only fails if the packet is shorter than its UDP header says. */
	if (sroce_skb_icrc(skb, len, &icrc))
		return -EINVAL;
	return skb_store_bits(skb, skb->len - sizeof(icrc), &icrc,
			      sizeof(icrc));
}

int sroce_tx_output(struct sroce_dev *sdev, const struct sroce_av *av,
		    struct dst_cache *cache, struct sk_buff *skb)
{
	bool ipv6 = av->network_type == RDMA_NETWORK_IPV6;
	struct dst_entry *dst;
	int err;

	dst = ipv6 ? sroce_route6(sdev, av, cache) :
		     sroce_route4(sdev, av, cache);
	if (IS_ERR(dst)) {
		sroce_drop_skb(&sdev->ib_dev, 0, skb, SROCE_DROP_TX_NO_ROUTE);
		return PTR_ERR(dst);
	}
	skb_dst_set(skb, dst);
	skb->dev = dst->dev;
	memset(skb->cb, 0, sizeof(skb->cb));
	err = ipv6 ? ip6_local_out(sdev->net, NULL, skb) :
		     ip_local_out(sdev->net, NULL, skb);
	return net_xmit_eval(err);
}

int sroce_tx_one(struct sroce_dev *sdev, const struct sroce_av *av,
		 struct sk_buff *skb, struct dst_cache *cache)
{
	bool zero_copy = skb_is_nonlinear(skb);
	int err;

	if (av->network_type != RDMA_NETWORK_IPV6) {
		__ip_select_ident(sdev->net, ip_hdr(skb), 1);
		ip_send_check(ip_hdr(skb));
	}
	err = sroce_tx_seal(skb);
	if (err) {
		sroce_drop_skb(&sdev->ib_dev, 0, skb, SROCE_DROP_TX_ABORTED);
		goto out;
	}
	err = sroce_tx_output(sdev, av, cache, skb);
out:
	sroce_count(sdev, err ? SROCE_CNT_TX_ERRORS : SROCE_CNT_TX_PACKETS);
	if (!err && zero_copy)
		sroce_count(sdev, SROCE_CNT_TX_ZERO_COPY);
	return err;
}

int sroce_tx_queue(struct sroce_dev *sdev, const struct sroce_av *av,
		   struct sk_buff *skb, u16 src_port, struct dst_cache *cache,
		   u32 src_qpn, struct sroce_tx_burst *burst)
{
	/* ECN bits and a CNP's DSCP (cc.c): skb->data is the BTH here. */
	u8 tos = sroce_cc_tos(av->traffic_class, skb->data[0]);
	struct sroce_dev *local;
	unsigned int pad;

	/*
	 * The caller set the BTH pad count; the bytes are zero. Every header
	 * length is a multiple of 4, so the whole length pads like the payload.
	 * skb->data is the BTH; headers go in front, pad and ICRC behind.
	 */
	pad = sroce_pad_count(skb->len);
	if (sroce_tx_trailer(skb, pad + SROCE_ICRC_BYTES)) {
		sroce_count(sdev, SROCE_CNT_TX_ERRORS);
		sroce_drop_skb(&sdev->ib_dev, 0, skb, SROCE_DROP_TX_ABORTED);
		return -ENOMEM;
	}
	sroce_push_udp(skb, src_port);
	rcu_read_lock();
	local = sroce_tx_local_dev(sdev, av);
	/* The IPv4 identification is chosen when the packet leaves. */
	if (av->network_type == RDMA_NETWORK_IPV6)
		sroce_push_ipv6(skb, av, tos);
	else
		sroce_push_ipv4(skb, av, tos);
	if (local) {
		struct sk_buff_head one;

		__skb_pull(skb, skb_transport_offset(skb));
		if (!burst || !sroce_tx_burst_add_local(burst, sdev, av,
							src_qpn, skb)) {
			__skb_queue_head_init(&one);
			__skb_queue_tail(&one, skb);
			sroce_tx_local_hand_over(sdev, local, &one, src_qpn);
		}
		rcu_read_unlock();
		return 0;
	}
	rcu_read_unlock();

	if (burst && sroce_tx_burst_add(burst, sdev, av, cache, skb))
		return 0;
	return sroce_tx_one(sdev, av, skb, cache);
}

int sroce_tx_send(struct sroce_dev *sdev, const struct sroce_av *av,
		  struct sk_buff *skb, u16 src_port, struct dst_cache *cache,
		  u32 src_qpn)
{
	return sroce_tx_queue(sdev, av, skb, src_port, cache, src_qpn, NULL);
}
