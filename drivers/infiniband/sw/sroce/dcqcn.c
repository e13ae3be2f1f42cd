// SPDX-License-Identifier: GPL-2.0
/*
 * The DCQCN reaction point of include/sroce/dcqcn.h, whose comment has
 * the states and the transition table. Pure C: built into the module
 * and into the unit tests. Rates are bytes/s, times ns.
 */
#include <sroce/dcqcn.h>

static u64 sroce_dcqcn_mbit(u32 mbit)
{
	return mbit * SROCE_DCQCN_MBIT;
}

static u64 sroce_dcqcn_min(const struct sroce_dcqcn_params *p)
{
	return sroce_dcqcn_mbit(p->min_rate ? p->min_rate : 1);
}

static u64 sroce_dcqcn_max(const struct sroce_dcqcn_params *p)
{
	u64 max = sroce_dcqcn_mbit(p->max_rate);

	return max > sroce_dcqcn_min(p) ? max : sroce_dcqcn_min(p);
}

void sroce_dcqcn_reset(struct sroce_dcqcn *d)
{
	memset(d, 0, sizeof(*d));
}

static void sroce_dcqcn_free(struct sroce_dcqcn *d)
{
	d->paced = false;
	d->limited = false;
}

/*
 * The window of the sending rate that ends at @now, once it is at least
 * SROCE_DCQCN_WINDOW_NS: it counts the pauses a window-bound sender
 * makes; one much longer than that was an idle time, not a rate.
 */
static void sroce_dcqcn_measure(struct sroce_dcqcn *d, u64 now)
{
	u64 span = now - d->win_start;

	if (span < SROCE_DCQCN_WINDOW_NS)
		return;
	if (span <= SROCE_DCQCN_IDLE_NS)
		d->measured = d->win_bytes * SROCE_DCQCN_NSEC / span;
	d->win_start = now;
	d->win_bytes = 0;
}

/*
 * What the QP sends at now: the last whole window, or the current one
 * if there was none (counted as one whole window at least), or 0.
 */
static u64 sroce_dcqcn_sending(const struct sroce_dcqcn *d, u64 now)
{
	u64 span = now - d->win_start;

	if (d->measured || !d->win_bytes)
		return d->measured;
	if (span < SROCE_DCQCN_WINDOW_NS)
		span = SROCE_DCQCN_WINDOW_NS;
	return d->win_bytes * SROCE_DCQCN_NSEC / span;
}

/*
 * One increase step (the transition table's "increase"), of the timer
 * (@by_timer) or of the byte counter.
 */
static void sroce_dcqcn_increase(struct sroce_dcqcn *d,
				 const struct sroce_dcqcn_params *p,
				 bool by_timer)
{
	u32 lo = d->timer_stage < d->byte_stage ? d->timer_stage :
						  d->byte_stage;
	u32 hi = d->timer_stage < d->byte_stage ? d->byte_stage :
						  d->timer_stage;
	u64 max = sroce_dcqcn_max(p);

	if (hi < p->threshold)
		;	/* fast recovery: towards the rate before the cut */
	else if (lo > p->threshold)
		d->target += (u64)(lo - p->threshold) *
			     sroce_dcqcn_mbit(p->hai_rate);
	else
		d->target += sroce_dcqcn_mbit(p->ai_rate);
	if (d->target > max)
		d->target = max;
	d->rate = (d->rate + d->target + 1) / 2;
	d->limited = false;
	if (!by_timer || p->clamp_tgt_rate_ati)
		d->raised = true;
	/* Back at the ceiling: the QP no longer needs pacing. */
	if (d->rate >= max)
		sroce_dcqcn_free(d);
}

/*
 * A timer stage passed: an increase if the rate held the QP back during
 * it; if it has not for SROCE_DCQCN_FREE_STAGES stages, the QP sends
 * less than its rate for other reasons and is let go.
 */
static void sroce_dcqcn_timer_stage(struct sroce_dcqcn *d,
				    const struct sroce_dcqcn_params *p)
{
	/* Still waiting for the rate when the stage ended counts too. */
	if ((s64)(d->next_tx - d->step_at) > 0)
		d->limited = true;
	if (!d->limited) {
		if (++d->unlimited_stages >= SROCE_DCQCN_FREE_STAGES)
			sroce_dcqcn_free(d);
		return;
	}
	d->unlimited_stages = 0;
	d->timer_stage++;
	sroce_dcqcn_increase(d, p, true);
}

void sroce_dcqcn_advance(struct sroce_dcqcn *d,
			 const struct sroce_dcqcn_params *p, u64 now)
{
	u64 period = (u64)p->dce_tcp_rtt_us * 1000;
	unsigned int n;

	if (!d->paced)
		return;
	for (n = 0; period && now - d->alpha_at >= period; n++) {
		if (n == SROCE_DCQCN_MAX_PERIODS) {
			d->alpha = 0;
			d->alpha_at = now;
			break;
		}
		d->alpha = d->alpha * p->dce_tcp_g / SROCE_DCQCN_ALPHA_ONE;
		d->alpha_at += period;
	}
	period = (u64)p->time_reset_us * 1000;
	for (n = 0; d->paced && period && now - d->step_at >= period; n++) {
		if (n == SROCE_DCQCN_MAX_PERIODS) {
			d->step_at = now;
			break;
		}
		d->step_at += period;
		sroce_dcqcn_timer_stage(d, p);
	}
}

enum sroce_dcqcn_cnp sroce_dcqcn_cnp(struct sroce_dcqcn *d,
				     const struct sroce_dcqcn_params *p,
				     u64 now)
{
	u64 floor, cut, sending;

	sroce_dcqcn_advance(d, p, now);
	sroce_dcqcn_measure(d, now);
	sending = sroce_dcqcn_sending(d, now);
	if (!d->paced) {
		d->paced = true;
		d->raised = true;
		d->rate = sroce_dcqcn_max(p);
		d->alpha = p->initial_alpha;
		d->next_tx = now;
		d->unlimited_stages = 0;
	} else if (now - d->cut_at < (u64)p->monitor_us * 1000) {
		return SROCE_DCQCN_IGNORED;
	}
	/* A rate above what the QP sends would not slow it down at all. */
	if (sending && sending < d->rate)
		d->rate = sending;
	if (d->raised || p->clamp_tgt_rate)
		d->target = d->rate;
	d->raised = false;
	cut = d->rate - d->rate * d->alpha / (2 * SROCE_DCQCN_ALPHA_ONE);
	floor = d->rate * p->min_dec_fac / 100;
	if (cut < floor)
		cut = floor;
	if (cut < sroce_dcqcn_min(p))
		cut = sroce_dcqcn_min(p);
	d->rate = cut;
	d->alpha = (d->alpha * p->dce_tcp_g +
		    (SROCE_DCQCN_ALPHA_ONE - p->dce_tcp_g) *
		    SROCE_DCQCN_ALPHA_ONE) / SROCE_DCQCN_ALPHA_ONE;
	d->alpha_at = now;
	d->step_at = now;
	d->cut_at = now;
	d->timer_stage = 0;
	d->byte_stage = 0;
	d->bytes = 0;
	return SROCE_DCQCN_CUT;
}

void sroce_dcqcn_sent(struct sroce_dcqcn *d,
		      const struct sroce_dcqcn_params *p, u64 now, u32 bytes)
{
	u64 slack;

	if (!d->win_start)
		d->win_start = now;
	d->win_bytes += bytes;
	sroce_dcqcn_measure(d, now);
	if (!d->paced)
		return;
	sroce_dcqcn_advance(d, p, now);
	if (!d->paced)
		return;
	if (d->limited)
		d->bytes += bytes;
	while (p->byte_reset && d->bytes >= p->byte_reset && d->paced) {
		d->bytes -= p->byte_reset;
		d->byte_stage++;
		sroce_dcqcn_increase(d, p, false);
	}
	if (!d->paced)
		return;
	slack = SROCE_DCQCN_BURST_BYTES * SROCE_DCQCN_NSEC / d->rate;
	if (d->next_tx + slack < now)
		d->next_tx = now - slack;
	d->next_tx += bytes * SROCE_DCQCN_NSEC / d->rate;
}

u64 sroce_dcqcn_delay(struct sroce_dcqcn *d,
		       const struct sroce_dcqcn_params *p, u64 now)
{
	u64 start;

	if (!d->paced)
		return 0;
	/* Within a burst: on while the rate allows. */
	if (d->bursting && (s64)(d->next_tx - now) <= 0)
		return 0;
	/* A new burst: once the rate allows @burst bytes. */
	start = d->next_tx + (u64)p->pace_burst * SROCE_DCQCN_NSEC / d->rate;
	if ((s64)(start - now) <= 0) {
		d->bursting = true;
		return 0;
	}
	d->bursting = false;
	d->limited = true;
	return start - now;
}
