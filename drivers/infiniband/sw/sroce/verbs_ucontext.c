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

/*
 * Having this op lets the core tear a device down (netdev removed, link
 * deleted, module unloaded) while processes still hold it open: it
 * destroys their objects through our destroy verbs instead of waiting for
 * them to close the device. Nothing else is owed: rings are mapped with
 * vm_insert_page() (ring_mem.c), so their pages stay valid, through the
 * mapping's own page references, until the process unmaps them, and no
 * mapping points back into this module.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ib_uc)
{
}

const struct ib_device_ops sroce_ucontext_ops = {
	.alloc_ucontext = sroce_alloc_ucontext,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ib_uc),
};
