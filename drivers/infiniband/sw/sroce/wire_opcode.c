// SPDX-License-Identifier: GPL-2.0
/*
 * The BTH opcode table. Entries only state which extension headers an
 * opcode carries and what it means; offsets and lengths are derived from
 * the header mask at compile time so they cannot disagree with it.
 */
#include <sroce/opcode.h>

/* Size of header @h if it is present in @mask, else 0. */
#define HSZ(mask, h, bytes)	(((mask) & SROCE_HDRF_##h) ? (bytes) : 0)

/* Offsets follow the enum sroce_hdr order, starting right after the BTH. */
#define OFF_DETH(m)	SROCE_BTH_BYTES
#define OFF_RETH(m)	(OFF_DETH(m) + HSZ(m, DETH, SROCE_DETH_BYTES))
#define OFF_ATMETH(m)	(OFF_RETH(m) + HSZ(m, RETH, SROCE_RETH_BYTES))
#define OFF_AETH(m)	(OFF_ATMETH(m) + HSZ(m, ATMETH, SROCE_ATMETH_BYTES))
#define OFF_ATMACK(m)	(OFF_AETH(m) + HSZ(m, AETH, SROCE_AETH_BYTES))
#define OFF_IMMDT(m)	(OFF_ATMACK(m) + HSZ(m, ATMACK, SROCE_ATMACK_BYTES))
#define OFF_IETH(m)	(OFF_IMMDT(m) + HSZ(m, IMMDT, SROCE_IMMDT_BYTES))
#define OFF_END(m)	(OFF_IETH(m) + HSZ(m, IETH, SROCE_IETH_BYTES))

/* Offset of @h, or 0 when the opcode does not carry it. */
#define OFF(m, h)	(((m) & SROCE_HDRF_##h) ? OFF_##h(m) : 0)

#define OPCODE(_name, _hdrs, _flags)					\
	[SROCE_OP_##_name] = {						\
		.name = #_name,						\
		.flags = SROCE_OPF_VALID | (_flags),			\
		.hdr_mask = SROCE_HDRF_BTH | (_hdrs),			\
		.length = OFF_END(_hdrs),				\
		.offset = {						\
			[SROCE_HDR_DETH] = OFF(_hdrs, DETH),		\
			[SROCE_HDR_RETH] = OFF(_hdrs, RETH),		\
			[SROCE_HDR_ATMETH] = OFF(_hdrs, ATMETH),	\
			[SROCE_HDR_AETH] = OFF(_hdrs, AETH),		\
			[SROCE_HDR_ATMACK] = OFF(_hdrs, ATMACK),	\
			[SROCE_HDR_IMMDT] = OFF(_hdrs, IMMDT),		\
			[SROCE_HDR_IETH] = OFF(_hdrs, IETH),		\
		},							\
	}

/*
 * Short local spellings for the table below. The prefixes keep them clear
 * of kernel macros such as READ and WRITE.
 */
#define H_NONE		0
#define H_DETH		SROCE_HDRF_DETH
#define H_RETH		SROCE_HDRF_RETH
#define H_ATMETH	SROCE_HDRF_ATMETH
#define H_AETH		SROCE_HDRF_AETH
#define H_ATMACK	SROCE_HDRF_ATMACK
#define H_IMMDT		SROCE_HDRF_IMMDT
#define H_IETH		SROCE_HDRF_IETH

#define P_PL		SROCE_OPF_PAYLOAD
#define P_FIRST		SROCE_OPF_FIRST
#define P_MIDDLE	SROCE_OPF_MIDDLE
#define P_LAST		SROCE_OPF_LAST
#define P_ONLY		SROCE_OPF_ONLY
#define P_IMM		SROCE_OPF_IMM
#define P_INV		SROCE_OPF_INV
#define P_REQ		SROCE_OPF_REQ
#define P_RESP		SROCE_OPF_RESP
#define P_ACK		SROCE_OPF_ACK
#define P_SEND		SROCE_OPF_SEND
#define P_WRITE		SROCE_OPF_WRITE
#define P_READ		SROCE_OPF_READ
#define P_ATOMIC	SROCE_OPF_ATOMIC
#define P_RC		SROCE_OPF_RC
#define P_UC		SROCE_OPF_UC
#define P_UD		SROCE_OPF_UD
#define P_CNP		SROCE_OPF_CNP

/* Sends and writes exist identically on RC and UC. */
#define SEND_WRITE_OPS(T)						\
	OPCODE(T##_SEND_FIRST, H_NONE,					\
	       P_##T | P_REQ | P_SEND | P_PL | P_FIRST),		\
	OPCODE(T##_SEND_MIDDLE, H_NONE,					\
	       P_##T | P_REQ | P_SEND | P_PL | P_MIDDLE),		\
	OPCODE(T##_SEND_LAST, H_NONE,					\
	       P_##T | P_REQ | P_SEND | P_PL | P_LAST),			\
	OPCODE(T##_SEND_LAST_WITH_IMMEDIATE, H_IMMDT,			\
	       P_##T | P_REQ | P_SEND | P_PL | P_LAST | P_IMM),		\
	OPCODE(T##_SEND_ONLY, H_NONE,					\
	       P_##T | P_REQ | P_SEND | P_PL | P_ONLY),			\
	OPCODE(T##_SEND_ONLY_WITH_IMMEDIATE, H_IMMDT,			\
	       P_##T | P_REQ | P_SEND | P_PL | P_ONLY | P_IMM),		\
	OPCODE(T##_RDMA_WRITE_FIRST, H_RETH,				\
	       P_##T | P_REQ | P_WRITE | P_PL | P_FIRST),		\
	OPCODE(T##_RDMA_WRITE_MIDDLE, H_NONE,				\
	       P_##T | P_REQ | P_WRITE | P_PL | P_MIDDLE),		\
	OPCODE(T##_RDMA_WRITE_LAST, H_NONE,				\
	       P_##T | P_REQ | P_WRITE | P_PL | P_LAST),		\
	OPCODE(T##_RDMA_WRITE_LAST_WITH_IMMEDIATE, H_IMMDT,		\
	       P_##T | P_REQ | P_WRITE | P_PL | P_LAST | P_IMM),	\
	OPCODE(T##_RDMA_WRITE_ONLY, H_RETH,				\
	       P_##T | P_REQ | P_WRITE | P_PL | P_ONLY),		\
	OPCODE(T##_RDMA_WRITE_ONLY_WITH_IMMEDIATE, H_RETH | H_IMMDT,	\
	       P_##T | P_REQ | P_WRITE | P_PL | P_ONLY | P_IMM)

const struct sroce_opcode_info sroce_opcodes[256] = {
	SEND_WRITE_OPS(RC),
	OPCODE(RC_RDMA_READ_REQUEST, H_RETH,
	       P_RC | P_REQ | P_READ | P_ONLY),
	OPCODE(RC_RDMA_READ_RESPONSE_FIRST, H_AETH,
	       P_RC | P_RESP | P_READ | P_PL | P_FIRST),
	OPCODE(RC_RDMA_READ_RESPONSE_MIDDLE, H_NONE,
	       P_RC | P_RESP | P_READ | P_PL | P_MIDDLE),
	OPCODE(RC_RDMA_READ_RESPONSE_LAST, H_AETH,
	       P_RC | P_RESP | P_READ | P_PL | P_LAST),
	OPCODE(RC_RDMA_READ_RESPONSE_ONLY, H_AETH,
	       P_RC | P_RESP | P_READ | P_PL | P_ONLY),
	OPCODE(RC_ACKNOWLEDGE, H_AETH,
	       P_RC | P_RESP | P_ACK | P_ONLY),
	OPCODE(RC_ATOMIC_ACKNOWLEDGE, H_AETH | H_ATMACK,
	       P_RC | P_RESP | P_ACK | P_ATOMIC | P_ONLY),
	OPCODE(RC_COMPARE_SWAP, H_ATMETH,
	       P_RC | P_REQ | P_ATOMIC | P_ONLY),
	OPCODE(RC_FETCH_ADD, H_ATMETH,
	       P_RC | P_REQ | P_ATOMIC | P_ONLY),
	OPCODE(RC_SEND_LAST_WITH_INVALIDATE, H_IETH,
	       P_RC | P_REQ | P_SEND | P_PL | P_LAST | P_INV),
	OPCODE(RC_SEND_ONLY_WITH_INVALIDATE, H_IETH,
	       P_RC | P_REQ | P_SEND | P_PL | P_ONLY | P_INV),
	/* IBTA 1.5: an 8-byte RDMA WRITE executed as a unit. */
	OPCODE(RC_ATOMIC_WRITE, H_RETH,
	       P_RC | P_REQ | P_WRITE | P_PL | P_ONLY),

	SEND_WRITE_OPS(UC),

	/* UD messages are always a single packet and carry a DETH. */
	OPCODE(UD_SEND_ONLY, H_DETH,
	       P_UD | P_REQ | P_SEND | P_PL | P_ONLY),
	OPCODE(UD_SEND_ONLY_WITH_IMMEDIATE, H_DETH | H_IMMDT,
	       P_UD | P_REQ | P_SEND | P_PL | P_ONLY | P_IMM),

	/*
	 * For the connected QP that sent the marked packets; its reserved
	 * bytes are read as payload, and ignored.
	 */
	OPCODE(CNP, H_NONE, P_RC | P_UC | P_CNP | P_PL | P_ONLY),
};
