/* SPDX-License-Identifier: GPL-2.0 */
/* Sending RoCE v2 packets: IP/UDP encapsulation, ICRC, route, output. */
#ifndef SROCE_NET_TX_H
#define SROCE_NET_TX_H

#include <linux/skbuff.h>
#include <net/dst_cache.h>

#include "av.h"

struct sroce_dev;

/*
 * A packet is built in an skb from sroce_tx_alloc(): the caller puts the
 * transport headers and payload (skb_put) and hands it to sroce_tx_send(),
 * which adds pad, ICRC, UDP and IP headers and transmits. Returns 0 or
 * -errno; the skb is consumed either way. @cache (or NULL) keeps the
 * route of a connected QP: it must only ever see one AV, and is used with
 * bottom halves off, by one context at a time (the QP's engine).
 */
struct sk_buff *sroce_tx_alloc(struct sroce_dev *sdev,
			       const struct sroce_av *av, unsigned int len,
			       gfp_t gfp);
/*
 * sroce_tx_alloc() for a packet with @f's headers, written, and room for
 * @payload_len bytes the caller appends. GFP_ATOMIC. NULL on failure.
 */
struct sroce_hdr_fields;
struct sk_buff *sroce_tx_build(struct sroce_dev *sdev,
			       const struct sroce_av *av,
			       const struct sroce_hdr_fields *f,
			       u32 payload_len);
int sroce_tx_send(struct sroce_dev *sdev, const struct sroce_av *av,
		  struct sk_buff *skb, u16 src_port, struct dst_cache *cache);

#endif /* SROCE_NET_TX_H */
