/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-demand paging: memory regions whose pages are not pinned but faulted
 * in when the engines first need them, and given up when the kernel
 * invalidates them (munmap, MADV_DONTNEED, copy-on-write after fork,
 * migration, reclaim). The design and its reasons are in
 * docs/2026-12-06-odp-design.md; in short:
 *
 * Presence. The core's ib_umem_odp keeps one dma_list entry per page: for
 * a device without a DMA device (ours) it is the page's kernel address,
 * with ODP_READ_ALLOWED_BIT / ODP_WRITE_ALLOWED_BIT in its low bits, or 0
 * when the page is not mapped. The engines never sleep, so they never
 * fault: they read and write a page only if its entry grants the access
 * and its bit in the region's @odp_valid is set (we checked the page:
 * memfd_secret() pages are refused), under the region's @odp_lock held
 * for reading. Our invalidate callback clears the bits under @odp_lock
 * held for writing, then has the core unmap the pages: once it has
 * returned no engine is still inside a page it took away.
 *
 * Faults. An engine that finds a page missing asks its QP's fault slot
 * (one per engine, struct sroce_odp_fault) to fault the range in and
 * parks: the requester stops at its WQE, the responder drops the request
 * and nudges the requester with a sequence NAK once the fault is served,
 * a UC or UD receive drops the packet. The slot's work item faults with
 * ib_umem_odp_map_dma_and_lock() (it may sleep) and kicks the engine.
 * A fault that fails (not mapped, no permission) is remembered, and the
 * engine's next try for the same range gets the error instead of another
 * fault: a protection error for our own WQE, a remote access error for
 * the peer's request. Nothing loops.
 *
 * Lock order: the region's @odp_mutex (one mapper at a time, and the
 * making of an implicit region's children), the process's mmap_lock,
 * the umem's umem_mutex, then @odp_lock. Nothing allocates with
 * GFP_KERNEL under umem_mutex (reclaim calls our invalidate).
 */
#ifndef SROCE_ODP_H
#define SROCE_ODP_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

struct sroce_mr;
struct sroce_qp;
struct page;

/* The ODP capabilities sroce implements (query_device). */
void sroce_odp_caps(struct ib_device_attr *attr);

/*
 * Registration: the umem for [start, start + length) of the calling
 * process, not pinned, with our invalidate callback. Process context.
 */
int sroce_odp_mr_init(struct sroce_mr *mr, u64 start, u64 length,
		      int access);
/*
 * Registration of all of the calling process's address space, at its
 * own addresses (implicit ODP): pieces of it are made on first use.
 */
int sroce_odp_mr_init_implicit(struct sroce_mr *mr, int access);
/*
 * Releases the umem (and an implicit region's children), frees what the
 * region added and gives back what it counted against the device's
 * bound. Once nothing uses the region.
 */
void sroce_odp_mr_release(struct sroce_mr *mr);
/* `rdma resource show mr -dd`: what an on-demand region holds. */
int sroce_odp_fill_res_mr(struct sk_buff *msg, struct ib_mr *ib_mr);

/*
 * The page holding region address @iova (of a region registered at
 * @mr_iova) if it is present for @write, as sroce_mr_locate() returns
 * it; -EAGAIN if not. Under sroce_odp_read_lock().
 */
int sroce_odp_locate(struct sroce_mr *mr, u64 mr_iova, u64 iova, bool write,
		     struct page **page, u32 *offset, u32 *avail);

void sroce_odp_read_lock(struct sroce_mr *mr) __acquires(&mr->odp_lock);
void sroce_odp_read_unlock(struct sroce_mr *mr) __releases(&mr->odp_lock);

/*
 * A QP engine's fault slot: at most one fault in flight per engine, so a
 * QP holds at most two region references for faults, each for as long
 * as one fault takes.
 *
 * @lock protects everything below it. The engine that owns the slot asks
 * (sroce_odp_fault_ask()) under its engine lock; the work item serves.
 * The QP outlives the work item: destroy calls sroce_odp_fault_stop().
 */
struct sroce_odp_fault {
	struct work_struct work;
	struct sroce_qp *qp;
	bool rcv;		/* kick the receive engine, else the send one */

	spinlock_t lock;
	bool dead;		/* the QP is being destroyed */
	/*
	 * In flight: the region (a reference), the range that must come in
	 * and how much from its start is worth bringing in at once.
	 */
	struct sroce_mr *mr;
	u64 iova;
	u32 len;
	u32 ahead;
	bool write;
	u32 asked_gen;		/* @gen when it was asked for */
	/*
	 * The last fault that failed, until the engine asks for a range
	 * inside it again (and gets the error) or for another one. Only
	 * compared, never dereferenced: no reference is kept, so that a
	 * peer that never sends again cannot hold up dereg.
	 */
	const struct sroce_mr *failed_mr;
	u32 gen;		/* sroce_odp_fault_forget()s so far */
	u32 failed_key;
	u64 failed_start;
	u64 failed_end;
	bool failed_write;
};

void sroce_odp_fault_init(struct sroce_odp_fault *f, struct sroce_qp *qp,
			  bool rcv);
/*
 * Asks for [@iova, @iova + @len) of @mr to be made present for @write,
 * and, as far as can be, the @rest bytes of the message from @iova on
 * or, for a message of a page or more, SROCE_ODP_FAULT_AHEAD bytes of
 * the region (odp.c; only @len must succeed).
 * -EINPROGRESS: a fault is in flight (this one, or an earlier one the
 * engine must wait for first); the engine is kicked when it is served.
 * -EFAULT: the range cannot be faulted in (a fault for it failed, or
 * @f is NULL: a caller that cannot wait). Any context.
 */
int sroce_odp_fault_ask(struct sroce_odp_fault *f, struct sroce_mr *mr,
			u64 iova, u32 len, u64 rest, bool write);
/*
 * The QP is reset: a failure remembered from its last connection must
 * not fail the next one's first try (the user may have mapped the range
 * since). A fault in flight is served, and its kick finds nothing to do.
 */
void sroce_odp_fault_forget(struct sroce_odp_fault *f);
/* A fault is in flight: the engine waits for its kick. */
bool sroce_odp_fault_pending(struct sroce_odp_fault *f);
/* Destroy: no fault is asked for or served after it. Sleeps. */
void sroce_odp_fault_stop(struct sroce_odp_fault *f);

/* ibv_advise_mr(): prefetch (odp.c says how). Process context. */
int sroce_odp_advise_mr(struct ib_pd *pd,
			enum ib_uverbs_advise_mr_advice advice, u32 flags,
			struct ib_sge *sg_list, u32 num_sge,
			struct uverbs_attr_bundle *attrs);

int sroce_odp_init(void);
void sroce_odp_exit(void);

#endif /* SROCE_ODP_H */
