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
 * an engine step: each step ends with sroce_tx_flush(). Its packets have
 * their IP and UDP headers (IPv4 identification still 0) and room for
 * the ICRC, and are in the order they were queued, which is the order of
 * their PSNs.
 */
struct sroce_tx_burst {
	struct sk_buff_head q;
	/* Of the first packet; all of them go the same way. */
	struct sroce_dev *sdev;
	const struct sroce_av *av;
	struct dst_cache *cache;
	u32 seg_len;	/* the first packet's UDP payload: BTH to ICRC */
	u32 ip_len;	/* the IP length of them all as one GSO skb */
	bool closed;	/* a shorter packet came: it must be the last */
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
/* Sends what @b holds: one packet as it is, more as one GSO skb. */
void sroce_tx_flush(struct sroce_tx_burst *b);

#endif /* SROCE_TX_BURST_H */
