// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: lifetime, lookup and copy engine. The rules (who holds
 * references, what a reference guarantees, bound windows) are written
 * down in mr.h; keys and the table they index, shared with memory
 * windows, in keys.h.
 *
 * Address translation. Every kind of region is turned into "page + offset +
 * bytes left in that page", so that one copy loop serves all of them and the
 * transmit path can attach pages to an skb:
 *  - user: a struct page * per PAGE_SIZE page, built once at registration,
 *    so iova -> page is an index: (iova - region iova + offset of the start
 *    in its first page) >> PAGE_SHIFT;
 *  - DMA (kernel consumers): sroce registers with no DMA device, so the RDMA
 *    core hands kernel users virtual addresses as DMA addresses
 *    (ib_uses_virt_dma()); the iova is a direct-map kernel address;
 *  - fast-reg: ib_sg_to_pages() gave one such kernel address per block of
 *    ib_mr.page_size bytes, and the region is linear over those blocks;
 *  - on demand: the umem's dma_list holds the kernel address of each page
 *    that is present (odp.c), read under the region's odp_lock.
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "sroce.h"
#include "limits.h"
#include "mr.h"
#include "odp.h"

#define SROCE_MR_RIGHTS		(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)
#define SROCE_MR_REMOTE_RIGHTS	(IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

/* --- creation and destruction ----------------------------------------- */

/*
 * Access flags a region may be created or fast-registered with. The verbs
 * layer checks this too (ib_check_mr_access()), but kernel consumers reach
 * us without it. The IB_ACCESS_OPTIONAL bits are hints (perftest asks for
 * relaxed ordering) and are accepted. On-demand paging is for user
 * regions only (@on_demand_ok).
 */
int sroce_mr_check_access(int access, bool on_demand_ok)
{
	if (access & ~IB_ACCESS_SUPPORTED)
		return -EINVAL;
	/* IBTA: remote write or atomic access needs local write access. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if ((access & IB_ACCESS_ON_DEMAND) && !on_demand_ok)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * Allocates a region and reserves its index (invisible to lookups until
 * sroce_mr_publish()). Process context. Counts against SROCE_MAX_MR.
 */
struct sroce_mr *sroce_mr_alloc(struct sroce_dev *sdev, struct ib_pd *pd,
				enum sroce_mr_kind kind)
{
	struct sroce_mr *mr;
	int ret;

	if (atomic_inc_return(&sdev->num_mr) > SROCE_MAX_MR) {
		ret = -ENOMEM;
		goto err_count;
	}
	mr = kzalloc(sizeof(*mr), sroce_obj_gfp(kind == SROCE_MR_USER ||
						kind == SROCE_MR_ODP));
	if (!mr) {
		ret = -ENOMEM;
		goto err_count;
	}
	mr->sdev = sdev;
	mr->pd = pd;
	mr->kind = kind;
	seqlock_init(&mr->reg_lock);
	mr->state = SROCE_MR_FREE;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);

	ret = sroce_key_reserve(&sdev->keys, &mr->index, &mr->key);
	if (ret) {
		kfree(mr);
		goto err_count;
	}
	return mr;

err_count:
	atomic_dec(&sdev->num_mr);
	return ERR_PTR(ret);
}

/*
 * Makes a fully built region visible to lookups. The store is a release:
 * a lookup that finds the pointer sees everything written before.
 */
int sroce_mr_publish(struct sroce_mr *mr, enum sroce_mr_state state,
		     int access, u64 iova, u64 length)
{
	mr->state = state;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->ib_mr.lkey = mr->key;
	/* A fast-reg MR gets its rights from REG_MR; its rkey is always set. */
	if (mr->kind == SROCE_MR_FAST_REG || (access & SROCE_MR_REMOTE_RIGHTS))
		mr->ib_mr.rkey = mr->key;
	else
		mr->ib_mr.rkey = 0;

	return sroce_key_publish(&mr->sdev->keys, mr->index, mr, SROCE_KEY_MR);
}

static void sroce_mr_release_memory(struct sroce_mr *mr)
{
	kvfree(mr->pages);
	/* An on-demand umem is unmapped and its notifiers removed. */
	if (mr->kind == SROCE_MR_ODP)
		sroce_odp_mr_release(mr);
	else
		/* Unpins, marking the pages dirty if the region was writable. */
		ib_umem_release(mr->umem);
	kfree(mr->fr_reg);
	kfree(mr->fr_map);
}

/* Undoes sroce_mr_alloc() and the set-up of a region never published. */
void sroce_mr_free_unpublished(struct sroce_mr *mr)
{
	struct sroce_dev *sdev = mr->sdev;

	sroce_key_erase(&sdev->keys, mr->index);
	sroce_mr_release_memory(mr);
	atomic_dec(&sdev->num_mr);
	kfree(mr);
}

/*
 * Makes the region invalid for good, unless windows are bound to it
 * (-EBUSY, and nothing changes). Lookups that already found the pointer
 * fail from now on, and no window can be bound to it any more. Any
 * context.
 */
int sroce_mr_retire(struct sroce_mr *mr)
{
	unsigned long flags;
	int ret = 0;

	write_seqlock_irqsave(&mr->reg_lock, flags);
	if (mr->num_mw)
		ret = -EBUSY;
	else
		mr->state = SROCE_MR_DEAD;
	write_sequnlock_irqrestore(&mr->reg_lock, flags);
	return ret;
}

/*
 * dereg_mr: retire, unpublish, drop the owner's reference, wait for the
 * data path to drop its own, then unpin. -EBUSY while windows are bound.
 * Process context; sleeps.
 */
int sroce_mr_destroy(struct sroce_mr *mr)
{
	struct sroce_dev *sdev = mr->sdev;
	int ret;

	ret = sroce_mr_retire(mr);
	if (ret)
		return ret;
	/* No new lookup finds it. */
	sroce_key_erase(&sdev->keys, mr->index);

	sroce_mr_put(mr);
	wait_for_completion(&mr->released);

	sroce_mr_release_memory(mr);
	atomic_dec(&sdev->num_mr);
	/* A lookup may still be between finding it and its failed get. */
	kfree_rcu(mr, rcu);
	return 0;
}

/* Builds the page array of a user region from its pinned umem. */
int sroce_mr_set_umem(struct sroce_mr *mr, struct ib_umem *umem)
{
	struct sg_page_iter iter;
	unsigned long i = 0;

	mr->umem = umem;
	mr->npages = ib_umem_num_pages(umem);
	mr->first_offset = ib_umem_offset(umem);
	/* A huge region fails with ENOMEM, not a kvmalloc warning. */
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages),
				   sroce_obj_gfp(true) | __GFP_NOWARN);
	if (!mr->pages)
		return -ENOMEM;

	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (WARN_ON_ONCE(i >= mr->npages))
			return -EFAULT;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	if (WARN_ON_ONCE(i != mr->npages))
		return -EFAULT;
	return 0;
}

int sroce_mr_alloc_page_lists(struct sroce_mr *mr, u32 max_blocks)
{
	mr->fr_max = max_blocks;
	mr->fr_map = kcalloc(max_blocks, sizeof(*mr->fr_map), GFP_KERNEL);
	mr->fr_reg = kcalloc(max_blocks, sizeof(*mr->fr_reg), GFP_KERNEL);
	if (!mr->fr_map || !mr->fr_reg)
		return -ENOMEM;
	return 0;
}

/*
 * ib_sg_to_pages() callback: @addr is a kernel virtual address (virtual
 * DMA). Refuse anything outside the direct map, which the copy engine could
 * not turn into pages.
 */
static int sroce_mr_set_page(struct ib_mr *ib_mr, u64 addr)
{
	struct sroce_mr *mr = to_sroce_mr(ib_mr);
	unsigned long va = (unsigned long)addr;

	if (mr->fr_map_num >= mr->fr_max)
		return -ENOMEM;
	if (!virt_addr_valid(va) || !virt_addr_valid(va + ib_mr->page_size - 1))
		return -EINVAL;
	WRITE_ONCE(mr->fr_map[mr->fr_map_num++], addr);
	return 0;
}

/* map_mr_sg: fill the mapping side; REG_MR makes it the registration. */
int sroce_mr_map_sg(struct sroce_mr *mr, struct scatterlist *sg, int nents,
		    unsigned int *sg_offset)
{
	unsigned int page_size = mr->ib_mr.page_size;
	int n;

	if (mr->kind != SROCE_MR_FAST_REG || !is_power_of_2(page_size) ||
	    page_size < SZ_512)
		return -EINVAL;

	mr->fr_map_num = 0;
	n = ib_sg_to_pages(&mr->ib_mr, sg, nents, sg_offset, sroce_mr_set_page);
	/* Before any zero-based rewrite of ib_mr.iova by the consumer. */
	mr->fr_map_offset = mr->ib_mr.iova & (page_size - 1);
	return n;
}

/* --- fast registration ------------------------------------------------- */

/*
 * IB_WR_REG_MR: make what map_mr_sg mapped the region named @key, with
 * @access. The MR must be free (IBTA); -EINVAL otherwise. Any context.
 */
int sroce_mr_fast_reg(struct sroce_mr *mr, u32 key, int access)
{
	unsigned long flags;
	u64 *list;
	int ret = 0;

	if (mr->kind != SROCE_MR_FAST_REG || key >> 8 != mr->index ||
	    sroce_mr_check_access(access, false) || !mr->fr_map_num)
		return -EINVAL;

	write_seqlock_irqsave(&mr->reg_lock, flags);
	if (mr->state != SROCE_MR_FREE) {
		ret = -EINVAL;
		goto out;
	}
	list = mr->fr_reg;
	mr->fr_reg = mr->fr_map;
	mr->fr_map = list;
	mr->fr_reg_num = mr->fr_map_num;
	mr->fr_map_num = 0;
	mr->fr_offset = mr->fr_map_offset;
	mr->fr_shift = ilog2(mr->ib_mr.page_size);
	mr->iova = mr->ib_mr.iova;
	mr->length = mr->ib_mr.length;
	mr->access = access;
	mr->key = key;
	mr->ib_mr.lkey = key;
	mr->ib_mr.rkey = key;
	mr->state = SROCE_MR_VALID;
out:
	write_sequnlock_irqrestore(&mr->reg_lock, flags);
	return ret;
}

/*
 * LOCAL_INV and SEND_WITH_INV: the fast-reg region named @key becomes free.
 * Invalidating anything else, with the wrong key or PD (@pd NULL skips
 * that check), or while windows are bound to it, is -EINVAL. Any context,
 * under RCU. Holders of references are not waited for (mr.h).
 */
int sroce_mr_invalidate(struct sroce_mr *mr, u32 key, struct ib_pd *pd)
{
	unsigned long flags;
	int ret = -EINVAL;

	if (mr->kind != SROCE_MR_FAST_REG || (pd && mr->pd != pd))
		return -EINVAL;
	/* The lock also orders us against dereg's move to DEAD. */
	write_seqlock_irqsave(&mr->reg_lock, flags);
	if (mr->state != SROCE_MR_DEAD && mr->key == key && !mr->num_mw) {
		mr->state = SROCE_MR_FREE;
		ret = 0;
	}
	write_sequnlock_irqrestore(&mr->reg_lock, flags);
	return ret;
}

/* --- memory windows ---------------------------------------------------- */

int sroce_mr_bind_window(struct sroce_mr *mr, u32 key)
{
	unsigned long flags;
	int ret = -EINVAL;

	write_seqlock_irqsave(&mr->reg_lock, flags);
	if (mr->state == SROCE_MR_VALID && mr->key == key) {
		mr->num_mw++;
		ret = 0;
	}
	write_sequnlock_irqrestore(&mr->reg_lock, flags);
	return ret;
}

void sroce_mr_unbind_window(struct sroce_mr *mr)
{
	unsigned long flags;

	write_seqlock_irqsave(&mr->reg_lock, flags);
	if (!WARN_ON_ONCE(!mr->num_mw))
		mr->num_mw--;
	write_sequnlock_irqrestore(&mr->reg_lock, flags);
}

/* --- lookup ----------------------------------------------------------- */

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key,
			      struct ib_pd *pd, int access, u64 iova,
			      u64 length, enum ib_wc_status *err)
{
	enum sroce_key_kind kind;
	struct sroce_mr *mr;

	*err = access & SROCE_MR_REMOTE_RIGHTS ? IB_WC_REM_ACCESS_ERR :
						 IB_WC_LOC_PROT_ERR;

	rcu_read_lock();
	mr = sroce_key_lookup_rcu(&sdev->keys, key, &kind);
	/* A window's key is no L_Key: windows serve remote access only. */
	if (mr && kind == SROCE_KEY_MR)
		mr = sroce_mr_get_rcu(mr, key, pd, access, iova, length);
	else
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

struct sroce_mr *sroce_mr_get_rcu(struct sroce_mr *mr, u32 key,
				  struct ib_pd *pd, int access, u64 iova,
				  u64 length)
{
	unsigned int seq;
	bool ok;

	if (!refcount_inc_not_zero(&mr->ref))
		return NULL;
	if (pd && mr->pd != pd)
		goto fail;
	do {
		seq = read_seqbegin(&mr->reg_lock);
		ok = mr->state == SROCE_MR_VALID && mr->key == key &&
		     !(access & ~mr->access) &&
		     sroce_range_ok(mr->iova, mr->length, iova, length);
	} while (read_seqretry(&mr->reg_lock, seq));
	if (ok)
		return mr;
fail:
	sroce_mr_put(mr);
	return NULL;
}

/* --- copy engine ------------------------------------------------------ */

/* One consistent copy of the registration, taken once per call. */
struct sroce_mr_view {
	bool write;		/* the access will write (on-demand presence) */
	u64 iova;
	u64 length;
	u64 *fr_list;
	u32 fr_num;
	u32 fr_offset;
	u8 fr_shift;
};

/*
 * Snapshot the registration and check [iova, iova + len) is inside it.
 * -EFAULT if the region was invalidated or destroyed since the lookup: an
 * access after invalidation must fail, whoever still holds a reference.
 */
static int sroce_mr_view(struct sroce_mr *mr, u64 iova, u64 len, bool write,
			 struct sroce_mr_view *v)
{
	unsigned int seq;
	bool valid;

	v->write = write;
	do {
		seq = read_seqbegin(&mr->reg_lock);
		valid = mr->state == SROCE_MR_VALID;
		v->iova = mr->iova;
		v->length = mr->length;
		v->fr_list = mr->fr_reg;
		v->fr_num = mr->fr_reg_num;
		v->fr_offset = mr->fr_offset;
		v->fr_shift = mr->fr_shift;
	} while (read_seqretry(&mr->reg_lock, seq));

	if (!valid || !sroce_range_ok(v->iova, v->length, iova, len))
		return -EFAULT;
	return 0;
}

/*
 * The page holding @iova, the offset in it and the bytes from there to the
 * end of the page (not clipped to the region: callers checked the range).
 */
static int sroce_mr_locate(struct sroce_mr *mr, const struct sroce_mr_view *v,
			   u64 iova, struct page **page, u32 *offset,
			   u32 *avail)
{
	u64 pos, idx, block, va;
	u32 in_block;

	switch (mr->kind) {
	case SROCE_MR_USER:
		pos = iova - v->iova + mr->first_offset;
		idx = pos >> PAGE_SHIFT;
		if (idx >= mr->npages)
			return -EFAULT;
		*page = mr->pages[idx];
		*offset = pos & ~PAGE_MASK;
		*avail = PAGE_SIZE - *offset;
		return 0;
	case SROCE_MR_DMA:
		va = iova;
		if (!virt_addr_valid((unsigned long)va))
			return -EFAULT;
		*page = virt_to_page((unsigned long)va);
		*offset = offset_in_page(va);
		*avail = PAGE_SIZE - *offset;
		return 0;
	case SROCE_MR_FAST_REG:
		pos = iova - v->iova + v->fr_offset;
		idx = pos >> v->fr_shift;
		if (idx >= v->fr_num || idx >= mr->fr_max)
			return -EFAULT;
		block = READ_ONCE(v->fr_list[idx]);
		in_block = pos & ((1ULL << v->fr_shift) - 1);
		va = block + in_block;
		*page = virt_to_page((unsigned long)va);
		*offset = offset_in_page(va);
		*avail = min_t(u64, PAGE_SIZE - *offset,
			       (1ULL << v->fr_shift) - in_block);
		return 0;
	case SROCE_MR_ODP:
		return sroce_odp_locate(mr, v->iova, iova, v->write, page,
					offset, avail);
	}
	return -EFAULT;
}

/*
 * A walk over [iova, iova + len) of a region, one piece of a page at a
 * time. The range is checked once, against one view of the registration,
 * when the walk starts; the caller holds a region reference throughout
 * (mr.h), which keeps the pages.
 */
struct sroce_mr_walk {
	struct sroce_mr *mr;
	struct sroce_mr_view v;
	u64 iova;
	u32 left;
};

/* An empty range is no access at all: it succeeds whatever the region. */
static int sroce_mr_walk_start(struct sroce_mr_walk *w, struct sroce_mr *mr,
			       u64 iova, u32 len, bool write)
{
	w->mr = mr;
	w->iova = iova;
	w->left = len;
	if (!len)
		return 0;
	return sroce_mr_view(mr, iova, len, write, &w->v);
}

/* The next piece (within one page, at most what is left), and past it. */
static int sroce_mr_walk_next(struct sroce_mr_walk *w, struct page **page,
			      u32 *offset, u32 *n)
{
	int ret;

	ret = sroce_mr_locate(w->mr, &w->v, w->iova, page, offset, n);
	if (ret)
		return ret;
	*n = min(*n, w->left);
	w->iova += *n;
	w->left -= *n;
	return 0;
}

/*
 * Walks [iova, iova + len) of the region page piece by page piece, mapped
 * in turn, and hands each piece to @chunk. @writes: the pieces are
 * written to (the data cache is flushed for them).
 */
static int sroce_mr_walk_chunks(struct sroce_mr_walk *w, bool writes,
				int (*chunk)(void *va, u32 n, void *ctx),
				void *ctx)
{
	struct page *page;
	u32 offset, n;
	void *va;
	int ret;

	while (w->left) {
		ret = sroce_mr_walk_next(w, &page, &offset, &n);
		if (ret)
			return ret;
		va = kmap_local_page(page);
		ret = chunk(va + offset, n, ctx);
		if (writes)
			flush_dcache_page(page);
		kunmap_local(va);
		if (ret)
			return ret;
	}
	return 0;
}

static int sroce_mr_for_each_chunk(struct sroce_mr *mr, u64 iova, u32 len,
				   bool writes,
				   int (*chunk)(void *va, u32 n, void *ctx),
				   void *ctx)
{
	struct sroce_mr_walk w;
	int ret;

	ret = sroce_mr_walk_start(&w, mr, iova, len, writes);
	if (ret)
		return ret;
	if (mr->kind != SROCE_MR_ODP)
		return sroce_mr_walk_chunks(&w, writes, chunk, ctx);
	/* Its pages stay while we are inside them (odp.h). */
	sroce_odp_read_lock(mr);
	ret = sroce_mr_walk_chunks(&w, writes, chunk, ctx);
	sroce_odp_read_unlock(mr);
	return ret;
}

struct sroce_buf_cursor {
	u8 *buf;
	enum sroce_copy_dir dir;
};

static int sroce_copy_buf_chunk(void *va, u32 n, void *ctx)
{
	struct sroce_buf_cursor *c = ctx;

	if (c->dir == SROCE_COPY_TO_MR)
		memcpy(va, c->buf, n);
	else
		memcpy(c->buf, va, n);
	c->buf += n;
	return 0;
}

int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir)
{
	struct sroce_buf_cursor c = { .buf = buf, .dir = dir };

	return sroce_mr_for_each_chunk(mr, iova, len, dir == SROCE_COPY_TO_MR,
				       sroce_copy_buf_chunk, &c);
}

struct sroce_skb_cursor {
	const struct sk_buff *skb;
	int offset;
};

static int sroce_copy_skb_chunk(void *va, u32 n, void *ctx)
{
	struct sroce_skb_cursor *c = ctx;
	int ret = skb_copy_bits(c->skb, c->offset, va, n);

	c->offset += n;
	return ret;
}

/* Payload of @skb from @skb_offset into the region, without linearising. */
int sroce_mr_copy_skb(struct sroce_mr *mr, u64 iova,
		      const struct sk_buff *skb, int skb_offset, u32 len)
{
	struct sroce_skb_cursor c = { .skb = skb, .offset = skb_offset };

	return sroce_mr_for_each_chunk(mr, iova, len, true,
				       sroce_copy_skb_chunk, &c);
}

static int sroce_probe_chunk(void *va, u32 n, void *ctx)
{
	return 0;
}

int sroce_mr_probe(struct sroce_mr *mr, u64 iova, u32 len, bool write)
{
	if (mr->kind != SROCE_MR_ODP)
		return 0;
	return sroce_mr_for_each_chunk(mr, iova, len, write, sroce_probe_chunk,
				       NULL);
}

/*
 * Zero-copy transmit: see mr.h. The fragments hold their own page
 * references, so a deregistration that unpins the pages while the packet
 * still waits in a queue only drops its own claim on them. User memory may
 * change under a queued packet (the owner can write to it at any time):
 * SKBFL_SHARED_FRAG tells the stack not to trust the fragments for a
 * checksum it computed earlier.
 */
int sroce_mr_attach(struct sroce_mr *mr, u64 iova, u32 len,
		    struct sk_buff *skb, unsigned int max_frags)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	struct sroce_mr_walk w;
	struct page *page;
	u32 offset, n;
	int ret;

	if (mr->kind != SROCE_MR_USER)
		return -EOPNOTSUPP;
	ret = sroce_mr_walk_start(&w, mr, iova, len, false);
	/* An empty range attaches nothing and leaves the flags alone. */
	if (ret || !len)
		return ret;
	while (w.left) {
		unsigned int i = shinfo->nr_frags;

		ret = sroce_mr_walk_next(&w, &page, &offset, &n);
		if (ret)
			return ret;
		if (i && skb_can_coalesce(skb, i, page, offset)) {
			skb_frag_size_add(&shinfo->frags[i - 1], n);
		} else {
			if (i >= max_frags)
				return -EMSGSIZE;
			get_page(page);
			skb_fill_page_desc(skb, i, page, offset, n);
		}
		skb_len_add(skb, n);
	}
	shinfo->flags |= SKBFL_SHARED_FRAG;
	return 0;
}

/*
 * Remote atomics on an 8-byte aligned word. They are done with the CPU's
 * own 64-bit compare-and-exchange on the memory, so they are atomic with
 * respect to everything: other sroce atomics on this or another device
 * (the same memory may be registered twice) and the CPU's own atomics,
 * e.g. a local process. No lock is needed (an on-demand region's read
 * lock only keeps its page). The value is in host order. An atomic
 * write is a single 64-bit store, ordered after everything the responder
 * wrote before it (release). Returns 0, -EINVAL if misaligned, -EFAULT
 * if not inside the region, -EAGAIN if its on-demand page is missing.
 */
static int sroce_mr_atomic_at(struct sroce_mr *mr,
			      const struct sroce_mr_view *v, u64 iova,
			      enum sroce_atomic_op op, u64 arg, u64 swap,
			      u64 *orig)
{
	struct page *page;
	u32 offset, avail;
	u64 *p, old;
	void *va;
	int ret;

	ret = sroce_mr_locate(mr, v, iova, &page, &offset, &avail);
	if (ret)
		return ret;
	/* A kernel ib_reg_user_mr() iova may be aligned unlike the memory. */
	if ((offset & 7) || avail < sizeof(u64))
		return -EINVAL;

	va = kmap_local_page(page);
	p = va + offset;
	switch (op) {
	case SROCE_ATOMIC_CMP_SWAP:
		old = cmpxchg64(p, arg, swap);
		break;
	case SROCE_ATOMIC_FETCH_ADD:
		old = READ_ONCE(*p);
		while (!try_cmpxchg64(p, &old, old + arg))
			;
		break;
	default:
		smp_store_release(p, swap);
		old = 0;
		break;
	}
	flush_dcache_page(page);
	kunmap_local(va);
	*orig = old;
	return 0;
}

int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op,
		    u64 arg, u64 swap, u64 *orig)
{
	struct sroce_mr_view v;
	int ret;

	if (iova & 7)
		return -EINVAL;
	ret = sroce_mr_view(mr, iova, sizeof(u64), true, &v);
	if (ret)
		return ret;
	if (mr->kind != SROCE_MR_ODP)
		return sroce_mr_atomic_at(mr, &v, iova, op, arg, swap, orig);
	sroce_odp_read_lock(mr);
	ret = sroce_mr_atomic_at(mr, &v, iova, op, arg, swap, orig);
	sroce_odp_read_unlock(mr);
	return ret;
}
