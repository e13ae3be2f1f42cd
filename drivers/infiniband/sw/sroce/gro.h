/* SPDX-License-Identifier: GPL-2.0 */
/* Receive batching on the RoCE v2 UDP sockets (GRO). */
#ifndef SROCE_GRO_H
#define SROCE_GRO_H

#include <linux/list.h>
#include <linux/skbuff.h>
#include <net/sock.h>

/* The UDP tunnel socket's gro_receive and gro_complete (udp.c). */
struct sk_buff *sroce_gro_receive(struct sock *sk, struct list_head *head,
				  struct sk_buff *skb);
int sroce_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff);

#endif /* SROCE_GRO_H */
