// SPDX-License-Identifier: GPL-2.0
/*
 * The single RoCE port: attributes derived from the bound netdev, and the
 * PORT_ACTIVE / PORT_ERR events when its carrier changes.
 */
#include <linux/rtnetlink.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "limits.h"

enum ib_port_state sroce_netdev_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/*
 * Re-reads the netdev state and tells consumers when the port changed.
 * Called by the netdev notifier under RTNL, which serialises writers.
 */
void sroce_port_update_state(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_netdev_port_state(sdev->ndev);
	struct ib_event event = {
		.device = &sdev->ib_dev,
		.element.port_num = SROCE_PORT,
	};

	ASSERT_RTNL();
	if (state == sdev->port_state)
		return;
	WRITE_ONCE(sdev->port_state, state);
	if (state != IB_PORT_ACTIVE)
		sroce_count(sdev, SROCE_CNT_LINK_DOWNED);
	event.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
}

/*
 * The largest IB MTU whose packets, with IP/UDP/BTH/extension headers and
 * ICRC, fit the netdev MTU; never below the smallest IB MTU. query_port
 * reports it and UD sends are measured against it.
 */
enum ib_mtu sroce_port_active_mtu(struct sroce_dev *sdev)
{
	enum ib_mtu mtu = iboe_get_mtu(READ_ONCE(sdev->ndev->mtu));

	return mtu ? mtu : IB_MTU_256;
}

static int sroce_query_port(struct ib_device *ib_dev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_dev);
	struct net_device *ndev = sdev->ndev;

	/* The core zeroes *attr before calling us. */
	attr->state = READ_ONCE(sdev->port_state);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (dev_get_flags(ndev) & IFF_UP)
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;

	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = sroce_port_active_mtu(sdev);
	attr->gid_tbl_len = SROCE_GID_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SIZE;
	attr->bad_pkey_cntr = 0;
	attr->qkey_viol_cntr = 0;
	attr->pkey_tbl_len = 1;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->max_vl_num = 1;

	/* A netdev that is unregistering has no speed: report a nominal one. */
	if (ib_get_eth_speed(ib_dev, port_num, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ib_dev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	if (port_num != SROCE_PORT)
		return -EINVAL;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = SROCE_GID_TABLE_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ib_dev,
						 u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

/*
 * The core asks us for the netdev instead of being told it with
 * ib_device_set_netdev(): that call also files the device in the core's
 * netdev hash, where rdma_rxe's notifier looks up its own devices by
 * driver id -- and we report rxe's driver id, so rxe would take ours for
 * a struct rxe_dev. Returns the netdev with a reference held.
 */
static struct net_device *sroce_get_netdev(struct ib_device *ib_dev,
					   u32 port_num)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_dev);

	if (port_num != SROCE_PORT)
		return NULL;
	dev_hold(sdev->ndev);
	return sdev->ndev;
}

static int sroce_query_pkey(struct ib_device *ib_dev, u32 port_num,
			    u16 index, u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = SROCE_PKEY_DEFAULT;
	return 0;
}

const struct ib_device_ops sroce_port_ops = {
	.query_port = sroce_query_port,
	.get_port_immutable = sroce_get_port_immutable,
	.get_link_layer = sroce_get_link_layer,
	.get_netdev = sroce_get_netdev,
	.query_pkey = sroce_query_pkey,
};
