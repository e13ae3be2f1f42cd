// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control for lossy Ethernet, as RoCE NICs do it (DCQCN):
 *
 *  - marking: our RoCE packets are ECN-capable (ECT(0)), so that a
 *    congested switch or qdisc marks them CE instead of dropping them;
 *  - notification point: a connected QP that receives a CE-marked packet
 *    from its peer sends the peer QP a CNP (IBTA annex A17.9.3), at most
 *    one per np_min_time_between_cnps; CNPs are never answered,
 *    acknowledged or sent again;
 *  - reaction point: the QP that receives CNPs lowers its sending rate
 *    (sroce/dcqcn.h) and its requester is paced to it: when the next
 *    packet may not leave yet, the send engine's run ends and a timer
 *    kicks it again at the time it may. A QP that never saw a CNP is
 *    never paced.
 *
 * Only the requester is paced: read responses and ACKs go out as the
 * responder makes them (a reader's requests are already paced by the
 * reader, chunk by chunk). UD QPs send and take no CNPs: a datagram QP
 * has no single peer to slow down; their marked packets are counted.
 *
 * The parameters have mlx5's names (rp_*, np_*). Their defaults differ
 * where mlx5's are made for the microsecond round trips of hardware:
 * sroce's round trip is tens to hundreds of microseconds, so the CNP
 * interval, the reduction monitor period and alpha's period are longer.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <net/inet_ecn.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include <sroce/opcode.h>
#include <sroce/packet.h>

#include "sroce.h"
#include "qp.h"
#include "net_tx.h"
#include "trace.h"

static bool sroce_ecn = true;
module_param_named(ecn, sroce_ecn, bool, 0644);
MODULE_PARM_DESC(ecn,
		 "Send RoCE packets ECN-capable (ECT(0)) unless the traffic class sets the ECN bits itself (default: Y)");

static bool sroce_cnp = true;
module_param_named(cnp, sroce_cnp, bool, 0644);
MODULE_PARM_DESC(cnp,
		 "Answer ECN-marked packets of a connected QP with CNPs to its peer (default: Y)");

static bool sroce_dcqcn = true;
module_param_named(dcqcn, sroce_dcqcn, bool, 0644);
MODULE_PARM_DESC(dcqcn,
		 "Lower a QP's sending rate on the CNPs it receives (DCQCN) (default: Y)");

static unsigned int np_min_time_between_cnps = 50;
module_param(np_min_time_between_cnps, uint, 0644);
MODULE_PARM_DESC(np_min_time_between_cnps,
		 "Least time between two CNPs of one QP, us (default: 50)");

static unsigned int np_cnp_dscp = 48;
module_param(np_cnp_dscp, uint, 0644);
MODULE_PARM_DESC(np_cnp_dscp, "DSCP of the CNPs (default: 48)");

/* The reaction point's parameters: struct sroce_dcqcn_params. */
#define SROCE_RP_PARAM(name, def, desc)					\
	static unsigned int rp_##name = def;				\
	module_param(rp_##name, uint, 0644);				\
	MODULE_PARM_DESC(rp_##name, desc " (default: " #def ")")

SROCE_RP_PARAM(time_reset, 300, "Rate increase timer period, us");
SROCE_RP_PARAM(byte_reset, 32767, "Bytes sent per rate increase stage");
SROCE_RP_PARAM(threshold, 1, "Fast recovery stages before additive increase");
SROCE_RP_PARAM(ai_rate, 5, "Additive increase, Mbit/s");
SROCE_RP_PARAM(hai_rate, 50, "Hyper increase, Mbit/s");
SROCE_RP_PARAM(min_rate, 1, "Lowest rate, Mbit/s");
SROCE_RP_PARAM(max_rate, 0, "Rate at which pacing ends, Mbit/s; 0: 100000");
SROCE_RP_PARAM(min_dec_fac, 50, "Least share of the rate a CNP leaves, %");
SROCE_RP_PARAM(dce_tcp_g, 1019, "Share of alpha kept per alpha period, /1024");
SROCE_RP_PARAM(dce_tcp_rtt, 100, "Alpha's period, us");
SROCE_RP_PARAM(rate_reduce_monitor_period, 250,
	       "Least time between two rate cuts, us");
SROCE_RP_PARAM(initial_alpha_value, 1023, "Alpha on the first CNP, /1024");
SROCE_RP_PARAM(pace_burst, 8192,
	       "Bytes a paced QP sends at once, at most 8192 (sroce's own: one GSO burst and one timer per burst, not per packet)");
SROCE_RP_PARAM(clamp_tgt_rate, 0,
	       "Whether every cut makes the rate before it the target (1), or only a cut after an increase (0)");
SROCE_RP_PARAM(clamp_tgt_rate_after_time_inc, 1,
	       "With clamp_tgt_rate 0: a timer increase counts as an increase, not only a byte one");

/* rp_max_rate 0: no ceiling below what a 100 Gbit/s port moves. */
#define SROCE_CC_CEILING_MBIT	100000u
/* A byte stage smaller than this would make sroce_dcqcn_sent() loop. */
#define SROCE_CC_MIN_BYTE_RESET	1024u
/* What a packet costs on the wire besides BTH and payload. */
#define SROCE_CC_WIRE_OVERHEAD	(ETH_HLEN + sizeof(struct iphdr) + \
				 sizeof(struct udphdr) + SROCE_ICRC_BYTES)

static void sroce_cc_params(struct sroce_dcqcn_params *p)
{
	u32 byte_reset = READ_ONCE(rp_byte_reset);

	p->time_reset_us = READ_ONCE(rp_time_reset);
	p->byte_reset = byte_reset ? max(byte_reset, SROCE_CC_MIN_BYTE_RESET) :
				     0;
	p->threshold = READ_ONCE(rp_threshold);
	p->ai_rate = READ_ONCE(rp_ai_rate);
	p->hai_rate = READ_ONCE(rp_hai_rate);
	p->min_rate = READ_ONCE(rp_min_rate);
	p->max_rate = READ_ONCE(rp_max_rate) ?: SROCE_CC_CEILING_MBIT;
	p->min_dec_fac = min(READ_ONCE(rp_min_dec_fac), 100u);
	p->dce_tcp_g = min(READ_ONCE(rp_dce_tcp_g), SROCE_DCQCN_ALPHA_ONE);
	p->dce_tcp_rtt_us = READ_ONCE(rp_dce_tcp_rtt);
	p->monitor_us = READ_ONCE(rp_rate_reduce_monitor_period);
	p->initial_alpha = min(READ_ONCE(rp_initial_alpha_value),
			       SROCE_DCQCN_ALPHA_ONE);
	p->pace_burst = min(READ_ONCE(rp_pace_burst),
			    SROCE_DCQCN_MAX_PACE_BURST);
	p->clamp_tgt_rate = READ_ONCE(rp_clamp_tgt_rate);
	p->clamp_tgt_rate_ati = READ_ONCE(rp_clamp_tgt_rate_after_time_inc);
}

static enum hrtimer_restart sroce_cc_pace_fn(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, cc.pace_timer);

	sroce_engine_kick_send(qp);
	return HRTIMER_NORESTART;
}

void sroce_cc_setup(struct sroce_qp *qp)
{
	/* Soft: the kick runs the engine in place, in the timer softirq. */
	hrtimer_init(&qp->cc.pace_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_SOFT);
	qp->cc.pace_timer.function = sroce_cc_pace_fn;
	sroce_dcqcn_reset(&qp->cc.rp);
	atomic64_set(&qp->cc.cnp_due, 0);
}

void sroce_cc_stop(struct sroce_qp *qp)
{
	hrtimer_cancel(&qp->cc.pace_timer);
}

void sroce_cc_reset(struct sroce_qp *qp)
{
	sroce_dcqcn_reset(&qp->cc.rp);
}

u8 sroce_cc_tos(u8 traffic_class, u8 opcode)
{
	/* CNPs at their own DSCP, ECN-capable as a RoCE NIC sends them. */
	if (opcode == SROCE_OP_CNP)
		traffic_class = (READ_ONCE(np_cnp_dscp) & 0x3f) << 2;
	else if (traffic_class & INET_ECN_MASK)
		return traffic_class;	/* the user chose the ECN bits */
	return READ_ONCE(sroce_ecn) ? traffic_class | INET_ECN_ECT_0 :
				      traffic_class;
}

bool sroce_cc_skb_ce(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
}

/* Takes the QP's CNP slot if its interval has passed. */
static bool sroce_cc_cnp_due(struct sroce_qp *qp)
{
	u64 now = ktime_get_ns();
	s64 due = atomic64_read(&qp->cc.cnp_due);
	u64 next = now + READ_ONCE(np_min_time_between_cnps) * NSEC_PER_USEC;

	if ((s64)(now - (u64)due) < 0)
		return false;
	/* The other engine may be here at the same time: one of them wins. */
	return atomic64_cmpxchg(&qp->cc.cnp_due, due, next) == due;
}

static void sroce_cc_send_cnp(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_hdr_fields f = {
		.opcode = SROCE_OP_CNP,
		.pkey = SROCE_DEFAULT_PKEY,
		.becn = true,
		.dest_qpn = qp->attr.dest_qp_num,
	};
	struct sk_buff *skb;

	skb = sroce_tx_build(sdev, &qp->av, &f, SROCE_CNP_RSVD_BYTES);
	if (!skb)
		return;		/* a CNP is advice: the next mark asks again */
	skb_put_zero(skb, SROCE_CNP_RSVD_BYTES);
	if (!sroce_tx_send(sdev, &qp->av, skb,
			   sroce_qp_udp_sport(qp, qp->attr.dest_qp_num),
			   &qp->dst_cache, qp->ib_qp.qp_num))
		sroce_count(sdev, SROCE_CNT_NP_CNP_SENT);
}

void sroce_cc_marked(struct sroce_qp *qp, struct sk_buff *skb)
{
	/* Never for a CNP: they are not answered. */
	if (sroce_skb_info(skb)->op->flags & SROCE_OPF_CNP)
		return;
	if (sroce_qp_is_ud(qp) || !READ_ONCE(sroce_cnp) ||
	    !sroce_cc_cnp_due(qp))
		return;
	sroce_cc_send_cnp(qp);
}

static void sroce_cc_trace(struct sroce_qp *qp, const char *why)
{
	const struct sroce_dcqcn *d = &qp->cc.rp;

	trace_sroce_cc_rate(qp->ib_qp.device, qp->ib_qp.qp_num, d->paced,
			    d->rate, d->target, d->alpha, why);
}

/* After a call that may raise the rate from @was: trace the increase. */
static void sroce_cc_trace_increase(struct sroce_qp *qp, u64 was)
{
	if (qp->cc.rp.paced && qp->cc.rp.rate != was)
		sroce_cc_trace(qp, "increase");
}

void sroce_cc_cnp(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	struct sroce_dcqcn_params p;

	if (!READ_ONCE(sroce_dcqcn)) {
		sroce_count(sdev, SROCE_CNT_RP_CNP_IGNORED);
		return;
	}
	sroce_cc_params(&p);
	if (sroce_dcqcn_cnp(&qp->cc.rp, &p, ktime_get_ns()) ==
	    SROCE_DCQCN_IGNORED) {
		sroce_count(sdev, SROCE_CNT_RP_CNP_IGNORED);
		return;
	}
	sroce_count(sdev, SROCE_CNT_RP_CNP_HANDLED);
	sroce_cc_trace(qp, "cut");
}

bool sroce_cc_may_send(struct sroce_qp *qp)
{
	struct sroce_dcqcn *d = &qp->cc.rp;
	struct sroce_dcqcn_params p;
	u64 now, wait, was;

	if (likely(!d->paced))
		return true;
	now = ktime_get_ns();
	sroce_cc_params(&p);
	was = d->rate;
	sroce_dcqcn_advance(d, &p, now);
	sroce_cc_trace_increase(qp, was);
	if (!d->paced) {
		sroce_cc_trace(qp, "free");
		return true;
	}
	if (!READ_ONCE(sroce_dcqcn)) {
		/* Switched off meanwhile: back to unpaced at once. */
		sroce_dcqcn_reset(d);
		return true;
	}
	wait = sroce_dcqcn_delay(d, &p, now);
	if (!wait)
		return true;
	sroce_count(to_sroce_dev(qp->ib_qp.device), SROCE_CNT_RP_PACING_WAITS);
	if (!qp->dying)
		hrtimer_start_range_ns(&qp->cc.pace_timer,
				       ns_to_ktime(now + wait),
				       min_t(u64, wait / 4, 50 * NSEC_PER_USEC),
				       HRTIMER_MODE_ABS_SOFT);
	return false;
}

/*
 * The rate of @ib_qp for `rdma resource show qp -dd` (process context):
 * cc_paced, and while paced cc_rate_kbit, cc_target_kbit, cc_alpha (of
 * 1024).
 */
int sroce_cc_fill_res_qp(struct sk_buff *msg, struct ib_qp *ib_qp)
{
	struct sroce_qp *qp = to_sroce_qp(ib_qp);
	struct sroce_dcqcn d;
	struct nlattr *nest;

	spin_lock_bh(&qp->snd.lock);
	d = qp->cc.rp;
	spin_unlock_bh(&qp->snd.lock);
	/* The driver's own attributes go in a nest of their own. */
	nest = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cc_paced", d.paced) ||
	    (d.paced &&
	     (rdma_nl_put_driver_u64(msg, "cc_rate_kbit", d.rate / 125) ||
	      rdma_nl_put_driver_u64(msg, "cc_target_kbit", d.target / 125) ||
	      rdma_nl_put_driver_u32(msg, "cc_alpha", d.alpha)))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

void sroce_cc_sent(struct sroce_qp *qp, u32 len)
{
	struct sroce_dcqcn *d = &qp->cc.rp;
	struct sroce_dcqcn_params p;
	u64 was;

	len += SROCE_CC_WIRE_OVERHEAD;
	if (likely(!d->paced)) {
		/*
		 * Only measured, for a first CNP: to the clock tick, which
		 * costs next to nothing (no clock read), and the windows
		 * are several ticks long.
		 */
		sroce_dcqcn_sent(d, NULL, ktime_get_coarse_ns(), len);
		return;
	}
	sroce_cc_params(&p);
	was = d->rate;
	sroce_dcqcn_sent(d, &p, ktime_get_ns(), len);
	sroce_cc_trace_increase(qp, was);
	if (!d->paced)
		sroce_cc_trace(qp, "free");
}
