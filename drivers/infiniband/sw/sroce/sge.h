/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scatter/gather lists of work requests: moving message bytes between
 * the registered memory an SGE list names and a packet or a buffer.
 *
 * The list is always a kernel copy of what user space posted (the
 * requester's shadow of a send WQE, the responder's copy of a receive
 * WQE), so it cannot change while it is walked. Every SGE is looked up
 * and checked against its memory region for the exact range touched.
 */
#ifndef SROCE_SGE_H
#define SROCE_SGE_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

struct sroce_odp_fault;

/*
 * SGEs looked up in the device and PD of @pd. @fault: where a page of an
 * on-demand region that is not present yet is asked for (odp.h); NULL
 * makes a missing page a protection error.
 */
struct sroce_sge_list {
	struct ib_pd *pd;
	const struct rxe_sge *sge;
	u32 num;
	struct sroce_odp_fault *fault;
};

/*
 * Not an IBTA status: a page of an on-demand region is not present; a
 * fault for it is in flight, and the engine is kicked when it is served.
 * The access is to be done again then, from its start.
 */
#define SROCE_WC_FAULT_PENDING	((enum ib_wc_status)(IB_WC_GENERAL_ERR + 100))

/* The first @max_num SGEs of a WQE's kernel copy. */
static inline struct sroce_sge_list
sroce_sge_list_of(struct ib_pd *pd, const struct rxe_dma_info *dma,
		  u32 max_num, struct sroce_odp_fault *fault)
{
	struct sroce_sge_list l = {
		.pd = pd,
		.sge = dma->sge,
		.num = min(dma->num_sge, max_num),
		.fault = fault,
	};

	return l;
}

/*
 * Takes the kernel copy of a receive WQE from its @slot_size ring slot:
 * the fixed part and only the SGEs it says are in use, as many as the
 * slot holds (sroce_sge_list_of() never reads further).
 */
static inline void sroce_recv_wqe_copy(struct rxe_recv_wqe *wqe,
				       const void *slot, u32 slot_size)
{
	u32 room = (slot_size - sizeof(*wqe)) / sizeof(struct rxe_sge);

	memcpy(wqe, slot, sizeof(*wqe));
	memcpy(wqe + 1, slot + sizeof(*wqe),
	       min(wqe->dma.num_sge, room) * sizeof(struct rxe_sge));
}

/*
 * Each copies @len bytes at message offset @offset, i.e. starting
 * @offset bytes into the concatenated SGEs. They return IB_WC_SUCCESS,
 * IB_WC_LOC_LEN_ERR when the SGEs are too short, IB_WC_LOC_PROT_ERR
 * when an SGE's key, PD, range or rights do not allow the access (or an
 * on-demand page cannot be faulted in), or SROCE_WC_FAULT_PENDING. Any
 * context.
 */
enum ib_wc_status sroce_sge_read(const struct sroce_sge_list *l, u32 offset,
				 void *buf, u32 len);
enum ib_wc_status sroce_sge_write(const struct sroce_sge_list *l, u32 offset,
				  const void *buf, u32 len);
enum ib_wc_status sroce_sge_write_skb(const struct sroce_sge_list *l,
				      u32 offset, const struct sk_buff *skb,
				      int skb_off, u32 len);
/*
 * Zero-copy: appends @len bytes at message offset @offset to @skb as
 * fragments of the registered pages (sroce_mr_attach()). False if any of
 * them cannot be: a region other than a user one, more than @max_frags
 * fragments, or an error sroce_sge_read() would report. The caller then
 * frees @skb and copies instead, which reports the error if there is one.
 */
bool sroce_sge_attach(const struct sroce_sge_list *l, u32 offset,
		      struct sk_buff *skb, u32 len, unsigned int max_frags);
/*
 * Asks for the on-demand pages of [@offset, @offset + @len) that are
 * not present for writing: SROCE_WC_FAULT_PENDING if one is missing,
 * IB_WC_LOC_PROT_ERR if a fault for them failed, else IB_WC_SUCCESS
 * (errors of the SGEs themselves are left to the access). For the sinks
 * of reads and atomics, whose responses must find their pages present.
 */
enum ib_wc_status sroce_sge_prefault(const struct sroce_sge_list *l,
				     u32 offset, u32 len);

#endif /* SROCE_SGE_H */
