/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability shim for the sroce wire layer.
 *
 * The wire layer is compiled both into the kernel module and into the
 * user-space unit tests, so it only relies on the small vocabulary
 * defined here: fixed-width integers, endian-annotated integers and their
 * conversions, bool, __packed, memcpy/memset.
 */
#ifndef _SROCE_WIRE_TYPES_H
#define _SROCE_WIRE_TYPES_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#else /* user space */

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <endian.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/* No sparse in user space: the annotated types are plain integers. */
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;

#ifndef __force
#define __force
#endif
#ifndef __packed
#define __packed __attribute__((packed))
#endif

#define cpu_to_be16(x)	((__be16)htobe16(x))
#define cpu_to_be32(x)	((__be32)htobe32(x))
#define cpu_to_be64(x)	((__be64)htobe64(x))
#define be16_to_cpu(x)	((u16)be16toh(x))
#define be32_to_cpu(x)	((u32)be32toh(x))
#define be64_to_cpu(x)	((u64)be64toh(x))
#define cpu_to_le16(x)	((__le16)htole16(x))
#define cpu_to_le32(x)	((__le32)htole32(x))
#define cpu_to_le64(x)	((__le64)htole64(x))
#define le16_to_cpu(x)	((u16)le16toh(x))
#define le32_to_cpu(x)	((u32)le32toh(x))
#define le64_to_cpu(x)	((u64)le64toh(x))

#endif /* __KERNEL__ */

#endif /* _SROCE_WIRE_TYPES_H */
