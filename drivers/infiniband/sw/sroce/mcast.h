/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UD multicast (IBTA 10.5; RoCE v2, annex A17): groups named by an MGID
 * that is an IP multicast address, either IPv4-mapped (::ffff:224.0.0.0/4)
 * or IPv6 (ff00::/8). A packet for destination QP 0xFFFFFF whose
 * destination IP address is a group of the receiving device goes to every
 * QP attached to that group, each with its own copy of the skb.
 *
 * Data: each device has a hash table of groups keyed by MGID; a group
 * holds the list of its members (one entry per attached QP). Groups and
 * members are created by attach_mcast and freed, after an RCU grace
 * period, by detach_mcast, by the destruction of a QP that is still
 * attached, or by device teardown.
 *
 * Locking: sroce_mcast_table.lock (a mutex; process context only)
 * serialises every writer and protects the hash chains, the member
 * lists, num_grp, each group's num_qp and the device's IP memberships.
 * RTNL is taken inside it, around the IP membership calls only; nothing
 * takes the two the other way round. The receive softirq reads the hash
 * chains and member lists under RCU without a lock.
 *
 * Lifetimes: a member holds no reference on its QP. The receive path
 * never dereferences the member's QP pointer (writers only compare it,
 * under the lock): it looks the member's QPN up in the QP table, as the
 * unicast path does, which yields a reference or nothing, and holds that
 * reference while it queues the packet. A QP leaves its groups before its
 * destroy removes its QPN (the core detaches it first;
 * sroce_mcast_qp_destroy() catches one that is still attached), so no
 * member outlives its QP. The last reference on a group and on a member
 * is the table's; the memory goes with kfree_rcu().
 *
 * IP membership: the first member of a group joins the group at the IP
 * level on the device's netdev (ip_mc_inc_group / ipv6_dev_mc_inc), the
 * last one to leave leaves it (and device teardown leaves what is left):
 * that is what makes the host's IP stack accept the group's packets from
 * the wire, and loop back to us what a QP of this very device sends to
 * the group. Those memberships are counted by the IP stack, so other
 * users of the same group on the netdev (sockets, rdma_cm) are not
 * disturbed.
 *
 * Sending needs nothing of its own: a UD WQE names the multicast QPN and
 * an AH whose destination is the group, and the packet is routed to it.
 * It never takes the direct path for local destinations (no local
 * address is a multicast one), so receivers on the sender's own netdev
 * get exactly one copy, the IP stack's loopback.
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <linux/hashtable.h>
#include <linux/mutex.h>

#define SROCE_MCAST_HASH_BITS	8

struct sroce_mcast_table {
	struct mutex lock;	/* writers; see above */
	DECLARE_HASHTABLE(groups, SROCE_MCAST_HASH_BITS);
	unsigned int num_grp;	/* against SROCE_MAX_MCAST_GRP */
};

struct sk_buff;
struct sroce_dev;
struct sroce_qp;
struct sroce_packet_info;

void sroce_mcast_init(struct sroce_dev *sdev);
/* Device teardown, once no receive path can find the device any more. */
void sroce_mcast_cleanup(struct sroce_dev *sdev);
/*
 * QP destroy: detaches @qp from whatever it is still attached to. Called
 * before destroy removes the QPN.
 */
void sroce_mcast_qp_destroy(struct sroce_qp *qp);
/* A validated packet for the multicast QPN (receive softirq, under RCU). */
void sroce_mcast_recv(struct sroce_dev *sdev, struct sk_buff *skb,
		      const struct sroce_packet_info *info);

#endif /* SROCE_MCAST_H */
