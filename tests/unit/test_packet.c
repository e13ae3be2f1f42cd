// SPDX-License-Identifier: GPL-2.0
/*
 * Packet parser and builder: hand-made packets with known bytes, one
 * malformed packet per rule, and a builder -> parser round trip for
 * every opcode in the table.
 */
#include <sroce/packet.h>
#include "unit.h"

/*
 * Parse @len bytes copied into a buffer of exactly that size, so the
 * sanitizer build catches any read past the end.
 */
static int parse_exact(const u8 *pkt, size_t len,
		       struct sroce_packet_info *info)
{
	u8 *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, pkt, len);
	ret = sroce_packet_parse(copy, len, info);
	free(copy);
	return ret;
}

static void parse_ack(void)
{
	/* RC ACK, QPN 0x11, PSN 0x2a, syndrome 0x1f, MSN 7, ICRC ignored */
	static const u8 pkt[20] = {
		0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
		0x00, 0x00, 0x00, 0x2a,
		0x1f, 0x00, 0x00, 0x07,
		0xaa, 0xbb, 0xcc, 0xdd,
	};
	struct sroce_packet_info info;
	const struct sroce_aeth *aeth;

	CHECK_EQ(parse_exact(pkt, sizeof(pkt), &info), 0);
	CHECK_EQ(info.opcode, SROCE_OP_RC_ACKNOWLEDGE);
	CHECK(info.op == &sroce_opcodes[SROCE_OP_RC_ACKNOWLEDGE]);
	CHECK_EQ(info.psn, 0x2a);
	CHECK_EQ(info.dest_qpn, 0x11);
	CHECK_EQ(info.pad, 0);
	CHECK_EQ(info.payload_off, 16);
	CHECK_EQ(info.payload_len, 0);
	CHECK_EQ(info.icrc_off, 16);
	aeth = sroce_hdr_ptr(pkt, info.op, SROCE_HDR_AETH);
	CHECK_EQ(sroce_aeth_syndrome(aeth), 0x1f);
	CHECK_EQ(sroce_aeth_msn(aeth), 7);
}

static void parse_ud_send_imm(void)
{
	/* UD SEND_ONLY_WITH_IMMEDIATE, 5 payload bytes + 3 pad */
	static const u8 pkt[] = {
		0x65, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x12, 0x34, 0x56,
		0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x03, 0x04,	/* DETH */
		0x01, 0x02, 0x03, 0x04,				/* ImmDt */
		'h', 'e', 'l', 'l', 'o', 0, 0, 0,		/* data */
		0, 0, 0, 0,					/* ICRC */
	};
	struct sroce_packet_info info;
	const struct sroce_deth *deth;

	CHECK_EQ(parse_exact(pkt, sizeof(pkt), &info), 0);
	CHECK_EQ(info.opcode, 0x65);
	CHECK_EQ(info.psn, 0x123456);
	CHECK_EQ(info.dest_qpn, 1);
	CHECK_EQ(info.pad, 3);
	CHECK_EQ(info.payload_off, 24);
	CHECK_EQ(info.payload_len, 5);
	CHECK_EQ(info.icrc_off, 32);
	CHECK(!memcmp(pkt + info.payload_off, "hello", 5));
	deth = sroce_hdr_ptr(pkt, info.op, SROCE_HDR_DETH);
	CHECK_EQ(sroce_deth_qkey(deth), 0x80010000);
	CHECK_EQ(sroce_deth_sqpn(deth), 0x304);
}

#define E(x)	(-SROCE_##x)
#define OP(x)	SROCE_OP_##x
#define NAT	(-1)

/*
 * One packet per row: opcode, bytes between headers and ICRC ("area",
 * payload + pad), pad count, TVer, total length (NAT = headers + area +
 * ICRC) and the expected result.
 */
static const struct {
	int op;
	int area;
	int pad;
	int tver;
	int len;
	int want;
} parse_rows[] = {
	/* Well-formed edge cases. */
	{ OP(RC_SEND_ONLY), 0, 0, 0, NAT, 0 },		/* empty message */
	{ OP(RC_SEND_ONLY), 4, 3, 0, NAT, 0 },		/* 1 byte */
	{ OP(RC_SEND_ONLY), 4096, 0, 0, NAT, 0 },
	{ OP(RC_RDMA_WRITE_ONLY), 0, 0, 0, NAT, 0 },
	{ OP(RC_RDMA_READ_RESPONSE_ONLY), 0, 0, 0, NAT, 0 },
	{ OP(UD_SEND_ONLY), 0, 0, 0, NAT, 0 },
	{ OP(RC_SEND_LAST), 4, 3, 0, NAT, 0 },
	{ OP(RC_SEND_LAST), 4096, 0, 0, NAT, 0 },
	{ OP(RC_SEND_FIRST), 256, 0, 0, NAT, 0 },
	{ OP(RC_SEND_MIDDLE), 4096, 0, 0, NAT, 0 },
	{ OP(UC_RDMA_WRITE_FIRST), 1024, 0, 0, NAT, 0 },
	{ OP(RC_RDMA_READ_RESPONSE_MIDDLE), 2048, 0, 0, NAT, 0 },
	{ OP(RC_RDMA_READ_REQUEST), 0, 0, 0, NAT, 0 },
	{ OP(RC_COMPARE_SWAP), 0, 0, 0, NAT, 0 },
	{ OP(RC_ATOMIC_ACKNOWLEDGE), 0, 0, 0, NAT, 0 },
	/* Shorter than BTH + ICRC. */
	{ OP(RC_SEND_ONLY), 0, 0, 0, 0, E(ESHORT) },
	{ OP(RC_SEND_ONLY), 0, 0, 0, 1, E(ESHORT) },
	{ OP(RC_SEND_ONLY), 0, 0, 0, 15, E(ESHORT) },
	/* Unknown opcodes: RD, reserved, beside the CNP. */
	{ 0x15, 0, 0, 0, 16, E(EOPCODE) },
	{ 0x40, 0, 0, 0, 16, E(EOPCODE) },
	{ 0x80, 0, 0, 0, 32, E(EOPCODE) },
	{ 0x82, 0, 0, 0, 32, E(EOPCODE) },
	/* The CNP: its 16 reserved bytes. */
	{ OP(CNP), 16, 0, 0, NAT, 0 },
	{ 0xff, 0, 0, 0, 16, E(EOPCODE) },
	/* Transport version. */
	{ OP(RC_SEND_ONLY), 8, 0, 1, NAT, E(ETVER) },
	{ OP(RC_SEND_ONLY), 8, 0, 15, NAT, E(ETVER) },
	/* Extension headers cut short. */
	{ OP(RC_ACKNOWLEDGE), 0, 0, 0, 16, E(ETRUNC) },
	{ OP(RC_ACKNOWLEDGE), 0, 0, 0, 19, E(ETRUNC) },
	{ OP(UD_SEND_ONLY), 0, 0, 0, 20, E(ETRUNC) },
	{ OP(RC_COMPARE_SWAP), 0, 0, 0, 40, E(ETRUNC) },
	{ OP(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE), 0, 0, 0, 32, E(ETRUNC) },
	{ OP(RC_ATOMIC_ACKNOWLEDGE), 0, 0, 0, 24, E(ETRUNC) },
	/* Not whole words. */
	{ OP(RC_SEND_ONLY), 0, 0, 0, 17, E(EALIGN) },
	{ OP(RC_SEND_ONLY), 0, 0, 0, 19, E(EALIGN) },
	{ OP(RC_SEND_ONLY), 0, 0, 0, 23, E(EALIGN) },
	{ OP(RC_ACKNOWLEDGE), 0, 0, 0, 21, E(EALIGN) },
	/* Pad without room for it. */
	{ OP(RC_SEND_ONLY), 0, 1, 0, NAT, E(EPAD) },
	{ OP(RC_SEND_ONLY), 0, 3, 0, NAT, E(EPAD) },
	{ OP(RC_ACKNOWLEDGE), 0, 1, 0, NAT, E(EPAD) },
	{ OP(RC_RDMA_READ_REQUEST), 0, 2, 0, NAT, E(EPAD) },
	/* Payload where the opcode has none. */
	{ OP(RC_ACKNOWLEDGE), 4, 0, 0, NAT, E(EPAYLOAD) },
	{ OP(RC_RDMA_READ_REQUEST), 8, 0, 0, NAT, E(EPAYLOAD) },
	{ OP(RC_COMPARE_SWAP), 4, 0, 0, NAT, E(EPAYLOAD) },
	{ OP(RC_ATOMIC_ACKNOWLEDGE), 8, 3, 0, NAT, E(EPAYLOAD) },
	/* More than the largest PMTU. */
	{ OP(RC_SEND_ONLY), 4100, 3, 0, NAT, E(EMTU) },
	{ OP(RC_SEND_ONLY), 4100, 0, 0, NAT, E(EMTU) },
	{ OP(UD_SEND_ONLY), 8192, 0, 0, NAT, E(EMTU) },
	{ OP(RC_SEND_FIRST), 8192, 0, 0, NAT, E(EMTU) },
	{ OP(RC_RDMA_READ_RESPONSE_ONLY), 4100, 0, 0, NAT, E(EMTU) },
	/* First and middle packets carry exactly one PMTU. */
	{ OP(RC_SEND_FIRST), 0, 0, 0, NAT, E(EMIDSIZE) },
	{ OP(RC_SEND_FIRST), 252, 0, 0, NAT, E(EMIDSIZE) },
	{ OP(RC_SEND_FIRST), 260, 0, 0, NAT, E(EMIDSIZE) },
	{ OP(RC_SEND_FIRST), 256, 1, 0, NAT, E(EMIDSIZE) },
	{ OP(RC_SEND_MIDDLE), 384, 0, 0, NAT, E(EMIDSIZE) },
	{ OP(UC_RDMA_WRITE_MIDDLE), 128, 0, 0, NAT, E(EMIDSIZE) },
	{ OP(RC_RDMA_WRITE_FIRST), 4, 0, 0, NAT, E(EMIDSIZE) },
	{ OP(RC_RDMA_READ_RESPONSE_FIRST), 1000, 0, 0, NAT, E(EMIDSIZE) },
	{ OP(RC_RDMA_READ_RESPONSE_MIDDLE), 4096, 2, 0, NAT, E(EMIDSIZE) },
	/* Last packets carry at least one byte. */
	{ OP(RC_SEND_LAST), 0, 0, 0, NAT, E(ELASTSIZE) },
	{ OP(UC_RDMA_WRITE_LAST_WITH_IMMEDIATE), 0, 0, 0, NAT, E(ELASTSIZE) },
	{ OP(RC_RDMA_READ_RESPONSE_LAST), 0, 0, 0, NAT, E(ELASTSIZE) },
	{ OP(RC_SEND_LAST_WITH_INVALIDATE), 0, 0, 0, NAT, E(ELASTSIZE) },
};

static void parse_rules(void)
{
	static u8 pkt[12 + 40 + 8192 + 4];
	size_t i;

	for (i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++) {
		struct sroce_packet_info info;
		const struct sroce_opcode_info *op;
		struct sroce_bth *bth = (void *)pkt;
		size_t hdr, len;
		int ret;

		op = sroce_opcode_lookup(parse_rows[i].op);
		hdr = op ? op->length : 12;
		unit_fill(pkt, sizeof(pkt));
		memset(pkt, 0, hdr);
		sroce_bth_set_opcode(bth, parse_rows[i].op);
		sroce_bth_set_pad(bth, parse_rows[i].pad);
		sroce_bth_set_tver(bth, parse_rows[i].tver);
		len = parse_rows[i].len == NAT ?
		      hdr + parse_rows[i].area + 4 : (size_t)parse_rows[i].len;
		ret = parse_exact(pkt, len, &info);
		if (ret != parse_rows[i].want)
			UNIT_FAIL("row %zu (op 0x%02x len %zu): got %d (%s), "
				  "want %d (%s)", i, parse_rows[i].op, len,
				  ret, sroce_wire_strerror(ret),
				  parse_rows[i].want,
				  sroce_wire_strerror(parse_rows[i].want));
		if (!ret) {
			CHECK_EQ(info.payload_len,
				 parse_rows[i].area - parse_rows[i].pad);
			CHECK_EQ(info.payload_off + info.payload_len +
				 info.pad + 4, len);
		}
	}
}

/* All PMTU sizes are accepted for every first and middle opcode. */
static void parse_pmtu_sizes(void)
{
	static u8 pkt[40 + 4096 + 4];
	int op, k;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_lookup(op);
		struct sroce_packet_info pi;

		if (!info || !(info->flags & (SROCE_OPF_FIRST |
					      SROCE_OPF_MIDDLE)) ||
		    (info->flags & SROCE_OPF_LAST))
			continue;
		for (k = 0; k < 5; k++) {
			size_t pl = 256u << k;

			memset(pkt, 0, info->length);
			pkt[0] = op;
			CHECK_EQ(parse_exact(pkt, info->length + pl + 4, &pi),
				 0);
			CHECK_EQ(pi.payload_len, pl);
		}
	}
}

static void build_known_bytes(void)
{
	static const u8 want_write[32] = {
		0x0b, 0xb0, 0x80, 0x01, 0x40, 0x00, 0x01, 0x02,	/* BTH */
		0x80, 0xab, 0xcd, 0xef,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* RETH */
		0x99, 0xaa, 0xbb, 0xcc, 0x00, 0x00, 0x00, 0x05,
		0xde, 0xad, 0xbe, 0xef,				/* ImmDt */
	};
	static const u8 want_atmack[24] = {
		0x12, 0x40, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,	/* BTH */
		0x00, 0x00, 0x00, 0x09,
		0x1f, 0x00, 0x00, 0x03,				/* AETH */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* orig */
	};
	static const u8 want_cas[40] = {
		0x13, 0x00, 0xff, 0xff, 0x80, 0x00, 0x00, 0x07,	/* BTH */
		0x80, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x7f, 0xff, 0x00, 0x00, 0x10, 0x00,	/* VA */
		0x00, 0x00, 0x12, 0x34,				/* R_Key */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,	/* swap */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,	/* compare */
	};
	static const u8 imm[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct sroce_hdr_fields f;
	u8 buf[64];

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
	f.se = true;
	f.ackreq = true;
	f.becn = true;
	f.pkey = 0x8001;
	f.dest_qpn = 0x000102;
	f.psn = 0xabcdef;
	f.va = 0x1122334455667788ull;
	f.rkey = 0x99aabbcc;
	f.dma_len = 5;
	memcpy(&f.imm, imm, 4);
	/* Also fields of absent headers, which must not be written. */
	f.qkey = 0xffffffff;
	f.syndrome = 0xff;
	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(sroce_packet_build(buf, sizeof(buf), &f, 5), 32);
	CHECK_MEM(buf, want_write, 32);
	CHECK_EQ(buf[32], 0xee);

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OP_RC_ATOMIC_ACKNOWLEDGE;
	f.migreq = true;
	f.pkey = 0xffff;
	f.dest_qpn = 7;
	f.psn = 9;
	f.syndrome = sroce_syndrome_ack(SROCE_AETH_CREDITS_INVALID);
	f.msn = 3;
	f.orig = 0x0102030405060708ull;
	CHECK_EQ(sroce_packet_build(buf, 24, &f, 0), 24);
	CHECK_MEM(buf, want_atmack, 24);

	memset(&f, 0, sizeof(f));
	f.opcode = SROCE_OP_RC_COMPARE_SWAP;
	f.fecn = true;
	f.ackreq = true;
	f.pkey = 0xffff;
	f.dest_qpn = 0xff000007;	/* truncated to 24 bits */
	f.va = 0x7fff00001000ull;
	f.rkey = 0x1234;
	f.swap_add = 2;
	f.compare = 1;
	CHECK_EQ(sroce_packet_build(buf, 40, &f, 0), 40);
	CHECK_MEM(buf, want_cas, 40);
}

static void build_errors(void)
{
	struct sroce_hdr_fields f;
	u8 buf[64];

	memset(&f, 0, sizeof(f));
	f.opcode = 0x15;
	CHECK_EQ(sroce_packet_build(buf, sizeof(buf), &f, 0), E(EOPCODE));
	f.opcode = SROCE_OP_RC_COMPARE_SWAP;
	CHECK_EQ(sroce_packet_build(buf, 39, &f, 0), E(EBUF));
	f.opcode = SROCE_OP_RC_ACKNOWLEDGE;
	CHECK_EQ(sroce_packet_build(buf, sizeof(buf), &f, 4), E(EPAYLOAD));
	f.opcode = SROCE_OP_RC_SEND_ONLY;
	CHECK_EQ(sroce_packet_build(buf, sizeof(buf), &f, 4097), E(EMTU));
	CHECK_EQ(sroce_packet_build(buf, sizeof(buf), &f, 4096), 12);
	CHECK_EQ(sroce_bth_pad((void *)buf), 0);
	CHECK_EQ(sroce_packet_build(buf, sizeof(buf), &f, 4095), 12);
	CHECK_EQ(sroce_bth_pad((void *)buf), 1);
}

static void lengths(void)
{
	CHECK_EQ(sroce_pad_count(0), 0);
	CHECK_EQ(sroce_pad_count(1), 3);
	CHECK_EQ(sroce_pad_count(2), 2);
	CHECK_EQ(sroce_pad_count(3), 1);
	CHECK_EQ(sroce_pad_count(4096), 0);
	CHECK_EQ(sroce_packet_header_len(SROCE_OP_RC_COMPARE_SWAP), 40);
	CHECK_EQ(sroce_packet_header_len(SROCE_OP_UD_SEND_ONLY), 20);
	CHECK_EQ(sroce_packet_header_len(0x15), 0);
	CHECK_EQ(sroce_packet_wire_len(SROCE_OP_RC_SEND_ONLY, 5), 24);
	CHECK_EQ(sroce_packet_wire_len(SROCE_OP_RC_ACKNOWLEDGE, 0), 20);
	CHECK_EQ(sroce_packet_wire_len(SROCE_OP_CNP, SROCE_CNP_RSVD_BYTES), 32);
	CHECK_EQ(sroce_packet_wire_len(0x80, 16), 0);
}

static void strerror_table(void)
{
	int i, j;

	CHECK(!strcmp(sroce_wire_strerror(0), "ok"));
	CHECK(!strcmp(sroce_wire_strerror(SROCE_ERR_MAX), "unknown error"));
	CHECK(!strcmp(sroce_wire_strerror(-1000), "unknown error"));
	for (i = 1; i < SROCE_ERR_MAX; i++) {
		CHECK(sroce_wire_strerror(i) != NULL);
		CHECK(sroce_wire_strerror(-i) == sroce_wire_strerror(i));
		for (j = 0; j < i; j++)
			CHECK(strcmp(sroce_wire_strerror(i),
				     sroce_wire_strerror(j)));
	}
}

/* A legal payload length for the position of @info in a message. */
static u32 legal_payload(const struct sroce_opcode_info *info)
{
	u32 pos = info->flags & SROCE_OPF_POS_MASK;

	if (!(info->flags & SROCE_OPF_PAYLOAD))
		return 0;
	if (pos == SROCE_OPF_FIRST || pos == SROCE_OPF_MIDDLE)
		return 256u << unit_rand(5);
	if (pos == SROCE_OPF_LAST)
		return 1 + unit_rand(SROCE_MAX_PAYLOAD);
	return unit_rand(SROCE_MAX_PAYLOAD + 1);
}

static void check_roundtrip(const struct sroce_hdr_fields *f, u32 pl)
{
	const struct sroce_opcode_info *op = sroce_opcode_lookup(f->opcode);
	u32 wire = sroce_packet_wire_len(f->opcode, pl);
	struct sroce_packet_info info;
	const struct sroce_bth *bth;
	u8 *pkt = malloc(wire);
	void *h;
	int ret;

	CHECK(pkt);
	ret = sroce_packet_build(pkt, wire, f, pl);
	if (ret != op->length) {
		free(pkt);
		UNIT_FAIL("%s: build returned %d", op->name, ret);
	}
	unit_fill(pkt + ret, pl);
	memset(pkt + ret + pl, 0, wire - ret - pl);
	ret = sroce_packet_parse(pkt, wire, &info);
	bth = (const void *)pkt;
	if (ret) {
		free(pkt);
		UNIT_FAIL("%s payload %u: parse: %s", op->name, pl,
			  sroce_wire_strerror(ret));
	}
#define RT_EQ(a, b)							\
	do {								\
		if ((unsigned long long)(a) != (unsigned long long)(b)) { \
			free(pkt);					\
			UNIT_FAIL("%s: %s != %s", op->name, #a, #b);	\
		}							\
	} while (0)
	RT_EQ(info.op, op);
	RT_EQ(info.opcode, f->opcode);
	RT_EQ(info.psn, f->psn & 0xffffff);
	RT_EQ(info.dest_qpn, f->dest_qpn & 0xffffff);
	RT_EQ(info.payload_len, pl);
	RT_EQ(info.payload_off, op->length);
	RT_EQ(info.pad, (4 - pl % 4) % 4);
	RT_EQ(info.icrc_off, wire - 4);
	RT_EQ(sroce_bth_se(bth), f->se);
	RT_EQ(sroce_bth_mig(bth), f->migreq);
	RT_EQ(sroce_bth_ackreq(bth), f->ackreq);
	RT_EQ(sroce_bth_fecn(bth), f->fecn);
	RT_EQ(sroce_bth_becn(bth), f->becn);
	RT_EQ(sroce_bth_pkey(bth), f->pkey);
	RT_EQ(sroce_bth_tver(bth), 0);
	RT_EQ(sroce_bth_resv8a(bth) & 0x3f, 0);
	RT_EQ(pkt[8] & 0x7f, 0);
	h = sroce_hdr_ptr(pkt, op, SROCE_HDR_DETH);
	if (h) {
		RT_EQ(sroce_deth_qkey(h), f->qkey);
		RT_EQ(sroce_deth_sqpn(h), f->src_qpn & 0xffffff);
		RT_EQ(pkt[op->offset[SROCE_HDR_DETH] + 4], 0);
	}
	h = sroce_hdr_ptr(pkt, op, SROCE_HDR_RETH);
	if (h) {
		RT_EQ(sroce_reth_va(h), f->va);
		RT_EQ(sroce_reth_rkey(h), f->rkey);
		RT_EQ(sroce_reth_len(h), f->dma_len);
	}
	h = sroce_hdr_ptr(pkt, op, SROCE_HDR_ATMETH);
	if (h) {
		RT_EQ(sroce_atmeth_va(h), f->va);
		RT_EQ(sroce_atmeth_rkey(h), f->rkey);
		RT_EQ(sroce_atmeth_swap_add(h), f->swap_add);
		RT_EQ(sroce_atmeth_compare(h), f->compare);
	}
	h = sroce_hdr_ptr(pkt, op, SROCE_HDR_AETH);
	if (h) {
		RT_EQ(sroce_aeth_syndrome(h), f->syndrome);
		RT_EQ(sroce_aeth_msn(h), f->msn & 0xffffff);
	}
	h = sroce_hdr_ptr(pkt, op, SROCE_HDR_ATMACK);
	if (h)
		RT_EQ(sroce_atmack_orig(h), f->orig);
	h = sroce_hdr_ptr(pkt, op, SROCE_HDR_IMMDT);
	if (h)
		RT_EQ(sroce_immdt_imm(h), f->imm);
	h = sroce_hdr_ptr(pkt, op, SROCE_HDR_IETH);
	if (h)
		RT_EQ(sroce_ieth_rkey(h), f->inv_rkey);
#undef RT_EQ
	free(pkt);
}

static void build_parse_roundtrip(void)
{
	int op, iter, seen = 0;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_lookup(op);

		if (!info)
			continue;
		seen++;
		for (iter = 0; iter < 50; iter++) {
			struct sroce_hdr_fields f;
			u32 pl;

			unit_fill(&f, sizeof(f));
			f.opcode = op;
			f.se = unit_rand(2);
			f.migreq = unit_rand(2);
			f.ackreq = unit_rand(2);
			f.fecn = unit_rand(2);
			f.becn = unit_rand(2);
			pl = legal_payload(info);
			CALL(check_roundtrip(&f, pl));
		}
	}
	CHECK_EQ(seen, 39);
}

UNIT_MAIN(UNIT_CASE(parse_ack), UNIT_CASE(parse_ud_send_imm),
	  UNIT_CASE(parse_rules), UNIT_CASE(parse_pmtu_sizes),
	  UNIT_CASE(build_known_bytes), UNIT_CASE(build_errors),
	  UNIT_CASE(lengths), UNIT_CASE(strerror_table),
	  UNIT_CASE(build_parse_roundtrip))
