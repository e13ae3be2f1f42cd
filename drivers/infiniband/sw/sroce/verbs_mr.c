// SPDX-License-Identifier: GPL-2.0
/*
 * Memory region verbs. The region objects, their keys and their lifetime
 * live in mr.c; this file checks what consumers ask for and builds them.
 * The core does not allocate ib_mr for drivers in 6.1: we do, and it is
 * freed by sroce_mr_destroy().
 */
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "limits.h"
#include "mr.h"
#include "odp.h"

/*
 * Kernel consumers' "all of memory" region. With no DMA device, the core
 * hands them kernel virtual addresses as DMA addresses, so the region spans
 * the whole 64-bit space and addresses are translated by the copy engine.
 */
static struct ib_mr *sroce_get_dma_mr(struct ib_pd *pd, int access)
{
	struct sroce_mr *mr;
	int err;

	err = sroce_mr_check_access(access, false);
	if (err)
		return ERR_PTR(err);

	mr = sroce_mr_alloc(to_sroce_dev(pd->device), pd, SROCE_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = sroce_mr_publish(mr, SROCE_MR_VALID, access, 0, U64_MAX);
	if (err) {
		sroce_mr_free_unpublished(mr);
		return ERR_PTR(err);
	}
	return &mr->ib_mr;
}

/*
 * A user region, built but not yet published: over pinned pages, or on
 * demand (odp.h) with IB_ACCESS_ON_DEMAND.
 */
static struct sroce_mr *sroce_user_mr_build(struct ib_pd *pd, u64 start,
					    u64 length, u64 iova, int access)
{
	bool on_demand = access & IB_ACCESS_ON_DEMAND;
	struct ib_umem *umem;
	struct sroce_mr *mr;
	int err;

	err = sroce_mr_check_access(access, true);
	if (err)
		return ERR_PTR(err);
	/* Implicit ODP: all of the address space, at its own addresses. */
	if (on_demand && !start && length == U64_MAX) {
		if (iova)
			return ERR_PTR(-EINVAL);
		mr = sroce_mr_alloc(to_sroce_dev(pd->device), pd,
				    SROCE_MR_ODP);
		if (IS_ERR(mr))
			return mr;
		err = sroce_odp_mr_init_implicit(mr, access);
		if (err)
			goto err_free;
		return mr;
	}
	if (!length || length > SROCE_MAX_MR_SIZE || iova + length < iova)
		return ERR_PTR(-EINVAL);

	mr = sroce_mr_alloc(to_sroce_dev(pd->device), pd,
			    on_demand ? SROCE_MR_ODP : SROCE_MR_USER);
	if (IS_ERR(mr))
		return mr;
	if (on_demand) {
		/* Nothing is pinned or faulted in now. */
		err = sroce_odp_mr_init(mr, start, length, access);
		if (err)
			goto err_free;
		return mr;
	}

	/* Pins the pages; EFAULT if [start, start + length) is not mapped. */
	umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_free;
	}
	err = sroce_mr_set_umem(mr, umem);
	if (err)
		goto err_free;
	return mr;

err_free:
	/* Also releases the umem, if we got that far. */
	sroce_mr_free_unpublished(mr);
	return ERR_PTR(err);
}

static struct ib_mr *sroce_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				       u64 iova, int access,
				       struct ib_udata *udata)
{
	struct sroce_mr *mr;
	int err;

	/* A kernel caller (no udata) may have no mm to fault from. */
	if ((access & IB_ACCESS_ON_DEMAND) && !udata)
		return ERR_PTR(-EOPNOTSUPP);
	mr = sroce_user_mr_build(pd, start, length, iova, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = sroce_mr_publish(mr, SROCE_MR_VALID, access, iova, length);
	if (err) {
		sroce_mr_free_unpublished(mr);
		return ERR_PTR(err);
	}
	return &mr->ib_mr;
}

/*
 * Re-registration (ibv_rereg_mr; librxe has no such verb, but the core's
 * REREG_MR command reaches us all the same). It is done as the verbs man
 * page puts it, a deregistration followed by a registration: a new region
 * with new keys is built (pinning the pages again, which also picks up a
 * change to or from writable memory), the old one is retired, and the
 * core deregisters it once we return the new one. Modifying the region in
 * place would have to swap its pages under engines that hold references.
 *
 * Fails with -EBUSY while windows are bound to the region, as
 * deregistration does. If the new registration cannot be built, the old
 * one is left as it was; only a failure to publish the new one (no
 * memory) leaves the old one retired, which the verbs allow for (the MR
 * is then only good for dereg).
 */
static struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ib_mr, int flags,
					 u64 start, u64 length, u64 iova,
					 int access, struct ib_pd *pd,
					 struct ib_udata *udata)
{
	struct sroce_mr *old = to_sroce_mr(ib_mr), *mr;
	int err;

	if (old->kind != SROCE_MR_USER && old->kind != SROCE_MR_ODP)
		return ERR_PTR(-EINVAL);
	/* The core passes the new PD, or the current one. */
	if (!(flags & IB_MR_REREG_TRANS) && old->odp_implicit) {
		start = 0;
		length = U64_MAX;
		iova = 0;
	} else if (!(flags & IB_MR_REREG_TRANS)) {
		start = old->umem->address;
		length = old->umem->length;
		iova = old->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = old->access;
	if ((access & IB_ACCESS_ON_DEMAND) && !udata)
		return ERR_PTR(-EOPNOTSUPP);

	mr = sroce_user_mr_build(pd, start, length, iova, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	/* From here on no window can be bound to the old region. */
	err = sroce_mr_retire(old);
	if (err)
		goto err_free;
	err = sroce_mr_publish(mr, SROCE_MR_VALID, access, iova, length);
	if (err)
		goto err_free;
	/* reg_user_mr's caller sets these; rereg's does not (restrack). */
	mr->ib_mr.iova = iova;
	mr->ib_mr.length = length;
	return &mr->ib_mr;

err_free:
	sroce_mr_free_unpublished(mr);
	return ERR_PTR(err);
}

/*
 * Sleeps until the data path dropped its references (mr.h). -EBUSY while
 * windows are bound: the consumer deallocates or invalidates them first.
 */
static int sroce_dereg_mr(struct ib_mr *ib_mr, struct ib_udata *udata)
{
	return sroce_mr_destroy(to_sroce_mr(ib_mr));
}

/*
 * Fast-registration MR for kernel consumers: free (unusable) until an
 * IB_WR_REG_MR gives it the pages map_mr_sg mapped, a key and rights.
 */
static struct ib_mr *sroce_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				    u32 max_num_sg)
{
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);

	mr = sroce_mr_alloc(to_sroce_dev(pd->device), pd, SROCE_MR_FAST_REG);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = sroce_mr_alloc_page_lists(mr, max_num_sg);
	if (err)
		goto err_free;
	err = sroce_mr_publish(mr, SROCE_MR_FREE, 0, 0, 0);
	if (err)
		goto err_free;
	return &mr->ib_mr;

err_free:
	sroce_mr_free_unpublished(mr);
	return ERR_PTR(err);
}

/* Returns the number of sg entries mapped, as ib_map_mr_sg() documents. */
static int sroce_map_mr_sg(struct ib_mr *ib_mr, struct scatterlist *sg,
			   int sg_nents, unsigned int *sg_offset)
{
	return sroce_mr_map_sg(to_sroce_mr(ib_mr), sg, sg_nents, sg_offset);
}

const struct ib_device_ops sroce_mr_ops = {
	.get_dma_mr = sroce_get_dma_mr,
	.reg_user_mr = sroce_reg_user_mr,
	.rereg_user_mr = sroce_rereg_user_mr,
	.dereg_mr = sroce_dereg_mr,
	.alloc_mr = sroce_alloc_mr,
	.map_mr_sg = sroce_map_mr_sg,
	.advise_mr = sroce_odp_advise_mr,
	.fill_res_mr_entry = sroce_odp_fill_res_mr,
};
