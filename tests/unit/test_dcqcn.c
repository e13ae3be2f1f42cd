// SPDX-License-Identifier: GPL-2.0
/*
 * The DCQCN reaction point (sroce/dcqcn.h) driven by scripted events:
 * CNPs, bytes sent and the passing of time, with the state and the rate
 * each step must leave.
 */
#include <sroce/dcqcn.h>
#include "unit.h"

#define US	1000ull
#define MS	1000000ull
#define MBIT	SROCE_DCQCN_MBIT

static const struct sroce_dcqcn_params params = {
	.time_reset_us = 1000,
	.byte_reset = 65536,
	.threshold = 1,
	.ai_rate = 5,
	.hai_rate = 50,
	.min_rate = 1,
	.max_rate = 1000,
	.min_dec_fac = 50,
	.dce_tcp_g = 1019,
	.dce_tcp_rtt_us = 100,
	.monitor_us = 200,
	.initial_alpha = 1023,
	.pace_burst = 0,		/* packet by packet */
	.clamp_tgt_rate = false,	/* mlx5's defaults */
	.clamp_tgt_rate_ati = true,
};

enum ev {
	SEND,		/* sroce_dcqcn_sent(): arg bytes */
	CNP,		/* sroce_dcqcn_cnp(): want = what it did */
	TICK,		/* sroce_dcqcn_advance() */
	HELD,		/* the rate held the QP back (sroce_dcqcn_delay()) */
	STOP,
};

#define ANY	(-1ll)

struct step {
	enum ev ev;
	unsigned long long at;	/* ns */
	unsigned int arg;
	int want;		/* CNP: enum sroce_dcqcn_cnp, or ANY */
	int paced;		/* after the step */
	long long rate_lo;	/* bytes/s bounds after the step, or ANY */
	long long rate_hi;
};

#define STEPS_END	{ .ev = STOP }

static void run_steps(struct sroce_dcqcn *d, const struct step *steps)
{
	const struct step *s;
	int n;

	for (n = 0, s = steps; s->ev != STOP; s++, n++) {
		int got = ANY;

		switch (s->ev) {
		case SEND:
			sroce_dcqcn_sent(d, &params, s->at, s->arg);
			break;
		case CNP:
			got = sroce_dcqcn_cnp(d, &params, s->at);
			break;
		case TICK:
			sroce_dcqcn_advance(d, &params, s->at);
			break;
		case HELD:
			d->limited = true;
			break;
		case STOP:
			break;
		}
		if (s->want != ANY && got != s->want)
			UNIT_FAIL("step %d: cnp gave %d, want %d", n, got,
				  s->want);
		if (d->paced != !!s->paced)
			UNIT_FAIL("step %d: paced %d, want %d", n, d->paced,
				  s->paced);
		if (s->rate_lo != ANY && (long long)d->rate < s->rate_lo)
			UNIT_FAIL("step %d: rate %llu below %lld", n,
				  (unsigned long long)d->rate, s->rate_lo);
		if (s->rate_hi != ANY && (long long)d->rate > s->rate_hi)
			UNIT_FAIL("step %d: rate %llu above %lld", n,
				  (unsigned long long)d->rate, s->rate_hi);
	}
}

/* @steps on a reaction point fresh from reset. */
static void run_fresh(const struct step *steps)
{
	struct sroce_dcqcn d;

	sroce_dcqcn_reset(&d);
	run_steps(&d, steps);
}

/*
 * 100 Mbit/s for 30 ms: 125000 bytes every 10 ms (the measuring window),
 * (un)paced all along.
 */
#define SEND_100MBIT(t0, paced)						\
	{ SEND, (t0), 1, ANY, paced, ANY, ANY },			\
	{ SEND, (t0) + 10 * MS, 125000, ANY, paced, ANY, ANY },		\
	{ SEND, (t0) + 20 * MS, 125000, ANY, paced, ANY, ANY },		\
	{ SEND, (t0) + 30 * MS, 125000, ANY, paced, ANY, ANY }

/* The first CNP starts from the measured rate and about halves it. */
static void first_cnp_halves_the_measured_rate(void)
{
	static const struct step steps[] = {
		SEND_100MBIT(10 * MS, 0),
		{ CNP, 40 * MS + 10 * US, 0, SROCE_DCQCN_CUT, 1,
		  50 * MBIT, 50 * MBIT + MBIT / 2 },
		/* Within the monitor period: ignored, no cut. */
		{ CNP, 40 * MS + 100 * US, 0, SROCE_DCQCN_IGNORED, 1,
		  50 * MBIT, 50 * MBIT + MBIT / 2 },
		/* After it: cut again, alpha still near 1. */
		{ CNP, 40 * MS + 300 * US, 0, SROCE_DCQCN_CUT, 1,
		  25 * MBIT, 26 * MBIT },
		STEPS_END,
	};
	run_fresh(steps);
}

/* A CNP with nothing measured yet starts from the ceiling. */
static void cnp_without_measure_starts_at_ceiling(void)
{
	static const struct step steps[] = {
		{ CNP, 5 * MS, 0, SROCE_DCQCN_CUT, 1, 500 * MBIT,
		  501 * MBIT },
		STEPS_END,
	};
	run_fresh(steps);
}

/* CNPs every monitor period never take the rate below min_rate. */
static void cuts_stop_at_min_rate(void)
{
	struct sroce_dcqcn d;
	unsigned long long t = 5 * MS;
	int i;

	sroce_dcqcn_reset(&d);
	for (i = 0; i < 40; i++, t += 200 * US)
		sroce_dcqcn_cnp(&d, &params, t);
	CHECK(d.paced);
	CHECK_EQ(d.rate, params.min_rate * MBIT);
}

/* A cut never leaves less than min_dec_fac % of the rate. */
static void cut_limited_by_min_dec_fac(void)
{
	struct sroce_dcqcn_params p = params;
	struct sroce_dcqcn d;

	p.min_dec_fac = 80;
	sroce_dcqcn_reset(&d);
	sroce_dcqcn_cnp(&d, &p, 5 * MS);
	CHECK_EQ(d.rate, 800 * MBIT);
}

/* Fast recovery: each timer stage halves the distance to the target. */
static void fast_recovery_towards_target(void)
{
	static const struct step steps[] = {
		{ CNP, 5 * MS, 0, SROCE_DCQCN_CUT, 1, 500 * MBIT,
		  501 * MBIT },
		/* A timer stage in which the rate held nothing back. */
		{ TICK, 6 * MS, 0, ANY, 1, 500 * MBIT, 501 * MBIT },
		/*
		 * One in which it did: timer stage 1 of threshold 1,
		 * additive, but the target (the rate before the cut) is the
		 * ceiling.
		 */
		{ HELD, 6 * MS, 0, ANY, 1, ANY, ANY },
		{ TICK, 7 * MS, 0, ANY, 1, 750 * MBIT, 751 * MBIT },
		STEPS_END,
	};
	struct sroce_dcqcn_params p = params;
	struct sroce_dcqcn d;

	sroce_dcqcn_reset(&d);
	run_steps(&d, steps);
	/* With threshold 5 the same tick is fast recovery, no more. */
	p.threshold = 5;
	sroce_dcqcn_reset(&d);
	sroce_dcqcn_cnp(&d, &p, 5 * MS);
	d.limited = true;
	sroce_dcqcn_advance(&d, &p, 6 * MS);
	CHECK(d.target == 1000 * MBIT);
	CHECK(d.rate >= 750 * MBIT && d.rate <= 751 * MBIT);
}

/* Additive increase, then hyper once both stages pass the threshold. */
static void hyper_increase_after_both_stages(void)
{
	static const struct step steps[] = {
		SEND_100MBIT(10 * MS, 0),
		{ CNP, 40 * MS, 0, SROCE_DCQCN_CUT, 1, 50 * MBIT,
		  51 * MBIT },
		/* T = 1, then 2, BC = 0: two additive steps. */
		{ HELD, 40 * MS, 0, ANY, 1, ANY, ANY },
		{ TICK, 41 * MS, 0, ANY, 1, ANY, ANY },
		{ HELD, 41 * MS, 0, ANY, 1, ANY, ANY },
		{ TICK, 42 * MS, 0, ANY, 1, ANY, ANY },
		STEPS_END,
	};
	struct sroce_dcqcn d;
	u64 before;

	sroce_dcqcn_reset(&d);
	run_steps(&d, steps);
	CHECK_EQ(d.timer_stage, 2);
	CHECK_EQ(d.target, 110 * MBIT);
	before = d.target;
	/* BC = 1: min(T, BC) = 1, not past the threshold: additive. */
	d.limited = true;
	sroce_dcqcn_sent(&d, &params, 42 * MS, 65536);
	CHECK_EQ(d.byte_stage, 1);
	CHECK_EQ(d.target, before + params.ai_rate * MBIT);
	before = d.target;
	/* Bytes sent while the rate held nothing back make no stage. */
	sroce_dcqcn_sent(&d, &params, 42 * MS, 65536);
	CHECK_EQ(d.byte_stage, 1);
	/* BC = 2: min(T, BC) = 2 > 1: hyper, (2 - 1) * hai_rate. */
	d.limited = true;
	sroce_dcqcn_sent(&d, &params, 42 * MS, 65536);
	CHECK_EQ(d.byte_stage, 2);
	CHECK_EQ(d.target, before + params.hai_rate * MBIT);
}

/* A cut starts from what the QP sends when that is below its rate. */
static void cut_from_sending_rate(void)
{
	static const struct step steps[] = {
		/* No measure yet: from the ceiling. */
		{ CNP, 5 * MS, 0, SROCE_DCQCN_CUT, 1, 500 * MBIT,
		  501 * MBIT },
		/* Then 100 Mbit/s, far below its rate of 500. */
		SEND_100MBIT(6 * MS, 1),
		/*
		 * From 100, by alpha/2 of an alpha that decayed for 31 ms
		 * (310 periods of 1019/1024, rounded down each: to 155):
		 * 92.4.
		 */
		{ CNP, 36 * MS + 10 * US, 0, SROCE_DCQCN_CUT, 1, 92 * MBIT,
		  93 * MBIT },
		STEPS_END,
	};
	run_fresh(steps);
}

/* Without CNPs, a rate that holds the QP back climbs to the ceiling. */
static void recovers_to_free(void)
{
	struct sroce_dcqcn d;
	unsigned long long t;

	sroce_dcqcn_reset(&d);
	sroce_dcqcn_cnp(&d, &params, 5 * MS);
	sroce_dcqcn_cnp(&d, &params, 5 * MS + 200 * US);
	CHECK(d.paced && d.rate < 260 * MBIT);
	for (t = 6 * MS; d.paced && t < 1000 * MS; t += MS) {
		d.limited = true;
		sroce_dcqcn_advance(&d, &params, t);
	}
	CHECK(!d.paced);
	CHECK_EQ(d.rate, 1000 * MBIT);
	CHECK_EQ(sroce_dcqcn_delay(&d, &params, t), 0);
}

/* A rate that holds nothing back neither grows nor stays for ever. */
static void unlimited_goes_free(void)
{
	static const struct step steps[] = {
		{ CNP, 5 * MS, 0, SROCE_DCQCN_CUT, 1, 500 * MBIT,
		  501 * MBIT },
		/* 63 stages: still paced, at the same rate. */
		{ TICK, 5 * MS + 63 * MS, 0, ANY, 1, 500 * MBIT,
		  501 * MBIT },
		/* The 64th ends it. */
		{ TICK, 5 * MS + 64 * MS, 0, ANY, 0, 500 * MBIT,
		  501 * MBIT },
		STEPS_END,
	};
	run_fresh(steps);
}

/* Alpha decays by g each period without a CNP, and rises with one. */
static void alpha_decays_and_rises(void)
{
	struct sroce_dcqcn d;
	u32 a;

	sroce_dcqcn_reset(&d);
	sroce_dcqcn_cnp(&d, &params, 5 * MS);
	a = d.alpha;
	CHECK(a > params.initial_alpha - 8 && a <= SROCE_DCQCN_ALPHA_ONE);
	sroce_dcqcn_advance(&d, &params, 5 * MS + 350 * US);
	/* Three whole periods of 100 us. */
	a = a * params.dce_tcp_g / 1024;
	a = a * params.dce_tcp_g / 1024;
	a = a * params.dce_tcp_g / 1024;
	CHECK_EQ(d.alpha, a);
	/* An idle second: bounded catching up, alpha at 0. */
	sroce_dcqcn_advance(&d, &params, 1005 * MS);
	CHECK_EQ(d.alpha, 0);
}

/*
 * The pacing tests' start: one CNP at @t cuts a fresh QP from 16 to
 * 8 Mbit/s (1 MB/s, a byte a microsecond), and no increase follows.
 */
static void paced_at_one_byte_per_us(struct sroce_dcqcn *d,
				     struct sroce_dcqcn_params *p,
				     unsigned int pace_burst,
				     unsigned long long t)
{
	*p = params;
	p->min_dec_fac = 1;
	p->max_rate = 16;
	p->time_reset_us = 0;
	p->byte_reset = 0;
	p->pace_burst = pace_burst;
	sroce_dcqcn_reset(d);
	sroce_dcqcn_cnp(d, p, t);
	CHECK(d->rate >= 1000000 && d->rate <= 1001000);
}

/* Pacing: packets leave at the rate, after a burst of slack. */
static void pacing_follows_rate(void)
{
	struct sroce_dcqcn_params p;
	struct sroce_dcqcn d;
	unsigned long long t = 5 * MS;
	int sent = 0;

	paced_at_one_byte_per_us(&d, &p, 0, t);
	CHECK_EQ(sroce_dcqcn_delay(&d, &p, t), 0);
	/* 1024-byte packets as fast as allowed for 100 ms. */
	while (t < 105 * MS) {
		u64 wait = sroce_dcqcn_delay(&d, &p, t);

		if (wait) {
			t += wait;
			continue;
		}
		sroce_dcqcn_sent(&d, &p, t, 1024);
		sent++;
	}
	/* 100 ms at 1 MB/s is ~97.6 packets; the slack adds 16. */
	CHECK(sent >= 97 && sent <= 97 + 17);
	/* Once the slack is used up, every packet waits for the last. */
	sroce_dcqcn_sent(&d, &p, t, 1024);
	CHECK(sroce_dcqcn_delay(&d, &p, t) >= 1000 * US);
}

/* An unpaced QP is never delayed and counts nothing but its rate. */
static void free_never_waits(void)
{
	struct sroce_dcqcn d;

	sroce_dcqcn_reset(&d);
	sroce_dcqcn_sent(&d, &params, 1 * MS, 1000000);
	CHECK(!d.paced);
	CHECK_EQ(sroce_dcqcn_delay(&d, &params, 1 * MS), 0);
	sroce_dcqcn_advance(&d, &params, 10 * MS);
	CHECK(!d.paced);
}

/*
 * Bursts: held back, a paced QP waits until its rate allows pace_burst
 * bytes, then sends them back to back; the average rate is the same.
 */
static void pacing_in_bursts(void)
{
	struct sroce_dcqcn_params p;
	struct sroce_dcqcn d;
	unsigned long long t = 5 * MS, burst_start = 0;
	int sent = 0, bursts = 0, in_burst = 0, short_bursts = 0;

	paced_at_one_byte_per_us(&d, &p, 4096, t);
	while (t < 105 * MS) {
		u64 wait = sroce_dcqcn_delay(&d, &p, t);

		if (wait) {
			/* Never woken for less than a burst's worth. */
			if (in_burst && wait < 4096 * US - 1024 * US)
				UNIT_FAIL("woken %llu ns after a burst",
					  (unsigned long long)wait);
			/* After the slack's first run, 4 packets or more. */
			if (bursts > 1 && in_burst && in_burst < 4)
				short_bursts++;
			in_burst = 0;
			t += wait;
			continue;
		}
		if (!in_burst++) {
			bursts++;
			burst_start = t;
		}
		CHECK_EQ(t, burst_start);	/* back to back */
		sroce_dcqcn_sent(&d, &p, t, 1024);
		sent++;
	}
	/*
	 * The rate of packet by packet: ~97.6 and the slack, less the
	 * burst the end of the run may find the QP waiting for.
	 */
	CHECK(sent >= 97 - 4 && sent <= 97 + 17);
	CHECK(bursts >= 17 && bursts <= 22);
	CHECK_EQ(short_bursts, 0);
}

/*
 * The target: kept through a run of cuts without an increase, the rate
 * before the cut after one (mlx5's default); every cut's with
 * clamp_tgt_rate.
 */
static void target_kept_through_a_run_of_cuts(void)
{
	struct sroce_dcqcn_params p = params;
	struct sroce_dcqcn d;

	sroce_dcqcn_reset(&d);
	sroce_dcqcn_cnp(&d, &p, 5 * MS);
	CHECK_EQ(d.target, 1000 * MBIT);
	sroce_dcqcn_cnp(&d, &p, 5 * MS + 300 * US);
	CHECK_EQ(d.target, 1000 * MBIT);
	CHECK(d.rate < 300 * MBIT);
	/* A timer stage that raises the rate, then a cut: its new target. */
	d.limited = true;
	sroce_dcqcn_advance(&d, &p, 5 * MS + 1300 * US);
	CHECK(d.rate > 600 * MBIT);
	sroce_dcqcn_cnp(&d, &p, 5 * MS + 1400 * US);
	CHECK(d.target > 600 * MBIT && d.target < 700 * MBIT);

	/* A timer increase does not count with after_time_inc 0. */
	p.clamp_tgt_rate_ati = false;
	sroce_dcqcn_reset(&d);
	sroce_dcqcn_cnp(&d, &p, 5 * MS);
	d.limited = true;
	sroce_dcqcn_advance(&d, &p, 6 * MS);
	sroce_dcqcn_cnp(&d, &p, 6 * MS + 100 * US);
	CHECK_EQ(d.target, 1000 * MBIT);

	/* clamp_tgt_rate: every cut. */
	p.clamp_tgt_rate = true;
	sroce_dcqcn_reset(&d);
	sroce_dcqcn_cnp(&d, &p, 5 * MS);
	sroce_dcqcn_cnp(&d, &p, 5 * MS + 300 * US);
	CHECK(d.target >= 500 * MBIT && d.target <= 501 * MBIT);
}

UNIT_MAIN(UNIT_CASE(first_cnp_halves_the_measured_rate),
	  UNIT_CASE(cnp_without_measure_starts_at_ceiling),
	  UNIT_CASE(cuts_stop_at_min_rate),
	  UNIT_CASE(cut_limited_by_min_dec_fac),
	  UNIT_CASE(fast_recovery_towards_target),
	  UNIT_CASE(hyper_increase_after_both_stages),
	  UNIT_CASE(cut_from_sending_rate),
	  UNIT_CASE(recovers_to_free),
	  UNIT_CASE(unlimited_goes_free),
	  UNIT_CASE(alpha_decays_and_rises),
	  UNIT_CASE(pacing_follows_rate),
	  UNIT_CASE(free_never_waits),
	  UNIT_CASE(pacing_in_bursts),
	  UNIT_CASE(target_kept_through_a_run_of_cuts))
