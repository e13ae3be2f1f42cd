/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions: the objects, the lookup the data path uses to turn an
 * L_Key/R_Key into memory, and the copy engine that moves bytes in and out.
 *
 * Keys. lkey == rkey, from the key table shared with memory windows
 * (keys.h). Fast-registration MRs take a new key byte from each
 * IB_WR_REG_MR, as the consumer asks.
 *
 * Lifetime of a struct sroce_mr:
 *  - created by a verb with one reference, owned by the verb's object (the
 *    uverbs uobject, the PD's internal DMA MR, or the kernel consumer);
 *  - published in the key table, from which the data path takes references
 *    under RCU with refcount_inc_not_zero();
 *  - dereg_mr unpublishes it, marks it invalid, drops the owner's reference
 *    and sleeps until the data path dropped all of its own; whoever drops
 *    the last reference completes @released. Only then are the pages
 *    unpinned. The memory itself is freed after an RCU grace period, because
 *    a lookup may have read the pointer just before it was unpublished.
 * So a reference keeps the pages and the page array alive. (A zero-copy
 * packet's fragments hold references on the pages themselves, not on the
 * region: a user region's pages stay allocated, and may still be read
 * by the packet, after dereg has unpinned them, until the packet is gone;
 * they are the owner's own pages, never reused meanwhile.) It does not keep
 * the region valid: invalidation (LOCAL_INV, SEND_WITH_INV) does not wait
 * for holders. The data path must not hold a reference across a wait on the
 * network (dereg would block until it drops it): take it per packet or per
 * WQE segment that is processed without sleeping on a peer.
 *
 * Memory windows bound to a region do not hold references: they are
 * counted in @num_mw, under @reg_lock, and while that is not zero the region
 * can be neither deregistered (IBTA: dereg fails while windows are bound),
 * re-registered nor invalidated. So a bound window's pointer to its region
 * stays good without keeping dereg waiting.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/skbuff.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "keys.h"

struct sroce_dev;
struct ib_umem_odp;

/*
 * The pages of an on-demand region behind one umem (odp.c): all of an
 * explicit region, or one child of an implicit one. Its umem's @private
 * points to it, for the notifier.
 */
struct sroce_odp_part {
	struct ib_umem_odp *odp;
	unsigned long *valid;	/* a bit per page, as @odp_valid */
	rwlock_t *lock;		/* the region's @odp_lock */
};

enum sroce_mr_kind {
	SROCE_MR_DMA,		/* get_dma_mr: kernel virtual addresses */
	SROCE_MR_USER,		/* reg_user_mr: pinned user pages */
	SROCE_MR_FAST_REG,	/* alloc_mr + map_mr_sg + IB_WR_REG_MR */
	SROCE_MR_ODP,		/* reg_user_mr on demand: odp.h */
};

enum sroce_mr_state {
	SROCE_MR_FREE,		/* fast-reg MR not registered, or invalidated */
	SROCE_MR_VALID,
	SROCE_MR_DEAD,		/* dereg_mr or a re-registration has begun */
};

struct sroce_mr {
	struct ib_mr ib_mr;

	/* Fixed at creation. @pd is ours: the core writes ib_mr.pd later. */
	struct sroce_dev *sdev;
	struct ib_pd *pd;
	enum sroce_mr_kind kind;
	u32 index;

	/*
	 * The registration. Changes only for fast-reg MRs (REG_MR, invalidate)
	 * and at dereg; writers hold @reg_lock, lookups read without locking
	 * and retry if a writer ran meanwhile, so they always see one whole
	 * registration.
	 */
	seqlock_t reg_lock;
	enum sroce_mr_state state;
	u32 num_mw;		/* windows bound to it; under @reg_lock */
	u32 key;		/* lkey == rkey; ib_mr.rkey is 0 without remote rights */
	int access;
	u64 iova;
	u64 length;
	/* SROCE_MR_FAST_REG: the page list this registration uses. */
	u64 *fr_reg;
	u32 fr_reg_num;
	u32 fr_offset;		/* of @iova in the first block of @fr_reg */
	u8 fr_shift;		/* log2 of the block size */

	refcount_t ref;
	struct completion released;

	/* SROCE_MR_USER: the pinned memory, one entry per PAGE_SIZE page. */
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	u32 first_offset;	/* of the region's start in pages[0] */

	/*
	 * SROCE_MR_ODP: @umem is @odp's. Its pages are used only under
	 * @odp_lock, read, and only while present (odp.h).
	 */
	struct ib_umem_odp *odp;
	rwlock_t odp_lock;
	/*
	 * A bit per page: mapped by the core and checked by us (odp.c). Set
	 * under umem_mutex, cleared under @odp_lock written.
	 */
	unsigned long *odp_valid;
	unsigned long odp_charged;	/* pages counted in sroce_dev.odp_pages */
	struct sroce_odp_part odp_part;	/* explicit: the one part */
	/*
	 * Held while pages are mapped (odp.c: the core's pfn_list is shared
	 * and written outside umem_mutex) and while an implicit region's
	 * children are made. Taken before mmap_lock and umem_mutex.
	 */
	struct mutex odp_mutex;
	/*
	 * Implicit (all of the address space): @odp is the root, which has
	 * no pages; they are in children of SROCE_ODP_CHILD_SIZE bytes
	 * (odp.c), made on first use, by address >> SROCE_ODP_CHILD_SHIFT
	 * in @odp_children. Added under @odp_mutex (which also guards
	 * @odp_charged then), freed with the region. The root does not
	 * keep the process's mm_struct: @odp_mm is our grab of it.
	 */
	bool odp_implicit;
	struct xarray odp_children;
	u32 odp_nchildren;
	struct mm_struct *odp_mm;

	/*
	 * SROCE_MR_FAST_REG: map_mr_sg fills @fr_map with the kernel virtual
	 * address of each block of ib_mr.page_size bytes. IB_WR_REG_MR swaps
	 * it with @fr_reg under @reg_lock, so that mapping the next list (ULPs
	 * such as iSER map before posting LOCAL_INV + REG_MR) never disturbs
	 * the registration in use. The @fr_map side is serialised by the
	 * consumer, as the verbs require. Both arrays hold @fr_max entries.
	 */
	u64 *fr_map;
	u32 fr_map_num;
	u32 fr_map_offset;	/* of ib_mr.iova in the first block, as mapped */
	u32 fr_max;

	struct rcu_head rcu;
};

static inline struct sroce_mr *to_sroce_mr(struct ib_mr *ib_mr)
{
	return container_of(ib_mr, struct sroce_mr, ib_mr);
}

/* [iova, iova + len) inside [start, start + size), without overflow. */
static inline bool sroce_range_ok(u64 start, u64 size, u64 iova, u64 len)
{
	return len <= size && iova >= start && iova - start <= size - len;
}

/* Creation and destruction, for verbs_mr.c. */
struct sroce_mr *sroce_mr_alloc(struct sroce_dev *sdev, struct ib_pd *pd,
				enum sroce_mr_kind kind);
int sroce_mr_publish(struct sroce_mr *mr, enum sroce_mr_state state,
		     int access, u64 iova, u64 length);
int sroce_mr_destroy(struct sroce_mr *mr);
int sroce_mr_retire(struct sroce_mr *mr);
void sroce_mr_free_unpublished(struct sroce_mr *mr);
int sroce_mr_check_access(int access, bool on_demand_ok);
int sroce_mr_set_umem(struct sroce_mr *mr, struct ib_umem *umem);
int sroce_mr_alloc_page_lists(struct sroce_mr *mr, u32 max_blocks);
int sroce_mr_map_sg(struct sroce_mr *mr, struct scatterlist *sg, int nents,
		    unsigned int *sg_offset);

/*
 * Data-path lookup. Returns the region named by @key with a reference, or
 * NULL with *@err set to the completion status the caller reports:
 * IB_WC_REM_ACCESS_ERR when @access asks for a remote right (the responder
 * NAKs with a remote access error), else IB_WC_LOC_PROT_ERR. @access is 0
 * for a local read, or IB_ACCESS_LOCAL_WRITE or IB_ACCESS_REMOTE_*, all of
 * which the region must grant. @pd NULL skips the PD check. Any context.
 */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key,
			      struct ib_pd *pd, int access, u64 iova,
			      u64 length, enum ib_wc_status *err);
/* The same checks on @mr, found by the caller under rcu_read_lock(). */
struct sroce_mr *sroce_mr_get_rcu(struct sroce_mr *mr, u32 key,
				  struct ib_pd *pd, int access, u64 iova,
				  u64 length);

static inline void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

/* Fast registration, for IB_WR_REG_MR / LOCAL_INV / SEND_WITH_INV. */
int sroce_mr_fast_reg(struct sroce_mr *mr, u32 key, int access);
/* Under rcu_read_lock(), on an @mr the caller looked up (keys.c). */
int sroce_mr_invalidate(struct sroce_mr *mr, u32 key, struct ib_pd *pd);

/*
 * Memory windows (mw.c): count a window bound to @mr, which must still be
 * the valid registration named by @key; -EINVAL if it is not. Any context.
 */
int sroce_mr_bind_window(struct sroce_mr *mr, u32 key);
void sroce_mr_unbind_window(struct sroce_mr *mr);

/*
 * Copy engine. Any context (pages are mapped with kmap_local_page); the
 * caller holds a reference from sroce_mr_get() that covered the range.
 * Return 0, -EFAULT if the range is not (or no longer) mapped, or, for
 * an on-demand region, -EAGAIN if a page of it is not present for the
 * access: the caller asks for a fault (odp.h) and tries again later.
 * Bytes before the missing page may have been copied already.
 */
enum sroce_copy_dir { SROCE_COPY_TO_MR, SROCE_COPY_FROM_MR };

int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir);
int sroce_mr_copy_skb(struct sroce_mr *mr, u64 iova,
		      const struct sk_buff *skb, int skb_offset, u32 len);
/* Whether the range is there for @write, as a copy would find it. */
int sroce_mr_probe(struct sroce_mr *mr, u64 iova, u32 len, bool write);
/*
 * Zero-copy transmit: appends [@iova, @iova + @len) to @skb as page
 * fragments that keep the pages alive by themselves, up to @max_frags
 * fragments in all. Only user regions (kernel regions may name slab
 * memory, which must not be referenced from an skb): -EOPNOTSUPP for
 * others, -EMSGSIZE when the fragments run out, -EFAULT as above.
 * Fragments appended before an error stay; the caller frees the skb.
 */
int sroce_mr_attach(struct sroce_mr *mr, u64 iova, u32 len,
		    struct sk_buff *skb, unsigned int max_frags);
enum sroce_atomic_op {
	SROCE_ATOMIC_CMP_SWAP,		/* *orig = old; if old == arg: swap */
	SROCE_ATOMIC_FETCH_ADD,		/* *orig = old; old + arg */
	SROCE_ATOMIC_WRITE,		/* store swap; *orig = 0 */
};

int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op,
		    u64 arg, u64 swap, u64 *orig);

#endif /* SROCE_MR_H */
