/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced include (-include) that lets the unmodified send_window.c build
 * in user space. The driver headers it includes that pull in the kernel
 * (sroce.h, cq.h, qp.h, trace.h) find their guards already defined and
 * are skipped; what send_window.c takes from them is supplied below,
 * under the same names, down to the fields it touches. send_window.h
 * and queue.h are the driver's own, included for real (-iquote the
 * driver's directory); kshim.c has the functions behind them: the SQ
 * of a user QP, a CQ that records, and a QP that notes its errors.
 */
#ifndef KSHIM_SWIN_SHIM_H
#define KSHIM_SWIN_SHIM_H

#define SROCE_H
#define SROCE_CQ_H
#define SROCE_QP_H
#define SROCE_TRACE_TYPES
#define SROCE_TRACE_H

#include <errno.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#define __user

#include "queue.h"
#include "send_window.h"

#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	min((t)(a), (t)(b))
#define max_t(t, a, b)	max((t)(a), (t)(b))
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))

/* qp.h: librxe's IBV_WR_ATOMIC_WRITE in the send ring. */
#define SROCE_WR_ATOMIC_WRITE	15
/* cq.h: its driver-private completion opcode. */
#define SROCE_WC_ATOMIC_WRITE	((enum ib_wc_opcode)0x40)

/* sroce.h: the device and its counters (plain, not per CPU). */
enum sroce_counter {
	SROCE_CNT_SQ_OVERRUN,
	SROCE_CNT_MAX,
};

struct sroce_dev {
	struct ib_device ib_dev;
	u64 count[SROCE_CNT_MAX];
};

static inline struct sroce_dev *to_sroce_dev(struct ib_device *ib_dev)
{
	return container_of(ib_dev, struct sroce_dev, ib_dev);
}

static inline void sroce_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	sdev->count[c]++;
}

/*
 * cq.h: a CQ that keeps what is posted to it, in order, and takes room
 * more; past that sroce_cq_post() fails as a full CQ does.
 */
#define KSHIM_CQ_SIZE	64

struct sroce_cq {
	struct ib_wc wc[KSHIM_CQ_SIZE];
	unsigned int n;
	unsigned int room;
};

int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited);

/* qp.h: the fields of a QP that the send window uses. */
struct sroce_qp {
	struct ib_qp ib_qp;
	enum ib_qp_state state;
	u32 mtu;
	struct sroce_queue sq;
	struct sroce_send_window swin;
	bool sig_all;
	struct sroce_cq *scq;
};

void sroce_qp_set_error(struct sroce_qp *qp);
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);

/* trace.h */
void trace_sroce_wc_error(const struct ib_device *dev, u32 qpn, u64 wr_id,
			  int opcode, int status);

/* What the calls above were asked to do, for the tests to check. */
struct kshim_log {
	unsigned int set_error;		/* sroce_qp_set_error() calls */
	unsigned int fatal;		/* IB_EVENT_QP_FATAL events */
	unsigned int other_events;
	unsigned int wc_errors;		/* trace_sroce_wc_error() */
};

extern struct kshim_log kshim_log;

#endif /* KSHIM_SWIN_SHIM_H */
