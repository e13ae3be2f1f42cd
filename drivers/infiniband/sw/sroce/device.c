// SPDX-License-Identifier: GPL-2.0
/*
 * Device creation ("rdma link add"), lookup and teardown.
 *
 * Locking:
 *  - sroce_link_mutex serialises newlink callbacks, so that the duplicate
 *    check and the insertion are one step. It is never taken under RTNL or
 *    by the notifier: ib_register_device() takes RTNL internally.
 *  - sroce_dev_list is written under sroce_dev_list_lock (a spinlock, also
 *    taken with RTNL held) and read under RCU (netdev notifier, UDP receive).
 *    A reader that keeps the device past its RCU section takes a reference
 *    with ib_device_try_get(), which fails once unregistration has begun.
 *  - sroce_dev.ndev_gone is protected by RTNL.
 */
#include <linux/module.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "limits.h"

static DEFINE_MUTEX(sroce_link_mutex);
static DEFINE_SPINLOCK(sroce_dev_list_lock);
static LIST_HEAD(sroce_dev_list);

/*
 * Must be called under rcu_read_lock(). The device may already be
 * unregistering; the memory stays valid until the read section ends.
 */
struct sroce_dev *sroce_dev_find_rcu(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	list_for_each_entry_rcu(sdev, &sroce_dev_list, list)
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

/*
 * Called by the netdev notifier (RTNL held) when the bound netdev is being
 * unregistered. A device still in ib_register_device() cannot be queued for
 * unregistration yet; newlink sees ndev_gone afterwards and undoes itself.
 */
void sroce_dev_netdev_gone(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	ASSERT_RTNL();
	rcu_read_lock();
	sdev = sroce_dev_find_rcu(ndev);
	if (sdev) {
		sdev->ndev_gone = true;
		if (ib_device_try_get(&sdev->ib_dev)) {
			ib_unregister_device_queued(&sdev->ib_dev);
			ib_device_put(&sdev->ib_dev);
		}
	}
	rcu_read_unlock();
}

/*
 * Synchronously unregisters every device for which @match returns true.
 * Waits for unregistrations already in flight (ib_unregister_device() is
 * fenced by the core), so on return no matching device exists any more.
 */
void sroce_unregister_matching(bool (*match)(struct sroce_dev *sdev,
					     const void *arg),
			       const void *arg)
{
	struct sroce_dev *sdev;

	for (;;) {
		bool found = false;

		spin_lock(&sroce_dev_list_lock);
		list_for_each_entry(sdev, &sroce_dev_list, list) {
			if (match(sdev, arg)) {
				/* Keeps the memory alive across the unlock. */
				get_device(&sdev->ib_dev.dev);
				found = true;
				break;
			}
		}
		spin_unlock(&sroce_dev_list_lock);
		if (!found)
			return;
		/* Removes sdev from the list via sroce_dealloc_driver(). */
		ib_unregister_device(&sdev->ib_dev);
		put_device(&sdev->ib_dev.dev);
	}
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
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u", SROCE_FW_MAJOR,
		 SROCE_FW_MINOR, SROCE_FW_SUB);
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

	sroce_udp_put(sdev->net);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
	free_percpu(sdev->counters);
}

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = 2,	/* RXE_UVERBS_ABI_VERSION, the rxe user ABI */

	.dealloc_driver = sroce_dealloc_driver,
	.get_dev_fw_str = sroce_get_dev_fw_str,
	.query_device = sroce_query_device,
};

static bool sroce_netdev_is_bound(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	list_for_each_entry(sdev, &sroce_dev_list, list)
		if (sdev->ndev == ndev)
			return true;
	return false;
}

/*
 * Makes the device visible to the notifier and to lookups, refusing a
 * netdev that is already bound or already going away. Returns 0 or -errno.
 */
static int sroce_dev_publish(struct sroce_dev *sdev)
{
	int err = 0;

	rtnl_lock();
	spin_lock(&sroce_dev_list_lock);
	if (sdev->ndev->reg_state != NETREG_REGISTERED)
		err = -ENODEV;
	else if (sroce_netdev_is_bound(sdev->ndev))
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
}

int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	bool ndev_gone, registered;
	int err;

	if (is_vlan_dev(ndev) || !(ndev->type == ARPHRD_ETHER ||
				   ndev->type == ARPHRD_LOOPBACK)) {
		pr_err("%s: %s is not an Ethernet device\n", SROCE_DRV_NAME,
		       ndev->name);
		return -EINVAL;
	}

	mutex_lock(&sroce_link_mutex);

	sdev = ib_alloc_device(sroce_dev, ib_dev);
	if (!sdev) {
		err = -ENOMEM;
		goto out_unlock;
	}
	sdev->counters = alloc_percpu(struct sroce_counters);
	if (!sdev->counters) {
		ib_dealloc_device(&sdev->ib_dev);
		err = -ENOMEM;
		goto out_unlock;
	}
	INIT_LIST_HEAD(&sdev->list);
	sdev->ndev = ndev;
	sdev->net = dev_net(ndev);

	/* Until publish succeeds, dealloc_driver must not run: undo by hand. */
	err = sroce_udp_get(sdev->net);
	if (err)
		goto err_free;
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	err = sroce_dev_publish(sdev);
	if (err) {
		if (err == -EEXIST)
			pr_err("%s: %s is already bound to an sroce device\n",
			       SROCE_DRV_NAME, ndev->name);
		netdev_put(ndev, &sdev->ndev_tracker);
		sroce_udp_put(sdev->net);
		goto err_free;
	}

	/* From here on, ib_dealloc_device() runs sroce_dealloc_driver(). */
	sroce_dev_init_attrs(sdev);
	err = ib_device_set_netdev(&sdev->ib_dev, ndev, SROCE_PORT);
	if (err)
		goto err_dealloc;
	/*
	 * Once registered, "rdma link delete" may free the device at any
	 * moment: pin the memory until we are done looking at it.
	 */
	get_device(&sdev->ib_dev.dev);
	err = ib_register_device(&sdev->ib_dev, ibdev_name, NULL);
	if (err) {
		put_device(&sdev->ib_dev.dev);
		goto err_dealloc;
	}

	/*
	 * The notifier cannot act on a device that is still registering:
	 * catch up with what the netdev did meanwhile. A failed try_get means
	 * someone already unregisters the device and nothing is left to do.
	 */
	rtnl_lock();
	ndev_gone = sdev->ndev_gone;
	registered = ib_device_try_get(&sdev->ib_dev);
	if (registered && !ndev_gone)
		sroce_port_update_state(sdev);
	rtnl_unlock();
	if (registered)
		ib_device_put(&sdev->ib_dev);
	if (ndev_gone) {
		ib_unregister_device(&sdev->ib_dev);
		err = -ENODEV;
	}
	put_device(&sdev->ib_dev.dev);
	mutex_unlock(&sroce_link_mutex);
	return err;

err_dealloc:
	ib_dealloc_device(&sdev->ib_dev);
	mutex_unlock(&sroce_link_mutex);
	return err;
err_free:
	free_percpu(sdev->counters);
	/* No ops are set yet, so this frees the memory and nothing else. */
	ib_dealloc_device(&sdev->ib_dev);
out_unlock:
	mutex_unlock(&sroce_link_mutex);
	return err;
}
