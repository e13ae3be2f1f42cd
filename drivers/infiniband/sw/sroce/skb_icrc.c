// SPDX-License-Identifier: GPL-2.0
/*
 * The ICRC over an skb: received packets may arrive in fragments, and
 * zero-copy packets are sent with their payload in the registered pages.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include <sroce/icrc.h>

#include "skb_icrc.h"

int sroce_skb_icrc(const struct sk_buff *skb, unsigned int len,
		   __le32 *icrc)
{
	const struct udphdr *udph = udp_hdr(skb);
	const struct sroce_bth *bth = (const struct sroce_bth *)(udph + 1);
	unsigned int from = skb_transport_offset(skb) + sizeof(*udph) +
			    SROCE_BTH_BYTES;
	unsigned int todo = len - SROCE_BTH_BYTES - SROCE_ICRC_BYTES;
	unsigned int consumed = 0;
	struct skb_seq_state seq;
	const u8 *chunk;
	u32 state;

	/* The BTH itself is folded in, masked, by sroce_icrc_begin(). */
	if (skb->protocol == htons(ETH_P_IP))
		state = sroce_icrc_begin(ip_hdr(skb), false, udph, bth);
	else
		state = sroce_icrc_begin(ipv6_hdr(skb), true, udph, bth);

	skb_prepare_seq_read((struct sk_buff *)skb, from, from + todo, &seq);
	while (todo) {
		/* skb_seq_read() may return more than asked for: clamp. */
		unsigned int n = skb_seq_read(consumed, &chunk, &seq);

		if (!n)
			break;
		n = min(n, todo);
		state = sroce_icrc_update(state, chunk, n);
		consumed += n;
		todo -= n;
	}
	skb_abort_seq_read(&seq);
	if (todo)
		return -EFAULT;
	*icrc = sroce_icrc_final(state);
	return 0;
}
