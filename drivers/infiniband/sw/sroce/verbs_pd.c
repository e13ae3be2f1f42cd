// SPDX-License-Identifier: GPL-2.0
/* Protection domains. The core allocates struct sroce_pd for us. */
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "limits.h"

static int sroce_alloc_pd(struct ib_pd *ib_pd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_pd->device);

	if (atomic_inc_return(&sdev->num_pd) > SROCE_MAX_PD) {
		atomic_dec(&sdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int sroce_dealloc_pd(struct ib_pd *ib_pd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_pd->device);

	atomic_dec(&sdev->num_pd);
	return 0;
}

const struct ib_device_ops sroce_pd_ops = {
	.alloc_pd = sroce_alloc_pd,
	.dealloc_pd = sroce_dealloc_pd,
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ib_pd),
};
