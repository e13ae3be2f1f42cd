// SPDX-License-Identifier: GPL-2.0
/*
 * Memory window verbs. The core allocates the handle (struct
 * sroce_mw_handle) and frees it when dealloc_mw returns; the window
 * itself, which the engines see, is sroce's own (mw.h).
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "mw.h"

static int sroce_alloc_mw(struct ib_mw *ib_mw, struct ib_udata *udata)
{
	struct sroce_mw_handle *h = to_sroce_mw_handle(ib_mw);
	struct sroce_mw *mw;

	/* The core checks the type for user space; be as strict ourselves. */
	if (ib_mw->type != IB_MW_TYPE_1 && ib_mw->type != IB_MW_TYPE_2)
		return -EINVAL;
	mw = sroce_mw_create(to_sroce_dev(ib_mw->device), ib_mw->pd,
			     ib_mw->type);
	if (IS_ERR(mw))
		return PTR_ERR(mw);
	h->mw = mw;
	ib_mw->rkey = mw->rkey;
	return 0;
}

/* Bound or not, the window goes at once; this never fails. */
static int sroce_dealloc_mw(struct ib_mw *ib_mw)
{
	sroce_mw_destroy(to_sroce_mw_handle(ib_mw)->mw);
	return 0;
}

const struct ib_device_ops sroce_mw_ops = {
	.alloc_mw = sroce_alloc_mw,
	.dealloc_mw = sroce_dealloc_mw,
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw_handle, ib_mw),
};
