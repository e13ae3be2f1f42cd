// SPDX-License-Identifier: GPL-2.0
/*
 * User-space stand-in for the kernel's crc32_le(), which the module
 * wraps as sroce_crc32_le(): byte-at-a-time table lookup, reflected
 * polynomial 0xedb88320, no inversion.
 */
#include <sroce/icrc.h>

static u32 crc32_table[256];
static bool crc32_ready;

static void crc32_init(void)
{
	u32 i, bit, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (bit = 0; bit < 8; bit++)
			c = (c >> 1) ^ ((c & 1) ? 0xedb88320u : 0);
		crc32_table[i] = c;
	}
	crc32_ready = true;
}

u32 sroce_crc32_le(u32 crc, const void *p, size_t len)
{
	const u8 *b = p;

	if (!crc32_ready)
		crc32_init();
	while (len--)
		crc = (crc >> 8) ^ crc32_table[(crc ^ *b++) & 0xff];
	return crc;
}
