/* SPDX-License-Identifier: GPL-2.0 */
/* The ICRC of a packet held in an skb, linear or not. */
#ifndef SROCE_SKB_ICRC_H
#define SROCE_SKB_ICRC_H

#include <linux/skbuff.h>

/*
 * @skb has its network header (IPv4 or IPv6, as skb->protocol says) and
 * its transport header (UDP) set, and the headers up to the BTH linear;
 * the rest may sit in fragments. @len counts from the BTH to the end of
 * the ICRC field. Computes the ICRC of the @len - 4 bytes before that
 * field into *@icrc; -EFAULT if the skb is shorter than that.
 */
int sroce_skb_icrc(const struct sk_buff *skb, unsigned int len,
		   __le32 *icrc);

#endif /* SROCE_SKB_ICRC_H */
