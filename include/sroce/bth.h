/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Base Transport Header (IBTA vol 1, 9.2), the 12 bytes that start every
 * RoCE v2 UDP payload.
 *
 *   byte 0     OpCode
 *   byte 1     SE(7) M(6) PadCnt(5:4) TVer(3:0)
 *   bytes 2-3  P_Key
 *   byte 4     FECN(7) BECN(6) Resv6 -- "Resv8a" in the ICRC masking rules
 *   bytes 5-7  DestQP
 *   byte 8     AckReq(7) Resv7
 *   bytes 9-11 PSN
 */
#ifndef _SROCE_BTH_H
#define _SROCE_BTH_H

#include <sroce/wire_types.h>

#define SROCE_BTH_BYTES		12

#define SROCE_BTH_SE		0x80
#define SROCE_BTH_MIG		0x40
#define SROCE_BTH_PAD		0x30
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_TVER		0x0f

#define SROCE_BTH_FECN		0x80000000u
#define SROCE_BTH_BECN		0x40000000u
#define SROCE_BTH_RESV8A	0xff000000u
#define SROCE_BTH_QPN_MASK	0x00ffffffu
#define SROCE_BTH_ACKREQ	0x80000000u
#define SROCE_BTH_PSN_MASK	0x00ffffffu

/* The only transport header version defined by the IBTA. */
#define SROCE_BTH_TVER_CURRENT	0
#define SROCE_DEFAULT_PKEY	0xffff

struct sroce_bth {
	u8	opcode;
	u8	flags;
	__be16	pkey;
	__be32	qpn;	/* FECN, BECN, Resv6, DestQP */
	__be32	apsn;	/* AckReq, Resv7, PSN */
} __packed;

_Static_assert(sizeof(struct sroce_bth) == SROCE_BTH_BYTES, "BTH size");

static inline u8 sroce_bth_opcode(const struct sroce_bth *bth)
{
	return bth->opcode;
}

static inline void sroce_bth_set_opcode(struct sroce_bth *bth, u8 opcode)
{
	bth->opcode = opcode;
}

static inline bool sroce_bth_se(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_SE;
}

static inline void sroce_bth_set_se(struct sroce_bth *bth, bool se)
{
	bth->flags = (bth->flags & ~SROCE_BTH_SE) | (se ? SROCE_BTH_SE : 0);
}

static inline bool sroce_bth_mig(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_MIG;
}

static inline void sroce_bth_set_mig(struct sroce_bth *bth, bool mig)
{
	bth->flags = (bth->flags & ~SROCE_BTH_MIG) | (mig ? SROCE_BTH_MIG : 0);
}

static inline u8 sroce_bth_pad(const struct sroce_bth *bth)
{
	return (bth->flags & SROCE_BTH_PAD) >> SROCE_BTH_PAD_SHIFT;
}

static inline void sroce_bth_set_pad(struct sroce_bth *bth, u8 pad)
{
	bth->flags = (bth->flags & ~SROCE_BTH_PAD) |
		     ((pad << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD);
}

static inline u8 sroce_bth_tver(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_TVER;
}

static inline void sroce_bth_set_tver(struct sroce_bth *bth, u8 tver)
{
	bth->flags = (bth->flags & ~SROCE_BTH_TVER) | (tver & SROCE_BTH_TVER);
}

static inline u16 sroce_bth_pkey(const struct sroce_bth *bth)
{
	return be16_to_cpu(bth->pkey);
}

static inline void sroce_bth_set_pkey(struct sroce_bth *bth, u16 pkey)
{
	bth->pkey = cpu_to_be16(pkey);
}

/* @word with the bits under @mask replaced by those of @val. */
static inline __be32 sroce_be32_merge(__be32 word, u32 mask, u32 val)
{
	return cpu_to_be32((be32_to_cpu(word) & ~mask) | (val & mask));
}

static inline bool sroce_bth_fecn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_FECN;
}

static inline void sroce_bth_set_fecn(struct sroce_bth *bth, bool fecn)
{
	bth->qpn = sroce_be32_merge(bth->qpn, SROCE_BTH_FECN,
				    fecn ? SROCE_BTH_FECN : 0);
}

static inline bool sroce_bth_becn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_BECN;
}

static inline void sroce_bth_set_becn(struct sroce_bth *bth, bool becn)
{
	bth->qpn = sroce_be32_merge(bth->qpn, SROCE_BTH_BECN,
				    becn ? SROCE_BTH_BECN : 0);
}

/* Whole byte 4 (FECN, BECN and the six reserved bits). */
static inline u8 sroce_bth_resv8a(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) >> 24;
}

static inline u32 sroce_bth_qpn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_QPN_MASK;
}

static inline void sroce_bth_set_qpn(struct sroce_bth *bth, u32 qpn)
{
	bth->qpn = sroce_be32_merge(bth->qpn, SROCE_BTH_QPN_MASK, qpn);
}

static inline bool sroce_bth_ackreq(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_BTH_ACKREQ;
}

static inline void sroce_bth_set_ackreq(struct sroce_bth *bth, bool ackreq)
{
	bth->apsn = sroce_be32_merge(bth->apsn, SROCE_BTH_ACKREQ,
				     ackreq ? SROCE_BTH_ACKREQ : 0);
}

static inline u32 sroce_bth_psn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_BTH_PSN_MASK;
}

static inline void sroce_bth_set_psn(struct sroce_bth *bth, u32 psn)
{
	bth->apsn = sroce_be32_merge(bth->apsn, SROCE_BTH_PSN_MASK, psn);
}

#endif /* _SROCE_BTH_H */
