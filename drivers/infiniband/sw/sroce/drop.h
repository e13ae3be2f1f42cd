/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why the driver drops a packet, and the one way it does.
 *
 * Every packet sroce frees without having used it goes through
 * sroce_drop_skb(): the sroce:sroce_drop tracepoint records the exact
 * reason below, and kfree_skb_reason() hands the kernel's drop monitors
 * (dropwatch, perf's skb:kfree_skb, drop_monitor) the nearest generic
 * reason, with the calling function as the location (the helper is
 * inlined). An out-of-tree module cannot add to enum skb_drop_reason,
 * hence the two levels. Packets that were used go to consume_skb().
 *
 * Counting is left to each site, which bumps the rdma statistic that
 * stats.c names for its case: reasons and counters do not map one to one
 * (some drops count nowhere, and some counters count more than drops).
 */
#ifndef SROCE_DROP_H
#define SROCE_DROP_H

#include <linux/skbuff.h>
#include <net/dropreason.h>

/* EM(reason, name): in enum order; the last one is EMe(). */
#define SROCE_DROP_REASONS						\
	EM(SROCE_DROP_BAD_HEADER, "bad_header")				\
	EM(SROCE_DROP_BAD_ICRC, "bad_icrc")				\
	EM(SROCE_DROP_NO_DEVICE, "no_device")				\
	EM(SROCE_DROP_NO_QP, "no_qp")					\
	EM(SROCE_DROP_MCAST_NO_GROUP, "mcast_no_group")			\
	EM(SROCE_DROP_RX_QUEUE_FULL, "rx_queue_full")			\
	EM(SROCE_DROP_QP_STATE, "qp_state")				\
	EM(SROCE_DROP_QKEY, "qkey_violation")				\
	EM(SROCE_DROP_NO_RECV_WQE, "no_recv_wqe")			\
	EM(SROCE_DROP_WRONG_TRANSPORT, "wrong_transport")		\
	EM(SROCE_DROP_OUT_OF_SEQUENCE, "out_of_sequence")		\
	EM(SROCE_DROP_DUPLICATE, "duplicate")				\
	EM(SROCE_DROP_HELD_PURGED, "held_purged")			\
	EM(SROCE_DROP_HELD_EXPIRED, "held_expired")			\
	EM(SROCE_DROP_HOLD_FULL, "hold_full")				\
	EM(SROCE_DROP_NOT_PEER, "not_peer")				\
	EM(SROCE_DROP_STALE_RESPONSE, "stale_response")			\
	EM(SROCE_DROP_TX_NO_ROUTE, "tx_no_route")			\
	EM(SROCE_DROP_ODP_FAULT, "odp_fault")				\
	EMe(SROCE_DROP_TX_ABORTED, "tx_aborted")

/*
 * What became of a received packet: the two verdicts that are not drops
 * come first, so a function handing a packet on can return either.
 */
#define EM(a, b)	a,
#define EMe(a, b)	a
enum sroce_drop_reason {
	SROCE_RX_USED,		/* the caller consumes it */
	SROCE_RX_HELD,		/* someone kept it */
	SROCE_DROP_REASONS
};
#undef EM
#undef EMe

struct ib_device;

/* The generic reason the kernel's drop monitors show for ours. */
static inline enum skb_drop_reason sroce_drop_generic(enum sroce_drop_reason r)
{
	switch (r) {
	case SROCE_DROP_BAD_HEADER:
		return SKB_DROP_REASON_HDR_TRUNC;
	case SROCE_DROP_BAD_ICRC:
		return SKB_DROP_REASON_SKB_CSUM;
	case SROCE_DROP_NO_DEVICE:
	case SROCE_DROP_NO_QP:
	case SROCE_DROP_MCAST_NO_GROUP:
	case SROCE_DROP_QP_STATE:
		return SKB_DROP_REASON_NO_SOCKET;
	case SROCE_DROP_RX_QUEUE_FULL:
		return SKB_DROP_REASON_FULL_RING;
	case SROCE_DROP_QKEY:
	case SROCE_DROP_NOT_PEER:
		return SKB_DROP_REASON_SOCKET_FILTER;
	case SROCE_DROP_HOLD_FULL:
		return SKB_DROP_REASON_PROTO_MEM;
	case SROCE_DROP_NO_RECV_WQE:
		return SKB_DROP_REASON_SOCKET_RCVBUFF;
	case SROCE_DROP_TX_NO_ROUTE:
		return SKB_DROP_REASON_IP_OUTNOROUTES;
	default:
		return SKB_DROP_REASON_NOT_SPECIFIED;
	}
}

void sroce_trace_drop(const struct ib_device *dev, u32 qpn,
		      const struct sk_buff *skb, enum sroce_drop_reason r);

/*
 * Frees @skb, unused, for @r. @dev: the device it reached, or NULL; @qpn:
 * the QP it was for, or 0. Any context.
 */
static __always_inline void sroce_drop_skb(const struct ib_device *dev,
					   u32 qpn, struct sk_buff *skb,
					   enum sroce_drop_reason r)
{
	sroce_trace_drop(dev, qpn, skb, r);
	kfree_skb_reason(skb, sroce_drop_generic(r));
}

/* Drops every packet of @list (not locked by us: a private list). */
static inline void sroce_drop_list(const struct ib_device *dev, u32 qpn,
				   struct sk_buff_head *list,
				   enum sroce_drop_reason r)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(list)))
		sroce_drop_skb(dev, qpn, skb, r);
}

#endif /* SROCE_DROP_H */
