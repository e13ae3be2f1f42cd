/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address vector: where a packet goes, resolved once from an rdma_ah_attr
 * (QP primary path or address handle) into what the transmit path needs.
 */
#ifndef SROCE_AV_H
#define SROCE_AV_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/types.h>
#include <linux/if_ether.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

struct sroce_av {
	enum rdma_network_type network_type;	/* RDMA_NETWORK_IPV4 / _IPV6 */
	u8 dmac[ETH_ALEN];
	u8 hop_limit;
	u8 traffic_class;
	u8 sgid_index;
	u32 flow_label;
	union ib_gid sgid;
	union ib_gid dgid;
	union {
		struct sockaddr_in in4;
		struct sockaddr_in6 in6;
	} saddr, daddr;
};

int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr);
int sroce_av_from_user(struct ib_device *ibdev, const struct rxe_av *uav,
		       struct sroce_av *av);
void sroce_av_to_attr(const struct sroce_av *av, struct rdma_ah_attr *attr);

struct sk_buff;
bool sroce_av_sent_by_peer(const struct sroce_av *av,
			   const struct sk_buff *skb);

#endif /* SROCE_AV_H */
