/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs and their transport state.
 *
 * Lifetime: the RDMA core allocates struct sroce_qp and frees it (at
 * once, not after a grace period) when destroy_qp returns. The QPN table
 * therefore does not point at the QP but at a small handle of our own
 * (struct sroce_qp_ref) that holds the reference count and is freed with
 * kfree_rcu(): a lookup under RCU only touches the handle until it has a
 * reference, and only then the QP. Destroy removes the QPN, drops the
 * creation reference, waits for the last one (receive paths hold theirs
 * only while they queue a packet), stops the timers and the engines'
 * work items, and only then lets the core free the QP. No grace period is
 * waited for: destroying thousands of QPs stays fast.
 *
 * Execution: the transport work of a QP runs in its two engines
 * (engine.c): "snd" (requester, completer, timers) and "rcv" (responder),
 * each one run at a time under its own lock with bottom halves off, the
 * two in parallel. A run does a bounded amount of work; whoever kicks an
 * engine runs it in place if it is idle (send doorbell, receive softirq),
 * otherwise the running owner picks the new work up before it leaves.
 * Longer work continues in the engine's work item.
 *
 * Locking:
 *  - lock (mutex) serialises the verbs that change the QP (modify,
 *    destroy) and protects attr and av against concurrent verbs.
 *  - snd.lock protects req, rec, rgap, rtt, cc.rp, the send window (the SQ's
 *    kernel-side indices and shadow, send_window.h) and the timers;
 *    rcv.lock protects resp and the RQ's kernel-side indices. Both are
 *    BH spinlocks.
 *  - state, attr, av and mtu change under both (sroce_engine_lock(),
 *    snd first), so either one is enough to read them - except that
 *    either engine may move state to ERR holding only its own lock
 *    (sroce_qp_set_error()); the other half reads state with READ_ONCE
 *    and finds ERR on its next check.
 *  - Each engine's rx queue has its own lock: the receive softirq
 *    appends, the engine removes.
 *  - Kernel QPs only: sq_lock and rq_lock serialise the producers of the
 *    SQ and RQ (ib_post_send/ib_post_recv, verbs_post.c). They are
 *    irq-safe, because ULPs post from any context but hard irq, some
 *    with interrupts off, and never nest with the engine locks.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include <sroce/packet.h>
#include <sroce/recovery.h>
#include <sroce/resp_res.h>

#include "av.h"
#include "cc.h"
#include "queue.h"
#include "drop.h"
#include "odp.h"
#include "read_gap.h"
#include "rtt.h"
#include "send_window.h"
#include "tx_burst.h"

struct sroce_cq;

/*
 * The completer's own state besides the send window: the retry budgets,
 * and whether a drained SQ was reported (completer.c writes it). Loss
 * recovery (rec, recovery.c), the read gaps (rgap, read_gap.c) and the
 * round trip (rtt, rtt.c) each have their own writer too.
 */
struct sroce_req {
	u8 retry_left;
	u8 rnr_left;
	bool sqd_notified;
};

/* Responder position; see responder.c. */
struct sroce_resp {
	u32 psn;		/* expected PSN */
	u32 msn;
	bool nak_sent;		/* a sequence-error NAK is outstanding */
	/* A request was dropped for an on-demand fault: NAK when served. */
	bool odp_nudge;
	/*
	 * RC: packets ahead of psn, by PSN, until the gap fills, and their
	 * truesize (rx_limits.h); hold_since: when the gap last moved.
	 */
	struct sk_buff_head held;
	u32 held_bytes;
	unsigned long hold_since;	/* jiffies */
	bool ack_pending;
	u32 ack_psn;
	/* The message being received (RC/UC). */
	bool in_msg;
	bool msg_write;		/* an RDMA WRITE, else a SEND */
	bool drop_msg;		/* UC: rest of a broken message */
	u32 offset;
	u64 va;
	u32 rkey;
	u32 dma_len;
	/*
	 * Kernel copy of the receive WQE a SEND lands in (rq_slot_size).
	 * From the QP's RQ it stays in its slot until it completes; from an
	 * SRQ it left the ring when taken, and only this copy is left.
	 */
	void *rwqe;
	bool have_rwqe;
	bool last_wqe_reported;	/* SRQ: LAST_WQE_REACHED raised in ERR */
	/* Read/atomic resources (RC), SROCE_MAX_RD_ATOMIC slots. */
	struct sroce_rres_ring rres;
};

/* Engine flags (struct sroce_engine.flags, atomic bit numbers). */
enum {
	SROCE_ENG_PENDING,	/* a run is wanted */
	SROCE_ENG_RETRY,	/* snd: the retransmission timer fired */
	SROCE_ENG_RNR,		/* snd: the RNR timer fired */
	SROCE_ENG_HOLD,		/* rcv: the hold timer fired */
};

/* One of a QP's two engines (engine.c). */
struct sroce_engine {
	spinlock_t lock;
	unsigned long flags;
	struct work_struct work;
	/* Packets for this half, and their truesize (under rx.lock). */
	struct sk_buff_head rx;
	unsigned int rx_bytes;
	/* Packets of the current step for the wire (tx_burst.c). */
	struct sroce_tx_burst tx;
};

/* What the receive path stores in the cb of a packet it queues. */
struct sroce_rx_cb {
	struct sroce_packet_info info;	/* first: see sroce_skb_info() */
	/* The local QP that sent it (sroce_recv()), or SROCE_RX_FROM_WIRE. */
	u32 local_src;
};

static inline struct sroce_rx_cb *sroce_skb_rx_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_rx_cb) > sizeof(skb->cb));
	return (struct sroce_rx_cb *)skb->cb;
}

/* The packet info the receive path stored in a queued skb. */
static inline struct sroce_packet_info *sroce_skb_info(struct sk_buff *skb)
{
	return &sroce_skb_rx_cb(skb)->info;
}

/*
 * IBV_WR_ATOMIC_WRITE as librxe writes it into the send ring (rdma-core
 * v44: 8-byte value in dma.inline_data, no SGEs); the 6.1 kernel has no
 * IB_WR_ opcode for it, so only user QPs can post it.
 */
#define SROCE_WR_ATOMIC_WRITE	15

/* What the QPN table points at; see "Lifetime" above. */
struct sroce_qp_ref {
	refcount_t count;
	struct completion released;	/* count reached zero */
	struct sroce_qp *qp;
	struct rcu_head rcu;
};

struct sroce_qp {
	struct ib_qp ib_qp;

	struct sroce_qp_ref *ref;
	/* Created through uverbs: its rings are librxe's. Fixed. */
	bool user;
	spinlock_t sq_lock;
	spinlock_t rq_lock;

	struct mutex lock;
	struct ib_qp_attr attr;
	struct sroce_av av;
	/*
	 * Route to av (connected QPs), used by both engines (a dst_cache is
	 * per CPU); reset under both engine locks when av changes.
	 */
	struct dst_cache dst_cache;

	/* Engines (engine.c); see "Locking" above. */
	struct sroce_engine snd;
	struct sroce_engine rcv;
	struct timer_list retry_timer;
	struct timer_list rnr_timer;
	struct timer_list hold_timer;	/* ageing of resp.held */
	bool dying;			/* set under both engine locks */
	/* On-demand page faults each engine waits for (odp.h). */
	struct sroce_odp_fault odp_snd;
	struct sroce_odp_fault odp_rcv;

	enum ib_qp_state state;
	u32 mtu;		/* path MTU in bytes */

	struct sroce_queue sq;
	struct sroce_send_window swin;	/* send_window.h */
	u32 sq_max_sge;
	u32 sq_max_inline;
	bool sig_all;
	struct sroce_req req;
	struct sroce_recovery rec;	/* sroce/recovery.h */
	struct sroce_read_gap rgap;	/* read_gap.h */
	struct sroce_rtt rtt;		/* rtt.h */
	struct sroce_cc cc;		/* cc.h: rate, CNPs */

	/* Receive WQEs come from the QP's own RQ or from an SRQ. */
	struct sroce_queue rq;
	bool has_rq;
	struct sroce_srq *srq;
	u32 rq_max_sge;
	u32 rq_slot_size;
	struct sroce_resp resp;

	struct sroce_cq *scq;
	struct sroce_cq *rcq;
};

static inline struct sroce_qp *to_sroce_qp(struct ib_qp *ib_qp)
{
	return container_of(ib_qp, struct sroce_qp, ib_qp);
}

static inline bool sroce_qp_is_rc(const struct sroce_qp *qp)
{
	return qp->ib_qp.qp_type == IB_QPT_RC;
}

/* Datagram QPs: UD, and the GSI QP (QP1), which is UD on the wire. */
static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->ib_qp.qp_type == IB_QPT_UD ||
	       qp->ib_qp.qp_type == IB_QPT_GSI;
}

/*
 * A kernel UD WQE names its AH by pointer (ah.h: its owner keeps it alive
 * until the WQE completes), stored where the user ABI has padding. The
 * kernel SQ is kernel memory: never read this from a user ring.
 */
static inline void sroce_wqe_set_kernel_ah(struct rxe_send_wqe *wqe,
					   struct ib_ah *ah)
{
	BUILD_BUG_ON(sizeof(wqe->wr.wr.ud.pad) < sizeof(ah));
	memcpy(wqe->wr.wr.ud.pad, &ah, sizeof(ah));
}

static inline struct ib_ah *
sroce_wqe_kernel_ah(const struct rxe_send_wqe *wqe)
{
	struct ib_ah *ah;

	memcpy(&ah, wqe->wr.wr.ud.pad, sizeof(ah));
	return ah;
}

/* The work request opcodes @qp can execute (requester.c). */
bool sroce_qp_op_allowed(const struct sroce_qp *qp, u32 op);
/* Opcodes whose message bytes come from the WQE (SGEs or inline data). */
bool sroce_wr_carries_data(u32 op);

/* Referenced QP for @qpn, or NULL. Any context. */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);

/* qp_state.c: state changes; called with qp->lock held. */
int sroce_qp_modify_locked(struct sroce_qp *qp, struct ib_qp_attr *attr,
			   int mask);
/* Under an engine lock: a fatal error found by an engine. */
void sroce_qp_set_error(struct sroce_qp *qp);
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);

/* engine.c */
int sroce_engine_init(void);
void sroce_engine_exit(void);
void sroce_engine_setup(struct sroce_qp *qp);
void sroce_engine_stop(struct sroce_qp *qp);
void sroce_engine_kick(struct sroce_qp *qp);
void sroce_engine_kick_send(struct sroce_qp *qp);
void sroce_engine_kick_recv(struct sroce_qp *qp);
void sroce_engine_lock(struct sroce_qp *qp)
	__acquires(&qp->snd.lock) __acquires(&qp->rcv.lock);
void sroce_engine_unlock(struct sroce_qp *qp)
	__releases(&qp->rcv.lock) __releases(&qp->snd.lock);
void sroce_engine_drop_rx(struct sroce_qp *qp);
/*
 * A received packet for @qp: queued for the engine of its half, which is
 * kicked. sroce_engine_rx_queue() only queues, and returns that engine
 * for the caller to kick with sroce_engine_kick_rx() after the rest of a
 * batch (NULL: the queue was full, the packet dropped and counted).
 */
void sroce_engine_rx(struct sroce_qp *qp, struct sk_buff *skb,
		     const struct sroce_packet_info *info, u32 local_src);
struct sroce_engine *sroce_engine_rx_queue(struct sroce_qp *qp,
					   struct sk_buff *skb,
					   const struct sroce_packet_info *info,
					   u32 local_src);
void sroce_engine_kick_rx(struct sroce_qp *qp, struct sroce_engine *e);
void sroce_engine_arm_rnr(struct sroce_qp *qp, u32 usecs);
void sroce_engine_arm_hold(struct sroce_qp *qp, unsigned long expires);

/* requester.c (send engine) */
/* The UDP source port of @qp's packets to QP @dest_qpn. */
u16 sroce_qp_udp_sport(const struct sroce_qp *qp, u32 dest_qpn);
void sroce_requester_reset(struct sroce_qp *qp);
bool sroce_requester_run(struct sroce_qp *qp, int *budget);
void sroce_requester_discard(struct sroce_qp *qp);
int sroce_send_packet(struct sroce_qp *qp, struct sroce_engine *e,
		      struct sk_buff *skb);

/* completer.c (send engine) */
enum sroce_drop_reason sroce_completer_recv(struct sroce_qp *qp,
					    struct sk_buff *skb);
void sroce_completer_timeout(struct sroce_qp *qp);
void sroce_completer_retire(struct sroce_qp *qp);
void sroce_completer_rnr_expired(struct sroce_qp *qp);
void sroce_completer_sqd_begin(struct sroce_qp *qp);
void sroce_completer_reset(struct sroce_qp *qp);
/* Read or atomic data up to @psn of WQE @idx (@st) is in place. */
void sroce_completer_placed(struct sroce_qp *qp, u32 idx,
			    const struct sroce_send_state *st, u32 psn);

/* responder.c (receive engine) */
void sroce_responder_reset(struct sroce_qp *qp);
enum sroce_drop_reason sroce_responder_recv(struct sroce_qp *qp,
					    struct sk_buff *skb);
bool sroce_responder_send(struct sroce_qp *qp, int *budget);
void sroce_responder_flush(struct sroce_qp *qp);
void sroce_responder_discard(struct sroce_qp *qp);
void sroce_responder_drop_held(struct sroce_qp *qp);
void sroce_responder_age_held(struct sroce_qp *qp);

#endif /* SROCE_QP_H */
