/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device limits reported by query_device and enforced when objects are
 * created. One place, so that what we report and what we enforce agree.
 */
#ifndef SROCE_LIMITS_H
#define SROCE_LIMITS_H

#include <linux/sizes.h>
#include <linux/stringify.h>

#define SROCE_VENDOR_ID			0xFFFFFF
#define SROCE_VENDOR_PART_ID		0x5352	/* "SR" */
#define SROCE_HW_VER			1
/* librxe prints fw_ver as (v >> 32).(v >> 16).(v), 16 bits each. */
#define SROCE_FW_MAJOR			0
#define SROCE_FW_MINOR			2
#define SROCE_FW_SUB			0
#define SROCE_FW_VER			(((u64)SROCE_FW_MAJOR << 32) | \
					 ((u64)SROCE_FW_MINOR << 16) | \
					 SROCE_FW_SUB)
/* The same as text: modinfo's version and ibv_devinfo's fw_ver. */
#define SROCE_VERSION			__stringify(SROCE_FW_MAJOR) "." \
					__stringify(SROCE_FW_MINOR) "." \
					__stringify(SROCE_FW_SUB)

#define SROCE_MAX_MR_SIZE		(1ULL << 40)
#define SROCE_PAGE_SIZE_CAP		(~(u64)(PAGE_SIZE - 1))
#define SROCE_MAX_MSG_SIZE		(1U << 31)	/* 2 GiB */

#define SROCE_MAX_QP			0x10000
#define SROCE_MAX_QP_WR			0x4000
#define SROCE_MAX_SGE			32
#define SROCE_MAX_INLINE		(SROCE_MAX_SGE * 16)
#define SROCE_MAX_CQ			0x10000
#define SROCE_MAX_CQE			0x8000
#define SROCE_MAX_MR			0x40000
#define SROCE_MAX_MW			0x10000
#define SROCE_MAX_PD			0x10000
#define SROCE_MAX_AH			0x10000
#define SROCE_MAX_SRQ			0x4000
#define SROCE_MAX_SRQ_WR		0x4000
#define SROCE_MAX_RD_ATOMIC		128
#define SROCE_MAX_MCAST_GRP		8192
#define SROCE_MAX_MCAST_QP_ATTACH	56
#define SROCE_MAX_FAST_REG_PAGES	512
#define SROCE_LOCAL_ACK_DELAY		15

#define SROCE_GID_TABLE_LEN		1024
#define SROCE_PKEY_DEFAULT		0xFFFF

#endif /* SROCE_LIMITS_H */
