/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces that differ between the kernels sroce is built
 * for: Debian 12's own 6.1 and the 6.12 LTS of bookworm-backports. Every
 * difference the driver meets is bridged here, and only here: the driver
 * files call the sroce_ names below (or the kernel's unchanged ones) and
 * never test a kernel version themselves.
 *
 * Each shim says which kernel changed what. Where the headers declare
 * nothing that shows the change, the test is on LINUX_VERSION_CODE.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/version.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * ib_device_ops.create_cq: v6.11 (commit dd6d7f8574d7, "RDMA: Pass
 * uverbs_attr_bundle as part of '.create_cq' attribute") passes the whole
 * uverbs attribute bundle of the command instead of its driver udata.
 * Kernel callers (ib_alloc_cq() and friends) pass NULL either way.
 *
 * sroce_create_cq() takes a sroce_create_cq_arg_t pointer, whatever the
 * core hands over, and sroce_create_cq_udata() gets the udata out of it
 * on either kernel (NULL for a kernel CQ).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
typedef struct uverbs_attr_bundle sroce_create_cq_arg_t;

static inline struct ib_udata *
sroce_create_cq_udata(sroce_create_cq_arg_t *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
typedef struct ib_udata sroce_create_cq_arg_t;

static inline struct ib_udata *
sroce_create_cq_udata(sroce_create_cq_arg_t *udata)
{
	return udata;
}
#endif

/*
 * Tracepoints: since v6.10 ("tracing/treewide: Remove second parameter
 * of __assign_str()") __assign_str() takes the source of a __string()
 * field from its declaration; older kernels want it as a second argument.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define sroce_assign_str(dst, src)	__assign_str(dst)
#else
#define sroce_assign_str(dst, src)	__assign_str(dst, src)
#endif

#endif /* SROCE_COMPAT_H */
