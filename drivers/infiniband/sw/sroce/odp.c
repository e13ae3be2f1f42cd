// SPDX-License-Identifier: GPL-2.0
/* On-demand paging regions and the engines' page faults; see odp.h. */
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/pagemap.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>

#include "sroce.h"
#include "mr.h"
#include "odp.h"
#include "qp.h"

/* Entries cleared per hold of the write lock (bottom halves are off). */
#define SROCE_ODP_UNMAP_BATCH	512
/*
 * Bytes of a region faulted in at once from the packet that found a
 * page missing, past the end of its message too, if the message is a
 * page or more: one fault (and, at the responder, one round trip of a
 * dropped request and what the requester sent behind it) per this much
 * of a stream rather than per message. With 64 KiB WRITEs, 128 KiB
 * within the message gave 5% of a pinned region's rate on first touch,
 * 1 MiB past it about 45% (make bench-odp). Smaller messages (atomics,
 * small sends) bring in their own pages only.
 */
#define SROCE_ODP_FAULT_AHEAD	(1024 * 1024)

/*
 * An implicit region's children: each covers this much of the address
 * space, with the core's lists (16 bytes per page) and our bitmap, about
 * 8.5 KiB in all for 2 MiB. Small, so that sparse use costs little; each
 * is counted against the device's bound as all of its pages.
 */
#define SROCE_ODP_CHILD_SHIFT	21
#define SROCE_ODP_CHILD_SIZE	(1ULL << SROCE_ODP_CHILD_SHIFT)
#define SROCE_ODP_CHILD_PAGES	(SROCE_ODP_CHILD_SIZE >> PAGE_SHIFT)

struct sroce_odp_child {
	struct sroce_odp_part part;
	DECLARE_BITMAP(valid, SROCE_ODP_CHILD_PAGES);
};

static struct workqueue_struct *sroce_odp_wq;

void sroce_odp_caps(struct ib_device_attr *attr)
{
	u32 common = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		     IB_ODP_SUPPORT_SRQ_RECV;

	attr->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	attr->odp_caps.general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	attr->odp_caps.per_transport_caps.rc_odp_caps =
		common | IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		IB_ODP_SUPPORT_ATOMIC;
	attr->odp_caps.per_transport_caps.uc_odp_caps =
		common | IB_ODP_SUPPORT_WRITE;
	attr->odp_caps.per_transport_caps.ud_odp_caps = common;
}

/* --- the region ---------------------------------------------------------- */

void sroce_odp_read_lock(struct sroce_mr *mr)
	__acquires(&mr->odp_lock)
{
	read_lock(&mr->odp_lock);
}

void sroce_odp_read_unlock(struct sroce_mr *mr)
	__releases(&mr->odp_lock)
{
	read_unlock(&mr->odp_lock);
}

/* The index in dma_list and @odp_valid of user address @va. */
static unsigned long sroce_odp_index(struct ib_umem_odp *odp, u64 va)
{
	return (va - ib_umem_start(odp)) >> odp->page_shift;
}

/*
 * The kernel takes [start, end) of a part's memory away. First the pages
 * stop being valid for the engines, under the write lock, which waits
 * for those inside them; then the core unmaps them, which marks written
 * pages dirty. That takes filesystem locks (ext4's, the inode's) that
 * are held with bottom halves on elsewhere: with our lock held, a reader
 * in softirq on such a CPU would deadlock against us. Sleeps; a caller
 * that cannot wait (the OOM reaper) is refused, as the notifier API
 * allows, and retries. Nothing was faulted in before the umem was wired
 * to its part (@private).
 */
static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	const struct sroce_odp_part *part = smp_load_acquire(&odp->private);
	unsigned long first, last, idx, n;
	u64 start, end;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, range->start, ib_umem_start(odp));
	end = min_t(u64, range->end, ib_umem_end(odp));
	if (part && odp->npages && start < end) {
		first = sroce_odp_index(odp, start);
		last = sroce_odp_index(odp, end - 1);
		for (idx = first; idx <= last; idx += n) {
			n = min_t(unsigned long, last - idx + 1,
				  SROCE_ODP_UNMAP_BATCH);
			write_lock_bh(part->lock);
			bitmap_clear(part->valid, idx, n);
			write_unlock_bh(part->lock);
		}
		ib_umem_odp_unmap_dma_pages(odp, start, end);
	}
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_notifier_ops = {
	.invalidate = sroce_odp_invalidate,
};

/*
 * The core keeps 16 bytes of lists per registered page of an on-demand
 * region, present or not, and does not charge them to the process: a
 * region over unmapped address space costs the user nothing and the
 * kernel 1/256 of its length. So a device registers at most this many
 * pages on demand, all users together: four times the memory, whose
 * lists take 1/64 of it.
 */
static unsigned long sroce_odp_max_pages(void)
{
	return 4 * totalram_pages();
}

int sroce_odp_mr_init(struct sroce_mr *mr, u64 start, u64 length, int access)
{
	struct sroce_dev *sdev = mr->sdev;
	unsigned long pages;
	struct ib_umem_odp *odp;

	/*
	 * Huge pages would make the core's lists (per 4 KiB) and ours (per
	 * huge page) disagree with the bound; the pinned path has them.
	 */
	if (access & IB_ACCESS_HUGETLB)
		return -EOPNOTSUPP;
	if (start + length < start)
		return -EINVAL;
	pages = (ALIGN(start + length, PAGE_SIZE) -
		 ALIGN_DOWN(start, PAGE_SIZE)) >> PAGE_SHIFT;
	/* The core's kvcalloc() of the lists would warn past INT_MAX bytes. */
	if (pages > INT_MAX / sizeof(u64))
		return -ENOMEM;
	if (atomic_long_add_return(pages, &sdev->odp_pages) >
	    sroce_odp_max_pages()) {
		atomic_long_sub(pages, &sdev->odp_pages);
		return -ENOMEM;
	}
	mr->odp_charged = pages;
	mr->odp_valid = kvcalloc(BITS_TO_LONGS(pages), sizeof(long),
				 sroce_obj_gfp(true) | __GFP_NOWARN);
	if (!mr->odp_valid)
		return -ENOMEM;
	rwlock_init(&mr->odp_lock);
	mutex_init(&mr->odp_mutex);
	odp = ib_umem_odp_get(mr->pd->device, start, length, access,
			      &sroce_odp_notifier_ops);
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	mr->odp = odp;
	mr->umem = &odp->umem;
	mr->odp_part.odp = odp;
	mr->odp_part.valid = mr->odp_valid;
	mr->odp_part.lock = &mr->odp_lock;
	smp_store_release(&odp->private, &mr->odp_part);
	atomic_inc(&sdev->odp_regions);
	return 0;
}

int sroce_odp_mr_init_implicit(struct sroce_mr *mr, int access)
{
	struct ib_umem_odp *odp;

	if (access & IB_ACCESS_HUGETLB)
		return -EOPNOTSUPP;
	rwlock_init(&mr->odp_lock);
	xa_init(&mr->odp_children);
	mutex_init(&mr->odp_mutex);
	mr->odp_implicit = true;
	odp = ib_umem_odp_alloc_implicit(mr->pd->device, access);
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	/*
	 * The root has no notifier, whose registration keeps the mm_struct
	 * of an explicit region: children are made against it later.
	 */
	mr->odp_mm = odp->umem.owning_mm;
	mmgrab(mr->odp_mm);
	mr->odp = odp;
	mr->umem = &odp->umem;
	atomic_inc(&mr->sdev->odp_regions);
	return 0;
}

void sroce_odp_mr_release(struct sroce_mr *mr)
{
	struct sroce_odp_child *child;
	unsigned long idx;

	/* The children first: they are the root's. */
	if (mr->odp_implicit) {
		xa_for_each(&mr->odp_children, idx, child) {
			ib_umem_odp_release(child->part.odp);
			kfree(child);
		}
		xa_destroy(&mr->odp_children);
	}
	if (mr->umem)
		atomic_dec(&mr->sdev->odp_regions);
	ib_umem_release(mr->umem);
	mr->umem = NULL;
	mr->odp = NULL;
	if (mr->odp_mm)
		mmdrop(mr->odp_mm);
	mr->odp_mm = NULL;
	kvfree(mr->odp_valid);
	mr->odp_valid = NULL;
	atomic_long_sub(mr->odp_charged, &mr->sdev->odp_pages);
	mr->odp_charged = 0;
}

/* The user address of region address @iova. */
static u64 sroce_odp_va(const struct sroce_mr *mr, u64 mr_iova, u64 iova)
{
	return mr->odp->umem.address + (iova - mr_iova);
}

/*
 * The part of @mr holding user address @va: NULL if it has none yet (an
 * implicit region's child not made yet). Any context; children are only
 * added while the region lives, and freed with it.
 */
static const struct sroce_odp_part *sroce_odp_part_of(struct sroce_mr *mr,
						      u64 va)
{
	struct sroce_odp_child *child;

	if (!mr->odp_implicit)
		return &mr->odp_part;
	child = xa_load(&mr->odp_children, va >> SROCE_ODP_CHILD_SHIFT);
	return child ? &child->part : NULL;
}

int sroce_odp_locate(struct sroce_mr *mr, u64 mr_iova, u64 iova, bool write,
		     struct page **page, u32 *offset, u32 *avail)
{
	u64 va = sroce_odp_va(mr, mr_iova, iova);
	u64 need = write ? ODP_WRITE_ALLOWED_BIT : ODP_READ_ALLOWED_BIT;
	const struct sroce_odp_part *part = sroce_odp_part_of(mr, va);
	u64 idx, entry;
	unsigned long kva;

	if (!part)
		return -EAGAIN;
	if (va < ib_umem_start(part->odp) || va >= ib_umem_end(part->odp))
		return -EFAULT;
	idx = sroce_odp_index(part->odp, va);
	/* The fault work item may be filling them in meanwhile. */
	entry = READ_ONCE(part->odp->dma_list[idx]);
	if (!test_bit(idx, part->valid) || !(entry & need))
		return -EAGAIN;
	/* A virtual-DMA device's "DMA address" is the page's kernel one. */
	kva = (entry & ODP_DMA_ADDR_MASK) +
	      (va & ((1UL << part->odp->page_shift) - 1));
	*page = virt_to_page(kva);
	*offset = offset_in_page(kva);
	*avail = PAGE_SIZE - *offset;
	return 0;
}

/*
 * Whether the engines may copy to and from @page through the kernel's
 * direct map: memfd_secret() takes its pages out of it (the pinned path
 * never sees them, GUP refuses them; hmm_range_fault() does not).
 */
static bool sroce_odp_page_usable(struct page *page)
{
	struct address_space *mapping = folio_mapping(page_folio(page));

	return !mapping || !mapping->host ||
	       mapping->host->i_sb->s_magic != SECRETMEM_MAGIC;
}

/*
 * After the core mapped [va, va + len) of @part (umem_mutex held, so no
 * invalidation runs): make its pages valid for the engines, but those
 * they must not touch. -EFAULT if one of those is among them.
 */
static int sroce_odp_validate(const struct sroce_odp_part *part, u64 va,
			      u32 len)
{
	struct ib_umem_odp *odp = part->odp;
	unsigned long idx, last = sroce_odp_index(odp, va + len - 1);
	int ret = 0;
	u64 entry;

	for (idx = sroce_odp_index(odp, va); idx <= last; idx++) {
		entry = odp->dma_list[idx];
		if (!entry || test_bit(idx, part->valid))
			continue;
		if (!sroce_odp_page_usable(virt_to_page(entry &
							ODP_DMA_ADDR_MASK)))
			ret = -EFAULT;
		else
			set_bit(idx, part->valid);
	}
	return ret;
}

/* Maps [va, va + len), inside @part, as sroce_odp_map() says. */
static int sroce_odp_map_part(const struct sroce_odp_part *part, u64 va,
			      u32 len, u64 mask, bool fault)
{
	int ret;

	ret = ib_umem_odp_map_dma_and_lock(part->odp, va, len, mask, fault);
	if (ret < 0)
		return -EFAULT;
	/* Held on success only. */
	ret = sroce_odp_validate(part, va, len);
	mutex_unlock(&part->odp->umem_mutex);
	return ret;
}

/*
 * The child of implicit region @mr holding user address @va, made if
 * need be: only where the process has memory mapped with the rights
 * the access needs, so that a peer that writes to random addresses
 * leaves no children behind, and only within the device's bound. Under
 * @odp_mutex. 0 or -EFAULT.
 */
static int sroce_odp_child_get(struct sroce_mr *mr, u64 va, bool write,
			       const struct sroce_odp_part **part)
{
	unsigned long need = VM_READ | (write ? VM_WRITE : 0);
	unsigned long idx = va >> SROCE_ODP_CHILD_SHIFT;
	struct mm_struct *mm = mr->odp_mm;
	struct sroce_dev *sdev = mr->sdev;
	struct vm_area_struct *vma;
	struct sroce_odp_child *child;
	struct ib_umem_odp *odp;
	bool usable = false;
	int ret;

	lockdep_assert_held(&mr->odp_mutex);
	*part = sroce_odp_part_of(mr, va);
	if (*part)
		return 0;
	/*
	 * A mapping the process could use so: reserved address space
	 * (PROT_NONE, as runtimes reserve terabytes) makes no child.
	 */
	if (!mmget_not_zero(mm))
		return -EFAULT;
	if (va < mm->task_size) {
		mmap_read_lock(mm);
		vma = vma_lookup(mm, va);
		usable = vma && (vma->vm_flags & need) == need;
		mmap_read_unlock(mm);
	}
	mmput(mm);
	if (!usable)
		return -EFAULT;

	ret = -EFAULT;
	if (atomic_long_add_return(SROCE_ODP_CHILD_PAGES, &sdev->odp_pages) >
	    sroce_odp_max_pages())
		goto out_uncharge;
	child = kzalloc(sizeof(*child), GFP_KERNEL_ACCOUNT);
	if (!child)
		goto out_uncharge;
	odp = ib_umem_odp_alloc_child(mr->odp, (u64)idx << SROCE_ODP_CHILD_SHIFT,
				      SROCE_ODP_CHILD_SIZE,
				      &sroce_odp_notifier_ops);
	if (IS_ERR(odp))
		goto out_free;
	child->part.odp = odp;
	child->part.valid = child->valid;
	child->part.lock = &mr->odp_lock;
	smp_store_release(&odp->private, &child->part);
	if (xa_err(xa_store(&mr->odp_children, idx, child,
			    GFP_KERNEL_ACCOUNT))) {
		ib_umem_odp_release(odp);
		goto out_free;
	}
	WRITE_ONCE(mr->odp_charged, mr->odp_charged + SROCE_ODP_CHILD_PAGES);
	WRITE_ONCE(mr->odp_nchildren, mr->odp_nchildren + 1);
	*part = &child->part;
	return 0;

out_free:
	kfree(child);
out_uncharge:
	atomic_long_sub(SROCE_ODP_CHILD_PAGES, &sdev->odp_pages);
	return ret;
}

/*
 * Makes [iova, iova + len) present for @write; with @fault false, only
 * the pages the process has present already (for what its page table
 * allows). Process context, sleeps; the caller holds a region reference.
 * 0 or -EFAULT.
 */
static int sroce_odp_map(struct sroce_mr *mr, u64 iova, u32 len, bool write,
			 bool fault)
{
	u64 mask = ODP_READ_ALLOWED_BIT;
	const struct sroce_odp_part *part;
	u64 mr_iova, mr_length, va;
	unsigned int seq;
	u32 n;
	int ret;

	do {
		seq = read_seqbegin(&mr->reg_lock);
		mr_iova = mr->iova;
		mr_length = mr->length;
	} while (read_seqretry(&mr->reg_lock, seq));
	/* Ahead of a packet, up to the region's end at most. */
	if (iova >= mr_iova && iova - mr_iova < mr_length)
		len = min_t(u64, len, mr_length - (iova - mr_iova));
	if (!len || !sroce_range_ok(mr_iova, mr_length, iova, len))
		return -EFAULT;
	if (write) {
		if (!mr->odp->umem.writable)
			return -EFAULT;
		mask |= ODP_WRITE_ALLOWED_BIT;
	}
	va = sroce_odp_va(mr, mr_iova, iova);
	mutex_lock(&mr->odp_mutex);
	if (!mr->odp_implicit) {
		ret = sroce_odp_map_part(&mr->odp_part, va, len, mask, fault);
	} else {
		/* Child by child. */
		for (ret = 0; len && !ret; len -= n, va += n) {
			n = min_t(u64, len, SROCE_ODP_CHILD_SIZE -
					    (va & (SROCE_ODP_CHILD_SIZE - 1)));
			ret = sroce_odp_child_get(mr, va, write, &part);
			if (!ret)
				ret = sroce_odp_map_part(part, va, n, mask,
							 fault);
		}
	}
	mutex_unlock(&mr->odp_mutex);
	return ret;
}

static int sroce_odp_fault_in(struct sroce_mr *mr, u64 iova, u32 len,
			      bool write)
{
	return sroce_odp_map(mr, iova, len, write, true);
}

/* --- fault slots --------------------------------------------------------- */

static bool sroce_odp_failed(const struct sroce_odp_fault *f,
			     const struct sroce_mr *mr, u64 iova, u32 len,
			     bool write)
{
	return f->failed_mr == mr && f->failed_key == mr->key &&
	       iova >= f->failed_start && iova + len <= f->failed_end &&
	       (f->failed_write || !write);
}

static void sroce_odp_fault_work(struct work_struct *work)
{
	struct sroce_odp_fault *f = container_of(work, struct sroce_odp_fault,
						 work);
	struct sroce_dev *sdev = to_sroce_dev(f->qp->ib_qp.device);
	struct sroce_mr *mr;
	u32 len, ahead, gen;
	bool write;
	u64 iova;
	int ret = -EFAULT;

	spin_lock_bh(&f->lock);
	mr = f->mr;
	iova = f->iova;
	len = f->len;
	ahead = f->ahead;
	write = f->write;
	gen = f->asked_gen;
	spin_unlock_bh(&f->lock);
	if (!mr)
		return;

	/* The rest of the message may run into a hole the packet does not. */
	if (ahead > len)
		ret = sroce_odp_fault_in(mr, iova, ahead, write);
	if (ret)
		ret = sroce_odp_fault_in(mr, iova, len, write);
	sroce_count(sdev, ret ? SROCE_CNT_ODP_FAULT_ERRORS :
				SROCE_CNT_ODP_FAULTS);

	spin_lock_bh(&f->lock);
	if (ret && gen == f->gen) {
		f->failed_mr = mr;
		f->failed_key = mr->key;
		f->failed_start = iova;
		f->failed_end = iova + len;
		f->failed_write = write;
	}
	WRITE_ONCE(f->mr, NULL);
	spin_unlock_bh(&f->lock);
	sroce_mr_put(mr);

	if (f->rcv)
		sroce_engine_kick_recv(f->qp);
	else
		sroce_engine_kick_send(f->qp);
}

void sroce_odp_fault_init(struct sroce_odp_fault *f, struct sroce_qp *qp,
			  bool rcv)
{
	memset(f, 0, sizeof(*f));
	INIT_WORK(&f->work, sroce_odp_fault_work);
	spin_lock_init(&f->lock);
	f->qp = qp;
	f->rcv = rcv;
}

int sroce_odp_fault_ask(struct sroce_odp_fault *f, struct sroce_mr *mr,
			u64 iova, u32 len, u64 rest, bool write)
{
	int ret = -EINPROGRESS;

	if (!f)
		return -EFAULT;
	spin_lock_bh(&f->lock);
	if (f->dead) {
		ret = -EFAULT;
	} else if (f->mr) {
		/* One at a time: this one is asked for again after the kick. */
	} else if (sroce_odp_failed(f, mr, iova, len, write)) {
		f->failed_mr = NULL;
		ret = -EFAULT;
	} else {
		f->failed_mr = NULL;
		refcount_inc(&mr->ref);
		WRITE_ONCE(f->mr, mr);
		f->iova = iova;
		f->len = len;
		f->ahead = max_t(u64, len, rest >= PAGE_SIZE ?
						SROCE_ODP_FAULT_AHEAD : rest);
		f->write = write;
		f->asked_gen = f->gen;
		queue_work(sroce_odp_wq, &f->work);
	}
	spin_unlock_bh(&f->lock);
	return ret;
}

void sroce_odp_fault_forget(struct sroce_odp_fault *f)
{
	spin_lock_bh(&f->lock);
	f->failed_mr = NULL;
	/* A fault in flight now belongs to the old connection. */
	f->gen++;
	spin_unlock_bh(&f->lock);
}

bool sroce_odp_fault_pending(struct sroce_odp_fault *f)
{
	return READ_ONCE(f->mr) != NULL;
}

void sroce_odp_fault_stop(struct sroce_odp_fault *f)
{
	struct sroce_mr *mr;

	spin_lock_bh(&f->lock);
	f->dead = true;
	spin_unlock_bh(&f->lock);
	cancel_work_sync(&f->work);
	/* Cancelled before it ran: its reference is ours to drop. */
	spin_lock_bh(&f->lock);
	mr = f->mr;
	WRITE_ONCE(f->mr, NULL);
	spin_unlock_bh(&f->lock);
	if (mr)
		sroce_mr_put(mr);
}

/*
 * `rdma resource show mr -dd` of an on-demand region: odp_implicit, and
 * odp_pages, the pages it counts against the device's bound (for an
 * implicit region, odp_children of SROCE_ODP_CHILD_PAGES each).
 */
int sroce_odp_fill_res_mr(struct sk_buff *msg, struct ib_mr *ib_mr)
{
	struct sroce_mr *mr = to_sroce_mr(ib_mr);
	struct nlattr *nest;

	if (mr->kind != SROCE_MR_ODP)
		return 0;
	nest = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "odp_implicit", mr->odp_implicit) ||
	    rdma_nl_put_driver_u64(msg, "odp_pages",
				   READ_ONCE(mr->odp_charged)) ||
	    (mr->odp_implicit &&
	     rdma_nl_put_driver_u32(msg, "odp_children",
				    READ_ONCE(mr->odp_nchildren)))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* --- prefetch (advise_mr) ------------------------------------------------ */

/*
 * Bytes a prefetch maps per call into the core. Between two it gives up
 * if its region was deregistered meanwhile (dereg waits for it) or, run
 * by the caller, if the caller was killed.
 */
#define SROCE_ODP_PREFETCH_CHUNK	(2 * 1024 * 1024)
/*
 * Asynchronous prefetches in flight per device. Past it one runs in the
 * caller instead: so each holds at most its own SGE list (4095 entries,
 * the most a uverbs attribute carries) and references.
 */
#define SROCE_ODP_PREFETCH_MAX		64
/*
 * And at most this much each: a larger one (4095 SGEs of up to 4 GiB
 * each fit in one call) runs in the caller, whose time it takes.
 */
#define SROCE_ODP_PREFETCH_ASYNC_BYTES	(64ULL << 20)

struct sroce_odp_prefetch {
	struct work_struct work;
	struct sroce_dev *sdev;
	bool write;		/* PREFETCH_WRITE */
	bool fault;		/* else PREFETCH_NO_FAULT */
	u32 num;
	struct {
		struct sroce_mr *mr;	/* a reference */
		u64 iova;
		u32 len;
	} sge[];
};

static void sroce_odp_prefetch_free(struct sroce_odp_prefetch *pf)
{
	u32 i;

	for (i = 0; i < pf->num; i++)
		sroce_mr_put(pf->sge[i].mr);
	kvfree(pf);
}

/* 0, or the first error: -EFAULT, or -EINTR if the caller was killed. */
static int sroce_odp_prefetch_run(struct sroce_odp_prefetch *pf)
{
	u32 i, n;
	u64 iova;
	u32 len;
	int ret;

	for (i = 0; i < pf->num; i++) {
		iova = pf->sge[i].iova;
		for (len = pf->sge[i].len; len; len -= n, iova += n) {
			n = min_t(u32, len, SROCE_ODP_PREFETCH_CHUNK);
			if (READ_ONCE(pf->sge[i].mr->state) != SROCE_MR_VALID)
				return -EFAULT;
			if (fatal_signal_pending(current))
				return -EINTR;
			ret = sroce_odp_map(pf->sge[i].mr, iova, n, pf->write,
					    pf->fault);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static void sroce_odp_prefetch_work(struct work_struct *work)
{
	struct sroce_odp_prefetch *pf =
		container_of(work, struct sroce_odp_prefetch, work);

	/* Nobody to tell: an asynchronous prefetch is advice only. */
	sroce_odp_prefetch_run(pf);
	/* Before the references, which keep the device. */
	atomic_dec(&pf->sdev->odp_prefetches);
	sroce_odp_prefetch_free(pf);
}

/*
 * ibv_advise_mr(). Every SGE must name a region of @pd that covers it
 * with the access the advice needs (local write for PREFETCH_WRITE),
 * else -EFAULT before anything is done; an SGE of a pinned region needs
 * nothing. With IB_UVERBS_ADVISE_MR_FLAG_FLUSH the pages are present
 * when it returns (-EFAULT if one cannot be: not mapped, no permission);
 * without, it returns at once and a work item does it (but past the
 * bounds above). NO_FAULT only maps the pages the process has present
 * already.
 */
int sroce_odp_advise_mr(struct ib_pd *pd,
			enum ib_uverbs_advise_mr_advice advice, u32 flags,
			struct ib_sge *sg_list, u32 num_sge,
			struct uverbs_attr_bundle *attrs)
{
	struct sroce_dev *sdev = to_sroce_dev(pd->device);
	struct sroce_odp_prefetch *pf;
	enum ib_wc_status status;
	struct sroce_mr *mr;
	u64 bytes = 0;
	int access, ret;
	u32 i;

	if (advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return -EOPNOTSUPP;
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EOPNOTSUPP;
	pf = kvzalloc(struct_size(pf, sge, num_sge), GFP_KERNEL_ACCOUNT);
	if (!pf)
		return -ENOMEM;
	INIT_WORK(&pf->work, sroce_odp_prefetch_work);
	pf->sdev = sdev;
	pf->write = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	pf->fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	access = pf->write ? IB_ACCESS_LOCAL_WRITE : 0;
	for (i = 0; i < num_sge; i++) {
		mr = sroce_mr_get(sdev, sg_list[i].lkey, pd, access,
				  sg_list[i].addr, sg_list[i].length, &status);
		if (!mr) {
			sroce_odp_prefetch_free(pf);
			return -EFAULT;
		}
		if (mr->kind != SROCE_MR_ODP || !sg_list[i].length) {
			sroce_mr_put(mr);
			continue;
		}
		pf->sge[pf->num].mr = mr;
		pf->sge[pf->num].iova = sg_list[i].addr;
		pf->sge[pf->num].len = sg_list[i].length;
		pf->num++;
		bytes += sg_list[i].length;
	}
	if (!pf->num) {
		kvfree(pf);
		return 0;
	}
	if (!(flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH) &&
	    bytes <= SROCE_ODP_PREFETCH_ASYNC_BYTES &&
	    atomic_add_unless(&sdev->odp_prefetches, 1,
			      SROCE_ODP_PREFETCH_MAX)) {
		queue_work(sroce_odp_wq, &pf->work);
		return 0;
	}
	ret = sroce_odp_prefetch_run(pf);
	sroce_odp_prefetch_free(pf);
	return ret;
}

int sroce_odp_init(void)
{
	/*
	 * Its own queue: a fault waits for the process's mmap lock and for
	 * page reclaim, and must not hold up the engines' work items.
	 */
	sroce_odp_wq = alloc_workqueue("sroce_odp", WQ_UNBOUND, 0);
	return sroce_odp_wq ? 0 : -ENOMEM;
}

void sroce_odp_exit(void)
{
	destroy_workqueue(sroce_odp_wq);
}
