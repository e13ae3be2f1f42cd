/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCQCN reaction point: the sending rate of one QP, lowered by the CNPs
 * its peer sends when our packets arrive ECN-marked (congestion
 * experienced), raised again by time and by bytes sent (dcqcn.c). Pure
 * C, shared by the module (cc.c) and the unit tests
 * (tests/unit/test_dcqcn.c), like the wire layer.
 *
 * Nothing runs on a timer here: every call takes the current time and
 * first catches up with the periods that passed (alpha's decay, the rate
 * increase timer), so a QP that is not congested costs no timer at all
 * and the machine is a plain function of its inputs.
 *
 * States:
 *
 *   FREE   no CNP since the rate last recovered: nothing is paced.
 *   PACED  the QP sends at @rate at most (sroce_dcqcn_delay()).
 *
 * In both, the rate the QP really sends at is measured in windows of
 * SROCE_DCQCN_WINDOW_NS or more ("sending" below): a cut starts from it
 * when it is lower than the rate, as a rate that does not hold the QP
 * back would not slow it down at all.
 *
 * Transitions:
 *
 *   state  event                              next   action
 *   -----  ---------------------------------  -----  ---------------------
 *   FREE   CNP: sroce_dcqcn_cnp()             PACED  rate = the sending
 *                                                    rate (or the
 *                                                    ceiling), then a cut
 *   PACED  CNP, a monitor period or more      PACED  cut: rate = min(rate,
 *          after the last cut                        sending); target =
 *                                                    rate if it rose since
 *                                                    the last cut (below);
 *                                                    rate *= 1 -
 *                                                    alpha/2 (no lower
 *                                                    than min_dec_fac % of
 *                                                    it, or min_rate);
 *                                                    alpha rises by g;
 *                                                    both stages 0
 *   PACED  CNP within the monitor period      PACED  none (ignored)
 *   PACED  time_reset passed, or byte_reset   PACED  increase, if the rate
 *          bytes sent while the rate held            held the QP back
 *          the QP back: sroce_dcqcn_advance(),       since the last one
 *          sroce_dcqcn_sent()                        (below)
 *   PACED  an increase brings rate to the     FREE   none
 *          ceiling (max_rate)
 *   PACED  SROCE_DCQCN_FREE_STAGES timer      FREE   none
 *          stages in a row in which the rate
 *          never held the QP back
 *
 * An increase step, T and BC being the timer and byte stages: while
 * max(T, BC) < threshold, rate = (rate + target) / 2 (fast recovery);
 * once min(T, BC) > threshold, target grows by (min(T, BC) - threshold)
 * times hai_rate (hyper increase); otherwise by ai_rate (additive); then
 * rate = (rate + target) / 2. Alpha decays by dce_tcp_g/1024 every
 * dce_tcp_rtt that passes without a CNP.
 *
 * The target, as mlx5 keeps it by default (rp_clamp_tgt_rate 0,
 * rp_clamp_tgt_rate_after_time_inc 1): a cut makes the rate before it
 * the target only if the rate rose since the last cut. A run of cuts
 * with no increase between them answers one congestion, whose news
 * keeps coming for a round trip and the time the queue takes to
 * drain; the rate then recovers towards where it was before the run,
 * not before the run's last cut. With rp_clamp_tgt_rate 1 every cut
 * sets the target, as the DCQCN paper does.
 *
 * Pacing sends in bursts of pace_burst bytes (sroce_dcqcn_delay()): a
 * burst leaves as one GSO skb and costs one timer, where packet by
 * packet each costs a skb's way through the stack and a timer of its
 * own; the average rate is the same.
 *
 * Only a rate that holds the QP back grows: a QP whose window, peer or
 * application sends less than its rate would otherwise climb to rates
 * it never used, which the next CNPs could not bring down in time.
 */
#ifndef _SROCE_DCQCN_H
#define _SROCE_DCQCN_H

#include <sroce/wire_types.h>

/* alpha is a fraction of this. */
#define SROCE_DCQCN_ALPHA_ONE	1024u
/*
 * The least window the sending rate is measured over, and the
 * longest (a longer one had the QP idle: it starts a new window). Ten
 * ms: several ticks of the coarse clock a FREE QP measures with.
 */
#define SROCE_DCQCN_WINDOW_NS	10000000ull
#define SROCE_DCQCN_IDLE_NS	(100 * SROCE_DCQCN_WINDOW_NS)
/*
 * PACED: how far the pacing may fall behind the clock, in bytes at the
 * current rate: what the sender may then send back to back. The engine
 * is woken by a timer whose delay is not exact; without this slack each
 * late wake-up would be lost rate.
 */
#define SROCE_DCQCN_BURST_BYTES	16384u
/* A pacing burst leaves half the slack for late wake-ups. */
#define SROCE_DCQCN_MAX_PACE_BURST	(SROCE_DCQCN_BURST_BYTES / 2)
/* Timer stages without being held back, after which pacing ends. */
#define SROCE_DCQCN_FREE_STAGES	64u
/* Periods caught up with in one call at most (a long idle time). */
#define SROCE_DCQCN_MAX_PERIODS	256u

#define SROCE_DCQCN_MBIT	125000ull	/* bytes/s in 1 Mbit/s */
#define SROCE_DCQCN_NSEC	1000000000ull

/* The parameters, named as mlx5 names its own (rp_*), in their units. */
struct sroce_dcqcn_params {
	u32 time_reset_us;	/* rp_time_reset: increase timer period */
	u32 byte_reset;		/* rp_byte_reset: bytes per byte stage */
	u32 threshold;		/* rp_threshold: fast recovery stages */
	u32 ai_rate;		/* rp_ai_rate, Mbit/s */
	u32 hai_rate;		/* rp_hai_rate, Mbit/s */
	u32 min_rate;		/* rp_min_rate, Mbit/s */
	u32 max_rate;		/* rp_max_rate, Mbit/s: the ceiling */
	u32 min_dec_fac;	/* rp_min_dec_fac, %: least a cut leaves */
	u32 dce_tcp_g;		/* rp_dce_tcp_g: alpha kept per period, /1024 */
	u32 dce_tcp_rtt_us;	/* rp_dce_tcp_rtt: alpha's period */
	u32 monitor_us;		/* rp_rate_reduce_monitor_period */
	u32 initial_alpha;	/* rp_initial_alpha_value, /1024 */
	u32 pace_burst;		/* rp_pace_burst: bytes sent at once, */
				/* SROCE_DCQCN_MAX_PACE_BURST at most */
	bool clamp_tgt_rate;	/* rp_clamp_tgt_rate */
	bool clamp_tgt_rate_ati; /* rp_clamp_tgt_rate_after_time_inc */
};

struct sroce_dcqcn {
	bool paced;
	bool limited;		/* the rate held the QP back since ... */
	u32 unlimited_stages;	/* ... the last increase; stages it did not */
	u64 rate;		/* bytes/s (Rc) */
	u64 target;		/* bytes/s (Rt) */
	u32 alpha;		/* of SROCE_DCQCN_ALPHA_ONE */
	u32 timer_stage;	/* T */
	u32 byte_stage;		/* BC */
	u64 bytes;		/* sent since the last byte stage */
	u64 alpha_at;		/* ns: alpha last decayed or raised */
	u64 step_at;		/* ns: the last timer stage */
	u64 cut_at;		/* ns: the last cut */
	u64 next_tx;		/* ns: the next packet may leave then */
	bool bursting;		/* sending a burst (sroce_dcqcn_delay()) */
	bool raised;		/* an increase since the last cut */
	/* The measurement window and the last rate it gave. */
	u64 win_start;
	u64 win_bytes;
	u64 measured;		/* bytes/s, 0: none yet */
};

/* What a CNP did. */
enum sroce_dcqcn_cnp {
	SROCE_DCQCN_IGNORED,	/* within the monitor period */
	SROCE_DCQCN_CUT,	/* the rate was lowered */
};

void sroce_dcqcn_reset(struct sroce_dcqcn *d);
/* Catches up with the time up to @now (ns, monotonic). */
void sroce_dcqcn_advance(struct sroce_dcqcn *d,
			 const struct sroce_dcqcn_params *p, u64 now);
enum sroce_dcqcn_cnp sroce_dcqcn_cnp(struct sroce_dcqcn *d,
				     const struct sroce_dcqcn_params *p,
				     u64 now);
/* @bytes left at @now: counts, and moves the pacing on; FREE: @p unused. */
void sroce_dcqcn_sent(struct sroce_dcqcn *d,
		      const struct sroce_dcqcn_params *p, u64 now, u32 bytes);
/*
 * 0 if a packet may leave at @now, else the ns to wait (the rate held
 * the QP back). A paced QP sends in bursts of pace_burst bytes: once
 * held back, it waits until its rate allows that many, then sends while
 * the rate allows.
 */
u64 sroce_dcqcn_delay(struct sroce_dcqcn *d,
		      const struct sroce_dcqcn_params *p, u64 now);

#endif /* _SROCE_DCQCN_H */
