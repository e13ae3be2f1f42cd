/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCE v2 Invariant CRC (IBTA vol 1, annex A17).
 *
 * The ICRC is a CRC-32 (the Ethernet polynomial) over a pseudo packet:
 * 8 bytes of ones standing in for the InfiniBand LRH, the IP header, the
 * UDP header and the BTH with every field a router may rewrite replaced
 * by ones, then the rest of the transport packet up to the ICRC itself.
 * It is sent least significant byte first, like the Ethernet FCS, which
 * is also what rdma_rxe produces on little-endian hosts.
 *
 * Usage, for a payload spread over several buffers:
 *	state = sroce_icrc_begin(iph, false, udph, bth);
 *	state = sroce_icrc_update(state, rest_of_headers, len);
 *	state = sroce_icrc_update(state, frag, frag_len);   (repeat)
 *	icrc = sroce_icrc_final(state);
 * "Everything after the BTH" includes the extension headers, the
 * payload and the pad bytes.
 */
#ifndef _SROCE_ICRC_H
#define _SROCE_ICRC_H

#include <sroce/wire_types.h>
#include <sroce/bth.h>

#define SROCE_ICRC_BYTES	4
#define SROCE_IPV4_HDR_BYTES	20
#define SROCE_IPV6_HDR_BYTES	40
#define SROCE_UDP_HDR_BYTES	8

/* CRC state after the 8 bytes of ones that replace the LRH. */
#define SROCE_ICRC_SEED		0xdebb20e3u

/*
 * CRC-32 primitive, provided outside the wire layer: the module wraps the
 * kernel's crc32_le(), the unit tests bring their own. Reflected
 * polynomial 0xedb88320, no inversion on input or output.
 */
u32 sroce_crc32_le(u32 crc, const void *p, size_t len);

/*
 * Start an ICRC: covers the pseudo LRH, the IP header (IPv4: IHL * 4
 * bytes, options included; the caller has rejected IHL < 5), the UDP
 * header and the BTH, all masked. Nothing is modified in place.
 */
u32 sroce_icrc_begin(const void *ip_hdr, bool ipv6, const void *udp_hdr,
		     const struct sroce_bth *bth);

static inline u32 sroce_icrc_update(u32 state, const void *data, size_t len)
{
	return sroce_crc32_le(state, data, len);
}

/* The ICRC as it is laid out in the last four bytes of the packet. */
static inline __le32 sroce_icrc_final(u32 state)
{
	return cpu_to_le32(~state);
}

/*
 * One shot for a packet whose transport part is contiguous: @bth points
 * at the BTH and @len counts from there to the end of the ICRC field.
 * sroce_icrc_calc() returns the ICRC for the first @len - 4 bytes;
 * sroce_icrc_check() compares it with the trailing four bytes and is
 * false for packets too short to hold a BTH and an ICRC.
 */
__le32 sroce_icrc_calc(const void *ip_hdr, bool ipv6, const void *udp_hdr,
		       const void *bth, size_t len);
bool sroce_icrc_check(const void *ip_hdr, bool ipv6, const void *udp_hdr,
		      const void *bth, size_t len);

#endif /* _SROCE_ICRC_H */
