// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast: attach/detach verbs, IP group membership and delivery.
 * Data structures, locking and lifetimes are described in mcast.h.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>

#include <sroce/packet.h>

#include "sroce.h"
#include "limits.h"
#include "qp.h"
#include "drop.h"

struct sroce_mcast_grp {
	struct hlist_node node;		/* in sroce_mcast_table.groups */
	union ib_gid mgid;
	struct list_head members;	/* struct sroce_mcast_member */
	unsigned int num_qp;
	struct rcu_head rcu;
};

struct sroce_mcast_member {
	struct list_head list;
	struct sroce_qp *qp;		/* only compared: see mcast.h */
	u32 qpn;			/* what the receive path looks up */
	struct rcu_head rcu;
};

void sroce_mcast_init(struct sroce_dev *sdev)
{
	mutex_init(&sdev->mcast.lock);
	hash_init(sdev->mcast.groups);
	sdev->mcast.num_grp = 0;
}

static u32 sroce_mcast_key(const union ib_gid *mgid)
{
	return ipv6_addr_hash((const struct in6_addr *)mgid->raw);
}

/* Under RCU or the table lock. */
static struct sroce_mcast_grp *sroce_mcast_find(struct sroce_mcast_table *t,
						const union ib_gid *mgid)
{
	struct sroce_mcast_grp *grp;

	hash_for_each_possible_rcu(t->groups, grp, node, sroce_mcast_key(mgid),
				   lockdep_is_held(&t->lock))
		if (!memcmp(grp->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return grp;
	return NULL;
}

/* Under the table lock. */
static struct sroce_mcast_member *
sroce_mcast_member_find(struct sroce_mcast_grp *grp, struct sroce_qp *qp)
{
	struct sroce_mcast_member *m;

	list_for_each_entry(m, &grp->members, list)
		if (m->qp == qp)
			return m;
	return NULL;
}

/*
 * An MGID is an IP multicast address: IPv4-mapped ::ffff:224.0.0.0/4 or
 * IPv6 ff00::/8. The core checks this before calling us; so do we, since
 * the IP membership below depends on it.
 */
static bool sroce_mcast_gid_ok(union ib_gid *mgid)
{
	return rdma_is_multicast_addr((struct in6_addr *)mgid->raw);
}

/* Joins the group on the device's netdev, so that the IP stack takes it. */
static int sroce_mcast_ip_join(struct sroce_dev *sdev,
			       const union ib_gid *mgid)
{
	const struct in6_addr *addr = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;
	int err = 0;

	rtnl_lock();
	if (ipv6_addr_v4mapped(addr)) {
		in_dev = __in_dev_get_rtnl(sdev->ndev);
		if (in_dev)
			ip_mc_inc_group(in_dev, addr->s6_addr32[3]);
		else
			err = -ENODEV;
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		/* -EINVAL: IPv6 is disabled on the netdev. */
		err = ipv6_dev_mc_inc(sdev->ndev, addr);
	} else {
		err = -EAFNOSUPPORT;
	}
	rtnl_unlock();
	return err;
}

/*
 * A netdev that lost its IP configuration (unregistering, or its IPv4
 * state dropped for a tiny MTU) took our membership with it: then there
 * is nothing to leave.
 */
static void sroce_mcast_ip_leave(struct sroce_dev *sdev,
				 const union ib_gid *mgid)
{
	const struct in6_addr *addr = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;

	rtnl_lock();
	if (ipv6_addr_v4mapped(addr)) {
		in_dev = __in_dev_get_rtnl(sdev->ndev);
		if (in_dev)
			ip_mc_dec_group(in_dev, addr->s6_addr32[3]);
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		ipv6_dev_mc_dec(sdev->ndev, addr);
	}
	rtnl_unlock();
}

/* A new, empty group, published and joined at the IP level. Table lock. */
static struct sroce_mcast_grp *sroce_mcast_grp_create(struct sroce_dev *sdev,
						      const union ib_gid *mgid)
{
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_mcast_grp *grp;
	int err;

	if (t->num_grp >= SROCE_MAX_MCAST_GRP)
		return ERR_PTR(-ENOMEM);
	grp = kzalloc(sizeof(*grp), GFP_KERNEL);
	if (!grp)
		return ERR_PTR(-ENOMEM);
	grp->mgid = *mgid;
	INIT_LIST_HEAD(&grp->members);
	err = sroce_mcast_ip_join(sdev, mgid);
	if (err) {
		kfree(grp);
		return ERR_PTR(err);
	}
	hash_add_rcu(t->groups, &grp->node, sroce_mcast_key(mgid));
	t->num_grp++;
	return grp;
}

/* Unpublishes an empty group and leaves it at the IP level. Table lock. */
static void sroce_mcast_grp_destroy(struct sroce_dev *sdev,
				    struct sroce_mcast_grp *grp)
{
	hash_del_rcu(&grp->node);
	sdev->mcast.num_grp--;
	sroce_mcast_ip_leave(sdev, &grp->mgid);
	kfree_rcu(grp, rcu);
}

/* Table lock; a receiver may still be looking at @m: freed after RCU. */
static void sroce_mcast_member_del(struct sroce_mcast_grp *grp,
				   struct sroce_mcast_member *m)
{
	list_del_rcu(&m->list);
	grp->num_qp--;
	kfree_rcu(m, rcu);
}

static int sroce_attach_mcast(struct ib_qp *ib_qp, union ib_gid *mgid,
			      u16 lid)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_qp->device);
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_qp *qp = to_sroce_qp(ib_qp);
	struct sroce_mcast_member *m;
	struct sroce_mcast_grp *grp;
	int err = 0;

	/* RoCE has no LIDs: @lid is ignored (annex A16/A17). */
	if (ib_qp->qp_type != IB_QPT_UD || !sroce_mcast_gid_ok(mgid))
		return -EINVAL;
	m = kzalloc(sizeof(*m), sroce_obj_gfp(qp->user));
	if (!m)
		return -ENOMEM;
	m->qp = qp;
	m->qpn = qp->ib_qp.qp_num;

	mutex_lock(&t->lock);
	grp = sroce_mcast_find(t, mgid);
	if (grp) {
		/* Attaching a member again changes nothing and succeeds. */
		if (sroce_mcast_member_find(grp, qp))
			goto out_free;
		if (grp->num_qp >= SROCE_MAX_MCAST_QP_ATTACH) {
			err = -ENOMEM;
			goto out_free;
		}
	} else {
		grp = sroce_mcast_grp_create(sdev, mgid);
		if (IS_ERR(grp)) {
			err = PTR_ERR(grp);
			goto out_free;
		}
	}
	list_add_tail_rcu(&m->list, &grp->members);
	grp->num_qp++;
	mutex_unlock(&t->lock);
	return 0;

out_free:
	mutex_unlock(&t->lock);
	kfree(m);
	return err;
}

static int sroce_detach_mcast(struct ib_qp *ib_qp, union ib_gid *mgid,
			      u16 lid)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_qp->device);
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_mcast_member *m = NULL;
	struct sroce_mcast_grp *grp;

	if (ib_qp->qp_type != IB_QPT_UD || !sroce_mcast_gid_ok(mgid))
		return -EINVAL;

	mutex_lock(&t->lock);
	grp = sroce_mcast_find(t, mgid);
	if (grp)
		m = sroce_mcast_member_find(grp, to_sroce_qp(ib_qp));
	if (m) {
		sroce_mcast_member_del(grp, m);
		if (!grp->num_qp)
			sroce_mcast_grp_destroy(sdev, grp);
	}
	mutex_unlock(&t->lock);
	return m ? 0 : -EINVAL;
}

void sroce_mcast_qp_destroy(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_mcast_member *m;
	struct sroce_mcast_grp *grp;
	struct hlist_node *tmp;
	int bkt;

	if (qp->ib_qp.qp_type != IB_QPT_UD)
		return;
	/* Normally nothing: the core refuses to destroy an attached QP. */
	mutex_lock(&t->lock);
	if (t->num_grp) {
		hash_for_each_safe(t->groups, bkt, tmp, grp, node) {
			m = sroce_mcast_member_find(grp, qp);
			if (!m)
				continue;
			sroce_mcast_member_del(grp, m);
			if (!grp->num_qp)
				sroce_mcast_grp_destroy(sdev, grp);
		}
	}
	mutex_unlock(&t->lock);
}

void sroce_mcast_cleanup(struct sroce_dev *sdev)
{
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_mcast_member *m, *mtmp;
	struct sroce_mcast_grp *grp;
	struct hlist_node *tmp;
	int bkt;

	mutex_lock(&t->lock);
	hash_for_each_safe(t->groups, bkt, tmp, grp, node) {
		list_for_each_entry_safe(m, mtmp, &grp->members, list)
			sroce_mcast_member_del(grp, m);
		sroce_mcast_grp_destroy(sdev, grp);
	}
	mutex_unlock(&t->lock);
	mutex_destroy(&t->lock);
}

/* The packet's destination IP address as a GID (IPv4-mapped for IPv4). */
static void sroce_mcast_skb_dgid(const struct sk_buff *skb, union ib_gid *mgid)
{
	if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)mgid->raw);
	else
		memcpy(mgid->raw, &ipv6_hdr(skb)->daddr, sizeof(mgid->raw));
}

/*
 * Every member gets its own clone (the queued skb carries per-receiver
 * state in its cb); the last one gets the original. Each receiver's
 * responder checks its own state and Q_Key.
 */
void sroce_mcast_recv(struct sroce_dev *sdev, struct sk_buff *skb,
		      const struct sroce_packet_info *info)
{
	struct sroce_qp *qp, *prev = NULL;
	struct sroce_mcast_member *m;
	struct sroce_mcast_grp *grp;
	union ib_gid mgid;

	/* Multicast is a UD service only (IBTA 10.5). */
	if (!(info->op->flags & SROCE_OPF_UD)) {
		sroce_count(sdev, SROCE_CNT_RX_BAD_HEADER);
		sroce_drop_skb(&sdev->ib_dev, IB_MULTICAST_QPN, skb,
			       SROCE_DROP_BAD_HEADER);
		return;
	}
	sroce_mcast_skb_dgid(skb, &mgid);

	rcu_read_lock();
	grp = sroce_mcast_find(&sdev->mcast, &mgid);
	if (grp) {
		list_for_each_entry_rcu(m, &grp->members, list) {
			/*
			 * By number: the QP's memory may already be gone
			 * (destroy waits for references, not for readers).
			 */
			qp = sroce_qp_get(sdev, m->qpn);
			if (!qp)
				continue;
			if (prev) {
				struct sk_buff *copy = skb_clone(skb,
								 GFP_ATOMIC);

				/* Unreliable service: others still get it. */
				if (copy)
					sroce_engine_rx(prev, copy, info,
							SROCE_RX_FROM_WIRE);
				sroce_qp_put(prev);
			}
			prev = qp;
		}
	}
	rcu_read_unlock();

	if (!prev) {
		sroce_count(sdev, SROCE_CNT_RX_MCAST_NO_GROUP);
		sroce_drop_skb(&sdev->ib_dev, IB_MULTICAST_QPN, skb,
			       SROCE_DROP_MCAST_NO_GROUP);
		return;
	}
	sroce_engine_rx(prev, skb, info, SROCE_RX_FROM_WIRE);
	sroce_qp_put(prev);
}

const struct ib_device_ops sroce_mcast_ops = {
	.attach_mcast = sroce_attach_mcast,
	.detach_mcast = sroce_detach_mcast,
};
