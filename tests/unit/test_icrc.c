// SPDX-License-Identifier: GPL-2.0
/*
 * ICRC tests.
 *
 * Where the expected values come from:
 * - cx4_cnp: a RoCE v2 CNP captured on a Mellanox ConnectX-4 Lx, i.e. an
 *   ICRC computed by hardware that interoperates with rdma_rxe. The frame
 *   is the hex dump in scapy's test/contrib/roce.uts ("RoCE CNP captured
 *   on ConnectX-4 Lx"); its trailing four bytes 82 fd 00 2a are the ICRC.
 * - scapy_uc: the UC SEND_ONLY example of the same scapy test file,
 *   whose ICRC (asserted there as 0x78f353f3, i.e. wire bytes
 *   78 f3 53 f3) is computed by scapy's own Python implementation
 *   (zlib.crc32 over the masked pseudo packet). The bytes below were
 *   rebuilt from the scapy field values; that the rebuild is exact is
 *   checked here through the IPv4 and UDP checksums scapy asserts
 *   (0xb4d5, 0xaca2), the UDP one covering the ICRC bytes too.
 * - No external IPv6 vector was found, so IPv6 (and IPv4 at large) is
 *   also compared against ref_icrc() below: a deliberately naive
 *   transcription of annex A17 (whole pseudo packet in a buffer,
 *   field-level masking, bit-at-a-time CRC-32 with the usual initial
 *   and final inversion), on thousands of random packets.
 * - mask_* cases flip every bit of a packet and require the ICRC to
 *   change exactly when the bit is not one of the masked fields.
 */
#include <sroce/icrc.h>
#include <sroce/packet.h>
#include "unit.h"

static const u8 cx4_cnp[] = {
	/* Ethernet */
	0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64,
	0x3b, 0x32, 0x08, 0x00,
	/* IPv4: TOS 0xc2, len 60, id 0x718c, DF, TTL 64, UDP */
	0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11,
	0x91, 0x61, 0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01,
	/* UDP: 0 -> 4791, len 40, no checksum */
	0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
	/* BTH: CNP (0x81), pkey ffff, BECN, QPN 0x118, PSN 0 */
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18,
	0x00, 0x00, 0x00, 0x00,
	/* 16 reserved bytes */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* ICRC */
	0x82, 0xfd, 0x00, 0x2a,
};

static const u8 scapy_uc[] = {
	/* Ethernet */
	0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22, 0x24, 0x8a, 0x07, 0xa8,
	0xfa, 0x22, 0x08, 0x00,
	/* IPv4: TOS 1, len 64, id 1144, DF, TTL 64, 192.168.0.7 twice */
	0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11,
	0xb4, 0xd5, 0xc0, 0xa8, 0x00, 0x07, 0xc0, 0xa8, 0x00, 0x07,
	/* UDP: 49152 -> 4791, len 44 */
	0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0xac, 0xa2,
	/* BTH: UC_SEND_ONLY, M, pad 2, pkey ffff, QPN 211, PSN 13571856 */
	0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3,
	0x00, 0xcf, 0x17, 0x10,
	/* 18 payload bytes and 2 pad bytes */
	0x46, 0x30, 0x81, 0x8b, 0xe2, 0x89, 0x35, 0xd9, 0x0e, 0x9a,
	0x95, 0x50, 0x54, 0x01, 0xbe, 0x88, 0x5e, 0x50, 0x00, 0x00,
	/* ICRC */
	0x78, 0xf3, 0x53, 0xf3,
};

#define ETH_LEN	14
#define IP4_OFF	ETH_LEN
#define UDP4_OFF (IP4_OFF + 20)
#define BTH4_OFF (UDP4_OFF + 8)

/* RFC 1071 sum, used only to prove the scapy frame was rebuilt right. */
static u32 sum16(const u8 *p, size_t n, u32 s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (u32)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (u32)p[n - 1] << 8;
	return s;
}

static u16 fold(u32 s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

static void crc32_primitive(void)
{
	static const char check[] = "123456789";
	static const u8 ones[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};

	/* The standard CRC-32 check value, with the usual inversions. */
	CHECK_EQ(~sroce_crc32_le(~0u, check, 9), 0xcbf43926);
	/* The seed is the state after the 8 bytes of pseudo LRH ones. */
	CHECK_EQ(sroce_crc32_le(~0u, ones, 8), SROCE_ICRC_SEED);
	CHECK_EQ(sroce_crc32_le(0x1234, check, 0), 0x1234);
}

static void scapy_frame_rebuilt(void)
{
	const u8 *ip = scapy_uc + IP4_OFF;
	u32 s;

	CHECK_EQ(sizeof(scapy_uc), ETH_LEN + 64);
	CHECK_EQ(fold(sum16(ip, 20, 0)), 0);
	/* Pseudo header: addresses, protocol, UDP length. */
	s = sum16(ip + 12, 8, 17 + 44);
	CHECK_EQ(fold(sum16(scapy_uc + UDP4_OFF, 44, s)), 0);
	CHECK_EQ(fold(sum16(cx4_cnp + IP4_OFF, 20, 0)), 0);
}

static void check_vector(const u8 *frame, size_t frame_len)
{
	const u8 *ip = frame + IP4_OFF, *udp = frame + UDP4_OFF;
	const u8 *bth = frame + BTH4_OFF;
	size_t len = frame_len - BTH4_OFF;
	__le32 icrc;
	size_t cut1, cut2;
	u32 st;

	CHECK(sroce_icrc_check(ip, false, udp, bth, len));
	icrc = sroce_icrc_calc(ip, false, udp, bth, len);
	CHECK_MEM(&icrc, frame + frame_len - 4, 4);

	/* The same through begin/update/final with every 3-way split. */
	for (cut1 = 12; cut1 <= len - 4; cut1++) {
		for (cut2 = cut1; cut2 <= len - 4; cut2++) {
			st = sroce_icrc_begin(ip, false, udp,
					      (const void *)bth);
			st = sroce_icrc_update(st, bth + 12, cut1 - 12);
			st = sroce_icrc_update(st, bth + cut1, cut2 - cut1);
			st = sroce_icrc_update(st, bth + cut2, len - 4 - cut2);
			icrc = sroce_icrc_final(st);
			CHECK_MEM(&icrc, frame + frame_len - 4, 4);
		}
	}
}

static void vector_cx4_cnp(void)
{
	CALL(check_vector(cx4_cnp, sizeof(cx4_cnp)));
}

/* Our CNP, built and parsed, is the ConnectX-4's, byte for byte. */
static void cnp_built_like_cx4(void)
{
	const u8 *bth = cx4_cnp + BTH4_OFF;
	size_t len = sizeof(cx4_cnp) - BTH4_OFF;
	struct sroce_hdr_fields f = {
		.opcode = SROCE_OP_CNP,
		.pkey = 0xffff,
		.becn = true,
		.dest_qpn = 0x118,
	};
	struct sroce_packet_info info;
	u8 pkt[SROCE_BTH_BYTES + SROCE_CNP_RSVD_BYTES];

	memset(pkt, 0xa5, sizeof(pkt));
	CHECK_EQ(sroce_packet_build(pkt, sizeof(pkt), &f,
				    SROCE_CNP_RSVD_BYTES), SROCE_BTH_BYTES);
	memset(pkt + SROCE_BTH_BYTES, 0, SROCE_CNP_RSVD_BYTES);
	CHECK_MEM(pkt, bth, sizeof(pkt));
	CHECK_EQ(sroce_packet_parse(bth, len, &info), 0);
	CHECK(info.op->flags & SROCE_OPF_CNP);
	CHECK_EQ(info.dest_qpn, 0x118);
	CHECK_EQ(info.payload_len, SROCE_CNP_RSVD_BYTES);
}

static void vector_scapy_uc(void)
{
	const u8 *bth = scapy_uc + BTH4_OFF;
	struct sroce_packet_info info;

	CALL(check_vector(scapy_uc, sizeof(scapy_uc)));
	/* It is also a well-formed packet for the parser. */
	CHECK_EQ(sroce_packet_parse(bth, 36, &info), 0);
	CHECK_EQ(info.opcode, SROCE_OP_UC_SEND_ONLY);
	CHECK_EQ(info.dest_qpn, 211);
	CHECK_EQ(info.psn, 13571856);
	CHECK_EQ(info.pad, 2);
	CHECK_EQ(info.payload_len, 18);
	CHECK_EQ(info.payload_off, 12);
	CHECK_EQ(info.icrc_off, 32);
}

static void vector_bad_icrc(void)
{
	u8 f[sizeof(cx4_cnp)];

	memcpy(f, cx4_cnp, sizeof(f));
	f[sizeof(f) - 1] ^= 1;
	CHECK(!sroce_icrc_check(f + IP4_OFF, false, f + UDP4_OFF,
				f + BTH4_OFF, sizeof(f) - BTH4_OFF));
	/* Too short to hold BTH + ICRC. */
	CHECK(!sroce_icrc_check(f + IP4_OFF, false, f + UDP4_OFF,
				f + BTH4_OFF, 15));
}

/* ---- naive annex A17 reference ---- */

static u32 ref_crc32(const u8 *p, size_t n)
{
	u32 c = 0xffffffff;
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		c ^= p[i];
		for (b = 0; b < 8; b++) {
			if (c & 1)
				c = (c >> 1) ^ 0xedb88320;
			else
				c >>= 1;
		}
	}
	return c ^ 0xffffffff;
}

/*
 * Pseudo packet: 8 bytes of ones for the LRH, then IP, UDP and BTH with
 * the variant fields set to ones, then the rest of the packet up to but
 * excluding the ICRC. Returns the 4 ICRC bytes, least significant first.
 */
static void ref_icrc(const u8 *ip, size_t ip_len, bool ipv6, const u8 *udp,
		     const u8 *bth, size_t len, u8 out[4])
{
	static u8 buf[8 + 60 + 8 + 8192];
	size_t n = 0, ip_at, udp_at, bth_at;
	u32 crc, w;

	memset(buf, 0xff, 8);
	n = 8;
	ip_at = n;
	memcpy(buf + n, ip, ip_len);
	n += ip_len;
	udp_at = n;
	memcpy(buf + n, udp, 8);
	n += 8;
	bth_at = n;
	memcpy(buf + n, bth, len - 4);
	n += len - 4;

	if (ipv6) {
		/* Version(4) | Traffic Class(8) | Flow Label(20) */
		w = (u32)buf[ip_at] << 24 | buf[ip_at + 1] << 16 |
		    buf[ip_at + 2] << 8 | buf[ip_at + 3];
		w |= 0x0fffffff;
		buf[ip_at] = w >> 24;
		buf[ip_at + 1] = w >> 16;
		buf[ip_at + 2] = w >> 8;
		buf[ip_at + 3] = w;
		buf[ip_at + 7] = 0xff;			/* Hop Limit */
	} else {
		buf[ip_at + 1] = 0xff;			/* TOS */
		buf[ip_at + 8] = 0xff;			/* TTL */
		buf[ip_at + 10] = 0xff;			/* Checksum */
		buf[ip_at + 11] = 0xff;
	}
	buf[udp_at + 6] = 0xff;				/* UDP checksum */
	buf[udp_at + 7] = 0xff;
	buf[bth_at + 4] = 0xff;				/* FECN/BECN/Resv */

	crc = ref_crc32(buf, n);
	out[0] = crc;
	out[1] = crc >> 8;
	out[2] = crc >> 16;
	out[3] = crc >> 24;
}

struct rand_pkt {
	bool ipv6;
	size_t ip_len;
	size_t len;		/* BTH .. ICRC inclusive */
	u8 ip[60];
	u8 udp[8];
	u8 bth[4200];
};

static void rand_pkt(struct rand_pkt *p, bool ipv6)
{
	p->ipv6 = ipv6;
	unit_fill(p->ip, sizeof(p->ip));
	unit_fill(p->udp, sizeof(p->udp));
	if (ipv6) {
		p->ip_len = 40;
		p->ip[0] = 0x60 | (p->ip[0] & 0x0f);
	} else {
		/* Mostly IHL 5, sometimes with options. */
		p->ip_len = unit_rand(4) ? 20 : 4 * (5 + unit_rand(11));
		p->ip[0] = 0x40 | (p->ip_len / 4);
	}
	p->len = 16 + unit_rand(unit_rand(8) ? 200 : 4096);
	unit_fill(p->bth, p->len);
}

static void ref_random(void)
{
	static struct rand_pkt p;
	int i, k, nfrag;

	for (i = 0; i < 4000; i++) {
		u8 want[4];
		__le32 got;
		u32 st;
		size_t pos, end;

		rand_pkt(&p, i & 1);
		ref_icrc(p.ip, p.ip_len, p.ipv6, p.udp, p.bth, p.len, want);
		got = sroce_icrc_calc(p.ip, p.ipv6, p.udp, p.bth, p.len);
		CHECK_MEM(&got, want, 4);

		/* Random fragmentation of everything after the BTH. */
		st = sroce_icrc_begin(p.ip, p.ipv6, p.udp, (void *)p.bth);
		pos = 12;
		end = p.len - 4;
		nfrag = 1 + unit_rand(5);
		for (k = 0; k < nfrag && pos < end; k++) {
			size_t n = k == nfrag - 1 ? end - pos :
				   unit_rand(end - pos + 1);

			st = sroce_icrc_update(st, p.bth + pos, n);
			pos += n;
		}
		st = sroce_icrc_update(st, p.bth + pos, end - pos);
		got = sroce_icrc_final(st);
		CHECK_MEM(&got, want, 4);

		memcpy(p.bth + p.len - 4, want, 4);
		CHECK(sroce_icrc_check(p.ip, p.ipv6, p.udp, p.bth, p.len));
	}
}

/*
 * Flip each bit of IP, UDP, BTH and some payload; the ICRC may stay the
 * same only for the variant fields. @ones lists the masked bits per
 * byte of the IP+UDP+BTH concatenation.
 */
static void mask_exact(struct rand_pkt *p, const u8 *ones)
{
	size_t hdr = p->ip_len + 8 + 12, i;
	__le32 ref = sroce_icrc_calc(p->ip, p->ipv6, p->udp, p->bth, p->len);
	int b;

	for (i = 0; i < hdr + 8; i++) {
		for (b = 0; b < 8; b++) {
			u8 *at;
			bool masked;
			__le32 got;

			if (i < p->ip_len)
				at = p->ip + i;
			else if (i < p->ip_len + 8)
				at = p->udp + i - p->ip_len;
			else
				at = p->bth + i - p->ip_len - 8;
			masked = i < hdr && (ones[i] >> b & 1);
			*at ^= 1u << b;
			got = sroce_icrc_calc(p->ip, p->ipv6, p->udp, p->bth,
					      p->len);
			*at ^= 1u << b;
			if ((got == ref) != masked)
				UNIT_FAIL("byte %zu bit %d: masked %d, icrc %s",
					  i, b, masked, got == ref ?
					  "unchanged" : "changed");
		}
	}
}

static void mask_ipv4(void)
{
	static struct rand_pkt p;
	u8 ones[20 + 8 + 12] = { 0 };

	rand_pkt(&p, false);
	p.ip_len = 20;
	p.ip[0] = 0x45;
	p.len = 64;
	ones[1] = ones[8] = ones[10] = ones[11] = 0xff;
	ones[20 + 6] = ones[20 + 7] = 0xff;
	ones[28 + 4] = 0xff;
	CALL(mask_exact(&p, ones));
}

static void mask_ipv6(void)
{
	static struct rand_pkt p;
	u8 ones[40 + 8 + 12] = { 0 };

	rand_pkt(&p, true);
	p.len = 64;
	ones[0] = 0x0f;
	ones[1] = ones[2] = ones[3] = 0xff;
	ones[7] = 0xff;
	ones[40 + 6] = ones[40 + 7] = 0xff;
	ones[48 + 4] = 0xff;
	CALL(mask_exact(&p, ones));
}

UNIT_MAIN(UNIT_CASE(crc32_primitive), UNIT_CASE(scapy_frame_rebuilt),
	  UNIT_CASE(vector_cx4_cnp), UNIT_CASE(cnp_built_like_cx4),
	  UNIT_CASE(vector_scapy_uc),
	  UNIT_CASE(vector_bad_icrc), UNIT_CASE(ref_random),
	  UNIT_CASE(mask_ipv4), UNIT_CASE(mask_ipv6))
