/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounds on the memory that senders make the receive path hold.
 *
 * Anyone who can send us a UDP datagram - a host on the network, a local
 * user with a socket - decides what arrives, and the driver must not let
 * that pin memory without a bound in bytes. Received packets are not
 * charged to any memory cgroup (they are the network's), so each place
 * they wait has a byte budget of its own, counted in skb truesize (what
 * the packet really costs, not its length):
 *
 *  - an engine's receive queue (engine.c): rx_queue_kib per engine, and
 *    SROCE_RX_QUEUE_MAX packets. The engine empties it without waiting
 *    for anything outside the QP, so it only fills while packets arrive
 *    faster than one CPU runs the QP's engine;
 *  - the packets an RC responder holds ahead of a gap (responder.c):
 *    hold_qp_kib per QP, hold_dev_kib per device, hold_max_kib for the
 *    whole module, at most SROCE_HOLD_MAX of them per QP; and they age:
 *    a gap that made no progress for hold_ms loses what was held behind
 *    it (the requester sends those packets again).
 *
 * Past a bound the packet is dropped and counted; the QP goes on, and a
 * peer that floods loses its own packets, not other QPs' (the device and
 * module caps are only reached by holding, which in-order traffic never
 * needs). The threat model (docs/threat-model.md) lists every such
 * queue and allocation.
 */
#ifndef SROCE_RX_LIMITS_H
#define SROCE_RX_LIMITS_H

#include <linux/skbuff.h>

struct sroce_qp;

/* Packets queued for one engine beyond this are dropped (the peer retries). */
#define SROCE_RX_QUEUE_MAX	4096

/* Byte budget of one engine's receive queue. */
u64 sroce_rx_queue_cap(void);

/* How long a gap may go without progress before its held packets go. */
unsigned long sroce_hold_age(void);

/*
 * Charges *@skbp, about to be held by @qp's responder (rcv.lock held),
 * to the QP, its device and the module. A small packet in a large buffer
 * is charged and kept as a compact copy, so that it costs neither at the
 * buffer's size: on success *@skbp may be that copy (the original then
 * freed). False, and nothing charged nor changed, if that would take any
 * of them over its cap.
 */
bool sroce_hold_charge(struct sroce_qp *qp, struct sk_buff **skbp);
/* Gives back what sroce_hold_charge() charged for @skb. */
void sroce_hold_uncharge(struct sroce_qp *qp, const struct sk_buff *skb);

#endif /* SROCE_RX_LIMITS_H */
