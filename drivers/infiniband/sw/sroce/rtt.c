// SPDX-License-Identifier: GPL-2.0
/*
 * Round trips: a QP's estimate of its round-trip time, the two
 * deadlines that retransmit without being told to, and the window after
 * a timeout (send engine context).
 *
 * Go-back-N learns of a lost packet from the next one to arrive (the
 * responder's PSN sequence error NAK). Nothing reveals the loss of the
 * last packets of a burst, of the ACK for them or of that NAK, and the
 * local ACK timeout (IBTA 9.7.6.1.3: 4.096 us * 2^timeout, perftest's 14
 * is 67 ms) is far longer than a round trip. So:
 *
 *  - Each RC QP times one AckReq packet at a time from its first
 *    transmission to its acknowledgement, and keeps a smoothed RTT and
 *    its variation (RFC 6298). In jiffies: the probe timeout's floor is
 *    several ticks anyway, and a clock read per message is not free (an
 *    HPET read is a device access; guests often have no usable TSC). A
 *    sample that spans a NAK-driven resend of its packet is kept: it can
 *    only come out a round trip too long, never too short, and under loss
 *    with go-back-N nearly every sample spans one (dropping them all, as
 *    Karn's rule does, leaves a lossy path with no estimate). A sample
 *    that spans a timer-driven resend (probe or ACK timeout) is dropped
 *    (sroce_rtt_discard()): it would measure the timer, inflate SRTT
 *    towards the ACK timeout, and so switch the probes off exactly when
 *    the loss rate makes them worth most.
 *  - When nothing has been acknowledged for a probe timeout (PTO, the
 *    larger of 2 * SRTT and SRTT + 4 * RTTVAR, at least 10 ms, as TCP's
 *    tail-loss probe: a busy peer's scheduling delays its ACKs by more
 *    than its RTT says) the completer sends the newest packet again, with
 *    AckReq: an ACK for all of it if the probe was only early, a sequence
 *    NAK at the first lost PSN otherwise. A second probe sends again from
 *    the oldest unacknowledged PSN, as the ACK timeout would (the NAK may
 *    have been lost, and a responder NAKs a gap once). The responder
 *    acknowledges duplicates again and executes nothing twice, so an
 *    early resend is safe with any peer. For a read, a probe asks
 *    again for the responses it lacks (read_gap.c); an atomic waits
 *    for the ACK timeout.
 *    A probe is for a tail that went silent: the probe timeout also
 *    runs from the newest packet's first transmission (as RFC 8985's
 *    PTO is restarted by new data). A paced QP (cc.c) may send the
 *    packets between two AckReqs over longer than a PTO, and its
 *    responder only acknowledges those AckReqs: counted from the last
 *    acknowledgement alone, it probed with nothing lost.
 *  - A probe is not a retry: it leaves retry_left alone. At most
 *    SROCE_MAX_PROBES are sent, each after twice the wait of the one
 *    before, between two acknowledgements; after that only the ACK timer
 *    is left, and it counts retries as IBTA says.
 *  - After the ACK timer struck, the requester goes back to the oldest
 *    packet with a window of a few packets that doubles with each
 *    acknowledgement (sroce_retx_timed_out()).
 *
 * Both deadlines share the QP's retry_timer, kept lazily: progress moves
 * the deadlines forward, but the timer is only armed when not pending and
 * never deleted on the data path (only moved earlier, which steady
 * progress never asks for); when it fires early, it is armed again for
 * the earliest deadline (sroce_retx_due()). So a message and its ACK cost
 * no timer-wheel lock.
 */
#include <linux/jiffies.h>
#include <linux/moduleparam.h>

#include <sroce/psn.h>

#include "sroce.h"
#include "qp.h"
#include "rtt.h"
#include "trace.h"

#define SROCE_MAX_PROBES	2
/* The window right after a local ACK timeout, in packets. */
#define SROCE_TIMEOUT_WINDOW	4
#define SROCE_PTO_MIN_US	10000
/* A sample longer than this says more about a stall than about the path. */
#define SROCE_RTT_MAX_US	(10 * USEC_PER_SEC)

/*
 * Off: a lost tail waits for the QP's ACK timeout, as IBTA asks for and
 * nothing more (for comparing with other implementations, or a peer that
 * mishandles early duplicates). Read when a QP next arms its deadlines.
 */
static bool sroce_tail_probes = true;
module_param_named(tail_probes, sroce_tail_probes, bool, 0644);
MODULE_PARM_DESC(tail_probes,
		 "RC: when no ACK came for a few round trips, resend the newest packet, then the oldest unacknowledged one (default: Y)");

/* Entering RTS: no estimate, nothing outstanding (both engine locks). */
void sroce_rtt_reset(struct sroce_qp *qp)
{
	memset(&qp->rtt, 0, sizeof(qp->rtt));
	qp->rtt.window = SROCE_MAX_INFLIGHT;
}

/* The local ACK timeout in jiffies; 0: none (wait for ever). */
static unsigned long sroce_retx_ack_timeout(const struct sroce_qp *qp)
{
	u8 t = qp->attr.timeout;
	u64 usecs;

	if (!t)
		return 0;
	/* Codes above 29 mean hours; an hour is as good as for ever. */
	usecs = min_t(u64, (4096ULL << t) / 1000, 3600ULL * USEC_PER_SEC);
	return usecs_to_jiffies(usecs) + 1;
}

/* The probe timeout in jiffies; 0 before the first RTT sample. */
static unsigned long sroce_retx_pto(const struct sroce_rtt *rtt)
{
	u32 us;

	if (!rtt->srtt_us)
		return 0;
	us = max3(2 * rtt->srtt_us, rtt->srtt_us + 4 * rtt->rttvar_us,
		  (u32)SROCE_PTO_MIN_US);
	/* A tick may end right after it is armed: two are at least one. */
	return max_t(unsigned long, usecs_to_jiffies(us) + 1, 2);
}

/* The earlier of the two deadlines. */
static unsigned long sroce_retx_next(const struct sroce_rtt *rtt)
{
	if (rtt->probes_left &&
	    time_before(rtt->probe_deadline, rtt->retry_deadline))
		return rtt->probe_deadline;
	return rtt->retry_deadline;
}

/*
 * Something is outstanding and the responder has just moved on (or the
 * first packet after a quiet time went out): both deadlines start afresh.
 */
void sroce_retx_arm(struct sroce_qp *qp)
{
	struct sroce_rtt *rtt = &qp->rtt;
	unsigned long timeout = sroce_retx_ack_timeout(qp);
	unsigned long pto = sroce_retx_pto(rtt);

	if (qp->dying || !timeout)
		return;
	rtt->retry_deadline = jiffies + timeout;
	rtt->probes_left = READ_ONCE(sroce_tail_probes) && pto &&
			   pto < timeout ? SROCE_MAX_PROBES : 0;
	rtt->probe_deadline = jiffies + pto;
	rtt->retry_on = true;
	/* Only the engine modifies the timer: expires is stable here. */
	if (!timer_pending(&qp->retry_timer) ||
	    time_before(sroce_retx_next(rtt), qp->retry_timer.expires))
		mod_timer(&qp->retry_timer, sroce_retx_next(rtt));
}

/* Nothing is outstanding: the timer may still fire, to no effect. */
void sroce_retx_stop(struct sroce_qp *qp)
{
	qp->rtt.retry_on = false;
}

bool sroce_retx_armed(const struct sroce_qp *qp)
{
	return qp->rtt.retry_on;
}

/* The timer fired: which deadline, if any, has really passed? */
enum sroce_retx_due sroce_retx_due(struct sroce_qp *qp)
{
	struct sroce_rtt *rtt = &qp->rtt;
	unsigned long quiet;

	if (!rtt->retry_on || qp->dying)
		return SROCE_RETX_NONE;
	if (!time_before(jiffies, rtt->retry_deadline))
		return SROCE_RETX_TIMEOUT;
	if (rtt->probes_left && !time_before(jiffies, rtt->probe_deadline)) {
		quiet = rtt->newest_sent + sroce_retx_pto(rtt);
		if (!time_before(jiffies, quiet))
			return SROCE_RETX_PROBE;
		rtt->probe_deadline = quiet;
	}
	mod_timer(&qp->retry_timer, sroce_retx_next(rtt));
	return SROCE_RETX_NONE;
}

/*
 * A probe goes out: the next one, if any, waits twice as long. Returns
 * true for the first since the responder last moved on.
 */
bool sroce_retx_probed(struct sroce_qp *qp)
{
	struct sroce_rtt *rtt = &qp->rtt;
	unsigned int nth = SROCE_MAX_PROBES - --rtt->probes_left;

	rtt->probe_deadline = jiffies + (sroce_retx_pto(rtt) << nth);
	mod_timer(&qp->retry_timer, sroce_retx_next(rtt));
	return nth == 1;
}

/*
 * A timeout means nothing came back for a whole local ACK timeout: the
 * path or the responder is overloaded, or gone. Resending all of the
 * window at once is what keeps an overloaded one so: a responder whose
 * receive backlog overflowed (a slow host, a debug kernel) gets the same
 * burst again each timeout, behind which its own ACKs are dropped, until
 * the retries run out. So the requester sends only a few packets past
 * the oldest one, the last asking for an ACK, and twice as many after
 * each acknowledgement that moves on (TCP's slow start after an RTO);
 * a lost packet or a NAK (fast retransmit) leaves the window as it is.
 */
void sroce_retx_timed_out(struct sroce_qp *qp)
{
	qp->rtt.window = SROCE_TIMEOUT_WINDOW;
}

int sroce_retx_window(const struct sroce_qp *qp)
{
	return qp->rtt.window;
}

/* No probe for the oldest WQE: an atomic, or a read with nothing to ask. */
void sroce_retx_skip_probe(struct sroce_qp *qp)
{
	qp->rtt.probes_left = 0;
	mod_timer(&qp->retry_timer, sroce_retx_next(&qp->rtt));
}

/*
 * A new packet is a sign of life for the tail's probe; a new AckReq
 * packet is timed if nothing else is. A resend is neither.
 */
void sroce_rtt_sent(struct sroce_qp *qp, u32 psn, bool ackreq)
{
	struct sroce_rtt *rtt = &qp->rtt;

	if (sroce_psn_before(psn, qp->swin.sent_end))
		return;
	rtt->newest_sent = jiffies;
	if (!ackreq || rtt->sampling)
		return;
	rtt->sampling = true;
	rtt->sample_psn = psn;
	rtt->sample_start = jiffies;
}

/* A timer sends again: the sample running would measure the timer. */
void sroce_rtt_discard(struct sroce_qp *qp)
{
	qp->rtt.sampling = false;
}

/* swin.acked_psn moved: the sample ends if its packet is acknowledged. */
void sroce_rtt_acked(struct sroce_qp *qp)
{
	struct sroce_rtt *rtt = &qp->rtt;
	u32 r, diff;

	rtt->window = min_t(u32, 2 * rtt->window, SROCE_MAX_INFLIGHT);
	if (!rtt->sampling ||
	    !sroce_psn_after(qp->swin.acked_psn, rtt->sample_psn))
		return;
	rtt->sampling = false;
	/* A sample within one tick counts as half a tick. */
	r = jiffies_to_usecs(jiffies - rtt->sample_start);
	r = clamp_t(u32, r, jiffies_to_usecs(1) / 2, SROCE_RTT_MAX_US);
	if (!rtt->srtt_us) {
		rtt->srtt_us = r;
		rtt->rttvar_us = r / 2;
		return;
	}
	diff = rtt->srtt_us > r ? rtt->srtt_us - r : r - rtt->srtt_us;
	rtt->rttvar_us = (3 * rtt->rttvar_us + diff) / 4;
	rtt->srtt_us = (7 * rtt->srtt_us + r) / 8;
}

void sroce_rtt_trace_retx(struct sroce_qp *qp, u32 psn, int cause)
{
	trace_sroce_retransmit(qp->ib_qp.device, qp->ib_qp.qp_num, psn, cause,
			       qp->rtt.srtt_us, qp->rtt.rttvar_us);
}
