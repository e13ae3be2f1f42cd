// SPDX-License-Identifier: GPL-2.0
/* Copying message bytes to and from SGE lists; see sge.h. */
#include "sroce.h"
#include "mr.h"
#include "odp.h"
#include "sge.h"

/* Where the bytes come from or go to, besides the SGEs. */
struct sroce_sge_peer {
	enum sroce_copy_dir dir;	/* seen from the memory region */
	void *buf;			/* NULL: use skb or attach_to */
	const struct sk_buff *skb;
	int skb_off;
	struct sk_buff *attach_to;	/* zero-copy: fragments, not a copy */
	unsigned int max_frags;
	bool probe;			/* only make on-demand pages present */
};

/*
 * A page of [iova, iova + n) of on-demand @mr is not present: fault it
 * in with the rest of the SGE from @iova (@rest bytes).
 */
static enum ib_wc_status sroce_sge_fault(const struct sroce_sge_list *l,
					 struct sroce_mr *mr, u64 iova, u32 n,
					 u32 rest, bool write)
{
	if (sroce_odp_fault_ask(l->fault, mr, iova, n, rest, write) ==
	    -EINPROGRESS)
		return SROCE_WC_FAULT_PENDING;
	return IB_WC_LOC_PROT_ERR;
}

static enum ib_wc_status sroce_sge_copy(const struct sroce_sge_list *l,
					u32 offset, struct sroce_sge_peer *p,
					u32 len)
{
	int access = p->dir == SROCE_COPY_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < l->num && len; i++) {
		const struct rxe_sge *sge = &l->sge[i];
		enum ib_wc_status status;
		struct sroce_mr *mr;
		u32 n, rest;
		u64 iova;
		int err;

		if (offset >= sge->length) {
			offset -= sge->length;
			continue;
		}
		rest = sge->length - offset;
		n = min(len, rest);
		iova = sge->addr + offset;
		offset = 0;
		mr = sroce_mr_get(to_sroce_dev(l->pd->device), sge->lkey,
				  l->pd, access, iova, n, &status);
		/* A probe leaves the errors to the access itself. */
		if (!mr)
			return p->probe ? IB_WC_SUCCESS : status;
		if (p->probe)
			err = sroce_mr_probe(mr, iova, n, true);
		else if (p->attach_to)
			err = sroce_mr_attach(mr, iova, n, p->attach_to,
					      p->max_frags);
		else if (p->buf)
			err = sroce_mr_copy(mr, iova, p->buf, n, p->dir);
		else
			err = sroce_mr_copy_skb(mr, iova, p->skb, p->skb_off, n);
		if (err == -EAGAIN)
			status = sroce_sge_fault(l, mr, iova, n, rest,
						 p->dir == SROCE_COPY_TO_MR);
		sroce_mr_put(mr);
		if (err == -EAGAIN)
			return status;
		if (err)
			return p->probe ? IB_WC_SUCCESS : IB_WC_LOC_PROT_ERR;
		if (p->buf)
			p->buf = (u8 *)p->buf + n;
		else if (!p->attach_to && !p->probe)
			p->skb_off += n;
		len -= n;
	}
	return len && !p->probe ? IB_WC_LOC_LEN_ERR : IB_WC_SUCCESS;
}

enum ib_wc_status sroce_sge_read(const struct sroce_sge_list *l, u32 offset,
				 void *buf, u32 len)
{
	struct sroce_sge_peer p = { .dir = SROCE_COPY_FROM_MR, .buf = buf };

	return sroce_sge_copy(l, offset, &p, len);
}

enum ib_wc_status sroce_sge_write(const struct sroce_sge_list *l, u32 offset,
				  const void *buf, u32 len)
{
	/* sroce_mr_copy() only reads the buffer in this direction. */
	struct sroce_sge_peer p = { .dir = SROCE_COPY_TO_MR,
				    .buf = (void *)buf };

	return sroce_sge_copy(l, offset, &p, len);
}

enum ib_wc_status sroce_sge_write_skb(const struct sroce_sge_list *l,
				      u32 offset, const struct sk_buff *skb,
				      int skb_off, u32 len)
{
	struct sroce_sge_peer p = { .dir = SROCE_COPY_TO_MR, .skb = skb,
				    .skb_off = skb_off };

	return sroce_sge_copy(l, offset, &p, len);
}

bool sroce_sge_attach(const struct sroce_sge_list *l, u32 offset,
		      struct sk_buff *skb, u32 len, unsigned int max_frags)
{
	struct sroce_sge_peer p = { .dir = SROCE_COPY_FROM_MR,
				    .attach_to = skb, .max_frags = max_frags };

	return sroce_sge_copy(l, offset, &p, len) == IB_WC_SUCCESS;
}

enum ib_wc_status sroce_sge_prefault(const struct sroce_sge_list *l,
				     u32 offset, u32 len)
{
	struct sroce_sge_peer p = { .dir = SROCE_COPY_TO_MR, .probe = true };

	/*
	 * Every read and atomic asks: without a single on-demand region
	 * on the device, no SGE is worth a lookup.
	 */
	if (!atomic_read(&to_sroce_dev(l->pd->device)->odp_regions))
		return IB_WC_SUCCESS;
	return sroce_sge_copy(l, offset, &p, len);
}
