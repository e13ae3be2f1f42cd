// SPDX-License-Identifier: GPL-2.0
/*
 * User mappings of shared rings, through the RDMA core's mmap entries.
 *
 * librxe learns a ring's struct mminfo {offset, size} from the create (or
 * resize) response and mmap()s exactly that on the uverbs file. Each ring
 * gets an entry in its user context's mmap table: the offset is the
 * entry's page offset (page aligned, unique within the context while the
 * entry exists; we start at page 1 so that a zeroed mminfo never names a
 * ring), the size is the ring rounded up to pages.
 *
 * Lifetime of a ring's memory (struct sroce_mmap_entry owns it):
 *  - sroce_mmap_add() creates the entry holding the one reference the
 *    owner object keeps;
 *  - sroce_mmap() takes a temporary reference for the duration of one
 *    mmap() call, so a concurrent destroy cannot free the pages while
 *    they are being inserted;
 *  - the owner's destroy calls sroce_mmap_remove(), which forbids new
 *    mappings and drops its reference. librxe destroys before it unmaps,
 *    so the ring is usually still mapped at that point: that is fine,
 *    because vm_insert_page() holds a page reference per mapping, and
 *    sroce_ring_mem_free() only drops ours; the pages themselves go when
 *    the last process unmaps them. Nothing in the VMA points back to us,
 *    so neither module unload nor device removal has to wait for munmap();
 *  - the core calls ops.mmap_free (sroce_mmap_free) when the last
 *    reference is dropped, which is the only place the entry and the
 *    ring's memory are freed.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "queue.h"

struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	/* Freed in sroce_mmap_free(). */
	struct sroce_ring_mem mem;
};

static struct sroce_mmap_entry *
to_sroce_mmap_entry(struct rdma_user_mmap_entry *rdma)
{
	return container_of(rdma, struct sroce_mmap_entry, rdma);
}

/*
 * Offers the ring @mem (@size bytes used) for mmap() on the user context of
 * @udata and describes it in @mi. On success the entry owns the memory and
 * *@mem is zeroed; on failure the caller still owns it.
 */
int sroce_mmap_add(struct ib_udata *udata, struct sroce_ring_mem *mem,
		   size_t size, struct sroce_mmap_entry **entryp,
		   struct mminfo *mi)
{
	struct ib_ucontext *uc = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	struct sroce_mmap_entry *entry;
	size_t len = PAGE_ALIGN(size);
	int err;

	if (len > U32_MAX)
		return -EINVAL;
	entry = kzalloc(sizeof(*entry), sroce_obj_gfp(true));
	if (!entry)
		return -ENOMEM;
	/* Complete before insertion: another thread may guess the offset. */
	entry->mem = *mem;
	err = rdma_user_mmap_entry_insert_range(uc, &entry->rdma, len, 1,
						U32_MAX);
	if (err) {
		kfree(entry);
		return err;
	}
	memset(mem, 0, sizeof(*mem));

	mi->offset = rdma_user_mmap_get_offset(&entry->rdma);
	mi->size = len;
	mi->pad = 0;
	*entryp = entry;
	return 0;
}

/* The owner is done with the ring; see the lifetime notes above. */
void sroce_mmap_remove(struct sroce_mmap_entry *entry)
{
	rdma_user_mmap_entry_remove(&entry->rdma);
}

/*
 * ops.mmap. The core's lookup accepts only a shared mapping that starts at
 * an entry's offset and is exactly the entry's size, in the caller's own
 * user context; anything else is refused with EINVAL.
 */
static int sroce_mmap(struct ib_ucontext *uc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	int err;

	rdma = rdma_user_mmap_entry_get(uc, vma);
	if (!rdma)
		return -EINVAL;
	err = sroce_ring_mem_map(&to_sroce_mmap_entry(rdma)->mem, vma);
	rdma_user_mmap_entry_put(rdma);
	return err;
}

/* ops.mmap_free: the last reference to the entry is gone. */
static void sroce_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct sroce_mmap_entry *entry = to_sroce_mmap_entry(rdma);

	sroce_ring_mem_free(&entry->mem);
	kfree(entry);
}

const struct ib_device_ops sroce_mmap_ops = {
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
};
