// SPDX-License-Identifier: GPL-2.0
/*
 * Opcode table properties, and spot checks of specific opcodes against
 * the IBTA opcode table (vol 1, table 38) and header layouts (9.3).
 */
#include <sroce/opcode.h>
#include "unit.h"

static const u8 hdr_size[SROCE_HDR_NUM] = {
	[SROCE_HDR_BTH] = 12,
	[SROCE_HDR_DETH] = 8,
	[SROCE_HDR_RETH] = 16,
	[SROCE_HDR_ATMETH] = 28,
	[SROCE_HDR_AETH] = 4,
	[SROCE_HDR_ATMACK] = 8,
	[SROCE_HDR_IMMDT] = 4,
	[SROCE_HDR_IETH] = 4,
};

static int popcount(u32 v)
{
	return __builtin_popcount(v);
}

/*
 * 24 RC (0x00-0x14, 0x16, 0x17, 0x1d), 12 UC (0x20-0x2b), 2 UD (0x64,
 * 0x65), the CNP (0x81).
 */
static void valid_set(void)
{
	int op, n = 0;

	for (op = 0; op < 256; op++) {
		bool want = op <= 0x14 || op == 0x16 || op == 0x17 ||
			    op == 0x1d ||
			    (op >= 0x20 && op <= 0x2b) ||
			    op == 0x64 || op == 0x65 || op == 0x81;

		CHECK_EQ(sroce_opcode_lookup(op) != NULL, want);
		n += want;
	}
	CHECK_EQ(n, 39);
}

static void invalid_entries_zero(void)
{
	static const struct sroce_opcode_info zero;
	int op;

	for (op = 0; op < 256; op++) {
		if (sroce_opcode_lookup(op))
			continue;
		if (memcmp(&sroce_opcodes[op], &zero, sizeof(zero)))
			UNIT_FAIL("opcode 0x%02x: invalid entry not zero", op);
	}
	/* RD, reserved, the newer flush opcode, CNP's neighbours. */
	CHECK(!sroce_opcode_lookup(0x15));
	CHECK(!sroce_opcode_lookup(0x18));
	CHECK(!sroce_opcode_lookup(0x1c));
	CHECK(!sroce_opcode_lookup(0x2c));
	CHECK(!sroce_opcode_lookup(0x40));
	CHECK(!sroce_opcode_lookup(0x60));
	CHECK(!sroce_opcode_lookup(0x66));
	CHECK(!sroce_opcode_lookup(0x80));
	CHECK(!sroce_opcode_lookup(0x82));
	CHECK(!sroce_opcode_lookup(0xff));
}

/*
 * Present headers are laid end to end from byte 12 in enum order,
 * absent ones have offset 0, and the length is BTH plus their sizes.
 */
static void layout_consistent(void)
{
	int op, h, maxlen = 0;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_lookup(op);
		unsigned int sum = 0, next = SROCE_BTH_BYTES;

		if (!info)
			continue;
		CHECK(info->name && info->name[0]);
		CHECK(info->hdr_mask & SROCE_HDRF_BTH);
		CHECK_EQ(info->hdr_mask >> SROCE_HDR_NUM, 0);
		CHECK_EQ(info->offset[SROCE_HDR_BTH], 0);
		for (h = 0; h < SROCE_HDR_NUM; h++) {
			if (!(info->hdr_mask & SROCE_HDRF(h))) {
				CHECK_EQ(info->offset[h], 0);
				continue;
			}
			sum += hdr_size[h];
			if (h == SROCE_HDR_BTH)
				continue;
			if (info->offset[h] != next)
				UNIT_FAIL("%s: header %d at %u, want %u",
					  info->name, h, info->offset[h], next);
			next += hdr_size[h];
		}
		CHECK_EQ(info->length, sum);
		CHECK_EQ(info->length, next);
		CHECK_EQ(info->length % 4, 0);
		if (info->length > maxlen)
			maxlen = info->length;
	}
	CHECK_EQ(maxlen, SROCE_MAX_HDR_BYTES);
}

/* Each opcode is usable on exactly the QP type its top bits name. */
static void qp_type_legal(void)
{
	int op;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_lookup(op);
		u32 want;

		if (!info)
			continue;
		switch (op & SROCE_OP_TRANSPORT_MASK) {
		case SROCE_OP_TRANSPORT_RC: want = SROCE_OPF_RC; break;
		case SROCE_OP_TRANSPORT_UC: want = SROCE_OPF_UC; break;
		case SROCE_OP_TRANSPORT_UD: want = SROCE_OPF_UD; break;
		/* A CNP goes to the QP that sent marked packets. */
		case SROCE_OP_TRANSPORT_CNP:
			want = SROCE_OPF_RC | SROCE_OPF_UC;
			break;
		default: UNIT_FAIL("%s: valid on RD?", info->name);
		}
		CHECK_EQ(info->flags & SROCE_OPF_QP_MASK, want);
		/* UC has no reads, atomics or responses; UD only sends. */
		if (want == SROCE_OPF_UC) {
			CHECK(!(info->flags & (SROCE_OPF_READ |
					       SROCE_OPF_ATOMIC |
					       SROCE_OPF_RESP)));
		}
		if (want == SROCE_OPF_UD) {
			CHECK(info->flags & SROCE_OPF_SEND);
			CHECK_EQ(info->flags & SROCE_OPF_ONLY, SROCE_OPF_ONLY);
			CHECK(info->hdr_mask & SROCE_HDRF_DETH);
		} else {
			CHECK(!(info->hdr_mask & SROCE_HDRF_DETH));
		}
	}
}

/* Flags that must agree with each other and with the header mask. */
static void flags_consistent(void)
{
	int op;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_lookup(op);
		u32 f, pos;

		if (!info)
			continue;
		f = info->flags;
		pos = f & SROCE_OPF_POS_MASK;
		CHECK(pos == SROCE_OPF_FIRST || pos == SROCE_OPF_MIDDLE ||
		      pos == SROCE_OPF_LAST || pos == SROCE_OPF_ONLY);
		/* A request, a response, or the CNP, which is neither. */
		CHECK_EQ(popcount(f & (SROCE_OPF_REQ | SROCE_OPF_RESP |
				       SROCE_OPF_CNP)), 1);
		CHECK(popcount(f & SROCE_OPF_CLASS_MASK) <= 1);
		CHECK_EQ(!!(f & SROCE_OPF_IMM),
			 !!(info->hdr_mask & SROCE_HDRF_IMMDT));
		CHECK_EQ(!!(f & SROCE_OPF_INV),
			 !!(info->hdr_mask & SROCE_HDRF_IETH));
		/* Only single-packet messages can go without payload. */
		if (!(f & SROCE_OPF_PAYLOAD))
			CHECK_EQ(pos, SROCE_OPF_ONLY);
		/* Pure acks are responses. */
		if (f & SROCE_OPF_ACK)
			CHECK(f & SROCE_OPF_RESP);
		/* Only the first packet of a write names the target. */
		if ((f & SROCE_OPF_WRITE) && (f & SROCE_OPF_REQ))
			CHECK_EQ(!!(info->hdr_mask & SROCE_HDRF_RETH),
				 !!(f & SROCE_OPF_FIRST));
	}
}

#define O(h)	SROCE_HDRF_##h
#define F(x)	SROCE_OPF_##x

static const struct {
	u8 op;
	const char *name;
	u16 hdrs;		/* besides the BTH */
	u8 len;
	u8 off[SROCE_HDR_NUM];	/* expected offsets, 0 = absent */
	u32 flags;		/* besides VALID and the QP type */
} spot[] = {
	{ 0x00, "RC_SEND_FIRST", 0, 12, {0},
	  F(REQ) | F(SEND) | F(PAYLOAD) | F(FIRST) },
	{ 0x01, "RC_SEND_MIDDLE", 0, 12, {0},
	  F(REQ) | F(SEND) | F(PAYLOAD) | F(MIDDLE) },
	{ 0x03, "RC_SEND_LAST_WITH_IMMEDIATE", O(IMMDT), 16,
	  { [SROCE_HDR_IMMDT] = 12 },
	  F(REQ) | F(SEND) | F(PAYLOAD) | F(LAST) | F(IMM) },
	{ 0x04, "RC_SEND_ONLY", 0, 12, {0},
	  F(REQ) | F(SEND) | F(PAYLOAD) | F(ONLY) },
	{ 0x81, "CNP", 0, 12, {0}, F(CNP) | F(PAYLOAD) | F(ONLY) },
	{ 0x06, "RC_RDMA_WRITE_FIRST", O(RETH), 28,
	  { [SROCE_HDR_RETH] = 12 },
	  F(REQ) | F(WRITE) | F(PAYLOAD) | F(FIRST) },
	{ 0x0b, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", O(RETH) | O(IMMDT), 32,
	  { [SROCE_HDR_RETH] = 12, [SROCE_HDR_IMMDT] = 28 },
	  F(REQ) | F(WRITE) | F(PAYLOAD) | F(ONLY) | F(IMM) },
	{ 0x0c, "RC_RDMA_READ_REQUEST", O(RETH), 28,
	  { [SROCE_HDR_RETH] = 12 }, F(REQ) | F(READ) | F(ONLY) },
	{ 0x0d, "RC_RDMA_READ_RESPONSE_FIRST", O(AETH), 16,
	  { [SROCE_HDR_AETH] = 12 },
	  F(RESP) | F(READ) | F(PAYLOAD) | F(FIRST) },
	{ 0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE", 0, 12, {0},
	  F(RESP) | F(READ) | F(PAYLOAD) | F(MIDDLE) },
	{ 0x0f, "RC_RDMA_READ_RESPONSE_LAST", O(AETH), 16,
	  { [SROCE_HDR_AETH] = 12 },
	  F(RESP) | F(READ) | F(PAYLOAD) | F(LAST) },
	{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY", O(AETH), 16,
	  { [SROCE_HDR_AETH] = 12 },
	  F(RESP) | F(READ) | F(PAYLOAD) | F(ONLY) },
	{ 0x11, "RC_ACKNOWLEDGE", O(AETH), 16,
	  { [SROCE_HDR_AETH] = 12 }, F(RESP) | F(ACK) | F(ONLY) },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE", O(AETH) | O(ATMACK), 24,
	  { [SROCE_HDR_AETH] = 12, [SROCE_HDR_ATMACK] = 16 },
	  F(RESP) | F(ACK) | F(ATOMIC) | F(ONLY) },
	{ 0x13, "RC_COMPARE_SWAP", O(ATMETH), 40,
	  { [SROCE_HDR_ATMETH] = 12 }, F(REQ) | F(ATOMIC) | F(ONLY) },
	{ 0x14, "RC_FETCH_ADD", O(ATMETH), 40,
	  { [SROCE_HDR_ATMETH] = 12 }, F(REQ) | F(ATOMIC) | F(ONLY) },
	{ 0x16, "RC_SEND_LAST_WITH_INVALIDATE", O(IETH), 16,
	  { [SROCE_HDR_IETH] = 12 },
	  F(REQ) | F(SEND) | F(PAYLOAD) | F(LAST) | F(INV) },
	{ 0x17, "RC_SEND_ONLY_WITH_INVALIDATE", O(IETH), 16,
	  { [SROCE_HDR_IETH] = 12 },
	  F(REQ) | F(SEND) | F(PAYLOAD) | F(ONLY) | F(INV) },
	{ 0x1d, "RC_ATOMIC_WRITE", O(RETH), 28,
	  { [SROCE_HDR_RETH] = 12 }, F(REQ) | F(WRITE) | F(PAYLOAD) | F(ONLY) },
	{ 0x20, "UC_SEND_FIRST", 0, 12, {0},
	  F(REQ) | F(SEND) | F(PAYLOAD) | F(FIRST) },
	{ 0x27, "UC_RDMA_WRITE_MIDDLE", 0, 12, {0},
	  F(REQ) | F(WRITE) | F(PAYLOAD) | F(MIDDLE) },
	{ 0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", O(IMMDT), 16,
	  { [SROCE_HDR_IMMDT] = 12 },
	  F(REQ) | F(WRITE) | F(PAYLOAD) | F(LAST) | F(IMM) },
	{ 0x2b, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", O(RETH) | O(IMMDT), 32,
	  { [SROCE_HDR_RETH] = 12, [SROCE_HDR_IMMDT] = 28 },
	  F(REQ) | F(WRITE) | F(PAYLOAD) | F(ONLY) | F(IMM) },
	{ 0x64, "UD_SEND_ONLY", O(DETH), 20,
	  { [SROCE_HDR_DETH] = 12 },
	  F(REQ) | F(SEND) | F(PAYLOAD) | F(ONLY) },
	{ 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", O(DETH) | O(IMMDT), 24,
	  { [SROCE_HDR_DETH] = 12, [SROCE_HDR_IMMDT] = 20 },
	  F(REQ) | F(SEND) | F(PAYLOAD) | F(ONLY) | F(IMM) },
};

static void spot_checks(void)
{
	size_t i;
	int h;

	for (i = 0; i < sizeof(spot) / sizeof(spot[0]); i++) {
		const struct sroce_opcode_info *info;
		u32 flags;

		info = sroce_opcode_lookup(spot[i].op);
		CHECK(info);
		if (strcmp(info->name, spot[i].name))
			UNIT_FAIL("0x%02x named %s, want %s", spot[i].op,
				  info->name, spot[i].name);
		CHECK_EQ(info->hdr_mask, SROCE_HDRF_BTH | spot[i].hdrs);
		CHECK_EQ(info->length, spot[i].len);
		for (h = 0; h < SROCE_HDR_NUM; h++)
			CHECK_EQ(info->offset[h], spot[i].off[h]);
		flags = info->flags & ~(SROCE_OPF_VALID | SROCE_OPF_QP_MASK);
		CHECK_EQ(flags, spot[i].flags);
		CHECK(info->flags & SROCE_OPF_VALID);
	}
}

/* The enum values are the IBTA codes. */
static void enum_values(void)
{
	CHECK_EQ(SROCE_OP_RC_RDMA_READ_REQUEST, 0x0c);
	CHECK_EQ(SROCE_OP_RC_ACKNOWLEDGE, 0x11);
	CHECK_EQ(SROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE, 0x17);
	CHECK_EQ(SROCE_OP_RC_ATOMIC_WRITE, 0x1d);
	CHECK_EQ(SROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x2b);
	CHECK_EQ(SROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE, 0x65);
	CHECK(!strcmp(sroce_opcodes[0x0c].name, "RC_RDMA_READ_REQUEST"));
}

static void hdr_ptr(void)
{
	u8 pkt[64];
	const struct sroce_opcode_info *info;

	info = sroce_opcode_lookup(SROCE_OP_RC_ATOMIC_ACKNOWLEDGE);
	CHECK(sroce_hdr_ptr(pkt, info, SROCE_HDR_AETH) == pkt + 12);
	CHECK(sroce_hdr_ptr(pkt, info, SROCE_HDR_ATMACK) == pkt + 16);
	CHECK(sroce_hdr_ptr(pkt, info, SROCE_HDR_RETH) == NULL);
	CHECK(sroce_opcode_has(info, SROCE_HDR_AETH));
	CHECK(!sroce_opcode_has(info, SROCE_HDR_IMMDT));
}

UNIT_MAIN(UNIT_CASE(valid_set), UNIT_CASE(invalid_entries_zero),
	  UNIT_CASE(layout_consistent), UNIT_CASE(qp_type_legal),
	  UNIT_CASE(flags_consistent), UNIT_CASE(spot_checks),
	  UNIT_CASE(enum_values), UNIT_CASE(hdr_ptr))
