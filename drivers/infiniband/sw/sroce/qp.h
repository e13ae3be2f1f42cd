/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs.
 *
 * Lifetime: the RDMA core allocates struct sroce_qp and frees it after
 * destroy_qp returns. Data-path users (receive by QPN, later the engines)
 * look a QP up under RCU and take a reference (refcnt); destroy removes
 * the QPN, waits for an RCU grace period and for the last reference, and
 * only then lets the core free the memory.
 *
 * Locking:
 *  - lock (mutex) serialises modify, destroy and flushes, and protects
 *    state, attr and av. The data path reads state with READ_ONCE.
 *  - sq_lock (BH-safe spinlock) serialises the kernel's consumers of the
 *    SQ ring (requester, flush); rq_lock those of the RQ ring (responder
 *    in softirq, flush). Neither is held while sleeping.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

#include "av.h"
#include "queue.h"

struct sroce_cq;

struct sroce_qp {
	struct ib_qp ib_qp;

	refcount_t refcnt;
	struct completion released;
	bool user;

	struct mutex lock;
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct sroce_av av;

	spinlock_t sq_lock;
	struct sroce_queue sq;
	u32 sq_psn;
	u32 sq_max_sge;
	u32 sq_max_inline;
	bool sig_all;

	spinlock_t rq_lock;
	struct sroce_queue rq;
	bool has_rq;
	u32 rq_max_sge;

	struct sroce_cq *scq;
	struct sroce_cq *rcq;
};

static inline struct sroce_qp *to_sroce_qp(struct ib_qp *ib_qp)
{
	return container_of(ib_qp, struct sroce_qp, ib_qp);
}

/* Referenced QP for @qpn, or NULL. Any context. */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);

/* qp_state.c: state changes; called with qp->lock held. */
int sroce_qp_modify_locked(struct sroce_qp *qp, struct ib_qp_attr *attr,
			   int mask);
void sroce_qp_flush_sq(struct sroce_qp *qp);
void sroce_qp_error(struct sroce_qp *qp);

/* requester.c: runs the send queue (process context). */
void sroce_requester_run(struct sroce_qp *qp);

/* responder.c: a validated packet for @qp (softirq). */
struct sroce_packet_info;
void sroce_responder_recv(struct sroce_qp *qp, struct sk_buff *skb,
			  const struct sroce_packet_info *info);

#endif /* SROCE_QP_H */
