// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz-style robustness: random and mutated packets, each in a heap
 * buffer of exactly its length, through the parser (and sometimes the
 * ICRC check). Nothing may read out of bounds (the sanitizer build
 * aborts if it does), and every accepted packet must satisfy the
 * layout invariants. The seed is fixed so a failure reproduces.
 */
#include <sroce/packet.h>
#include "unit.h"

#define ITERATIONS	200000

static const u8 valid_ops[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
	0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16,
	0x17, 0x1d, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29,
	0x2a, 0x2b, 0x64, 0x65,
};

static size_t rand_len(void)
{
	switch (unit_rand(4)) {
	case 0:
		return unit_rand(64);
	case 1:
		return unit_rand(4200);
	default:
		/* Around the interesting sizes: headers and PMTUs. */
		return (unit_rand(2) ? 256u << unit_rand(5) : 0) +
		       unit_rand(64);
	}
}

/* Touch every byte the parser says belongs to the packet. */
static unsigned int touch(const u8 *pkt, const struct sroce_packet_info *pi)
{
	unsigned int sum = 0, i;
	int h;

	for (h = 0; h < SROCE_HDR_NUM; h++) {
		const u8 *hdr = sroce_hdr_ptr(pkt, pi->op, h);

		if (hdr)
			sum += hdr[0];
	}
	for (i = 0; i < pi->payload_len + pi->pad; i++)
		sum += pkt[pi->payload_off + i];
	for (i = 0; i < 4; i++)
		sum += pkt[pi->icrc_off + i];
	return sum;
}

static void fuzz_parse(void)
{
	static u8 ip[60], udp[8];	/* IPv4 IHL may say up to 60 */
	unsigned int sink = 0, accepted = 0;
	int i;

	for (i = 0; i < ITERATIONS; i++) {
		size_t len = rand_len();
		u8 *pkt = malloc(len ? len : 1);
		struct sroce_packet_info pi;
		int ret;

		unit_fill(pkt, len);
		/* Mostly plausible BTHs, so the deeper checks get reached. */
		if (len >= 2 && unit_rand(4)) {
			pkt[0] = valid_ops[unit_rand(sizeof(valid_ops))];
			if (unit_rand(8))
				pkt[1] &= 0xf0;
		}
		memset(&pi, 0xa5, sizeof(pi));
		ret = sroce_packet_parse(pkt, len, &pi);
		if (ret > 0 || ret <= -SROCE_ERR_MAX) {
			free(pkt);
			UNIT_FAIL("iteration %d: bad return %d", i, ret);
		}
		if (!ret) {
			accepted++;
			if (pi.payload_off + pi.payload_len + pi.pad + 4 !=
			    len ||
			    pi.payload_len > SROCE_MAX_PAYLOAD ||
			    pi.op != sroce_opcode_lookup(pkt[0]) ||
			    pi.payload_off != pi.op->length ||
			    pi.icrc_off != len - 4) {
				free(pkt);
				UNIT_FAIL("iteration %d: inconsistent info", i);
			}
			sink += touch(pkt, &pi);
		}
		if (!(i & 15)) {
			unit_fill(ip, sizeof(ip));
			unit_fill(udp, sizeof(udp));
			if (len >= 12)
				sink += sroce_icrc_check(ip, i & 16, udp, pkt,
							 len);
		}
		free(pkt);
	}
	/* The generator must actually reach the accepting paths. */
	CHECK(accepted > ITERATIONS / 50);
	(void)sink;
}

/* Valid packets from the builder with one random byte or length change. */
static void fuzz_mutate(void)
{
	int i;

	for (i = 0; i < ITERATIONS / 4; i++) {
		struct sroce_hdr_fields f;
		struct sroce_packet_info pi;
		u32 pl = unit_rand(2) ? unit_rand(64) : 256u << unit_rand(5);
		size_t wire, len;
		u8 *pkt;

		memset(&f, 0, sizeof(f));
		f.opcode = valid_ops[unit_rand(sizeof(valid_ops))];
		if (!(sroce_opcodes[f.opcode].flags & SROCE_OPF_PAYLOAD))
			pl = 0;
		wire = sroce_packet_wire_len(f.opcode, pl);
		len = wire;
		if (unit_rand(2))
			len = wire - unit_rand(wire + 1);
		else
			len = wire + unit_rand(8);
		pkt = malloc(len ? len : 1);
		memset(pkt, 0, len);
		if (len >= sroce_packet_header_len(f.opcode))
			sroce_packet_build(pkt, len, &f, pl);
		if (len && unit_rand(2))
			pkt[unit_rand(len)] ^= 1u << unit_rand(8);
		if (!sroce_packet_parse(pkt, len, &pi) &&
		    pi.payload_off + pi.payload_len + pi.pad + 4 != len) {
			free(pkt);
			UNIT_FAIL("iteration %d: inconsistent info", i);
		}
		free(pkt);
	}
}

UNIT_MAIN(UNIT_CASE(fuzz_parse), UNIT_CASE(fuzz_mutate))
