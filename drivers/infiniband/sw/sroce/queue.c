// SPDX-License-Identifier: GPL-2.0
/*
 * Rings in the rxe user-ABI layout. See queue.h for the layout, who owns
 * which index, the memory ordering and the locking rules.
 */
#include <linux/cache.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "sroce.h"
#include "queue.h"

/*
 * Bounds that keep the size arithmetic far from overflow and the mapping
 * size within mminfo.size (u32). Object limits (limits.h) are much lower.
 */
#define SROCE_QUEUE_MAX_ELEM		(1U << 24)
#define SROCE_QUEUE_MAX_ELEM_SIZE	(1U << 16)
#define SROCE_QUEUE_MAX_BYTES		(1UL << 30)

static_assert(sizeof(struct rxe_queue_buf) == 384);

static bool sroce_queue_kernel_produces(const struct sroce_queue *q)
{
	return q->type == SROCE_QUEUE_CQ || !q->user;
}

static bool sroce_queue_kernel_consumes(const struct sroce_queue *q)
{
	return q->type != SROCE_QUEUE_CQ || !q->user;
}

int sroce_queue_init(struct sroce_queue *q, struct sroce_dev *sdev,
		     struct ib_udata *udata, enum sroce_queue_type type,
		     u32 *num_elem, u32 elem_size,
		     struct mminfo __user *mi_out)
{
	struct mminfo mi = {};
	u32 slots, log2_elem;
	size_t size;
	int err;

	memset(q, 0, sizeof(*q));
	if (*num_elem >= SROCE_QUEUE_MAX_ELEM || !elem_size ||
	    elem_size > SROCE_QUEUE_MAX_ELEM_SIZE || !udata != !mi_out)
		return -EINVAL;

	/* Whole cache lines per slot, so that neighbours never share one. */
	log2_elem = order_base_2(max_t(u32, elem_size, cache_line_size()));
	slots = roundup_pow_of_two(*num_elem + 1);
	size = sizeof(struct rxe_queue_buf) + ((size_t)slots << log2_elem);
	if (size > SROCE_QUEUE_MAX_BYTES)
		return -EINVAL;

	err = sroce_ring_mem_alloc(&q->mem, size, !!udata);
	if (err)
		return err;
	q->buf = q->mem.vaddr;
	q->buf_size = size;
	q->index_mask = slots - 1;
	q->log2_elem_size = log2_elem;
	q->type = type;
	q->user = !!udata;
	/* Written once: librxe reads them from the page on every access. */
	q->buf->log2_elem_size = log2_elem;
	q->buf->index_mask = q->index_mask;

	if (udata) {
		err = sroce_mmap_add(udata, &q->mem, size, &q->mmap, &mi);
		if (err) {
			sroce_ring_mem_free(&q->mem);
			q->buf = NULL;
			return err;
		}
		/* From here on the mmap entry owns the memory (q->mem is 0). */
		if (copy_to_user(mi_out, &mi, sizeof(mi))) {
			sroce_queue_cleanup(q);
			return -EFAULT;
		}
	}

	*num_elem = q->index_mask;
	return 0;
}

void sroce_queue_cleanup(struct sroce_queue *q)
{
	if (q->mmap)
		sroce_mmap_remove(q->mmap);
	else
		sroce_ring_mem_free(&q->mem);
	q->mmap = NULL;
	q->buf = NULL;
}

u32 sroce_queue_producer_index(const struct sroce_queue *q)
{
	if (sroce_queue_kernel_produces(q))
		return smp_load_acquire(&q->prod);
	return smp_load_acquire(&q->buf->producer_index) & q->index_mask;
}

u32 sroce_queue_consumer_index(const struct sroce_queue *q)
{
	if (sroce_queue_kernel_consumes(q))
		return smp_load_acquire(&q->cons);
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}

u32 sroce_queue_count(const struct sroce_queue *q)
{
	return (sroce_queue_producer_index(q) -
		sroce_queue_consumer_index(q)) & q->index_mask;
}

void *sroce_queue_head(struct sroce_queue *q)
{
	/* A user CQ is drained by librxe, never by the kernel. */
	if (WARN_ON_ONCE(!sroce_queue_kernel_consumes(q)))
		return NULL;
	if (sroce_queue_producer_index(q) == q->cons)
		return NULL;
	return sroce_queue_addr(q, q->cons);
}

void sroce_queue_pop(struct sroce_queue *q)
{
	u32 next = sroce_queue_next(q, q->cons);

	/* Frees the slot for the producer: after the last read of it. */
	smp_store_release(&q->buf->consumer_index, next);
	smp_store_release(&q->cons, next);
}

void *sroce_queue_tail(struct sroce_queue *q)
{
	/* A user SQ/RQ is filled by librxe, never by the kernel. */
	if (WARN_ON_ONCE(!sroce_queue_kernel_produces(q)))
		return NULL;
	if (sroce_queue_next(q, q->prod) == sroce_queue_consumer_index(q))
		return NULL;
	return sroce_queue_addr(q, q->prod);
}

void sroce_queue_push(struct sroce_queue *q)
{
	u32 next = sroce_queue_next(q, q->prod);

	/* Publishes the slot: after the last write to it. */
	smp_store_release(&q->buf->producer_index, next);
	smp_store_release(&q->prod, next);
}

int sroce_queue_replace(struct sroce_queue *q, struct sroce_queue *new_q)
{
	size_t copy = (size_t)1 << min(q->log2_elem_size,
				       new_q->log2_elem_size);
	u32 cons = sroce_queue_consumer_index(q);
	u32 count = sroce_queue_count(q);
	u32 i;

	if (count > sroce_queue_capacity(new_q))
		return -EINVAL;

	for (i = 0; i < count; i++)
		memcpy(sroce_queue_addr(new_q, i),
		       sroce_queue_addr(q, cons + i), copy);

	/*
	 * The new ring starts with its elements at 0..count-1. Both header
	 * copies are written too: whichever side user space owns starts from
	 * them when it maps the new ring.
	 */
	new_q->cons = 0;
	smp_store_release(&new_q->buf->consumer_index, 0);
	new_q->prod = count;
	smp_store_release(&new_q->buf->producer_index, count);

	swap(*q, *new_q);
	return 0;
}
