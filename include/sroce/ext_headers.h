/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extended transport headers that may follow the BTH (IBTA vol 1, 9.3).
 * All fields are big-endian on the wire; the structs are packed so they
 * can be laid over any byte position of a received packet.
 */
#ifndef _SROCE_EXT_HEADERS_H
#define _SROCE_EXT_HEADERS_H

#include <sroce/wire_types.h>
#include <sroce/bth.h>

#define SROCE_RETH_BYTES	16
#define SROCE_AETH_BYTES	4
#define SROCE_ATMETH_BYTES	28
#define SROCE_ATMACK_BYTES	8
#define SROCE_DETH_BYTES	8
#define SROCE_IMMDT_BYTES	4
#define SROCE_IETH_BYTES	4

/* RDMA Extended Transport Header: target of a write or read. */
struct sroce_reth {
	__be64	va;
	__be32	rkey;
	__be32	len;
} __packed;

/* ACK Extended Transport Header: syndrome(31:24) and MSN(23:0). */
struct sroce_aeth {
	__be32	smsn;
} __packed;

/* Atomic Extended Transport Header. */
struct sroce_atmeth {
	__be64	va;
	__be32	rkey;
	__be64	swap_add;
	__be64	compare;
} __packed;

/* Atomic Acknowledge Extended Transport Header: the original value. */
struct sroce_atmack {
	__be64	orig;
} __packed;

/* Datagram Extended Transport Header: Q_Key, Resv8, source QP(23:0). */
struct sroce_deth {
	__be32	qkey;
	__be32	sqpn;
} __packed;

/*
 * Immediate data is opaque to the transport: it is kept in network order
 * end to end, as the verbs API hands it over.
 */
struct sroce_immdt {
	__be32	imm;
} __packed;

/* Invalidate Extended Transport Header: the R_Key to invalidate. */
struct sroce_ieth {
	__be32	rkey;
} __packed;

_Static_assert(sizeof(struct sroce_reth) == SROCE_RETH_BYTES, "RETH");
_Static_assert(sizeof(struct sroce_aeth) == SROCE_AETH_BYTES, "AETH");
_Static_assert(sizeof(struct sroce_atmeth) == SROCE_ATMETH_BYTES, "AtomicETH");
_Static_assert(sizeof(struct sroce_atmack) == SROCE_ATMACK_BYTES, "AtomicAck");
_Static_assert(sizeof(struct sroce_deth) == SROCE_DETH_BYTES, "DETH");
_Static_assert(sizeof(struct sroce_immdt) == SROCE_IMMDT_BYTES, "ImmDt");
_Static_assert(sizeof(struct sroce_ieth) == SROCE_IETH_BYTES, "IETH");

/* RETH */

static inline u64 sroce_reth_va(const struct sroce_reth *reth)
{
	return be64_to_cpu(reth->va);
}

static inline u32 sroce_reth_rkey(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->rkey);
}

static inline u32 sroce_reth_len(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->len);
}

static inline void sroce_reth_set(struct sroce_reth *reth, u64 va, u32 rkey,
				  u32 len)
{
	reth->va = cpu_to_be64(va);
	reth->rkey = cpu_to_be32(rkey);
	reth->len = cpu_to_be32(len);
}

/* AETH */

#define SROCE_AETH_MSN_MASK	0x00ffffffu
#define SROCE_AETH_TYPE_SHIFT	5
#define SROCE_AETH_TYPE_MASK	0x60
#define SROCE_AETH_VALUE_MASK	0x1f

/* Syndrome bits 6:5 select what bits 4:0 mean; bit 7 is reserved. */
enum sroce_aeth_type {
	SROCE_AETH_ACK		= 0,	/* value is a credit count */
	SROCE_AETH_RNR_NAK	= 1,	/* value is an RNR timer code */
	SROCE_AETH_RESERVED	= 2,
	SROCE_AETH_NAK		= 3,	/* value is a NAK code */
};

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR		= 0,
	SROCE_NAK_INVALID_REQ		= 1,
	SROCE_NAK_REM_ACCESS_ERR	= 2,
	SROCE_NAK_REM_OP_ERR		= 3,
	SROCE_NAK_INVALID_RD_REQ	= 4,
};

/* Credit count code meaning "end-to-end credits not in use". */
#define SROCE_AETH_CREDITS_INVALID	0x1f

static inline u8 sroce_aeth_syndrome(const struct sroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) >> 24;
}

static inline u32 sroce_aeth_msn(const struct sroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) & SROCE_AETH_MSN_MASK;
}

static inline void sroce_aeth_set(struct sroce_aeth *aeth, u8 syndrome,
				  u32 msn)
{
	aeth->smsn = cpu_to_be32((u32)syndrome << 24 |
				 (msn & SROCE_AETH_MSN_MASK));
}

static inline enum sroce_aeth_type sroce_syndrome_type(u8 syndrome)
{
	return (syndrome & SROCE_AETH_TYPE_MASK) >> SROCE_AETH_TYPE_SHIFT;
}

/* Credit count, RNR timer code or NAK code depending on the type. */
static inline u8 sroce_syndrome_value(u8 syndrome)
{
	return syndrome & SROCE_AETH_VALUE_MASK;
}

static inline u8 sroce_syndrome_make(enum sroce_aeth_type type, u8 value)
{
	return (u8)(type << SROCE_AETH_TYPE_SHIFT) |
	       (value & SROCE_AETH_VALUE_MASK);
}

static inline u8 sroce_syndrome_ack(u8 credits)
{
	return sroce_syndrome_make(SROCE_AETH_ACK, credits);
}

static inline u8 sroce_syndrome_rnr(u8 timer_code)
{
	return sroce_syndrome_make(SROCE_AETH_RNR_NAK, timer_code);
}

static inline u8 sroce_syndrome_nak(enum sroce_nak_code code)
{
	return sroce_syndrome_make(SROCE_AETH_NAK, code);
}

/*
 * RNR NAK timer codes to microseconds (IBTA table "Encoding for RNR NAK
 * Timer Field"); code 0 is the longest wait, not the shortest.
 */
static inline u32 sroce_rnr_timer_us(u8 code)
{
	static const u32 us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120,
		160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
		40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
	};

	return us[code & SROCE_AETH_VALUE_MASK];
}

/* AtomicETH */

static inline u64 sroce_atmeth_va(const struct sroce_atmeth *a)
{
	return be64_to_cpu(a->va);
}

static inline u32 sroce_atmeth_rkey(const struct sroce_atmeth *a)
{
	return be32_to_cpu(a->rkey);
}

static inline u64 sroce_atmeth_swap_add(const struct sroce_atmeth *a)
{
	return be64_to_cpu(a->swap_add);
}

static inline u64 sroce_atmeth_compare(const struct sroce_atmeth *a)
{
	return be64_to_cpu(a->compare);
}

static inline void sroce_atmeth_set(struct sroce_atmeth *a, u64 va, u32 rkey,
				    u64 swap_add, u64 compare)
{
	a->va = cpu_to_be64(va);
	a->rkey = cpu_to_be32(rkey);
	a->swap_add = cpu_to_be64(swap_add);
	a->compare = cpu_to_be64(compare);
}

/* AtomicAckETH */

static inline u64 sroce_atmack_orig(const struct sroce_atmack *a)
{
	return be64_to_cpu(a->orig);
}

static inline void sroce_atmack_set(struct sroce_atmack *a, u64 orig)
{
	a->orig = cpu_to_be64(orig);
}

/* DETH */

#define SROCE_DETH_SQPN_MASK	0x00ffffffu

static inline u32 sroce_deth_qkey(const struct sroce_deth *deth)
{
	return be32_to_cpu(deth->qkey);
}

static inline u32 sroce_deth_sqpn(const struct sroce_deth *deth)
{
	return be32_to_cpu(deth->sqpn) & SROCE_DETH_SQPN_MASK;
}

/* The reserved byte in front of the source QPN is sent as zero. */
static inline void sroce_deth_set(struct sroce_deth *deth, u32 qkey,
				  u32 sqpn)
{
	deth->qkey = cpu_to_be32(qkey);
	deth->sqpn = cpu_to_be32(sqpn & SROCE_DETH_SQPN_MASK);
}

/* ImmDt */

static inline __be32 sroce_immdt_imm(const struct sroce_immdt *immdt)
{
	return immdt->imm;
}

static inline void sroce_immdt_set(struct sroce_immdt *immdt, __be32 imm)
{
	immdt->imm = imm;
}

/* IETH */

static inline u32 sroce_ieth_rkey(const struct sroce_ieth *ieth)
{
	return be32_to_cpu(ieth->rkey);
}

static inline void sroce_ieth_set(struct sroce_ieth *ieth, u32 rkey)
{
	ieth->rkey = cpu_to_be32(rkey);
}

#endif /* _SROCE_EXT_HEADERS_H */
