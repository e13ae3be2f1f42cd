/* SPDX-License-Identifier: GPL-2.0 */
/* The allocator calls of driver code built in user space. */
#ifndef KSHIM_LINUX_SLAB_H
#define KSHIM_LINUX_SLAB_H

#include <stdlib.h>
#include <linux/types.h>

#define GFP_KERNEL	0u

static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(n, size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

#endif /* KSHIM_LINUX_SLAB_H */
