// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts. librxe sends no driver data with GET_CONTEXT and expects
 * none back; the rings it will map later are tracked per context.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"

static int sroce_alloc_ucontext(struct ib_ucontext *ib_uc,
				struct ib_udata *udata)
{
	return 0;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ib_uc)
{
}

const struct ib_device_ops sroce_ucontext_ops = {
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ib_uc),
};
