// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 ICRC computation. The variant fields are masked by OR-ing the
 * headers with a per-header table of ones, which keeps the annex A17
 * rules in one readable place per header.
 */
#include <sroce/icrc.h>

/* IPv4: Type of Service, Time to Live, Header Checksum. */
static const u8 sroce_icrc_ones_ipv4[SROCE_IPV4_HDR_BYTES] = {
	[1] = 0xff,
	[8] = 0xff,
	[10] = 0xff, [11] = 0xff,
};

/* IPv6: Traffic Class (split over bytes 0-1), Flow Label, Hop Limit. */
static const u8 sroce_icrc_ones_ipv6[SROCE_IPV6_HDR_BYTES] = {
	[0] = 0x0f,
	[1] = 0xff, [2] = 0xff, [3] = 0xff,
	[7] = 0xff,
};

/* UDP: Checksum. */
static const u8 sroce_icrc_ones_udp[SROCE_UDP_HDR_BYTES] = {
	[6] = 0xff, [7] = 0xff,
};

/* BTH: byte 4 (FECN, BECN, reserved). */
static const u8 sroce_icrc_ones_bth[SROCE_BTH_BYTES] = {
	[4] = 0xff,
};

/* CRC of @len bytes of @data with the bits set in @ones forced to 1. */
static u32 sroce_icrc_masked(u32 crc, const void *data, const u8 *ones,
			     size_t len)
{
	u8 buf[SROCE_IPV6_HDR_BYTES];
	const u8 *src = data;
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = src[i] | ones[i];
	return sroce_crc32_le(crc, buf, len);
}

u32 sroce_icrc_begin(const void *ip_hdr, bool ipv6, const void *udp_hdr,
		     const struct sroce_bth *bth)
{
	u32 crc = SROCE_ICRC_SEED;

	if (ipv6) {
		crc = sroce_icrc_masked(crc, ip_hdr, sroce_icrc_ones_ipv6,
					SROCE_IPV6_HDR_BYTES);
	} else {
		const u8 *ip = ip_hdr;
		size_t hlen = (ip[0] & 0x0f) * 4;

		crc = sroce_icrc_masked(crc, ip, sroce_icrc_ones_ipv4,
					SROCE_IPV4_HDR_BYTES);
		/* Options are invariant and covered as they are. */
		if (hlen > SROCE_IPV4_HDR_BYTES)
			crc = sroce_crc32_le(crc, ip + SROCE_IPV4_HDR_BYTES,
					     hlen - SROCE_IPV4_HDR_BYTES);
	}
	crc = sroce_icrc_masked(crc, udp_hdr, sroce_icrc_ones_udp,
				SROCE_UDP_HDR_BYTES);
	return sroce_icrc_masked(crc, bth, sroce_icrc_ones_bth,
				 SROCE_BTH_BYTES);
}

__le32 sroce_icrc_calc(const void *ip_hdr, bool ipv6, const void *udp_hdr,
		       const void *bth, size_t len)
{
	const size_t min = SROCE_BTH_BYTES + SROCE_ICRC_BYTES;
	u32 crc = sroce_icrc_begin(ip_hdr, ipv6, udp_hdr, bth);

	if (len > min)
		crc = sroce_icrc_update(crc, (const u8 *)bth + SROCE_BTH_BYTES,
					len - min);
	return sroce_icrc_final(crc);
}

bool sroce_icrc_check(const void *ip_hdr, bool ipv6, const void *udp_hdr,
		      const void *bth, size_t len)
{
	__le32 wire;

	if (len < SROCE_BTH_BYTES + SROCE_ICRC_BYTES)
		return false;
	memcpy(&wire, (const u8 *)bth + len - SROCE_ICRC_BYTES, sizeof(wire));
	return wire == sroce_icrc_calc(ip_hdr, ipv6, udp_hdr, bth, len);
}
