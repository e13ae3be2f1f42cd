// SPDX-License-Identifier: GPL-2.0
/*
 * The per-QP engine: the single execution context of a QP's transport.
 *
 * Every event that gives a QP work - the send doorbell, a received packet,
 * a timer, a state change - kicks the engine. The kicker sets the PENDING
 * bit and tries to take eng_lock: if that works it runs the engine in
 * place (process context or softirq, bottom halves off), otherwise the
 * current owner sees PENDING before it lets go. A run does at most
 * SROCE_ENGINE_BUDGET packets of work in and out; if more is left, it
 * hands over to the QP's work item, which keeps going in process context
 * and yields the CPU between runs. So no softirq does long work, the
 * common case (a short message, an ACK) costs no context switch, and no
 * lock is shared between QPs on the data path.
 *
 * The work item, the timers and queued packets all belong to the QP:
 * sroce_engine_stop() (destroy) ends them before the QP is freed.
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>

#include <sroce/packet.h>

#include "sroce.h"
#include "qp.h"

#define SROCE_ENGINE_BUDGET	64
/* Packets queued for one QP beyond this are dropped (the peer retries). */
#define SROCE_RX_QUEUE_MAX	4096

static struct workqueue_struct *sroce_engine_wq;

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

/* Drops what is queued for a QP that no longer takes packets. */
static void sroce_engine_drop_rx(struct sroce_qp *qp)
{
	skb_queue_purge(&qp->rx_queue);
}

/* One bounded run, under eng_lock. Returns true if work is left. */
static bool sroce_engine_step(struct sroce_qp *qp)
{
	int budget = SROCE_ENGINE_BUDGET;
	struct sk_buff *skb;
	bool more;

	if (qp->dying)
		return false;

	switch (qp->state) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
		sroce_engine_drop_rx(qp);
		return false;
	case IB_QPS_ERR:
		sroce_engine_drop_rx(qp);
		sroce_completer_flush(qp);
		sroce_responder_flush(qp);
		return false;
	default:
		break;
	}

	if (test_and_clear_bit(SROCE_ENG_RETRY, &qp->eng_flags))
		sroce_completer_timeout(qp);
	if (test_and_clear_bit(SROCE_ENG_RNR, &qp->eng_flags))
		qp->req.rnr_wait = false;

	while (budget > 0 && qp->state != IB_QPS_ERR &&
	       (skb = skb_dequeue(&qp->rx_queue))) {
		if (sroce_skb_info(skb)->op->flags & SROCE_OPF_RESP)
			sroce_completer_recv(qp, skb);
		else
			sroce_responder_recv(qp, skb);
		consume_skb(skb);
		budget--;
	}
	if (qp->state == IB_QPS_ERR)
		return true;	/* the next run flushes */
	/*
	 * Packets that arrived after the loop set PENDING themselves: only
	 * an exhausted budget is a reason to hand over to the work item.
	 */
	more = budget <= 0 && !skb_queue_empty(&qp->rx_queue);
	more |= sroce_responder_send(qp, &budget);
	more |= sroce_requester_run(qp, &budget);
	return more || qp->state == IB_QPS_ERR;
}

/*
 * Runs the engine while it is wanted and nobody else runs it. @in_work:
 * called from the work item, which may go on for as long as there is work
 * (yielding between runs); anywhere else a run that leaves work behind
 * hands it to the work item.
 */
static void sroce_engine_loop(struct sroce_qp *qp, bool in_work)
{
	for (;;) {
		bool more = false;

		if (!spin_trylock_bh(&qp->eng_lock))
			return;
		while (test_and_clear_bit(SROCE_ENG_PENDING, &qp->eng_flags)) {
			more = sroce_engine_step(qp);
			if (more) {
				set_bit(SROCE_ENG_PENDING, &qp->eng_flags);
				if (!in_work && !qp->dying)
					queue_work(sroce_engine_wq,
						   &qp->eng_work);
				break;
			}
		}
		spin_unlock_bh(&qp->eng_lock);
		if (more) {
			if (!in_work)
				return;
			/*
			 * Softirqs still pending here went to ksoftirqd: the
			 * receive side (on one host, the peer we feed) is
			 * behind. Step aside until it has caught up, instead
			 * of filling its backlog until it drops.
			 */
			if (local_softirq_pending())
				usleep_range(20, 50);
			else
				cond_resched();
			continue;
		}
		/* A kick between our last test and the unlock is ours. */
		smp_mb();
		if (!test_bit(SROCE_ENG_PENDING, &qp->eng_flags))
			return;
	}
}

void sroce_engine_kick(struct sroce_qp *qp)
{
	set_bit(SROCE_ENG_PENDING, &qp->eng_flags);
	smp_mb__after_atomic();
	/*
	 * A kernel consumer may post with interrupts off, where bottom
	 * halves cannot be re-enabled: the work item runs the engine then.
	 */
	if (unlikely(irqs_disabled())) {
		if (!READ_ONCE(qp->dying))
			queue_work(sroce_engine_wq, &qp->eng_work);
		return;
	}
	sroce_engine_loop(qp, false);
}

static void sroce_engine_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, eng_work);

	sroce_engine_loop(qp, true);
}

static void sroce_retry_timer_fn(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, retry_timer);

	set_bit(SROCE_ENG_RETRY, &qp->eng_flags);
	sroce_engine_kick(qp);
}

static void sroce_rnr_timer_fn(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, rnr_timer);

	set_bit(SROCE_ENG_RNR, &qp->eng_flags);
	sroce_engine_kick(qp);
}

/*
 * Local ACK timeout (IBTA 9.7.6.1.3): 4.096 us * 2^timeout; 0 means wait
 * forever. Engine context.
 */
void sroce_engine_arm_retry(struct sroce_qp *qp)
{
	u8 t = qp->attr.timeout;
	u64 usecs;

	if (qp->dying || !t)
		return;
	/* Codes above 29 mean hours; an hour is as good as for ever. */
	usecs = min_t(u64, (4096ULL << t) / 1000, 3600ULL * USEC_PER_SEC);
	mod_timer(&qp->retry_timer, jiffies + usecs_to_jiffies(usecs) + 1);
}

void sroce_engine_arm_rnr(struct sroce_qp *qp, u32 usecs)
{
	if (qp->dying)
		return;
	mod_timer(&qp->rnr_timer, jiffies + usecs_to_jiffies(usecs) + 1);
}

/*
 * A validated packet for @qp (receive softirq, under RCU). Queued in
 * arrival order; the engine takes it from there.
 */
void sroce_engine_rx(struct sroce_qp *qp, struct sk_buff *skb,
		     const struct sroce_packet_info *info)
{
	struct sroce_dev *sdev = to_sroce_dev(qp->ib_qp.device);

	BUILD_BUG_ON(sizeof(*info) > sizeof(skb->cb));
	if (skb_queue_len(&qp->rx_queue) >= SROCE_RX_QUEUE_MAX) {
		sroce_count(sdev, SROCE_CNT_RX_QUEUE_FULL);
		kfree_skb(skb);
		return;
	}
	memcpy(skb->cb, info, sizeof(*info));
	skb_queue_tail(&qp->rx_queue, skb);
	sroce_engine_kick(qp);
}

void sroce_engine_setup(struct sroce_qp *qp)
{
	spin_lock_init(&qp->eng_lock);
	INIT_WORK(&qp->eng_work, sroce_engine_work);
	skb_queue_head_init(&qp->rx_queue);
	timer_setup(&qp->retry_timer, sroce_retry_timer_fn, 0);
	timer_setup(&qp->rnr_timer, sroce_rnr_timer_fn, 0);
}

/*
 * Ends all engine activity for good (destroy, after the QP left the QPN
 * table and the receive path). Process context.
 */
void sroce_engine_stop(struct sroce_qp *qp)
{
	spin_lock_bh(&qp->eng_lock);
	qp->dying = true;
	spin_unlock_bh(&qp->eng_lock);
	/* Neither re-arms nor queues once dying is seen. */
	del_timer_sync(&qp->retry_timer);
	del_timer_sync(&qp->rnr_timer);
	cancel_work_sync(&qp->eng_work);
	/* A run that had started stops at the lock or at dying. */
	spin_lock_bh(&qp->eng_lock);
	spin_unlock_bh(&qp->eng_lock);
	sroce_engine_drop_rx(qp);
}
