// SPDX-License-Identifier: GPL-2.0
/*
 * The per-QP engines: the execution contexts of a QP's transport.
 *
 * A QP has two engines, one per direction, so that the two directions of
 * a connection run in parallel on two CPUs, as they would on two ports of
 * an adapter:
 *
 *   snd  the requester and the completer: our requests out, their
 *        responses (ACKs, NAKs, read responses) in, the send completions,
 *        the retransmission and RNR timers;
 *   rcv  the responder: requests in, their responses out, the receive
 *        completions.
 *
 * With a single engine, a ping-pong between two QPs serialises on one
 * CPU: the peer's reply would wait for our own ACK processing to end.
 *
 * Every event that gives an engine work - the send doorbell, a received
 * packet, a timer, a state change - kicks it. The kicker sets its PENDING
 * bit and tries to take its lock: if that works it runs the engine in
 * place (process context or softirq, bottom halves off), otherwise the
 * current owner sees PENDING before it lets go. So the common case (a
 * short message, an ACK) costs no context switch, and no lock is shared
 * between QPs on the data path. Engines only ever trylock each other (a
 * run delivers packets to other QPs' engines, or to the other half of its
 * own QP): there is no lock order among them.
 *
 * Every run is bounded, whoever asks for it:
 *  - a step does at most SROCE_ENGINE_BUDGET packets of work in and out,
 *    and a run in place at most SROCE_ENGINE_STEPS steps, however often
 *    PENDING is set again meanwhile (local responses set it during the
 *    run); what is left goes to the engine's work item;
 *  - the work item does at most SROCE_WORK_RUNS such runs, yielding the
 *    CPU between them, then queues itself again behind the other work
 *    items of its pool;
 *  - runs in place nest: a run that delivers a packet locally runs the
 *    destination's engine on its own stack, and that one may deliver
 *    again. Each CPU counts the runs on its stack (bottom halves are off
 *    during a run, so nothing else runs there meanwhile); past
 *    SROCE_ENGINE_NEST a kick leaves the run to the work item. Two levels
 *    are what a request and its response between two local QPs need;
 *  - a timer of the timer wheel (retry, RNR, hold) never runs an engine
 *    itself: it hands the run to the work item. The timer softirq runs
 *    timers until it has caught up with jiffies, and a run re-arms its
 *    QP's timer (the probe timeout is 10 ms): a run longer than that (a
 *    slow or busy CPU) would have the softirq run it again and again,
 *    for ever. The pacing hrtimer (cc.c) may run in place: its softirq
 *    only runs timers that expired before it started.
 * So no softirq does long work, and neither a process refilling its ring
 * nor a chain of QPs pointing at each other can keep a CPU or grow a stack
 * without bound.
 *
 * The work items, the timers and queued packets all belong to the QP:
 * sroce_engine_stop() (destroy) ends them before the QP is freed.
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>

#include <sroce/packet.h>

#include "sroce.h"
#include "qp.h"
#include "rx_limits.h"

#define SROCE_ENGINE_BUDGET	64
#define SROCE_ENGINE_STEPS	4
#define SROCE_WORK_RUNS		16
#define SROCE_ENGINE_NEST	2

static struct workqueue_struct *sroce_engine_wq;
/* Engine runs on this CPU's stack (see the top of the file). */
static DEFINE_PER_CPU(unsigned int, sroce_engine_depth);

int sroce_engine_init(void)
{
	/*
	 * WQ_HIGHPRI: at normal priority the work item waits behind
	 * processes that busy-poll their CQs (perftest does, on both ends),
	 * and the peer times out. Its sends cannot starve the receive
	 * softirq it feeds in turn: it steps aside while that is behind
	 * (sroce_engine_loop()) and reads are paced by the requester.
	 */
	sroce_engine_wq = alloc_workqueue("sroce_engine", WQ_HIGHPRI, 0);
	return sroce_engine_wq ? 0 : -ENOMEM;
}

void sroce_engine_exit(void)
{
	destroy_workqueue(sroce_engine_wq);
}

/* The oldest packet queued for @e, or NULL. */
static struct sk_buff *sroce_engine_rx_pop(struct sroce_engine *e)
{
	struct sk_buff *skb;
	unsigned long flags;

	spin_lock_irqsave(&e->rx.lock, flags);
	skb = __skb_dequeue(&e->rx);
	if (skb)
		e->rx_bytes -= skb->truesize;
	spin_unlock_irqrestore(&e->rx.lock, flags);
	return skb;
}

/* Drops every packet queued for @e. */
static void sroce_engine_rx_purge(struct sroce_qp *qp, struct sroce_engine *e)
{
	struct sk_buff_head taken;
	unsigned long flags;

	__skb_queue_head_init(&taken);
	spin_lock_irqsave(&e->rx.lock, flags);
	skb_queue_splice_init(&e->rx, &taken);
	e->rx_bytes = 0;
	spin_unlock_irqrestore(&e->rx.lock, flags);
	sroce_drop_list(qp->ib_qp.device, qp->ib_qp.qp_num, &taken,
			SROCE_DROP_QP_STATE);
}

/*
 * What a run of either engine does first. Returns true if the engine is
 * to go on; false in a state where it has nothing to do: it drops what
 * it was sent and, in ERR, flushes its work queue.
 */
static bool sroce_engine_may_run(struct sroce_qp *qp, struct sroce_engine *e)
{
	if (qp->dying)
		return false;
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
		sroce_engine_rx_purge(qp, e);
		return false;
	case IB_QPS_ERR:
		sroce_engine_rx_purge(qp, e);
		if (e == &qp->snd)
			sroce_swin_flush(qp);
		else
			sroce_responder_flush(qp);
		return false;
	default:
		return true;
	}
}

/*
 * A connected QP (RC, UC) takes packets from its peer only, requests and
 * responses alike: anything else is dropped before it can touch the
 * QP's state. Checked here, under the engine lock, because the path it
 * is checked against changes under that lock (modify). The addresses
 * are all the network tells; a packet another QP of this host sent is
 * known by its sender too: any local user may point a QP of its own at
 * ours, from the very address of our peer, so it must be the peer QP.
 */
static bool sroce_engine_from_peer(struct sroce_qp *qp, struct sk_buff *skb)
{
	u32 local_src = sroce_skb_rx_cb(skb)->local_src;

	if (sroce_qp_is_ud(qp))
		return true;
	if (sroce_av_sent_by_peer(&qp->av, skb) &&
	    (local_src == SROCE_RX_FROM_WIRE ||
	     local_src == qp->attr.dest_qp_num))
		return true;
	sroce_count(to_sroce_dev(qp->ib_qp.device), SROCE_CNT_RX_NOT_PEER);
	return false;
}

/*
 * One packet for @e's half: a connected QP's must come from its peer. A
 * packet that arrived marked CE may make us tell the peer (a CNP); a CNP
 * (send engine only) lowers our rate (cc.c).
 */
static enum sroce_drop_reason sroce_engine_deliver(struct sroce_qp *qp,
						   struct sroce_engine *e,
						   struct sk_buff *skb)
{
	if (!sroce_engine_from_peer(qp, skb))
		return SROCE_DROP_NOT_PEER;
	if (unlikely(sroce_cc_skb_ce(skb))) {
		sroce_count(to_sroce_dev(qp->ib_qp.device),
			    SROCE_CNT_NP_ECN_MARKED);
		sroce_cc_marked(qp, skb);
	}
	if (unlikely(sroce_skb_info(skb)->op->flags & SROCE_OPF_CNP)) {
		if (sroce_qp_is_ud(qp))
			return SROCE_DROP_WRONG_TRANSPORT;
		sroce_cc_cnp(qp);
		return SROCE_RX_USED;
	}
	if (e == &qp->snd)
		return sroce_completer_recv(qp, skb);
	return sroce_responder_recv(qp, skb);
}

/*
 * Handles @e's queued packets within @budget: responses in the send
 * engine, requests in the receive engine. Returns true if the QP is in
 * ERR afterwards (the next run flushes).
 */
static bool sroce_engine_take_rx(struct sroce_qp *qp, struct sroce_engine *e,
				 int *budget)
{
	enum sroce_drop_reason fate;
	struct sk_buff *skb;

	while (*budget > 0 && READ_ONCE(qp->state) != IB_QPS_ERR &&
	       (skb = sroce_engine_rx_pop(e))) {
		fate = sroce_engine_deliver(qp, e, skb);
		if (fate == SROCE_RX_USED)
			consume_skb(skb);
		else if (fate != SROCE_RX_HELD)
			sroce_drop_skb(qp->ib_qp.device, qp->ib_qp.qp_num,
				       skb, fate);
		(*budget)--;
	}
	return READ_ONCE(qp->state) == IB_QPS_ERR;
}

/* One bounded run of the send engine, under its lock. True: work left. */
static bool sroce_engine_step_snd(struct sroce_qp *qp)
{
	struct sroce_engine *e = &qp->snd;
	int budget = SROCE_ENGINE_BUDGET;
	bool more;

	if (!sroce_engine_may_run(qp, e))
		return false;
	if (test_and_clear_bit(SROCE_ENG_RETRY, &e->flags))
		sroce_completer_timeout(qp);
	if (test_and_clear_bit(SROCE_ENG_RNR, &e->flags))
		sroce_completer_rnr_expired(qp);
	if (sroce_engine_take_rx(qp, e, &budget))
		return true;
	/*
	 * Packets that arrived after the loop set PENDING themselves: only
	 * an exhausted budget is a reason to hand over to the work item.
	 */
	more = budget <= 0 && !skb_queue_empty(&e->rx);
	more |= sroce_requester_run(qp, &budget);
	return more || READ_ONCE(qp->state) == IB_QPS_ERR;
}

/* One bounded run of the receive engine, under its lock. */
static bool sroce_engine_step_rcv(struct sroce_qp *qp)
{
	struct sroce_engine *e = &qp->rcv;
	int budget = SROCE_ENGINE_BUDGET;
	bool more;

	if (!sroce_engine_may_run(qp, e))
		return false;
	if (test_and_clear_bit(SROCE_ENG_HOLD, &e->flags))
		sroce_responder_age_held(qp);
	if (sroce_engine_take_rx(qp, e, &budget))
		return true;
	more = budget <= 0 && !skb_queue_empty(&e->rx);
	more |= sroce_responder_send(qp, &budget);
	return more || READ_ONCE(qp->state) == IB_QPS_ERR;
}

static bool sroce_engine_step(struct sroce_qp *qp, struct sroce_engine *e)
{
	bool more = e == &qp->snd ? sroce_engine_step_snd(qp) :
				    sroce_engine_step_rcv(qp);

	/* What the step sent to the wire leaves now, in one go. */
	sroce_tx_flush(&e->tx);
	return more;
}

static void sroce_engine_kick_one(struct sroce_qp *qp, struct sroce_engine *e);

/* Hands @e's remaining work to its work item (not once the QP is dying). */
static void sroce_engine_defer(struct sroce_qp *qp, struct sroce_engine *e)
{
	set_bit(SROCE_ENG_PENDING, &e->flags);
	if (!READ_ONCE(qp->dying))
		queue_work(sroce_engine_wq, &e->work);
}

/*
 * At most SROCE_ENGINE_STEPS steps of @e, under its lock. True: work is
 * left (PENDING is set again).
 */
static bool sroce_engine_run(struct sroce_qp *qp, struct sroce_engine *e)
{
	struct sroce_engine *other = e == &qp->snd ? &qp->rcv : &qp->snd;
	unsigned int steps = 0;
	bool more = false;

	__this_cpu_inc(sroce_engine_depth);
	while (test_and_clear_bit(SROCE_ENG_PENDING, &e->flags)) {
		if (sroce_engine_step(qp, e)) {
			set_bit(SROCE_ENG_PENDING, &e->flags);
			more = true;
			break;
		}
		if (++steps == SROCE_ENGINE_STEPS) {
			more = test_bit(SROCE_ENG_PENDING, &e->flags);
			break;
		}
	}
	/*
	 * An error found here (sroce_qp_set_error()) wants the other half
	 * to flush its queue too. Kicked while this run still counts on
	 * the CPU's stack, so that a chain of such kicks stays within
	 * SROCE_ENGINE_NEST like every other nested run; the other half
	 * only ever trylocks ours, which we hold, so a kick back just
	 * leaves PENDING for us to see before we let go.
	 */
	if (READ_ONCE(qp->state) == IB_QPS_ERR &&
	    test_bit(SROCE_ENG_PENDING, &other->flags))
		sroce_engine_kick_one(qp, other);
	__this_cpu_dec(sroce_engine_depth);
	return more;
}

/*
 * Runs engine @e while it is wanted and nobody else runs it, within the
 * bounds at the top of the file. @in_work: called from its work item.
 */
static void sroce_engine_loop(struct sroce_qp *qp, struct sroce_engine *e,
			      bool in_work)
{
	unsigned int runs = in_work ? SROCE_WORK_RUNS : 1;

	for (;;) {
		bool more;

		if (!spin_trylock_bh(&e->lock))
			return;
		more = sroce_engine_run(qp, e);
		spin_unlock_bh(&e->lock);
		if (!more) {
			/* A kick between our last test and the unlock is ours. */
			smp_mb();
			if (!test_bit(SROCE_ENG_PENDING, &e->flags))
				return;
		}
		/*
		 * Work is left, or new work came in meanwhile (another CPU
		 * may keep kicking for ever): it counts as another run.
		 */
		if (!--runs) {
			sroce_engine_defer(qp, e);
			return;
		}
		/*
		 * Softirqs still pending here went to ksoftirqd: the receive
		 * side (on one host, the peer we feed) is behind. Step aside
		 * until it has caught up, instead of filling its backlog
		 * until it drops.
		 */
		if (local_softirq_pending())
			usleep_range(20, 50);
		else
			cond_resched();
	}
}

static void sroce_engine_kick_one(struct sroce_qp *qp, struct sroce_engine *e)
{
	set_bit(SROCE_ENG_PENDING, &e->flags);
	smp_mb__after_atomic();
	/*
	 * A kernel consumer may post with interrupts off, where bottom
	 * halves cannot be re-enabled, and a run in place may already be
	 * nested deep enough: the work item runs the engine then. (Read
	 * with preemption on, the depth is that of no run: runs keep bottom
	 * halves off.) Unless a run of it is under way, as when an ACK
	 * comes back to the engine whose run sent the request: like a
	 * failed trylock, the owner sees PENDING before it lets go (the
	 * barrier above pairs with the one after its unlock), and a work
	 * item would only wake a kworker that finds nothing to do.
	 */
	if (unlikely(irqs_disabled() ||
		     this_cpu_read(sroce_engine_depth) >= SROCE_ENGINE_NEST)) {
		if (!spin_is_locked(&e->lock))
			sroce_engine_defer(qp, e);
		return;
	}
	sroce_engine_loop(qp, e, false);
}

void sroce_engine_kick_send(struct sroce_qp *qp)
{
	sroce_engine_kick_one(qp, &qp->snd);
}

void sroce_engine_kick_recv(struct sroce_qp *qp)
{
	sroce_engine_kick_one(qp, &qp->rcv);
}

/* Both halves: a state change. */
void sroce_engine_kick(struct sroce_qp *qp)
{
	sroce_engine_kick_one(qp, &qp->snd);
	sroce_engine_kick_one(qp, &qp->rcv);
}

static void sroce_engine_work_snd(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, snd.work);

	sroce_engine_loop(qp, &qp->snd, true);
}

static void sroce_engine_work_rcv(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, rcv.work);

	sroce_engine_loop(qp, &qp->rcv, true);
}

static void sroce_retry_timer_fn(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, retry_timer);

	set_bit(SROCE_ENG_RETRY, &qp->snd.flags);
	sroce_engine_defer(qp, &qp->snd);
}

static void sroce_rnr_timer_fn(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, rnr_timer);

	set_bit(SROCE_ENG_RNR, &qp->snd.flags);
	sroce_engine_defer(qp, &qp->snd);
}

void sroce_engine_arm_rnr(struct sroce_qp *qp, u32 usecs)
{
	if (qp->dying)
		return;
	mod_timer(&qp->rnr_timer, jiffies + usecs_to_jiffies(usecs) + 1);
}

static void sroce_hold_timer_fn(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, hold_timer);

	set_bit(SROCE_ENG_HOLD, &qp->rcv.flags);
	sroce_engine_defer(qp, &qp->rcv);
}

/*
 * Under rcv.lock: the responder wants to look at its held packets at
 * @expires (sroce_responder_age_held()), or earlier if already asked.
 */
void sroce_engine_arm_hold(struct sroce_qp *qp, unsigned long expires)
{
	if (qp->dying)
		return;
	timer_reduce(&qp->hold_timer, expires);
}

/*
 * A validated packet for @qp (receive softirq, under RCU): responses go
 * to the send engine, requests to the receive engine, queued in arrival
 * order.
 */
struct sroce_engine *sroce_engine_rx_queue(struct sroce_qp *qp,
					   struct sk_buff *skb,
					   const struct sroce_packet_info *info,
					   u32 local_src)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);
	/* A CNP is for the sending half too (cc.c). */
	struct sroce_engine *e =
		info->op->flags & (SROCE_OPF_RESP | SROCE_OPF_CNP) ?
		&qp->snd : &qp->rcv;
	unsigned long flags;
	bool full;

	sroce_skb_rx_cb(skb)->info = *info;
	sroce_skb_rx_cb(skb)->local_src = local_src;
	/* Bounded in packets and in bytes: rx_limits.h. */
	spin_lock_irqsave(&e->rx.lock, flags);
	full = skb_queue_len(&e->rx) >= SROCE_RX_QUEUE_MAX ||
	       (u64)e->rx_bytes + skb->truesize > sroce_rx_queue_cap();
	if (!full) {
		__skb_queue_tail(&e->rx, skb);
		e->rx_bytes += skb->truesize;
	}
	spin_unlock_irqrestore(&e->rx.lock, flags);
	if (full) {
		sroce_count(sdev, SROCE_CNT_RX_QUEUE_FULL);
		sroce_drop_skb(&sdev->ib_dev, qp->ib_qp.qp_num, skb,
			       SROCE_DROP_RX_QUEUE_FULL);
		return NULL;
	}
	return e;
}

void sroce_engine_kick_rx(struct sroce_qp *qp, struct sroce_engine *e)
{
	sroce_engine_kick_one(qp, e);
}

void sroce_engine_rx(struct sroce_qp *qp, struct sk_buff *skb,
		     const struct sroce_packet_info *info, u32 local_src)
{
	struct sroce_engine *e = sroce_engine_rx_queue(qp, skb, info,
						       local_src);

	if (e)
		sroce_engine_kick_one(qp, e);
}

static void sroce_engine_init_one(struct sroce_engine *e, work_func_t fn)
{
	INIT_WORK(&e->work, fn);
	skb_queue_head_init(&e->rx);
	sroce_tx_burst_init(&e->tx);
}

void sroce_engine_setup(struct sroce_qp *qp)
{
	/* Two lock classes: sroce_engine_lock() nests rcv inside snd. */
	spin_lock_init(&qp->snd.lock);
	spin_lock_init(&qp->rcv.lock);
	sroce_engine_init_one(&qp->snd, sroce_engine_work_snd);
	sroce_engine_init_one(&qp->rcv, sroce_engine_work_rcv);
	__skb_queue_head_init(&qp->resp.held);
	timer_setup(&qp->retry_timer, sroce_retry_timer_fn, 0);
	timer_setup(&qp->rnr_timer, sroce_rnr_timer_fn, 0);
	timer_setup(&qp->hold_timer, sroce_hold_timer_fn, 0);
	sroce_cc_setup(qp);
	sroce_odp_fault_init(&qp->odp_snd, qp, false);
	sroce_odp_fault_init(&qp->odp_rcv, qp, true);
}

/*
 * Both engine locks, for a change of state or a consistent look at it
 * (modify, query, destroy). Process context only: this is the one place
 * that waits for an engine lock.
 */
void sroce_engine_lock(struct sroce_qp *qp)
	__acquires(&qp->snd.lock) __acquires(&qp->rcv.lock)
{
	spin_lock_bh(&qp->snd.lock);
	spin_lock(&qp->rcv.lock);
}

/*
 * Kicks that found the engines locked meanwhile only set PENDING: their
 * work is run here, as an engine's owner would before it lets go.
 */
void sroce_engine_unlock(struct sroce_qp *qp)
	__releases(&qp->rcv.lock) __releases(&qp->snd.lock)
{
	spin_unlock(&qp->rcv.lock);
	spin_unlock_bh(&qp->snd.lock);
	smp_mb();
	if (test_bit(SROCE_ENG_PENDING, &qp->snd.flags))
		sroce_engine_loop(qp, &qp->snd, false);
	if (test_bit(SROCE_ENG_PENDING, &qp->rcv.flags))
		sroce_engine_loop(qp, &qp->rcv, false);
}

/*
 * Queued packets of both halves, and those the responder holds: the QP
 * takes none in its new state.
 */
void sroce_engine_drop_rx(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->rcv.lock);
	sroce_engine_rx_purge(qp, &qp->snd);
	sroce_engine_rx_purge(qp, &qp->rcv);
	sroce_responder_drop_held(qp);
}

/*
 * Ends all engine activity for good (destroy, after the QP left the QPN
 * table and the receive path). Process context.
 */
void sroce_engine_stop(struct sroce_qp *qp)
{
	sroce_engine_lock(qp);
	qp->dying = true;
	sroce_engine_unlock(qp);
	/* Neither re-arms nor queues once dying is seen. */
	del_timer_sync(&qp->retry_timer);
	del_timer_sync(&qp->rnr_timer);
	del_timer_sync(&qp->hold_timer);
	sroce_cc_stop(qp);
	cancel_work_sync(&qp->snd.work);
	cancel_work_sync(&qp->rcv.work);
	/* A fault served now kicks engines that no longer run. */
	sroce_odp_fault_stop(&qp->odp_snd);
	sroce_odp_fault_stop(&qp->odp_rcv);
	/* A run that had started stops at the lock or at dying. */
	sroce_engine_lock(qp);
	sroce_engine_drop_rx(qp);
	sroce_engine_unlock(qp);
}
