// SPDX-License-Identifier: GPL-2.0
/*
 * sroce: a software RoCE v2 device for the Linux RDMA stack.
 *
 * Module entry points. Bring-up order: namespaces (UDP sockets), netdev
 * notifier, then the "sroce" link type that creates devices. Teardown
 * reverses it, after every device is unregistered.
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "limits.h"
#include "qp.h"

static struct rdma_link_ops sroce_link_ops = {
	.type = SROCE_LINK_TYPE,
	.newlink = sroce_newlink,
};

static bool sroce_dev_any(struct sroce_dev *sdev, const void *arg)
{
	return true;
}

static int __init sroce_init(void)
{
	int err;

	err = sroce_crc32_init();
	if (err)
		return err;
	err = sroce_engine_init();
	if (err)
		goto err_crc32;
	err = sroce_odp_init();
	if (err)
		goto err_engine;
	err = sroce_devices_init();
	if (err)
		goto err_odp;
	err = sroce_udp_init();
	if (err)
		goto err_devices;
	err = sroce_netdev_init();
	if (err)
		goto err_udp;
	rdma_link_register(&sroce_link_ops);
	return 0;

err_udp:
	sroce_udp_exit();
err_devices:
	sroce_devices_exit();
err_odp:
	sroce_odp_exit();
err_engine:
	sroce_engine_exit();
err_crc32:
	sroce_crc32_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	/* Waits for a newlink in progress; no device is created after it. */
	rdma_link_unregister(&sroce_link_ops);
	/* No new unregistration work after this; then run what is queued. */
	sroce_netdev_exit();
	sroce_devices_exit();
	/* Also waits for removals others started (link delete, rdma_rxe). */
	sroce_unregister_matching(sroce_dev_any, NULL);
	sroce_udp_exit();
	/* Every QP is gone with its device: no engine or fault work is left. */
	sroce_odp_exit();
	sroce_engine_exit();
	/* Nor any packet to compute an ICRC for. */
	sroce_crc32_exit();
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_DESCRIPTION("Software RoCE v2 device");
MODULE_AUTHOR("The sroce developers");
MODULE_VERSION(SROCE_VERSION);
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK(SROCE_LINK_TYPE);
