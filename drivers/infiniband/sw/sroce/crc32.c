// SPDX-License-Identifier: GPL-2.0
/*
 * The CRC primitive the wire layer's ICRC is built on. In the kernel it is
 * crc32_le(), which picks the fastest implementation for the CPU.
 */
#include <linux/crc32.h>

#include <sroce/icrc.h>

u32 sroce_crc32_le(u32 crc, const void *p, size_t len)
{
	return crc32_le(crc, p, len);
}
