/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory windows (IBTA 10.6.7): a remote view of part of a memory region,
 * with its own R_Key and rights, bound and invalidated through the send
 * queue.
 *
 * Types. A type 1 window belongs to its PD: any QP of that PD reaches
 * memory through it; it is bound by the Bind MW verb (librxe turns that
 * into a BIND_MW WQE with the R_Key's key byte incremented), re-bound the
 * same way, unbound by a bind of length 0, and never invalidated. A type 2
 * window (2B) is bound by a BIND_MW WQE to the QP that posted it, only
 * while it is free, with a new key byte the consumer chooses; only that
 * QP reaches memory through it; LOCAL_INV or a SEND_WITH_INV received by
 * that QP makes it free again.
 *
 * Objects. The core allocates and frees the verbs handle (struct
 * sroce_mw_handle, the ib_mw) and kfree()s it as soon as dealloc_mw
 * returns, without waiting for RCU readers. So the window the key table
 * and the engines see is a separate struct sroce_mw that sroce owns:
 *  - created by alloc_mw and published in the key table (keys.h);
 *  - found by the engines under RCU, and only used inside that RCU read
 *    section: nobody holds a reference to a window. What the responder
 *    keeps beyond it is a reference on the bound region (mr.h);
 *  - dealloc_mw marks it dead, unbinds it, unpublishes it and frees it
 *    after an RCU grace period. Nothing waits.
 *
 * Locking. @lock (a seqlock) protects the binding. Writers - bind and
 * invalidate in the engines (bottom halves off), dealloc in process
 * context - take it with interrupts off; a window's bind and unbind take
 * the region's reg_lock inside it (the only nesting of the two). The
 * responder reads the binding locklessly and retries if a writer ran.
 *
 * A bound window counts in its region's num_mw, which keeps the region
 * from going away (mr.h): so @mr stays valid while @state is BOUND.
 *
 * The type 2 QP is remembered by number, not by pointer (a pointer would
 * have to keep the QP alive, and destroy_qp waits for its references): a
 * window bound to a QP that is then destroyed stays bound until it is
 * deallocated, and matches no QP until that number comes round again,
 * which QP numbers do only after a full cycle of 2^24.
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

struct sroce_dev;
struct sroce_mr;

enum sroce_mw_state {
	SROCE_MW_FREE,		/* not bound: no access */
	SROCE_MW_BOUND,
	SROCE_MW_DEAD,		/* dealloc_mw has begun */
};

struct sroce_mw {
	/* Fixed at creation. */
	struct sroce_dev *sdev;
	struct ib_pd *pd;
	enum ib_mw_type type;
	u32 index;

	/* The binding, under @lock. */
	seqlock_t lock;
	enum sroce_mw_state state;
	u32 rkey;
	int access;		/* IB_ACCESS_REMOTE_* */
	bool zero_based;	/* remote addresses start at 0, not @addr */
	u64 addr;		/* where the window starts in @mr */
	u64 length;
	struct sroce_mr *mr;	/* counted in mr->num_mw while BOUND */
	u32 mr_key;		/* the registration it was bound to */
	u32 qpn;		/* type 2: the QP bound to */

	struct rcu_head rcu;
};

/* The verbs handle; the core allocates and frees it. */
struct sroce_mw_handle {
	struct ib_mw ib_mw;
	struct sroce_mw *mw;
};

static inline struct sroce_mw_handle *to_sroce_mw_handle(struct ib_mw *ib_mw)
{
	return container_of(ib_mw, struct sroce_mw_handle, ib_mw);
}

/* For verbs_mw.c; process context. */
struct sroce_mw *sroce_mw_create(struct sroce_dev *sdev, struct ib_pd *pd,
				 enum ib_mw_type type);
void sroce_mw_destroy(struct sroce_mw *mw);

/*
 * Requester: executes the BIND_MW WQE @wr (the kernel copy) posted on
 * @qp. IB_WC_SUCCESS, or IB_WC_MW_BIND_ERR if the window, the region, the
 * rights or the range break a rule of IBTA 10.6.7.2. Any context.
 */
enum ib_wc_status sroce_mw_bind(struct ib_qp *qp,
				const struct rxe_send_wr *wr);

/*
 * Under rcu_read_lock(), for keys.c: invalidate @mw by @rkey on @qp
 * (sroce_key_invalidate()), and the region behind a remote access through
 * it (sroce_rkey_get()).
 */
int sroce_mw_invalidate(struct sroce_mw *mw, u32 rkey, struct ib_qp *qp,
			bool remote);
struct sroce_mr *sroce_mw_get_mr_rcu(struct sroce_mw *mw, u32 rkey,
				     struct ib_qp *qp, int access, u64 va,
				     u64 len, u64 *iova);

#endif /* SROCE_MW_H */
