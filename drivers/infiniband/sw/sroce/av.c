// SPDX-License-Identifier: GPL-2.0
/* Address vectors from and to the RDMA core's rdma_ah_attr. */
#include <rdma/ib_addr.h>
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
	av->flow_label = grh->flow_label;
	av->sgid = sgid_attr->gid;
	av->dgid = grh->dgid;
	rdma_gid2ip((struct sockaddr *)&av->saddr, &av->sgid);
	rdma_gid2ip((struct sockaddr *)&av->daddr, &av->dgid);
	return 0;
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
