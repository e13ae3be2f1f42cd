// SPDX-License-Identifier: GPL-2.0
/*
 * Device creation ("rdma link add"), lookup and teardown.
 *
 * Two lists:
 *  - sroce_dev_list: devices that lookups may find (receive path, netdev
 *    notifier), from newlink's publish until dealloc_driver begins.
 *    Written under sroce_dev_list_lock (a spinlock, also taken with RTNL
 *    held), read under RCU. A reader that keeps the device past its RCU
 *    section takes a reference with ib_device_try_get().
 *  - sroce_tracked: every registered device, holding a get_device()
 *    reference, until somebody has waited for its unregistration to end
 *    (sroce_unregister_matching). dealloc_driver runs under the core's
 *    unregistration lock and returns into the core, so "dealloc_driver was
 *    called" is not a fence for module unload or namespace exit; waiting
 *    on that lock through ib_unregister_device() is. Protected by
 *    sroce_tracked_lock, as is sroce_dev.released.
 *
 * sroce_link_mutex serialises newlink callbacks, so that the duplicate
 * check and the insertion are one step. It is never taken under RTNL or by
 * the notifier: ib_register_device() takes RTNL internally.
 * sroce_dev.ndev_gone is protected by RTNL.
 */
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "limits.h"
#include "odp.h"
#include "srq.h"

static DEFINE_MUTEX(sroce_link_mutex);
static DEFINE_SPINLOCK(sroce_dev_list_lock);
static LIST_HEAD(sroce_dev_list);
static DEFINE_MUTEX(sroce_tracked_lock);
static LIST_HEAD(sroce_tracked);

/* Runs the unregistrations the netdev notifier asks for. */
static struct workqueue_struct *sroce_unreg_wq;

/*
 * Must be called under rcu_read_lock() or sroce_dev_list_lock. The device
 * may already be unregistering; the memory stays valid until the read
 * section (or the lock) ends.
 */
struct sroce_dev *sroce_dev_find_rcu(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	list_for_each_entry_rcu(sdev, &sroce_dev_list, list,
				lockdep_is_held(&sroce_dev_list_lock))
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

/*
 * Returns the registered device bound to @ndev with a reference held, or
 * NULL. Safe in any context; release with sroce_dev_put().
 */
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	rcu_read_lock();
	sdev = sroce_dev_find_rcu(ndev);
	if (sdev && !ib_device_try_get(&sdev->ib_dev))
		sdev = NULL;
	rcu_read_unlock();
	return sdev;
}

void sroce_dev_put(struct sroce_dev *sdev)
{
	ib_device_put(&sdev->ib_dev);
}

static void sroce_unreg_work(struct work_struct *work)
{
	struct sroce_dev *sdev = container_of(work, struct sroce_dev,
					      unreg_work);

	ib_unregister_device(&sdev->ib_dev);
	put_device(&sdev->ib_dev.dev);
}

/*
 * Called by the netdev notifier (RTNL held) when the bound netdev is being
 * unregistered. Unregistration cannot run under RTNL, so it is queued; a
 * device still inside ib_register_device() is not affected by it, and
 * newlink sees ndev_gone afterwards and undoes itself.
 */
void sroce_dev_netdev_gone(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	ASSERT_RTNL();
	rcu_read_lock();
	sdev = sroce_dev_find_rcu(ndev);
	if (sdev) {
		sdev->ndev_gone = true;
		/* On the list, the device still has its initial reference. */
		get_device(&sdev->ib_dev.dev);
		if (!queue_work(sroce_unreg_wq, &sdev->unreg_work))
			put_device(&sdev->ib_dev.dev);
	}
	rcu_read_unlock();
}

static void sroce_dev_track(struct sroce_dev *sdev)
{
	get_device(&sdev->ib_dev.dev);
	mutex_lock(&sroce_tracked_lock);
	list_add_tail(&sdev->tracked, &sroce_tracked);
	mutex_unlock(&sroce_tracked_lock);
}

static void sroce_dev_untrack(struct sroce_dev *sdev)
{
	bool tracked;

	mutex_lock(&sroce_tracked_lock);
	tracked = !list_empty(&sdev->tracked);
	list_del_init(&sdev->tracked);
	mutex_unlock(&sroce_tracked_lock);
	if (tracked)
		put_device(&sdev->ib_dev.dev);
}

/*
 * Unregisters every tracked device for which @match returns true, and
 * waits for unregistrations already in flight, whoever started them: on
 * return no matching device exists and none of its teardown is still
 * running. @match is called under sroce_tracked_lock.
 */
void sroce_unregister_matching(bool (*match)(struct sroce_dev *sdev,
					     const void *arg),
			       const void *arg)
{
	for (;;) {
		struct sroce_dev *sdev = NULL, *it;

		mutex_lock(&sroce_tracked_lock);
		list_for_each_entry(it, &sroce_tracked, tracked) {
			if (match(it, arg)) {
				sdev = it;
				get_device(&sdev->ib_dev.dev);
				break;
			}
		}
		mutex_unlock(&sroce_tracked_lock);
		if (!sdev)
			return;
		/* Blocks on the core's unregistration lock if needed. */
		ib_unregister_device(&sdev->ib_dev);
		sroce_dev_untrack(sdev);
		put_device(&sdev->ib_dev.dev);
	}
}

static bool sroce_dev_released(struct sroce_dev *sdev, const void *arg)
{
	return sdev->released;
}

int sroce_devices_init(void)
{
	sroce_unreg_wq = alloc_workqueue("sroce_unreg", WQ_UNBOUND, 0);
	return sroce_unreg_wq ? 0 : -ENOMEM;
}

/* After the notifier is gone: finish queued unregistrations. */
void sroce_devices_exit(void)
{
	destroy_workqueue(sroce_unreg_wq);
}

static int sroce_query_device(struct ib_device *ib_dev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_dev);

	if (udata->inlen || udata->outlen)
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = SROCE_FW_VER;
	attr->sys_image_guid = sdev->ib_dev.node_guid;
	attr->max_mr_size = SROCE_MAX_MR_SIZE;
	attr->page_size_cap = SROCE_PAGE_SIZE_CAP;
	attr->vendor_id = SROCE_VENDOR_ID;
	attr->vendor_part_id = SROCE_VENDOR_PART_ID;
	attr->hw_ver = SROCE_HW_VER;
	attr->max_qp = SROCE_MAX_QP;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
				 IB_DEVICE_BAD_QKEY_CNTR |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	sroce_odp_caps(attr);
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE - 1;
	attr->max_mr = SROCE_MAX_MR;
	attr->max_mw = SROCE_MAX_MW;
	attr->max_pd = SROCE_MAX_PD;
	attr->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = SROCE_MAX_QP * SROCE_MAX_RD_ATOMIC;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_MCAST_GRP *
					  SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_ah = SROCE_MAX_AH;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR - 1;
	attr->max_srq_sge = SROCE_MAX_SGE;
	attr->max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = SROCE_LOCAL_ACK_DELAY;
	return 0;
}

static void sroce_get_dev_fw_str(struct ib_device *ib_dev, char *str)
{
	strscpy(str, SROCE_VERSION, IB_FW_VERSION_NAME_MAX);
}

/*
 * The core's last call into the driver for this device: undo everything
 * newlink took. The core frees the memory afterwards.
 */
static void sroce_dealloc_driver(struct ib_device *ib_dev)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_dev);

	spin_lock(&sroce_dev_list_lock);
	list_del_rcu(&sdev->list);
	spin_unlock(&sroce_dev_list_lock);
	/* RCU readers (receive path, lookups) may still hold the pointer. */
	synchronize_rcu();

	/* Normally empty: the core detaches QPs before destroying them. */
	sroce_mcast_cleanup(sdev);
	sroce_udp_put(sdev->net);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
	free_percpu(sdev->counters);
	/* The core destroyed every MR and MW before calling us. */
	sroce_key_table_destroy(&sdev->keys);
	/* The core destroyed every QP before calling us. */
	WARN_ON(!xa_empty(&sdev->qp_xa));
	xa_destroy(&sdev->qp_xa);
	/* Likewise every AH; the entries' kfree_rcu() needs no module code. */
	WARN_ON(!xa_empty(&sdev->ah_xa));
	xa_destroy(&sdev->ah_xa);

	/* Last: the tracked entry may now be reaped by the next newlink. */
	mutex_lock(&sroce_tracked_lock);
	sdev->released = true;
	mutex_unlock(&sroce_tracked_lock);
}

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = 2,	/* RXE_UVERBS_ABI_VERSION, the rxe user ABI */

	.dealloc_driver = sroce_dealloc_driver,
	.get_dev_fw_str = sroce_get_dev_fw_str,
	.query_device = sroce_query_device,
};

/*
 * Makes the device visible to the notifier and to lookups, refusing a
 * netdev that is already bound or already going away. Returns 0 or -errno.
 */
static int sroce_dev_publish(struct sroce_dev *sdev)
{
	int err = 0;

	rtnl_lock();
	spin_lock(&sroce_dev_list_lock);
	if (sdev->ndev->reg_state != NETREG_REGISTERED ||
	    !net_eq(dev_net(sdev->ndev), sdev->net))
		err = -ENODEV;
	else if (sroce_dev_find_rcu(sdev->ndev))
		err = -EEXIST;
	else
		list_add_tail_rcu(&sdev->list, &sroce_dev_list);
	spin_unlock(&sroce_dev_list_lock);
	if (!err)
		sdev->port_state = sroce_netdev_port_state(sdev->ndev);
	rtnl_unlock();
	return err;
}

static void sroce_dev_init_attrs(struct sroce_dev *sdev)
{
	struct ib_device *ib_dev = &sdev->ib_dev;

	strscpy(ib_dev->node_desc, SROCE_DRV_NAME, sizeof(ib_dev->node_desc));
	ib_dev->node_type = RDMA_NODE_IB_CA;
	ib_dev->phys_port_cnt = 1;
	ib_dev->num_comp_vectors = max_t(int, num_possible_cpus(), 1);
	ib_dev->local_dma_lkey = 0;
	addrconf_addr_eui48((u8 *)&ib_dev->node_guid, sdev->ndev->dev_addr);
	/* librxe rings its send doorbell and arms CQs with these commands. */
	ib_dev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				   BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	ib_set_device_ops(ib_dev, &sroce_dev_ops);
	ib_set_device_ops(ib_dev, &sroce_port_ops);
	ib_set_device_ops(ib_dev, &sroce_stats_ops);
	ib_set_device_ops(ib_dev, &sroce_ucontext_ops);
	ib_set_device_ops(ib_dev, &sroce_pd_ops);
	ib_set_device_ops(ib_dev, &sroce_mr_ops);
	ib_set_device_ops(ib_dev, &sroce_mw_ops);
	ib_set_device_ops(ib_dev, &sroce_mmap_ops);
	ib_set_device_ops(ib_dev, &sroce_cq_ops);
	ib_set_device_ops(ib_dev, &sroce_qp_ops);
	ib_set_device_ops(ib_dev, &sroce_post_ops);
	ib_set_device_ops(ib_dev, &sroce_srq_ops);
	ib_set_device_ops(ib_dev, &sroce_ah_ops);
	ib_set_device_ops(ib_dev, &sroce_mcast_ops);
}

/*
 * Allocates the device and takes what it holds for its whole life (its
 * counters, the namespace's UDP sockets, the netdev), publishes it and
 * sets its ops. Called under sroce_link_mutex. Until the ops are set,
 * dealloc_driver must not run and failures are undone here; once this
 * returns a device, ib_dealloc_device() undoes all of it through
 * sroce_dealloc_driver().
 */
static struct sroce_dev *sroce_dev_create(struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int err;

	sdev = ib_alloc_device(sroce_dev, ib_dev);
	if (!sdev)
		return ERR_PTR(-ENOMEM);
	sdev->counters = alloc_percpu(struct sroce_counters);
	if (!sdev->counters) {
		err = -ENOMEM;
		goto err_dealloc;
	}
	INIT_LIST_HEAD(&sdev->list);
	INIT_LIST_HEAD(&sdev->tracked);
	INIT_WORK(&sdev->unreg_work, sroce_unreg_work);
	sroce_key_table_init(&sdev->keys);
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC);
	sroce_mcast_init(sdev);
	sdev->ndev = ndev;
	sdev->net = dev_net(ndev);

	err = sroce_udp_get(sdev->net);
	if (err)
		goto err_free_counters;
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	err = sroce_dev_publish(sdev);
	if (err) {
		if (err == -EEXIST)
			pr_err("%s: %s is already bound to an sroce device\n",
			       SROCE_DRV_NAME, ndev->name);
		goto err_put_netdev;
	}
	/* Sets the ops: from here on ib_dealloc_device() undoes it all. */
	sroce_dev_init_attrs(sdev);
	return sdev;

err_put_netdev:
	netdev_put(ndev, &sdev->ndev_tracker);
	sroce_udp_put(sdev->net);
err_free_counters:
	free_percpu(sdev->counters);
err_dealloc:
	/* No ops are set yet, so this frees the memory and nothing else. */
	ib_dealloc_device(&sdev->ib_dev);
	return ERR_PTR(err);
}

/*
 * The notifier cannot act on a device that is still inside
 * ib_register_device(): catch up with what the netdev did meanwhile.
 * Under sroce_link_mutex, with the device pinned. A failed try_get means
 * someone already unregisters the device and nothing is left to do.
 * Returns -ENODEV if the netdev went away (the device is then
 * unregistered again), else 0.
 */
static int sroce_dev_catch_up(struct sroce_dev *sdev)
{
	bool ndev_gone, registered;

	rtnl_lock();
	ndev_gone = sdev->ndev_gone;
	registered = ib_device_try_get(&sdev->ib_dev);
	if (registered && !ndev_gone)
		sroce_port_update_state(sdev);
	rtnl_unlock();
	if (registered)
		ib_device_put(&sdev->ib_dev);
	if (!ndev_gone)
		return 0;
	ib_unregister_device(&sdev->ib_dev);
	return -ENODEV;
}

int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int err;

	if (is_vlan_dev(ndev) || !(ndev->type == ARPHRD_ETHER ||
				   ndev->type == ARPHRD_LOOPBACK)) {
		pr_err("%s: %s is not an Ethernet device\n", SROCE_DRV_NAME,
		       ndev->name);
		return -EINVAL;
	}

	mutex_lock(&sroce_link_mutex);
	/* Drop what earlier removals left tracked (bounded by their count). */
	sroce_unregister_matching(sroce_dev_released, NULL);

	sdev = sroce_dev_create(ndev);
	if (IS_ERR(sdev)) {
		err = PTR_ERR(sdev);
		goto out_unlock;
	}
	/*
	 * Once registered, "rdma link delete" may free the device at any
	 * moment: pin the memory until we are done looking at it.
	 */
	get_device(&sdev->ib_dev.dev);
	/*
	 * The netdev's parent (a PCI or virtio NIC; none for veth or a
	 * bridge) becomes ours, so that /sys/class/infiniband/DEV/device
	 * leads to the NIC as for hardware RoCE devices. It is never our DMA
	 * device: with none given, the core keeps this a virtual-address
	 * device (ib_uses_virt_dma()). The parent stays pinned by the driver
	 * core until our device is released.
	 */
	sdev->ib_dev.dev.parent = ndev->dev.parent;
	err = ib_register_device(&sdev->ib_dev, ibdev_name, NULL);
	if (err)
		goto err_unpin;
	sroce_dev_track(sdev);
	err = sroce_dev_catch_up(sdev);
	put_device(&sdev->ib_dev.dev);
	mutex_unlock(&sroce_link_mutex);
	return err;

err_unpin:
	put_device(&sdev->ib_dev.dev);
	/* Runs sroce_dealloc_driver(), which undoes sroce_dev_create(). */
	ib_dealloc_device(&sdev->ib_dev);
out_unlock:
	mutex_unlock(&sroce_link_mutex);
	return err;
}

/*
 * The device bound to the netdev of @net that owns the address @addr
 * (a __be32 for IPv4, a struct in6_addr for IPv6), or NULL. Under RCU.
 */
struct sroce_dev *sroce_dev_by_addr_rcu(struct net *net, bool ipv6,
					const void *addr)
{
	struct net_device *ndev;

	if (!ipv6)
		ndev = __ip_dev_find(net, *(const __be32 *)addr, false);
	else if (IS_ENABLED(CONFIG_IPV6))
		ndev = ipv6_dev_find(net, addr, NULL);
	else
		ndev = NULL;
	return ndev ? sroce_dev_find_rcu(ndev) : NULL;
}
