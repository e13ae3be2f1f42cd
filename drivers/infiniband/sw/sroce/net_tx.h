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
/*
 * The same with room for the headers only: the payload of @payload_len
 * bytes comes as fragments (below).
 */
struct sk_buff *sroce_tx_build_zc(struct sroce_dev *sdev,
				  const struct sroce_av *av,
				  const struct sroce_hdr_fields *f,
				  u32 payload_len);
/*
 * Zero-copy: a caller may put a packet's payload in page fragments
 * (sroce_mr_attach()) instead of the linear part, up to
 * SROCE_TX_PAYLOAD_FRAGS of them (sroce_tx_send() adds one for the pad
 * and the ICRC). The ICRC is computed when the packet is sent and the
 * bytes are read again later, when the packet leaves: so only where the
 * memory must not change meanwhile. That is the requester's RC SEND and
 * WRITE payload: the verbs forbid changing it before the completion, which
 * waits for the peer's acknowledgement; a resend still queued after that
 * is a duplicate the peer ignores (or drops for its ICRC, if the memory
 * changed). Not UC or UD, which complete when sent. Not read responses:
 * the owner of the memory may write it while a peer reads it, and a copy
 * gives the reader a snapshot, where a changing page would give it a bad
 * ICRC and resends until its retries ran out. sroce_tx_zero_copy() says
 * whether @payload_len bytes are worth it: below SROCE_TX_ZERO_COPY_MIN,
 * copying costs less than the page references and the trailer fragment;
 * module parameter zero_copy_tx turns it off.
 */
#define SROCE_TX_PAYLOAD_FRAGS	(MAX_SKB_FRAGS - 1)
#define SROCE_TX_ZERO_COPY_MIN	512
bool sroce_tx_zero_copy(u32 payload_len);

int sroce_tx_send(struct sroce_dev *sdev, const struct sroce_av *av,
		  struct sk_buff *skb, u16 src_port, struct dst_cache *cache,
		  u32 src_qpn);
/*
 * The same, except that a packet for the wire may wait in @burst (or
 * NULL) until sroce_tx_flush(), to leave with the packets after it
 * (tx_burst.c). Returns 0 for a packet that waits.
 */
struct sroce_tx_burst;
int sroce_tx_queue(struct sroce_dev *sdev, const struct sroce_av *av,
		   struct sk_buff *skb, u16 src_port, struct dst_cache *cache,
		   u32 src_qpn, struct sroce_tx_burst *burst);

/*
 * For tx_burst.c. A packet whose IP and UDP headers are final (skb->data
 * at the IP header) gets its ICRC; -EINVAL if it is shorter than its UDP
 * header says. sroce_tx_output() routes and sends one skb (a GSO one
 * too), consuming it, and returns 0 or -errno; it counts nothing.
 */
int sroce_tx_seal(struct sk_buff *skb);
/*
 * Packets for an sroce device of this host (skb->data at the UDP header),
 * sent by QP @src_qpn to @av, handed over to it together, counted; dropped
 * if no device of this host owns @av's destination any more.
 */
void sroce_tx_local_list(struct sroce_dev *sdev, const struct sroce_av *av,
			 struct sk_buff_head *list, u32 src_qpn);
/* One such packet (IPv4 identification 0) to the wire, now, counted. */
int sroce_tx_one(struct sroce_dev *sdev, const struct sroce_av *av,
		 struct sk_buff *skb, struct dst_cache *cache);
int sroce_tx_output(struct sroce_dev *sdev, const struct sroce_av *av,
		    struct dst_cache *cache, struct sk_buff *skb);

#endif /* SROCE_NET_TX_H */
