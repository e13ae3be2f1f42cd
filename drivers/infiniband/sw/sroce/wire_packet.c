// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing and building of transport packets (BTH .. ICRC).
 */
#include <sroce/packet.h>

static const char *const sroce_wire_errstr[SROCE_ERR_MAX] = {
	[0]		 = "ok",
	[SROCE_ESHORT]	 = "shorter than BTH + ICRC",
	[SROCE_EOPCODE]	 = "unsupported opcode",
	[SROCE_ETVER]	 = "transport version not 0",
	[SROCE_ETRUNC]	 = "extension headers truncated",
	[SROCE_EALIGN]	 = "length not a multiple of 4",
	[SROCE_EPAD]	 = "pad count exceeds payload",
	[SROCE_EPAYLOAD] = "payload on opcode without payload",
	[SROCE_EMTU]	 = "payload exceeds 4096 bytes",
	[SROCE_EMIDSIZE] = "first/middle payload is not a PMTU",
	[SROCE_ELASTSIZE] = "last packet without payload",
	[SROCE_EBUF]	 = "buffer too small",
};

const char *sroce_wire_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= SROCE_ERR_MAX)
		return "unknown error";
	return sroce_wire_errstr[err];
}

/* Path MTUs are the powers of two from 256 to 4096. */
static bool sroce_is_pmtu(size_t n)
{
	return n >= SROCE_MIN_PMTU && n <= SROCE_MAX_PAYLOAD &&
	       !(n & (n - 1));
}

/*
 * Checks, in order:
 * - the BTH and ICRC must fit before anything in the BTH is trusted;
 * - the opcode must be known, and TVer 0 is the only defined version;
 * - the opcode fixes the extension headers, which must fit with the ICRC;
 * - headers and ICRC are whole words and the pad count aligns the
 *   payload, so the packet is a whole number of 4-byte words;
 * - what lies between headers and ICRC is payload plus pad: opcodes
 *   without payload must have neither, others need room for the pad;
 * - no packet carries more than the largest PMTU;
 * - first and middle packets carry exactly one PMTU (so no pad), a last
 *   packet carries 1..PMTU bytes (an empty message is an "only" packet).
 */
int sroce_packet_parse(const void *bth_start, size_t len,
		       struct sroce_packet_info *out)
{
	const struct sroce_bth *bth = bth_start;
	const struct sroce_opcode_info *op;
	size_t area, payload;
	u32 pos;
	u8 pad;

	if (len < SROCE_BTH_BYTES + SROCE_ICRC_BYTES)
		return -SROCE_ESHORT;

	op = sroce_opcode_lookup(sroce_bth_opcode(bth));
	if (!op)
		return -SROCE_EOPCODE;
	if (sroce_bth_tver(bth) != SROCE_BTH_TVER_CURRENT)
		return -SROCE_ETVER;
	if (len < (size_t)op->length + SROCE_ICRC_BYTES)
		return -SROCE_ETRUNC;
	if (len & 3)
		return -SROCE_EALIGN;

	area = len - op->length - SROCE_ICRC_BYTES;
	pad = sroce_bth_pad(bth);
	if (!(op->flags & SROCE_OPF_PAYLOAD) && area)
		return -SROCE_EPAYLOAD;
	if (pad > area)
		return -SROCE_EPAD;
	payload = area - pad;
	if (payload > SROCE_MAX_PAYLOAD)
		return -SROCE_EMTU;

	pos = op->flags & SROCE_OPF_POS_MASK;
	if ((pos == SROCE_OPF_FIRST || pos == SROCE_OPF_MIDDLE) &&
	    !sroce_is_pmtu(payload))
		return -SROCE_EMIDSIZE;
	if (pos == SROCE_OPF_LAST && !payload)
		return -SROCE_ELASTSIZE;

	out->op = op;
	out->opcode = sroce_bth_opcode(bth);
	out->psn = sroce_bth_psn(bth);
	out->dest_qpn = sroce_bth_qpn(bth);
	out->pad = pad;
	out->payload_off = op->length;
	out->payload_len = payload;
	out->icrc_off = len - SROCE_ICRC_BYTES;
	return 0;
}

int sroce_packet_build(void *buf, size_t buf_len,
		       const struct sroce_hdr_fields *f, u32 payload_len)
{
	const struct sroce_opcode_info *op = sroce_opcode_lookup(f->opcode);
	struct sroce_bth *bth = buf;

	if (!op)
		return -SROCE_EOPCODE;
	if (buf_len < op->length)
		return -SROCE_EBUF;
	if (payload_len && !(op->flags & SROCE_OPF_PAYLOAD))
		return -SROCE_EPAYLOAD;
	if (payload_len > SROCE_MAX_PAYLOAD)
		return -SROCE_EMTU;

	/* Reserved fields and TVer are zero on transmit. */
	memset(buf, 0, op->length);
	sroce_bth_set_opcode(bth, f->opcode);
	sroce_bth_set_se(bth, f->se);
	sroce_bth_set_mig(bth, f->migreq);
	sroce_bth_set_pad(bth, sroce_pad_count(payload_len));
	sroce_bth_set_pkey(bth, f->pkey);
	sroce_bth_set_fecn(bth, f->fecn);
	sroce_bth_set_becn(bth, f->becn);
	sroce_bth_set_qpn(bth, f->dest_qpn);
	sroce_bth_set_ackreq(bth, f->ackreq);
	sroce_bth_set_psn(bth, f->psn);

	if (sroce_opcode_has(op, SROCE_HDR_DETH))
		sroce_deth_set(sroce_hdr_ptr(buf, op, SROCE_HDR_DETH),
			       f->qkey, f->src_qpn);
	if (sroce_opcode_has(op, SROCE_HDR_RETH))
		sroce_reth_set(sroce_hdr_ptr(buf, op, SROCE_HDR_RETH),
			       f->va, f->rkey, f->dma_len);
	if (sroce_opcode_has(op, SROCE_HDR_ATMETH))
		sroce_atmeth_set(sroce_hdr_ptr(buf, op, SROCE_HDR_ATMETH),
				 f->va, f->rkey, f->swap_add, f->compare);
	if (sroce_opcode_has(op, SROCE_HDR_AETH))
		sroce_aeth_set(sroce_hdr_ptr(buf, op, SROCE_HDR_AETH),
			       f->syndrome, f->msn);
	if (sroce_opcode_has(op, SROCE_HDR_ATMACK))
		sroce_atmack_set(sroce_hdr_ptr(buf, op, SROCE_HDR_ATMACK),
				 f->orig);
	if (sroce_opcode_has(op, SROCE_HDR_IMMDT))
		sroce_immdt_set(sroce_hdr_ptr(buf, op, SROCE_HDR_IMMDT),
				f->imm);
	if (sroce_opcode_has(op, SROCE_HDR_IETH))
		sroce_ieth_set(sroce_hdr_ptr(buf, op, SROCE_HDR_IETH),
			       f->inv_rkey);
	return op->length;
}
