/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rings in the rxe user-ABI layout, shared with user space (librxe) or
 * private to the kernel.
 *
 * Layout (include/uapi/rdma/rdma_user_rxe.h): a 384-byte struct
 * rxe_queue_buf header - log2_elem_size and index_mask written once at
 * creation, the producer and the consumer index each in its own cache
 * line - followed by 2^k slots of 2^log2_elem_size bytes. Indices are
 * stored masked, never free-running; one slot always stays empty, so the
 * ring is empty when producer == consumer and holds at most 2^k - 1
 * elements.
 *
 * Who owns which index:
 *
 *   type             producer                  consumer
 *   SROCE_QUEUE_CQ   kernel (transport)        user (librxe) or kernel poll_cq
 *   SROCE_QUEUE_SQ   user, or kernel post_send kernel (requester)
 *   SROCE_QUEUE_RQ   user, or kernel post_recv kernel (responder)
 *
 * An index the kernel owns lives in a private copy (prod/cons below) and
 * is mirrored into the header for the peer; the header copy is never read
 * back, because user space can write anything there. An index user space
 * owns is read from the header with acquire semantics and masked with the
 * kernel's private mask, so a hostile value can at worst make the ring
 * look fuller or emptier than it is, never reach outside it. Likewise
 * index_mask and log2_elem_size are used from the private copies only.
 *
 * Ordering: the side that fills or drains a slot publishes its new index
 * with smp_store_release() after the last access to the slot; the other
 * side reads that index with smp_load_acquire() before touching the slot.
 * This mirrors librxe's C11 acquire/release and also orders the two kernel
 * sides of a kernel-only queue (e.g. ib_post_send() on one CPU, the
 * requester on another).
 *
 * Locking: a queue has no lock of its own. The object that owns it (CQ,
 * QP, SRQ) serialises each kernel side with its own lock: at most one
 * producer and one consumer run at a time, and the two sides may run
 * concurrently. Consumer-side calls: sroce_queue_head(), _pop(),
 * _count(), _consumer_index(), _producer_index(). Producer-side calls:
 * sroce_queue_tail(), _push(). sroce_queue_replace() needs both sides.
 *
 * Memory: the ring is struct sroce_ring_mem pages (ring_mem.c), charged to
 * the creating process's memory cgroup for a user queue. For a user queue it
 * is handed
 * to an mmap entry (mmap.c) and freed only when the entry's last reference
 * is gone; pages user space has mapped stay alive until it unmaps them.
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

struct sroce_dev;
struct sroce_mmap_entry;
struct vm_area_struct;

/* Pages of one ring and their kernel mapping (ring_mem.c). */
struct sroce_ring_mem {
	void *vaddr;
	struct page **pages;
	unsigned int npages;
};

/*
 * Zeroed pages for at least @size bytes. @user: the memory is the calling
 * process's (charged to its cgroup, ENOMEM rather than an OOM kill).
 * Returns 0 or -ENOMEM. Process context.
 */
int sroce_ring_mem_alloc(struct sroce_ring_mem *m, size_t size, bool user);
/* Safe on a zeroed or already freed @m. */
void sroce_ring_mem_free(struct sroce_ring_mem *m);
int sroce_ring_mem_map(struct sroce_ring_mem *m, struct vm_area_struct *vma);

enum sroce_queue_type {
	SROCE_QUEUE_CQ,		/* the kernel produces */
	SROCE_QUEUE_SQ,		/* the kernel consumes */
	SROCE_QUEUE_RQ,		/* the kernel consumes (RQ and SRQ) */
};

struct sroce_queue {
	struct rxe_queue_buf *buf;	/* mem.vaddr */
	/* Kernel queues only: a user queue's mmap entry owns its memory. */
	struct sroce_ring_mem mem;
	/* User queues only: the mmap entry that owns buf. */
	struct sroce_mmap_entry *mmap;
	size_t buf_size;
	/* Private copies of what the header tells user space. */
	u32 index_mask;
	u32 log2_elem_size;
	enum sroce_queue_type type;
	/* Shared with user space (created with udata). */
	bool user;
	/*
	 * Private copies of the indices the kernel owns: prod when the
	 * kernel produces (any CQ, kernel SQ/RQ), cons when it consumes
	 * (any SQ/RQ, kernel CQ). Written with release semantics by their
	 * side; the other kernel side of a kernel-only queue reads them with
	 * acquire semantics.
	 */
	u32 prod;
	u32 cons;
};

/*
 * Creates an empty ring of at least *num_elem elements of elem_size bytes
 * and returns its capacity in *num_elem. With udata (a user object) the
 * ring is offered for mmap() on that user context and its struct mminfo
 * is copied to mi_out; without udata it is a kernel ring and mi_out must
 * be NULL. Returns 0 or -EINVAL, -ENOMEM, -EFAULT. Process context.
 */
int sroce_queue_init(struct sroce_queue *q, struct sroce_dev *sdev,
		     struct ib_udata *udata, enum sroce_queue_type type,
		     u32 *num_elem, u32 elem_size,
		     struct mminfo __user *mi_out);

/*
 * Gives the ring up. A user ring is only withdrawn from mmap(): its memory
 * goes when no mmap() call is using it any more (mmap.c), and pages still
 * mapped by user space stay valid until munmap(). The owner must make sure
 * neither side touches the queue any more. Process context. Safe on a
 * queue whose init failed or that was already cleaned up.
 */
void sroce_queue_cleanup(struct sroce_queue *q);

/*
 * Moves the unconsumed elements of *q into the empty ring *new_q (first
 * element at slot 0) and swaps the two, so that *q is the new ring and
 * *new_q the old one, to be cleaned up by the caller once its locks are
 * dropped. Returns -EINVAL, changing nothing, if they do not fit. The
 * caller holds the locks of both kernel sides of *q; user space must not
 * move its index meanwhile (librxe holds its CQ lock across resize).
 */
int sroce_queue_replace(struct sroce_queue *q, struct sroce_queue *new_q);

/* Consumer side (the kernel consumes; any SQ/RQ, or a kernel CQ). */
void *sroce_queue_head(struct sroce_queue *q);
void sroce_queue_pop(struct sroce_queue *q);

/*
 * Producer side (the kernel produces; any CQ, or a kernel SQ/RQ filled by
 * ib_post_send()/ib_post_recv() in the driver). The same two calls serve
 * both cases.
 */
void *sroce_queue_tail(struct sroce_queue *q);
void sroce_queue_push(struct sroce_queue *q);

/* Indices, masked. Either reads the peer's index with acquire semantics. */
u32 sroce_queue_producer_index(const struct sroce_queue *q);
u32 sroce_queue_consumer_index(const struct sroce_queue *q);
u32 sroce_queue_count(const struct sroce_queue *q);

static inline bool sroce_queue_empty(const struct sroce_queue *q)
{
	return sroce_queue_count(q) == 0;
}

static inline u32 sroce_queue_capacity(const struct sroce_queue *q)
{
	return q->index_mask;
}

static inline u32 sroce_queue_next(const struct sroce_queue *q, u32 index)
{
	return (index + 1) & q->index_mask;
}

/* Slot @index (masked here, so any u32 is safe). */
static inline void *sroce_queue_addr(struct sroce_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) <<
			       q->log2_elem_size);
}

/* mmap.c: user mappings of rings. */
int sroce_mmap_add(struct ib_udata *udata, struct sroce_ring_mem *mem,
		   size_t size, struct sroce_mmap_entry **entryp,
		   struct mminfo *mi);
void sroce_mmap_remove(struct sroce_mmap_entry *entry);

#endif /* SROCE_QUEUE_H */
