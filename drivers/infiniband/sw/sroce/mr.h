/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions: the key table, the lookup the data path uses to turn an
 * L_Key/R_Key into memory, and the copy engine that moves bytes in and out.
 *
 * Keys. lkey == rkey == index << 8 | key byte. The 24-bit index comes from
 * a per-device xarray allocated cyclically, so a freed index is handed out
 * again only after the cursor went once round the whole space; every wrap
 * bumps the key byte given to new registrations, so a stale key matches a
 * new region only after 256 wraps (2^32 registrations). Index 0 is never
 * used: a zeroed SGE never names a region. Fast-registration MRs take a new
 * key byte from each IB_WR_REG_MR, as the consumer asks.
 *
 * Lifetime of a struct sroce_mr:
 *  - created by a verb with one reference, owned by the verb's object (the
 *    uverbs uobject, the PD's internal DMA MR, or the kernel consumer);
 *  - published in the table, from which the data path takes references
 *    under RCU with refcount_inc_not_zero();
 *  - dereg_mr unpublishes it, marks it invalid, drops the owner's reference
 *    and sleeps until the data path dropped all of its own; whoever drops
 *    the last reference completes @released. Only then are the pages
 *    unpinned. The memory itself is freed after an RCU grace period, because
 *    a lookup may have read the pointer just before it was unpublished.
 * So a reference keeps the pages and the page array alive. It does not keep
 * the region valid: invalidation (LOCAL_INV, SEND_WITH_INV) does not wait
 * for holders. The data path must not hold a reference across a wait on the
 * network (dereg would block until it drops it): take it per packet or per
 * WQE segment that is processed without sleeping on a peer.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/skbuff.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;

/* Per-device key table, embedded in struct sroce_dev. */
struct sroce_mr_table {
	/*
	 * index -> struct sroce_mr. Written under the xarray's own lock, from
	 * process context only (verbs); read under RCU from any context.
	 */
	struct xarray xa;
	/* Allocation cursor and wrap count; protected by the xarray lock. */
	u32 next;
	u8 key_gen;
	/* Live regions of every kind, checked against SROCE_MAX_MR. */
	atomic_t count;
};

enum sroce_mr_kind {
	SROCE_MR_DMA,		/* get_dma_mr: kernel virtual addresses */
	SROCE_MR_USER,		/* reg_user_mr: pinned user pages */
	SROCE_MR_FAST_REG,	/* alloc_mr + map_mr_sg + IB_WR_REG_MR */
};

enum sroce_mr_state {
	SROCE_MR_FREE,		/* fast-reg MR not registered, or invalidated */
	SROCE_MR_VALID,
	SROCE_MR_DEAD,		/* dereg_mr has begun */
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

void sroce_mr_table_init(struct sroce_mr_table *t);
void sroce_mr_table_destroy(struct sroce_mr_table *t);

/* Creation and destruction, for verbs_mr.c. */
struct sroce_mr *sroce_mr_alloc(struct sroce_dev *sdev, struct ib_pd *pd,
				enum sroce_mr_kind kind);
int sroce_mr_publish(struct sroce_mr *mr, enum sroce_mr_state state,
		     int access, u64 iova, u64 length);
void sroce_mr_destroy(struct sroce_mr *mr);
void sroce_mr_free_unpublished(struct sroce_mr *mr);
int sroce_mr_check_access(int access);
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

static inline void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

/* Fast registration, for IB_WR_REG_MR / LOCAL_INV / SEND_WITH_INV. */
int sroce_mr_fast_reg(struct sroce_mr *mr, u32 key, int access);
int sroce_mr_invalidate(struct sroce_dev *sdev, u32 key, struct ib_pd *pd);

/*
 * Copy engine. Any context (pages are mapped with kmap_local_page); the
 * caller holds a reference from sroce_mr_get() that covered the range.
 * Return 0, or -EFAULT if the range is not (or no longer) mapped.
 */
enum sroce_copy_dir { SROCE_COPY_TO_MR, SROCE_COPY_FROM_MR };

int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir);
int sroce_mr_copy_skb(struct sroce_mr *mr, u64 iova,
		      const struct sk_buff *skb, int skb_offset, u32 len);
int sroce_mr_page(struct sroce_mr *mr, u64 iova, struct page **page,
		  u32 *offset, u32 *len_in_page);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cmp_swap,
		    u64 compare_or_add, u64 swap, u64 *orig);

#endif /* SROCE_MR_H */
