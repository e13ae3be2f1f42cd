/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce: software RoCE v2 device — objects shared by every layer.
 *
 * Lifetime of a device (struct sroce_dev, embedded in its ib_device):
 *  - created by the "rdma link add" newlink callback, which takes its own
 *    hold on the netdev and a user reference on the UDP sockets of the
 *    netdev's network namespace;
 *  - the RDMA core owns the memory: after ib_register_device() the last
 *    reference is the core's, and ops.dealloc_driver (sroce_dealloc_driver)
 *    runs exactly once, under the core's unregistration lock, to release
 *    what the driver took (netdev hold, socket reference, list entry);
 *  - unregistration is started by "rdma link delete" (core), by the netdev
 *    going away (queued from the notifier), by its namespace dying, or by
 *    module unload. All of them funnel into the core's unregistration, which
 *    is idempotent and fenced.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "keys.h"
#include "mcast.h"

#define SROCE_DRV_NAME		"sroce"
#define SROCE_LINK_TYPE		"sroce"
#define SROCE_PORT		1

/* Transport counters, exported as per-port hw counters. */
enum sroce_counter {
	SROCE_CNT_RX_PACKETS,
	SROCE_CNT_RX_BAD_HEADER,
	SROCE_CNT_RX_BAD_ICRC,
	SROCE_CNT_RX_NO_QP,
	SROCE_CNT_RX_QKEY_VIOLATION,
	SROCE_CNT_RX_NO_RECV_WQE,
	SROCE_CNT_RX_QUEUE_FULL,
	SROCE_CNT_RX_DROPPED_MSG,
	SROCE_CNT_RX_DUPLICATE,
	SROCE_CNT_SEQ_NAK_SENT,
	SROCE_CNT_SEQ_NAK_RCVD,
	SROCE_CNT_RNR_NAK_RCVD,
	SROCE_CNT_RETRY_TIMEOUT,
	SROCE_CNT_RX_MCAST_NO_GROUP,
	SROCE_CNT_TAIL_PROBES,
	SROCE_CNT_FAST_RETRANSMITS,
	SROCE_CNT_SQ_OVERRUN,
	SROCE_CNT_TX_PACKETS,
	SROCE_CNT_TX_ERRORS,
	SROCE_CNT_LOCAL_DELIVERIES,
	SROCE_CNT_RX_OUT_OF_SEQUENCE,
	SROCE_CNT_RNR_NAK_SENT,
	SROCE_CNT_RETRY_EXCEEDED,
	SROCE_CNT_RNR_RETRY_EXCEEDED,
	SROCE_CNT_LINK_DOWNED,
	SROCE_CNT_SELECTIVE_RESENDS,
	SROCE_CNT_TX_ZERO_COPY,
	SROCE_CNT_READ_RESP_AHEAD,
	SROCE_CNT_READ_PATCHES,
	SROCE_CNT_READ_GAPS_ACKED,
	SROCE_CNT_RX_NOT_PEER,
	SROCE_CNT_RX_HOLD_FULL,
	SROCE_CNT_RX_HELD_EXPIRED,
	SROCE_CNT_TX_GSO_SKBS,
	SROCE_CNT_TX_GSO_PACKETS,
	SROCE_CNT_RX_GRO_SKBS,
	SROCE_CNT_RX_GRO_PACKETS,
	SROCE_CNT_LOCAL_BATCHES,
	SROCE_CNT_LOCAL_BATCH_PACKETS,
	SROCE_CNT_NP_ECN_MARKED,
	SROCE_CNT_NP_CNP_SENT,
	SROCE_CNT_RP_CNP_HANDLED,
	SROCE_CNT_RP_CNP_IGNORED,
	SROCE_CNT_RP_PACING_WAITS,
	SROCE_CNT_ODP_FAULTS,
	SROCE_CNT_ODP_FAULT_ERRORS,
	SROCE_CNT_ODP_FAULT_DROPS,
	/* Not a count: the bytes held now (sroce_dev.held_bytes). */
	SROCE_CNT_RX_HELD_BYTES,
	SROCE_CNT_MAX,
};

struct sroce_counters {
	u64 val[SROCE_CNT_MAX];
};

struct sroce_dev {
	struct ib_device ib_dev;

	/*
	 * Bound netdev. Held (netdev_hold) from newlink until dealloc_driver,
	 * so it is valid whenever the sroce_dev is.
	 */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	/* Namespace whose UDP sockets this device holds a reference on. */
	struct net *net;

	/*
	 * Port state as last reported to consumers. Written only under RTNL
	 * (netdev notifier) or before registration; read with READ_ONCE.
	 */
	enum ib_port_state port_state;
	/* The netdev began unregistering; protected by RTNL. */
	bool ndev_gone;

	/* Entries in the device lists; see device.c for their locking. */
	struct list_head list;
	struct list_head tracked;
	/* dealloc_driver has run to its end. */
	bool released;
	/* Unregistration asked for by the netdev notifier. */
	struct work_struct unreg_work;

	struct sroce_counters __percpu *counters;

	/* Object counts, checked against the limits in limits.h. */
	atomic_t num_pd;

	/* Memory regions and windows by key; see keys.h, mr.h and mw.h. */
	struct sroce_key_table keys;
	atomic_t num_mr;
	/* Pages registered on demand, against sroce_odp_max_pages() (odp.c). */
	atomic_long_t odp_pages;
	/* Asynchronous prefetches in flight (odp.c). */
	atomic_t odp_prefetches;
	/* On-demand regions, explicit and implicit. */
	atomic_t odp_regions;
	atomic_t num_mw;
	atomic_t num_cq;

	/* QPs by number (RCU lookup, see qp.h); next_qpn is the cursor. */
	struct xarray qp_xa;
	u32 next_qpn;
	atomic_t num_qp;

	/* User AHs by number (RCU lookup, see ah.h); next_ah is the cursor. */
	struct xarray ah_xa;
	u32 next_ah;
	atomic_t num_ah;

	atomic_t num_srq;

	/*
	 * Truesize of the packets this device's RC QPs hold ahead of gaps,
	 * against the hold_dev_kib cap (rx_limits.h).
	 */
	atomic64_t held_bytes;

	/* UD multicast groups; see mcast.h. */
	struct sroce_mcast_table mcast;
};

struct sroce_ucontext {
	struct ib_ucontext ib_uc;
};

struct sroce_pd {
	struct ib_pd ib_pd;
};

static inline struct sroce_dev *to_sroce_dev(struct ib_device *ib_dev)
{
	return container_of(ib_dev, struct sroce_dev, ib_dev);
}

/*
 * Allocation flags for memory an object's creator sized: a user process's
 * is charged to its memory cgroup and fails with ENOMEM past the cgroup's
 * limit instead of invoking its OOM killer. Kernel consumers' objects are
 * the kernel's and are not charged to whichever task created them.
 */
static inline gfp_t sroce_obj_gfp(bool user)
{
	return user ? GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL : GFP_KERNEL;
}

static inline void sroce_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	this_cpu_inc(sdev->counters->val[c]);
}

static inline void sroce_count_n(struct sroce_dev *sdev, enum sroce_counter c,
				 u64 n)
{
	this_cpu_add(sdev->counters->val[c], n);
}

/* device.c */
int sroce_newlink(const char *ibdev_name, struct net_device *ndev);
struct sroce_dev *sroce_dev_find_rcu(struct net_device *ndev);
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev);
struct sroce_dev *sroce_dev_by_addr_rcu(struct net *net, bool ipv6,
					const void *addr);
void sroce_dev_put(struct sroce_dev *sdev);
void sroce_dev_netdev_gone(struct net_device *ndev);
int sroce_devices_init(void);
void sroce_devices_exit(void);
void sroce_unregister_matching(bool (*match)(struct sroce_dev *sdev,
					     const void *arg),
			       const void *arg);

/* port.c */
enum ib_port_state sroce_netdev_port_state(struct net_device *ndev);
enum ib_mtu sroce_port_active_mtu(struct sroce_dev *sdev);
void sroce_port_update_state(struct sroce_dev *sdev);
extern const struct ib_device_ops sroce_port_ops;

/* netdev.c */
int sroce_netdev_init(void);
void sroce_netdev_exit(void);

/* crc32.c: the ICRC's CRC32 is chosen at load */
int sroce_crc32_init(void);
void sroce_crc32_exit(void);

/* udp.c */
int sroce_udp_init(void);
void sroce_udp_exit(void);
int sroce_udp_get(struct net *net);
void sroce_udp_put(struct net *net);

/* recv.c */
/* Not a QPN (24 bits): a packet that came from the network. */
#define SROCE_RX_FROM_WIRE	U32_MAX
void sroce_recv(struct sroce_dev *sdev, struct sk_buff *skb, u32 local_src);
/*
 * The same for each packet of @list in turn (emptied), each engine they
 * go to kicked once, after them all: a batch from one local sender.
 */
void sroce_recv_list(struct sroce_dev *sdev, struct sk_buff_head *list,
		     u32 local_src);

/* stats.c */
extern const struct ib_device_ops sroce_stats_ops;

/* verbs_*.c */
extern const struct ib_device_ops sroce_ucontext_ops;
extern const struct ib_device_ops sroce_pd_ops;
extern const struct ib_device_ops sroce_qp_ops;
extern const struct ib_device_ops sroce_post_ops;
extern const struct ib_device_ops sroce_mr_ops;
extern const struct ib_device_ops sroce_mw_ops;
extern const struct ib_device_ops sroce_cq_ops;
extern const struct ib_device_ops sroce_ah_ops;
extern const struct ib_device_ops sroce_mcast_ops;

/* mmap.c */
extern const struct ib_device_ops sroce_mmap_ops;

#endif /* SROCE_H */
