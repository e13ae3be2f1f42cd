/* SPDX-License-Identifier: GPL-2.0 */
/* Packets of one engine run that leave together as one GSO skb. */
#ifndef SROCE_TX_BURST_H
#define SROCE_TX_BURST_H

#include <linux/skbuff.h>
#include <net/dst_cache.h>

#include "av.h"

struct sroce_dev;

/*
 * One per QP engine, protected by the engine's lock. It is empty outside
 * an engine step: each step ends with sroce_tx_flush(). Its packets are in
 * the order they were queued, which is the order of their PSNs, and are
 * all of one kind:
 *  - for the wire: with their IP and UDP headers (IPv4 identification
 *    still 0) and room for the ICRC; they leave as one GSO skb;
 *  - for a device of this host (@local, net_tx.c): skb->data at the UDP
 *    header; they are handed over as one batch, so that the receiving
 *    engine runs once for them all rather than once a packet.
 */
struct sroce_tx_burst {
	struct sk_buff_head q;
	/* Of the first packet; all of them go the same way. */
	struct sroce_dev *sdev;
	const struct sroce_av *av;
	struct dst_cache *cache;
	u32 src_qpn;	/* the sending QP, for a local batch */
	u32 seg_len;	/* the first packet's UDP payload: BTH to ICRC */
	u32 ip_len;	/* the IP length of them all as one GSO skb */
	bool closed;	/* a shorter packet came: it must be the last */
	bool local;
};

void sroce_tx_burst_init(struct sroce_tx_burst *b);
/*
 * Takes @skb (headers as above, skb->data at the IP header) into @b, after
 * sending what @b held if @skb cannot join it. False: batching is off
 * (module parameter gso_tx), and @skb is the caller's to send now, after
 * what @b held, which has been sent.
 */
bool sroce_tx_burst_add(struct sroce_tx_burst *b, struct sroce_dev *sdev,
			const struct sroce_av *av, struct dst_cache *cache,
			struct sk_buff *skb);
/*
 * The same for a packet that an sroce device of this host receives
 * (skb->data at the UDP header). False: batching is off (module parameter
 * local_batch), and @skb is the caller's to hand over now.
 */
bool sroce_tx_burst_add_local(struct sroce_tx_burst *b,
			      struct sroce_dev *sdev,
			      const struct sroce_av *av, u32 src_qpn,
			      struct sk_buff *skb);
/*
 * Sends what @b holds: one packet as it is, more as one GSO skb; or hands
 * a local batch over.
 */
void sroce_tx_flush(struct sroce_tx_burst *b);

#endif /* SROCE_TX_BURST_H */
