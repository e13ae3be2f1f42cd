/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BTH opcode table (IBTA vol 1, 9.2.1 / table 38 "OpCode Field").
 *
 * The top three opcode bits select the transport (RC, UC, RD, UD), the
 * low five the operation. Only RC, UC and UD are supported; every other
 * opcode, including RD and the CNP (0x81, handled outside the transport),
 * has an all-zero table entry.
 */
#ifndef _SROCE_OPCODE_H
#define _SROCE_OPCODE_H

#include <sroce/wire_types.h>
#include <sroce/bth.h>
#include <sroce/ext_headers.h>

enum sroce_opcode {
	SROCE_OP_RC_SEND_FIRST				= 0x00,
	SROCE_OP_RC_SEND_MIDDLE				= 0x01,
	SROCE_OP_RC_SEND_LAST				= 0x02,
	SROCE_OP_RC_SEND_LAST_WITH_IMMEDIATE		= 0x03,
	SROCE_OP_RC_SEND_ONLY				= 0x04,
	SROCE_OP_RC_SEND_ONLY_WITH_IMMEDIATE		= 0x05,
	SROCE_OP_RC_RDMA_WRITE_FIRST			= 0x06,
	SROCE_OP_RC_RDMA_WRITE_MIDDLE			= 0x07,
	SROCE_OP_RC_RDMA_WRITE_LAST			= 0x08,
	SROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE	= 0x09,
	SROCE_OP_RC_RDMA_WRITE_ONLY			= 0x0a,
	SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE	= 0x0b,
	SROCE_OP_RC_RDMA_READ_REQUEST			= 0x0c,
	SROCE_OP_RC_RDMA_READ_RESPONSE_FIRST		= 0x0d,
	SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE		= 0x0e,
	SROCE_OP_RC_RDMA_READ_RESPONSE_LAST		= 0x0f,
	SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY		= 0x10,
	SROCE_OP_RC_ACKNOWLEDGE				= 0x11,
	SROCE_OP_RC_ATOMIC_ACKNOWLEDGE			= 0x12,
	SROCE_OP_RC_COMPARE_SWAP			= 0x13,
	SROCE_OP_RC_FETCH_ADD				= 0x14,
	SROCE_OP_RC_SEND_LAST_WITH_INVALIDATE		= 0x16,
	SROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE		= 0x17,
	SROCE_OP_RC_ATOMIC_WRITE			= 0x1d,

	SROCE_OP_UC_SEND_FIRST				= 0x20,
	SROCE_OP_UC_SEND_MIDDLE				= 0x21,
	SROCE_OP_UC_SEND_LAST				= 0x22,
	SROCE_OP_UC_SEND_LAST_WITH_IMMEDIATE		= 0x23,
	SROCE_OP_UC_SEND_ONLY				= 0x24,
	SROCE_OP_UC_SEND_ONLY_WITH_IMMEDIATE		= 0x25,
	SROCE_OP_UC_RDMA_WRITE_FIRST			= 0x26,
	SROCE_OP_UC_RDMA_WRITE_MIDDLE			= 0x27,
	SROCE_OP_UC_RDMA_WRITE_LAST			= 0x28,
	SROCE_OP_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE	= 0x29,
	SROCE_OP_UC_RDMA_WRITE_ONLY			= 0x2a,
	SROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE	= 0x2b,

	SROCE_OP_UD_SEND_ONLY				= 0x64,
	SROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE		= 0x65,

	/*
	 * Congestion Notification Packet (IBTA annex A17.9.3): BTH (BECN
	 * set, PSN 0) and 16 reserved bytes, which the table below counts
	 * as its payload. Sent by the receiver of ECN-marked packets to
	 * the QP that sent them.
	 */
	SROCE_OP_CNP					= 0x81,
};

#define SROCE_CNP_RSVD_BYTES	16

#define SROCE_OP_TRANSPORT_MASK	0xe0
#define SROCE_OP_TRANSPORT_RC	0x00
#define SROCE_OP_TRANSPORT_UC	0x20
#define SROCE_OP_TRANSPORT_RD	0x40
#define SROCE_OP_TRANSPORT_UD	0x60
#define SROCE_OP_TRANSPORT_CNP	0x80

/*
 * Headers that may follow the BTH, in the order IBTA puts them on the
 * wire; the order of this enum is what the offsets are computed from.
 */
enum sroce_hdr {
	SROCE_HDR_BTH,
	SROCE_HDR_DETH,
	SROCE_HDR_RETH,
	SROCE_HDR_ATMETH,
	SROCE_HDR_AETH,
	SROCE_HDR_ATMACK,
	SROCE_HDR_IMMDT,
	SROCE_HDR_IETH,
	SROCE_HDR_NUM,
};

#define SROCE_HDRF(h)		(1u << (h))
#define SROCE_HDRF_BTH		SROCE_HDRF(SROCE_HDR_BTH)
#define SROCE_HDRF_DETH		SROCE_HDRF(SROCE_HDR_DETH)
#define SROCE_HDRF_RETH		SROCE_HDRF(SROCE_HDR_RETH)
#define SROCE_HDRF_ATMETH	SROCE_HDRF(SROCE_HDR_ATMETH)
#define SROCE_HDRF_AETH		SROCE_HDRF(SROCE_HDR_AETH)
#define SROCE_HDRF_ATMACK	SROCE_HDRF(SROCE_HDR_ATMACK)
#define SROCE_HDRF_IMMDT	SROCE_HDRF(SROCE_HDR_IMMDT)
#define SROCE_HDRF_IETH		SROCE_HDRF(SROCE_HDR_IETH)

/* Longest BTH + extension headers of any supported opcode. */
#define SROCE_MAX_HDR_BYTES	(SROCE_BTH_BYTES + SROCE_ATMETH_BYTES)

/*
 * Opcode properties. A single-packet message ("only", and every packet
 * that has no first/middle/last variant) has both FIRST and LAST set.
 */
enum sroce_opcode_flags {
	SROCE_OPF_VALID		= 1u << 0,
	SROCE_OPF_PAYLOAD	= 1u << 1,	/* may carry payload */
	SROCE_OPF_IMM		= 1u << 2,	/* carries immediate data */
	SROCE_OPF_INV		= 1u << 3,	/* has an R_Key to invalidate */
	SROCE_OPF_FIRST		= 1u << 4,
	SROCE_OPF_MIDDLE	= 1u << 5,
	SROCE_OPF_LAST		= 1u << 6,
	SROCE_OPF_REQ		= 1u << 7,	/* requester -> responder */
	SROCE_OPF_RESP		= 1u << 8,	/* responder -> requester */
	SROCE_OPF_ACK		= 1u << 9,	/* ACK/NAK without read data */
	SROCE_OPF_SEND		= 1u << 10,
	SROCE_OPF_WRITE		= 1u << 11,
	SROCE_OPF_READ		= 1u << 12,
	SROCE_OPF_ATOMIC	= 1u << 13,
	SROCE_OPF_RC		= 1u << 14,	/* legal on this QP type */
	SROCE_OPF_UC		= 1u << 15,
	SROCE_OPF_UD		= 1u << 16,
	SROCE_OPF_CNP		= 1u << 17,	/* congestion notification */
};

#define SROCE_OPF_ONLY		(SROCE_OPF_FIRST | SROCE_OPF_LAST)
#define SROCE_OPF_POS_MASK	(SROCE_OPF_FIRST | SROCE_OPF_MIDDLE | \
				 SROCE_OPF_LAST)
#define SROCE_OPF_CLASS_MASK	(SROCE_OPF_SEND | SROCE_OPF_WRITE | \
				 SROCE_OPF_READ | SROCE_OPF_ATOMIC)
#define SROCE_OPF_QP_MASK	(SROCE_OPF_RC | SROCE_OPF_UC | SROCE_OPF_UD)

struct sroce_opcode_info {
	const char	*name;
	u32		flags;		/* enum sroce_opcode_flags */
	u16		hdr_mask;	/* SROCE_HDRF_*, BTH always set */
	u8		length;		/* BTH + extension headers, bytes */
	/* From the BTH start; 0 for absent headers (and for the BTH). */
	u8		offset[SROCE_HDR_NUM];
};

extern const struct sroce_opcode_info sroce_opcodes[256];

/* Table entry for @opcode, or NULL if sroce does not know the opcode. */
static inline const struct sroce_opcode_info *sroce_opcode_lookup(u8 opcode)
{
	const struct sroce_opcode_info *info = &sroce_opcodes[opcode];

	return (info->flags & SROCE_OPF_VALID) ? info : NULL;
}

static inline bool sroce_opcode_has(const struct sroce_opcode_info *info,
				    enum sroce_hdr hdr)
{
	return info->hdr_mask & SROCE_HDRF(hdr);
}

/*
 * Address of header @hdr in a packet whose BTH is at @bth, or NULL when
 * the opcode does not carry that header.
 */
static inline void *sroce_hdr_ptr(const void *bth,
				  const struct sroce_opcode_info *info,
				  enum sroce_hdr hdr)
{
	if (!sroce_opcode_has(info, hdr))
		return NULL;
	return (u8 *)bth + info->offset[hdr];
}

#endif /* _SROCE_OPCODE_H */
