/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A QP's round-trip estimate and its two retransmission deadlines, the
 * tail-loss probe and the local ACK timeout (rtt.c explains them). Send
 * engine context, under snd.lock; only rtt.c writes struct sroce_rtt
 * (reset under both engine locks).
 */
#ifndef SROCE_RTT_H
#define SROCE_RTT_H

#include <linux/types.h>

struct sroce_qp;

struct sroce_rtt {
	bool retry_on;		/* something is outstanding: timer wanted */
	unsigned long retry_deadline;	/* jiffies: local ACK timeout */
	unsigned long probe_deadline;	/* jiffies: next tail-loss probe */
	unsigned long newest_sent;	/* jiffies: newest PSN's first send */
	u8 probes_left;
	bool sampling;		/* sample_psn is being timed */
	u32 sample_psn;
	unsigned long sample_start;	/* jiffies */
	u32 srtt_us;		/* smoothed RTT; 0: no sample yet */
	u32 rttvar_us;
	u32 window;		/* PSNs past acked_psn the requester may send */
};

enum sroce_retx_due {
	SROCE_RETX_NONE,
	SROCE_RETX_PROBE,	/* no ACK for a probe timeout */
	SROCE_RETX_TIMEOUT,	/* no ACK for the local ACK timeout */
};

void sroce_rtt_reset(struct sroce_qp *qp);
void sroce_retx_arm(struct sroce_qp *qp);
void sroce_retx_stop(struct sroce_qp *qp);
/* The deadlines are kept: no need to arm them. */
bool sroce_retx_armed(const struct sroce_qp *qp);
enum sroce_retx_due sroce_retx_due(struct sroce_qp *qp);
bool sroce_retx_probed(struct sroce_qp *qp);
/* The local ACK timeout struck: the window shrinks. */
void sroce_retx_timed_out(struct sroce_qp *qp);
/* PSNs past the oldest unacknowledged one that the requester may send. */
int sroce_retx_window(const struct sroce_qp *qp);
void sroce_retx_skip_probe(struct sroce_qp *qp);
/* A packet with @psn went out; @ackreq: it asks for an ACK. */
void sroce_rtt_sent(struct sroce_qp *qp, u32 psn, bool ackreq);
void sroce_rtt_acked(struct sroce_qp *qp);
void sroce_rtt_discard(struct sroce_qp *qp);
/* The requester sends again from @psn for @cause (enum sroce_retx_cause). */
void sroce_rtt_trace_retx(struct sroce_qp *qp, u32 psn, int cause);

#endif /* SROCE_RTT_H */
