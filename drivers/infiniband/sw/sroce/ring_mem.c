// SPDX-License-Identifier: GPL-2.0
/*
 * Memory for rings: zeroed pages, mapped contiguously into the kernel with
 * vmap() and, for user rings, into the process with vm_insert_page().
 *
 * Why not vmalloc_user(): a user ring is memory a process asks for, sized
 * by the process, and must be charged to its memory cgroup. vmalloc_user()
 * takes no GFP flags, and the vmalloc call that does cannot mark its area
 * for user mappings. Pages allocated here with __GFP_ACCOUNT are charged
 * to the caller's cgroup and uncharged when their last reference goes.
 *
 * Past its cgroup's limit the process gets ENOMEM from the verb instead of
 * an OOM kill (sroce_obj_gfp()), and the host keeps its memory.
 *
 * Lifetime: each page has one reference from here, dropped by
 * sroce_ring_mem_free(), plus one per user mapping (vm_insert_page()), so
 * a ring still mapped by a process outlives its free.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sroce.h"
#include "queue.h"

int sroce_ring_mem_alloc(struct sroce_ring_mem *m, size_t size, bool user)
{
	gfp_t gfp = sroce_obj_gfp(user);
	unsigned int i, n = PAGE_ALIGN(size) >> PAGE_SHIFT;

	memset(m, 0, sizeof(*m));
	m->pages = kvcalloc(n, sizeof(*m->pages), gfp | __GFP_NOWARN);
	if (!m->pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		m->pages[i] = alloc_page(gfp | __GFP_ZERO | __GFP_NOWARN);
		if (!m->pages[i])
			goto fail;
		m->npages = i + 1;
	}
	m->vaddr = vmap(m->pages, n, VM_MAP, PAGE_KERNEL);
	if (!m->vaddr)
		goto fail;
	return 0;

fail:
	sroce_ring_mem_free(m);
	return -ENOMEM;
}

void sroce_ring_mem_free(struct sroce_ring_mem *m)
{
	unsigned int i;

	if (m->vaddr)
		vunmap(m->vaddr);
	for (i = 0; i < m->npages; i++)
		put_page(m->pages[i]);
	kvfree(m->pages);
	memset(m, 0, sizeof(*m));
}

/*
 * Maps all of @m into @vma, which the caller has checked to be exactly the
 * ring's size; vm_pgoff is the mmap entry's cookie, not an offset into us.
 */
int sroce_ring_mem_map(struct sroce_ring_mem *m, struct vm_area_struct *vma)
{
	return vm_map_pages_zero(vma, m->pages, m->npages);
}
