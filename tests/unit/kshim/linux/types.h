/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/types.h> for driver code built in user space (swin_shim.h):
 * the uapi types, then the kernel's short ones from the wire layer's
 * shim. The uapi header types __be64/__le64 as unsigned long long and
 * wire_types.h as uint64_t (unsigned long on 64-bit): the uapi ones are
 * renamed out of the way, so that the two can meet in one unit.
 */
#ifndef KSHIM_LINUX_TYPES_H
#define KSHIM_LINUX_TYPES_H

#define __be64 kshim_uapi_be64
#define __le64 kshim_uapi_le64
#include_next <linux/types.h>
#undef __be64
#undef __le64

#include <sroce/wire_types.h>

typedef unsigned int gfp_t;

#endif /* KSHIM_LINUX_TYPES_H */
