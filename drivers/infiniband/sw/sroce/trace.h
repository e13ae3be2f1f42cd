/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the sroce driver (trace system "sroce"): QP state
 * changes, retransmissions and their cause, NAKs sent and received, RNR
 * waits, exhausted retries, and every packet the driver drops, with its
 * reason. Enable them with perf trace -e 'sroce:*', trace-cmd record -e
 * sroce, or /sys/kernel/tracing/events/sroce/.
 *
 * Events carry the device name and QP number (0: the packet never
 * reached a QP), so a capture can be narrowed to one connection.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#ifndef SROCE_TRACE_TYPES
#define SROCE_TRACE_TYPES
#include "compat.h"

/* What made the requester send again from an earlier PSN. */
enum sroce_retx_cause {
	SROCE_RETX_CAUSE_SEQ_NAK,	/* the responder saw a gap */
	SROCE_RETX_CAUSE_SELECTIVE,	/* a gap's one packet, resent alone */
	SROCE_RETX_CAUSE_READ_GAP,	/* a read response was missing */
	SROCE_RETX_CAUSE_TAIL_PROBE,	/* no ACK for a few round trips */
	SROCE_RETX_CAUSE_TIMEOUT,	/* the QP's local ACK timeout */
	SROCE_RETX_CAUSE_RNR,		/* after an RNR NAK's wait */
};
#endif /* SROCE_TRACE_TYPES */

#if !defined(SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#include "drop.h"

#define sroce_trace_qp_states				\
	EM(IB_QPS_RESET, "RESET")			\
	EM(IB_QPS_INIT, "INIT")				\
	EM(IB_QPS_RTR, "RTR")				\
	EM(IB_QPS_RTS, "RTS")				\
	EM(IB_QPS_SQD, "SQD")				\
	EM(IB_QPS_SQE, "SQE")				\
	EMe(IB_QPS_ERR, "ERR")

#define sroce_trace_retx_causes				\
	EM(SROCE_RETX_CAUSE_SEQ_NAK, "seq_nak")		\
	EM(SROCE_RETX_CAUSE_SELECTIVE, "selective")	\
	EM(SROCE_RETX_CAUSE_READ_GAP, "read_gap")	\
	EM(SROCE_RETX_CAUSE_TAIL_PROBE, "tail_probe")	\
	EM(SROCE_RETX_CAUSE_TIMEOUT, "timeout")		\
	EMe(SROCE_RETX_CAUSE_RNR, "rnr")

/* The statuses a work completion in error can carry here. */
#define sroce_trace_wc_statuses				\
	EM(IB_WC_LOC_LEN_ERR, "LOC_LEN_ERR")		\
	EM(IB_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR")	\
	EM(IB_WC_LOC_PROT_ERR, "LOC_PROT_ERR")		\
	EM(IB_WC_MW_BIND_ERR, "MW_BIND_ERR")		\
	EM(IB_WC_BAD_RESP_ERR, "BAD_RESP_ERR")		\
	EM(IB_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR")	\
	EM(IB_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR")	\
	EM(IB_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR")	\
	EM(IB_WC_REM_OP_ERR, "REM_OP_ERR")		\
	EM(IB_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR")	\
	EM(IB_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR")	\
	EMe(IB_WC_REM_INV_RD_REQ_ERR, "REM_INV_RD_REQ_ERR")

#undef EM
#undef EMe
#define EM(a, b)	TRACE_DEFINE_ENUM(a);
#define EMe(a, b)	TRACE_DEFINE_ENUM(a);
sroce_trace_qp_states
sroce_trace_retx_causes
sroce_trace_wc_statuses
SROCE_DROP_REASONS
#undef EM
#undef EMe
#define EM(a, b)	{ a, b },
#define EMe(a, b)	{ a, b }

TRACE_EVENT(sroce_qp_state,
	TP_PROTO(const struct ib_device *dev, u32 qpn, enum ib_qp_state from,
		 enum ib_qp_state to),
	TP_ARGS(dev, qpn, from, to),
	TP_STRUCT__entry(
		__string(dev, dev_name(&dev->dev))
		__field(u32, qpn)
		__field(int, from)
		__field(int, to)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&dev->dev));
		__entry->qpn = qpn;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("%s qpn %u %s -> %s", __get_str(dev), __entry->qpn,
		  __print_symbolic(__entry->from, sroce_trace_qp_states),
		  __print_symbolic(__entry->to, sroce_trace_qp_states))
);

/*
 * Why a QP went to ERR: the function that found the error (a consumer
 * sees only the flushes that follow), and the work completion in error
 * it delivered, if any.
 */
TRACE_EVENT(sroce_qp_error,
	TP_PROTO(const struct ib_device *dev, u32 qpn, unsigned long caller),
	TP_ARGS(dev, qpn, caller),
	TP_STRUCT__entry(
		__string(dev, dev_name(&dev->dev))
		__field(u32, qpn)
		__field(unsigned long, caller)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&dev->dev));
		__entry->qpn = qpn;
		__entry->caller = caller;
	),
	TP_printk("%s qpn %u found by %pS", __get_str(dev), __entry->qpn,
		  (void *)__entry->caller)
);

/* @opcode: the work request's (enum ib_wr_opcode), as posted. */
TRACE_EVENT(sroce_wc_error,
	TP_PROTO(const struct ib_device *dev, u32 qpn, u64 wr_id, int opcode,
		 int status),
	TP_ARGS(dev, qpn, wr_id, opcode, status),
	TP_STRUCT__entry(
		__string(dev, dev_name(&dev->dev))
		__field(u32, qpn)
		__field(u64, wr_id)
		__field(int, opcode)
		__field(int, status)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&dev->dev));
		__entry->qpn = qpn;
		__entry->wr_id = wr_id;
		__entry->opcode = opcode;
		__entry->status = status;
	),
	TP_printk("%s qpn %u wr_id %#llx opcode %d status %s", __get_str(dev),
		  __entry->qpn, __entry->wr_id, __entry->opcode,
		  __print_symbolic(__entry->status, sroce_trace_wc_statuses))
);

/* With the QP's round-trip estimate, which decides when probes go. */
TRACE_EVENT(sroce_retransmit,
	TP_PROTO(const struct ib_device *dev, u32 qpn, u32 psn, int cause,
		 u32 srtt_us, u32 rttvar_us),
	TP_ARGS(dev, qpn, psn, cause, srtt_us, rttvar_us),
	TP_STRUCT__entry(
		__string(dev, dev_name(&dev->dev))
		__field(u32, qpn)
		__field(u32, psn)
		__field(int, cause)
		__field(u32, srtt_us)
		__field(u32, rttvar_us)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&dev->dev));
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->cause = cause;
		__entry->srtt_us = srtt_us;
		__entry->rttvar_us = rttvar_us;
	),
	TP_printk("%s qpn %u from psn %u cause %s srtt %u us rttvar %u us",
		  __get_str(dev), __entry->qpn, __entry->psn,
		  __print_symbolic(__entry->cause, sroce_trace_retx_causes),
		  __entry->srtt_us, __entry->rttvar_us)
);

/* @sent: this end sent the NAK (responder) or received it (requester). */
DECLARE_EVENT_CLASS(sroce_nak_class,
	TP_PROTO(const struct ib_device *dev, u32 qpn, u32 psn, u8 syndrome),
	TP_ARGS(dev, qpn, psn, syndrome),
	TP_STRUCT__entry(
		__string(dev, dev_name(&dev->dev))
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, syndrome)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&dev->dev));
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->syndrome = syndrome;
	),
	TP_printk("%s qpn %u psn %u syndrome %#x (%s)", __get_str(dev),
		  __entry->qpn, __entry->psn, __entry->syndrome,
		  (__entry->syndrome >> 5) == 1 ? "rnr" :
		  __entry->syndrome == 0x60 ? "psn_seq" :
		  __entry->syndrome == 0x61 ? "invalid_req" :
		  __entry->syndrome == 0x62 ? "remote_access" :
		  __entry->syndrome == 0x63 ? "remote_op" :
		  __entry->syndrome == 0x64 ? "invalid_rd_req" : "other")
);

DEFINE_EVENT(sroce_nak_class, sroce_nak_sent,
	TP_PROTO(const struct ib_device *dev, u32 qpn, u32 psn, u8 syndrome),
	TP_ARGS(dev, qpn, psn, syndrome));

DEFINE_EVENT(sroce_nak_class, sroce_nak_rcvd,
	TP_PROTO(const struct ib_device *dev, u32 qpn, u32 psn, u8 syndrome),
	TP_ARGS(dev, qpn, psn, syndrome));

TRACE_EVENT(sroce_rnr_wait,
	TP_PROTO(const struct ib_device *dev, u32 qpn, u32 psn, u32 usecs,
		 u8 rnr_left),
	TP_ARGS(dev, qpn, psn, usecs, rnr_left),
	TP_STRUCT__entry(
		__string(dev, dev_name(&dev->dev))
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, usecs)
		__field(u8, rnr_left)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&dev->dev));
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->usecs = usecs;
		__entry->rnr_left = rnr_left;
	),
	TP_printk("%s qpn %u psn %u wait %u us, %u retries left%s",
		  __get_str(dev), __entry->qpn, __entry->psn, __entry->usecs,
		  __entry->rnr_left, __entry->rnr_left == 7 ? " (infinite)" : "")
);

/* @rnr: the RNR retry count ran out, else the transport retry count. */
TRACE_EVENT(sroce_retry_exceeded,
	TP_PROTO(const struct ib_device *dev, u32 qpn, u32 psn, bool rnr),
	TP_ARGS(dev, qpn, psn, rnr),
	TP_STRUCT__entry(
		__string(dev, dev_name(&dev->dev))
		__field(u32, qpn)
		__field(u32, psn)
		__field(bool, rnr)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&dev->dev));
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->rnr = rnr;
	),
	TP_printk("%s qpn %u psn %u %s retries exhausted", __get_str(dev),
		  __entry->qpn, __entry->psn,
		  __entry->rnr ? "RNR" : "transport")
);

/*
 * A QP's DCQCN rate changed (cc.c): cut by a CNP, raised by an increase
 * stage, or free again. Rates in bytes/s, printed in kbit/s; alpha of
 * 1024.
 */
TRACE_EVENT(sroce_cc_rate,
	TP_PROTO(const struct ib_device *dev, u32 qpn, bool paced, u64 rate,
		 u64 target, u32 alpha, const char *why),
	TP_ARGS(dev, qpn, paced, rate, target, alpha, why),
	TP_STRUCT__entry(
		__string(dev, dev_name(&dev->dev))
		__field(u32, qpn)
		__field(bool, paced)
		__field(u64, rate)
		__field(u64, target)
		__field(u32, alpha)
		__string(why, why)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&dev->dev));
		__entry->qpn = qpn;
		__entry->paced = paced;
		__entry->rate = rate;
		__entry->target = target;
		__entry->alpha = alpha;
		sroce_assign_str(why, why);
	),
	TP_printk("%s qpn %u %s: %s, rate %llu kbit/s, target %llu kbit/s, alpha %u/1024",
		  __get_str(dev), __entry->qpn, __get_str(why),
		  __entry->paced ? "paced" : "unpaced",
		  __entry->rate / 125, __entry->target / 125, __entry->alpha)
);

TRACE_EVENT(sroce_drop,
	TP_PROTO(const struct ib_device *dev, u32 qpn,
		 const struct sk_buff *skb, enum sroce_drop_reason reason),
	TP_ARGS(dev, qpn, skb, reason),
	TP_STRUCT__entry(
		__string(dev, dev ? dev_name(&dev->dev) : "-")
		__field(u32, qpn)
		__field(const void *, skb)
		__field(unsigned int, len)
		__field(int, reason)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev ? dev_name(&dev->dev) : "-");
		__entry->qpn = qpn;
		__entry->skb = skb;
		__entry->len = skb->len;
		__entry->reason = reason;
	),
	TP_printk("%s qpn %u skb %p len %u reason %s", __get_str(dev),
		  __entry->qpn, __entry->skb, __entry->len,
		  __print_symbolic(__entry->reason, SROCE_DROP_REASONS))
);

#endif /* SROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
