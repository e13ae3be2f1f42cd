// SPDX-License-Identifier: GPL-2.0
/* Address vectors from and to the RDMA core's rdma_ah_attr. */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "av.h"

/*
 * RoCE v2 only: the source GID must be a RoCE v2 (UDP encapsulated) entry
 * of our GID table, which also tells the IP family. The destination MAC
 * was resolved by the core (ah_attr->roce.dmac).
 */
int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->network_type = rdma_gid_attr_network_type(sgid_attr);
	if (av->network_type != RDMA_NETWORK_IPV4 &&
	    av->network_type != RDMA_NETWORK_IPV6)
		return -EINVAL;
	/* An IPv4 source needs an IPv4-mapped destination, and vice versa. */
	if ((av->network_type == RDMA_NETWORK_IPV4) !=
	    ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw))
		return -EINVAL;

	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->sgid_index = grh->sgid_index;
	/*
	 * The flow label is 20 bits, but the verbs carry a u32 unchecked:
	 * UCX passes ~0 ("any path"). The rest would spill into the
	 * version and traffic class of the IPv6 header.
	 */
	av->flow_label = grh->flow_label & IB_GRH_FLOWLABEL_MASK;
	av->sgid = sgid_attr->gid;
	av->dgid = grh->dgid;
	rdma_gid2ip((struct sockaddr *)&av->saddr, &av->sgid);
	rdma_gid2ip((struct sockaddr *)&av->daddr, &av->dgid);
	return 0;
}

/*
 * The AV a UD WQE carries itself (ah_num 0), as librxe writes it for a
 * kernel that hands out no AH numbers. All of it is user-written: only
 * the source GID index, the destination GID and the GRH fields are
 * taken, and checked like an address handle's. The source address comes
 * from our GID table; the user's MAC and socket addresses are ignored
 * (the route decides where the packet goes). Any context.
 */
int sroce_av_from_user(struct ib_device *ibdev, const struct rxe_av *uav,
		       struct sroce_av *av)
{
	struct rdma_ah_attr attr = {
		.type = RDMA_AH_ATTR_TYPE_ROCE,
		.ah_flags = IB_AH_GRH,
		.port_num = 1,
	};
	const struct ib_gid_attr *sgid_attr;
	int err;

	if (uav->port_num != 1)
		return -EINVAL;
	sgid_attr = rdma_get_gid_attr(ibdev, 1, uav->grh.sgid_index);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	memcpy(attr.grh.dgid.raw, uav->grh.dgid.raw, sizeof(attr.grh.dgid));
	attr.grh.flow_label = uav->grh.flow_label;
	attr.grh.sgid_index = uav->grh.sgid_index;
	attr.grh.hop_limit = uav->grh.hop_limit;
	attr.grh.traffic_class = uav->grh.traffic_class;
	attr.grh.sgid_attr = sgid_attr;
	err = sroce_av_from_attr(av, &attr);
	/* The last reference is dropped in a work item: fine here. */
	rdma_put_gid_attr(sgid_attr);
	return err;
}

/* Fills what query_qp reports of the path; the core adds the sgid_attr. */
void sroce_av_to_attr(const struct sroce_av *av, struct rdma_ah_attr *attr)
{
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_grh(attr, NULL, av->flow_label, av->sgid_index,
			av->hop_limit, av->traffic_class);
	rdma_ah_retrieve_grh(attr)->dgid = av->dgid;
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
}

/*
 * Whether a received packet (network header set) comes from the peer at
 * the other end of @av, a connected QP's path, and is addressed to us:
 * its IP source is the AV's destination and its IP destination the AV's
 * source, in the AV's IP family. This is the whole of RoCE v2's
 * authentication of a connected QP's traffic (rdma_rxe checks the same):
 * a host that cannot forge the peer's address cannot inject into it.
 */
bool sroce_av_sent_by_peer(const struct sroce_av *av,
			   const struct sk_buff *skb)
{
	if (av->network_type == RDMA_NETWORK_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		return skb->protocol == htons(ETH_P_IP) &&
		       iph->saddr == av->daddr.in4.sin_addr.s_addr &&
		       iph->daddr == av->saddr.in4.sin_addr.s_addr;
	}
	if (av->network_type == RDMA_NETWORK_IPV6) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		return skb->protocol == htons(ETH_P_IPV6) &&
		       ipv6_addr_equal(&ip6h->saddr, &av->daddr.in6.sin6_addr) &&
		       ipv6_addr_equal(&ip6h->daddr, &av->saddr.in6.sin6_addr);
	}
	return false;
}
