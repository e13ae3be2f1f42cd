// SPDX-License-Identifier: GPL-2.0
/*
 * Follows the bound netdevs: carrier and admin state drive the port state,
 * unregistration (including a move to another namespace) removes the
 * device. Runs under RTNL; never takes sroce_link_mutex (see device.c).
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "sroce.h"

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev;

	if (event == NETDEV_UNREGISTER) {
		sroce_dev_netdev_gone(ndev);
		return NOTIFY_DONE;
	}

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sdev = sroce_dev_get_by_netdev(ndev);
		if (!sdev)
			break;
		sroce_port_update_state(sdev);
		sroce_dev_put(sdev);
		break;
	default:
		/*
		 * MTU changes need no action: query_port and the transmit
		 * path read the netdev MTU when they need it.
		 */
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_notifier = {
	.notifier_call = sroce_netdev_event,
};

int sroce_netdev_init(void)
{
	return register_netdevice_notifier(&sroce_netdev_notifier);
}

void sroce_netdev_exit(void)
{
	unregister_netdevice_notifier(&sroce_netdev_notifier);
}
