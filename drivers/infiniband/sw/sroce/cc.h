/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control of a connected QP (cc.c): ECN marking of what it
 * sends, CNPs for the ECN-marked packets it receives (notification
 * point) and a DCQCN rate for what it sends (reaction point,
 * sroce/dcqcn.h) that the CNPs of its peer lower.
 *
 * Locking: rp and the pacing timer belong to the send engine (snd.lock);
 * cnp_due is the notification point's, shared by both engines, which
 * both receive marked packets (requests and responses): it is only ever
 * changed by cmpxchg. The pacing timer is cancelled by
 * sroce_engine_stop() once the QP is dying, and armed only before that.
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/skbuff.h>

#include <sroce/dcqcn.h>

struct ib_qp;
struct sroce_qp;

struct sroce_cc {
	struct sroce_dcqcn rp;
	struct hrtimer pace_timer;	/* wakes the send engine */
	atomic64_t cnp_due;		/* ns: no CNP before this */
};

void sroce_cc_setup(struct sroce_qp *qp);
void sroce_cc_stop(struct sroce_qp *qp);
/* Under snd.lock: a fresh start (the QP enters RTS). */
void sroce_cc_reset(struct sroce_qp *qp);

/* The IP TOS / traffic class of a packet with BTH opcode @opcode. */
u8 sroce_cc_tos(u8 traffic_class, u8 opcode);
/* A packet queued for an engine arrived marked CE. */
bool sroce_cc_skb_ce(const struct sk_buff *skb);

/* Under an engine lock: @skb from @qp's peer arrived marked CE. */
void sroce_cc_marked(struct sroce_qp *qp, struct sk_buff *skb);
/* Under snd.lock: a CNP from @qp's peer. */
void sroce_cc_cnp(struct sroce_qp *qp);
/*
 * Under snd.lock: may the requester send now? If not, the send engine
 * is kicked again when it may.
 */
bool sroce_cc_may_send(struct sroce_qp *qp);
/* Under snd.lock: the requester sent @len bytes (BTH to payload). */
void sroce_cc_sent(struct sroce_qp *qp, u32 len);
/* ib_device_ops.fill_res_qp_entry: the rate, for `rdma res show qp -dd`. */
int sroce_cc_fill_res_qp(struct sk_buff *msg, struct ib_qp *ib_qp);

#endif /* SROCE_CC_H */
