/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transport packet layout: parsing what arrives and building the headers
 * of what leaves. A "packet" here is the UDP payload of a RoCE v2
 * datagram: BTH, extension headers, payload, 0-3 pad bytes and the ICRC.
 * The ICRC value itself is checked and produced by icrc.h.
 */
#ifndef _SROCE_PACKET_H
#define _SROCE_PACKET_H

#include <sroce/wire_types.h>
#include <sroce/bth.h>
#include <sroce/ext_headers.h>
#include <sroce/opcode.h>
#include <sroce/icrc.h>

/* Largest path MTU, hence largest payload of any packet. */
#define SROCE_MAX_PAYLOAD	4096
/* Smallest path MTU; first and middle packets carry exactly one PMTU. */
#define SROCE_MIN_PMTU		256

/*
 * Reasons a packet is malformed; functions return them negated. The
 * values are private to sroce, not errno values.
 */
enum sroce_wire_err {
	SROCE_ESHORT = 1,	/* shorter than BTH + ICRC */
	SROCE_EOPCODE,		/* opcode not in the table */
	SROCE_ETVER,		/* transport version is not 0 */
	SROCE_ETRUNC,		/* extension headers + ICRC do not fit */
	SROCE_EALIGN,		/* length is not a multiple of 4 */
	SROCE_EPAD,		/* pad count larger than the payload area */
	SROCE_EPAYLOAD,		/* payload on an opcode that carries none */
	SROCE_EMTU,		/* payload larger than the largest PMTU */
	SROCE_EMIDSIZE,		/* first/middle payload not a PMTU size */
	SROCE_ELASTSIZE,	/* last packet without payload */
	SROCE_EBUF,		/* builder: output buffer too small */
	SROCE_ERR_MAX,
};

/* Result of sroce_packet_parse(); all offsets count from the BTH. */
struct sroce_packet_info {
	const struct sroce_opcode_info	*op;
	u32	psn;
	u32	dest_qpn;
	u32	payload_len;	/* without pad and ICRC */
	u16	payload_off;	/* == op->length */
	u16	icrc_off;
	u8	opcode;
	u8	pad;
};

int sroce_packet_parse(const void *bth_start, size_t len,
		       struct sroce_packet_info *out);

/* Short description of a (possibly negated) enum sroce_wire_err. */
const char *sroce_wire_strerror(int err);

/* Pad bytes that bring @payload_len to a multiple of 4. */
static inline u8 sroce_pad_count(u32 payload_len)
{
	return -payload_len & 3;
}

/* BTH plus extension headers for @opcode, 0 for unknown opcodes. */
static inline u32 sroce_packet_header_len(u8 opcode)
{
	const struct sroce_opcode_info *op = sroce_opcode_lookup(opcode);

	return op ? op->length : 0;
}

/* Whole packet from BTH to ICRC, 0 for unknown opcodes. */
static inline u32 sroce_packet_wire_len(u8 opcode, u32 payload_len)
{
	u32 hdr = sroce_packet_header_len(opcode);

	if (!hdr)
		return 0;
	return hdr + payload_len + sroce_pad_count(payload_len) +
	       SROCE_ICRC_BYTES;
}

/*
 * Header field values for sroce_packet_build(). Only the fields of the
 * headers that @opcode carries are used; the rest are ignored. Values
 * wider than their wire field are truncated to it.
 */
struct sroce_hdr_fields {
	/* BTH */
	u8	opcode;
	bool	se;
	bool	migreq;
	bool	ackreq;
	bool	fecn;
	bool	becn;
	u16	pkey;
	u32	dest_qpn;
	u32	psn;
	/* RETH and AtomicETH */
	u64	va;
	u32	rkey;
	u32	dma_len;	/* RETH only */
	/* AtomicETH */
	u64	swap_add;
	u64	compare;
	/* AETH */
	u8	syndrome;
	u32	msn;
	/* AtomicAckETH */
	u64	orig;
	/* DETH */
	u32	qkey;
	u32	src_qpn;
	/* ImmDt, in network order as verbs hands it over */
	__be32	imm;
	/* IETH */
	u32	inv_rkey;
};

/*
 * Write the BTH and extension headers for @f->opcode at @buf, with the
 * pad count for @payload_len, transport version 0 and reserved bits 0.
 * Payload, pad bytes and ICRC are the caller's. Only the opcode-level
 * rules are enforced (no payload where none is allowed, at most
 * SROCE_MAX_PAYLOAD); position rules need the PMTU and are the caller's.
 * Returns the header length or a negated enum sroce_wire_err.
 */
int sroce_packet_build(void *buf, size_t buf_len,
		       const struct sroce_hdr_fields *f, u32 payload_len);

#endif /* _SROCE_PACKET_H */
