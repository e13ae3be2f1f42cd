// SPDX-License-Identifier: GPL-2.0
/*
 * BTH and extension header accessors against hand-built byte images.
 * The expected values follow from the IBTA bit layout, byte by byte.
 */
#include <sroce/bth.h>
#include <sroce/ext_headers.h>
#include "unit.h"

static void bth_get(void)
{
	/*
	 * 0x0a opcode; 0xb3 = SE 1, M 0, pad 3, tver 3; pkey 0xabcd;
	 * 0x80 = FECN 1, BECN 0; QPN 0x123456; 0x80 = AckReq; PSN 0xfedcba.
	 */
	static const u8 a[12] = {
		0x0a, 0xb3, 0xab, 0xcd, 0x80, 0x12, 0x34, 0x56,
		0x80, 0xfe, 0xdc, 0xba,
	};
	/* The complementary bits: M 1, BECN 1, Resv7 all ones. */
	static const u8 b[12] = {
		0x64, 0x40, 0x00, 0x01, 0x7f, 0xff, 0xff, 0xfe,
		0x7f, 0x00, 0x00, 0x01,
	};
	const struct sroce_bth *x = (const void *)a, *y = (const void *)b;

	CHECK_EQ(sroce_bth_opcode(x), 0x0a);
	CHECK_EQ(sroce_bth_se(x), 1);
	CHECK_EQ(sroce_bth_mig(x), 0);
	CHECK_EQ(sroce_bth_pad(x), 3);
	CHECK_EQ(sroce_bth_tver(x), 3);
	CHECK_EQ(sroce_bth_pkey(x), 0xabcd);
	CHECK_EQ(sroce_bth_fecn(x), 1);
	CHECK_EQ(sroce_bth_becn(x), 0);
	CHECK_EQ(sroce_bth_resv8a(x), 0x80);
	CHECK_EQ(sroce_bth_qpn(x), 0x123456);
	CHECK_EQ(sroce_bth_ackreq(x), 1);
	CHECK_EQ(sroce_bth_psn(x), 0xfedcba);

	CHECK_EQ(sroce_bth_opcode(y), 0x64);
	CHECK_EQ(sroce_bth_se(y), 0);
	CHECK_EQ(sroce_bth_mig(y), 1);
	CHECK_EQ(sroce_bth_pad(y), 0);
	CHECK_EQ(sroce_bth_tver(y), 0);
	CHECK_EQ(sroce_bth_pkey(y), 0x0001);
	CHECK_EQ(sroce_bth_fecn(y), 0);
	CHECK_EQ(sroce_bth_becn(y), 1);
	CHECK_EQ(sroce_bth_resv8a(y), 0x7f);
	CHECK_EQ(sroce_bth_qpn(y), 0xfffffe);
	CHECK_EQ(sroce_bth_ackreq(y), 0);
	CHECK_EQ(sroce_bth_psn(y), 0x000001);
}

static void bth_set(void)
{
	static const u8 want[12] = {
		0x0a, 0xb3, 0xab, 0xcd, 0x80, 0x12, 0x34, 0x56,
		0x80, 0xfe, 0xdc, 0xba,
	};
	u8 buf[12];
	struct sroce_bth *bth = (void *)buf;

	memset(buf, 0, sizeof(buf));
	sroce_bth_set_opcode(bth, 0x0a);
	sroce_bth_set_se(bth, true);
	sroce_bth_set_pad(bth, 3);
	sroce_bth_set_tver(bth, 3);
	sroce_bth_set_pkey(bth, 0xabcd);
	sroce_bth_set_fecn(bth, true);
	sroce_bth_set_qpn(bth, 0x123456);
	sroce_bth_set_ackreq(bth, true);
	sroce_bth_set_psn(bth, 0xfedcba);
	CHECK_MEM(buf, want, 12);
}

/* Clearing one field of an all-ones BTH must leave every other bit set. */
static void bth_set_isolation(void)
{
	static const struct {
		int field;
		u8 want[12];
	} t[] = {
		{ 0, { 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		       0xff, 0xff, 0xff, 0xff } },
		{ 1, { 0xff, 0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		       0xff, 0xff, 0xff, 0xff } },
		{ 2, { 0xff, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		       0xff, 0xff, 0xff, 0xff } },
		{ 3, { 0xff, 0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		       0xff, 0xff, 0xff, 0xff } },
		{ 4, { 0xff, 0xff, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
		       0xff, 0xff, 0xff, 0xff } },
		{ 5, { 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff,
		       0xff, 0xff, 0xff, 0xff } },
		{ 6, { 0xff, 0xff, 0xff, 0xff, 0xbf, 0xff, 0xff, 0xff,
		       0xff, 0xff, 0xff, 0xff } },
		{ 7, { 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00,
		       0xff, 0xff, 0xff, 0xff } },
		{ 8, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		       0x7f, 0xff, 0xff, 0xff } },
		{ 9, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		       0xff, 0x00, 0x00, 0x00 } },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		u8 buf[12];
		struct sroce_bth *bth = (void *)buf;

		memset(buf, 0xff, sizeof(buf));
		switch (t[i].field) {
		case 0: sroce_bth_set_se(bth, false); break;
		case 1: sroce_bth_set_mig(bth, false); break;
		case 2: sroce_bth_set_pad(bth, 0); break;
		case 3: sroce_bth_set_tver(bth, 0); break;
		case 4: sroce_bth_set_pkey(bth, 0); break;
		case 5: sroce_bth_set_fecn(bth, false); break;
		case 6: sroce_bth_set_becn(bth, false); break;
		case 7: sroce_bth_set_qpn(bth, 0); break;
		case 8: sroce_bth_set_ackreq(bth, false); break;
		case 9: sroce_bth_set_psn(bth, 0); break;
		}
		CHECK_MEM(buf, t[i].want, 12);
	}
}

/* Setters truncate values wider than the field. */
static void bth_set_truncates(void)
{
	u8 buf[12];
	struct sroce_bth *bth = (void *)buf;

	memset(buf, 0, sizeof(buf));
	sroce_bth_set_qpn(bth, 0xff123456);
	sroce_bth_set_psn(bth, 0xee654321);
	sroce_bth_set_pad(bth, 7);
	sroce_bth_set_tver(bth, 0x1f);
	CHECK_EQ(buf[4], 0);
	CHECK_EQ(buf[8], 0);
	CHECK_EQ(buf[1], 0x3f);
	CHECK_EQ(sroce_bth_qpn(bth), 0x123456);
	CHECK_EQ(sroce_bth_psn(bth), 0x654321);
}

static void reth_fields(void)
{
	static const u8 img[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03,
	};
	u8 buf[16];

	CHECK_EQ(sroce_reth_va((const void *)img), 0x0123456789abcdefull);
	CHECK_EQ(sroce_reth_rkey((const void *)img), 0xdeadbeef);
	CHECK_EQ(sroce_reth_len((const void *)img), 0x00010203);
	sroce_reth_set((void *)buf, 0x0123456789abcdefull, 0xdeadbeef,
		       0x00010203);
	CHECK_MEM(buf, img, 16);
}

static void atmeth_fields(void)
{
	static const u8 img[28] = {
		0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,	/* VA */
		0x20, 0x21, 0x22, 0x23,				/* R_Key */
		0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,	/* swap/add */
		0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,	/* compare */
	};
	u8 buf[28];
	const struct sroce_atmeth *a = (const void *)img;

	CHECK_EQ(sroce_atmeth_va(a), 0x1011121314151617ull);
	CHECK_EQ(sroce_atmeth_rkey(a), 0x20212223);
	CHECK_EQ(sroce_atmeth_swap_add(a), 0x3031323334353637ull);
	CHECK_EQ(sroce_atmeth_compare(a), 0x4041424344454647ull);
	sroce_atmeth_set((void *)buf, 0x1011121314151617ull, 0x20212223,
			 0x3031323334353637ull, 0x4041424344454647ull);
	CHECK_MEM(buf, img, 28);
}

static void small_headers(void)
{
	static const u8 aeth[4] = { 0x61, 0xab, 0xcd, 0xef };
	static const u8 atmack[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const u8 deth[8] = { 0x80, 0x01, 0x02, 0x03,
				    0x00, 0x00, 0x00, 0x01 };
	static const u8 deth_dirty[8] = { 0, 0, 0, 0, 0xaa, 0x12, 0x34, 0x56 };
	static const u8 imm[4] = { 0xca, 0xfe, 0xba, 0xbe };
	static const u8 ieth[4] = { 0x11, 0x22, 0x33, 0x44 };
	__be32 imm_be;
	u8 buf[8];

	CHECK_EQ(sroce_aeth_syndrome((const void *)aeth), 0x61);
	CHECK_EQ(sroce_aeth_msn((const void *)aeth), 0xabcdef);
	sroce_aeth_set((void *)buf, 0x61, 0xffabcdef);
	CHECK_MEM(buf, aeth, 4);

	CHECK_EQ(sroce_atmack_orig((const void *)atmack),
		 0x0102030405060708ull);
	sroce_atmack_set((void *)buf, 0x0102030405060708ull);
	CHECK_MEM(buf, atmack, 8);

	CHECK_EQ(sroce_deth_qkey((const void *)deth), 0x80010203);
	CHECK_EQ(sroce_deth_sqpn((const void *)deth), 1);
	/* The reserved byte before the source QPN is not part of it. */
	CHECK_EQ(sroce_deth_sqpn((const void *)deth_dirty), 0x123456);
	sroce_deth_set((void *)buf, 0x80010203, 0xff000001);
	CHECK_MEM(buf, deth, 8);

	/* Immediate data stays in wire order end to end. */
	imm_be = sroce_immdt_imm((const void *)imm);
	CHECK_MEM(&imm_be, imm, 4);
	sroce_immdt_set((void *)buf, imm_be);
	CHECK_MEM(buf, imm, 4);

	CHECK_EQ(sroce_ieth_rkey((const void *)ieth), 0x11223344);
	sroce_ieth_set((void *)buf, 0x11223344);
	CHECK_MEM(buf, ieth, 4);
}

/* Syndrome byte: reserved bit 7, type in bits 6:5, value in bits 4:0. */
static void aeth_syndrome(void)
{
	static const struct {
		u8 syn;
		enum sroce_aeth_type type;
		u8 value;
	} t[] = {
		{ 0x00, SROCE_AETH_ACK, 0 },
		{ 0x1f, SROCE_AETH_ACK, SROCE_AETH_CREDITS_INVALID },
		{ 0x2e, SROCE_AETH_RNR_NAK, 14 },
		{ 0x40, SROCE_AETH_RESERVED, 0 },
		{ 0x60, SROCE_AETH_NAK, SROCE_NAK_PSN_SEQ_ERR },
		{ 0x61, SROCE_AETH_NAK, SROCE_NAK_INVALID_REQ },
		{ 0x62, SROCE_AETH_NAK, SROCE_NAK_REM_ACCESS_ERR },
		{ 0x63, SROCE_AETH_NAK, SROCE_NAK_REM_OP_ERR },
		{ 0x64, SROCE_AETH_NAK, SROCE_NAK_INVALID_RD_REQ },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_EQ(sroce_syndrome_type(t[i].syn), t[i].type);
		CHECK_EQ(sroce_syndrome_value(t[i].syn), t[i].value);
		CHECK_EQ(sroce_syndrome_make(t[i].type, t[i].value), t[i].syn);
	}
	CHECK_EQ(sroce_syndrome_ack(31), 0x1f);
	CHECK_EQ(sroce_syndrome_rnr(14), 0x2e);
	CHECK_EQ(sroce_syndrome_nak(SROCE_NAK_PSN_SEQ_ERR), 0x60);
	CHECK_EQ(sroce_syndrome_nak(SROCE_NAK_REM_OP_ERR), 0x63);
	/* Bit 7 is reserved and does not change the meaning. */
	CHECK_EQ(sroce_syndrome_type(0xe3), SROCE_AETH_NAK);
	CHECK_EQ(sroce_syndrome_value(0xe3), 3);
	/* Values wider than five bits cannot leak into the type. */
	CHECK_EQ(sroce_syndrome_ack(0x3f), 0x1f);
}

/* IBTA RNR timer encoding, a few codes spread over the table. */
static void rnr_timer(void)
{
	CHECK_EQ(sroce_rnr_timer_us(0), 655360);
	CHECK_EQ(sroce_rnr_timer_us(1), 10);
	CHECK_EQ(sroce_rnr_timer_us(5), 60);
	CHECK_EQ(sroce_rnr_timer_us(14), 1280);
	CHECK_EQ(sroce_rnr_timer_us(18), 5120);
	CHECK_EQ(sroce_rnr_timer_us(24), 40960);
	CHECK_EQ(sroce_rnr_timer_us(31), 491520);
}

UNIT_MAIN(UNIT_CASE(bth_get), UNIT_CASE(bth_set),
	  UNIT_CASE(bth_set_isolation), UNIT_CASE(bth_set_truncates),
	  UNIT_CASE(reth_fields), UNIT_CASE(atmeth_fields),
	  UNIT_CASE(small_headers), UNIT_CASE(aeth_syndrome),
	  UNIT_CASE(rnr_timer))
