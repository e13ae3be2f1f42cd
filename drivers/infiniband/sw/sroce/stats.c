// SPDX-License-Identifier: GPL-2.0
/*
 * Per-port counters, visible through "rdma statistic" and
 * /sys/class/infiniband/<dev>/ports/1/hw_counters/. Kept per CPU so that
 * the receive path never bounces a shared cache line.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"

static const struct rdma_stat_desc sroce_counter_descs[SROCE_CNT_MAX] = {
	[SROCE_CNT_RX_PACKETS] = { .name = "rx_packets" },
	[SROCE_CNT_RX_BAD_HEADER] = { .name = "rx_bad_header" },
	[SROCE_CNT_RX_BAD_ICRC] = { .name = "rx_bad_icrc" },
	[SROCE_CNT_RX_NO_QP] = { .name = "rx_no_qp" },
	[SROCE_CNT_RX_QKEY_VIOLATION] = { .name = "rx_qkey_violation" },
	[SROCE_CNT_RX_NO_RECV_WQE] = { .name = "rx_no_recv_wqe" },
	[SROCE_CNT_RX_QUEUE_FULL] = { .name = "rx_queue_full" },
	[SROCE_CNT_RX_DROPPED_MSG] = { .name = "rx_dropped_msg" },
	[SROCE_CNT_RX_DUPLICATE] = { .name = "rx_duplicate_requests" },
	[SROCE_CNT_SEQ_NAK_SENT] = { .name = "seq_naks_sent" },
	[SROCE_CNT_SEQ_NAK_RCVD] = { .name = "seq_naks_rcvd" },
	[SROCE_CNT_RNR_NAK_RCVD] = { .name = "rnr_naks_rcvd" },
	[SROCE_CNT_RETRY_TIMEOUT] = { .name = "retry_timeouts" },
	[SROCE_CNT_RX_MCAST_NO_GROUP] = { .name = "rx_mcast_no_group" },
	[SROCE_CNT_TAIL_PROBES] = { .name = "tail_probes" },
	[SROCE_CNT_FAST_RETRANSMITS] = { .name = "fast_retransmits" },
	[SROCE_CNT_SQ_OVERRUN] = { .name = "sq_overruns" },
	[SROCE_CNT_TX_PACKETS] = { .name = "tx_packets" },
	[SROCE_CNT_TX_ERRORS] = { .name = "tx_errors" },
	[SROCE_CNT_LOCAL_DELIVERIES] = { .name = "local_deliveries" },
	[SROCE_CNT_RX_OUT_OF_SEQUENCE] = { .name = "rx_out_of_sequence" },
	[SROCE_CNT_RNR_NAK_SENT] = { .name = "rnr_naks_sent" },
	[SROCE_CNT_RETRY_EXCEEDED] = { .name = "retry_exceeded" },
	[SROCE_CNT_RNR_RETRY_EXCEEDED] = { .name = "rnr_retry_exceeded" },
	[SROCE_CNT_LINK_DOWNED] = { .name = "link_downed" },
	[SROCE_CNT_SELECTIVE_RESENDS] = { .name = "selective_resends" },
	[SROCE_CNT_TX_ZERO_COPY] = { .name = "tx_zero_copy" },
	[SROCE_CNT_READ_RESP_AHEAD] = { .name = "read_resp_ahead" },
	[SROCE_CNT_READ_PATCHES] = { .name = "read_patches" },
	[SROCE_CNT_READ_GAPS_ACKED] = { .name = "read_gaps_acked" },
	[SROCE_CNT_RX_NOT_PEER] = { .name = "rx_not_peer" },
	[SROCE_CNT_RX_HOLD_FULL] = { .name = "rx_hold_full" },
	[SROCE_CNT_RX_HELD_EXPIRED] = { .name = "rx_held_expired" },
	[SROCE_CNT_TX_GSO_SKBS] = { .name = "tx_gso_skbs" },
	[SROCE_CNT_TX_GSO_PACKETS] = { .name = "tx_gso_packets" },
	[SROCE_CNT_RX_GRO_SKBS] = { .name = "rx_gro_skbs" },
	[SROCE_CNT_RX_GRO_PACKETS] = { .name = "rx_gro_packets" },
	[SROCE_CNT_LOCAL_BATCHES] = { .name = "local_batches" },
	[SROCE_CNT_LOCAL_BATCH_PACKETS] = { .name = "local_batch_packets" },
	/* Congestion control (cc.c), by mlx5's names where it has them. */
	[SROCE_CNT_NP_ECN_MARKED] = { .name = "np_ecn_marked_roce_packets" },
	[SROCE_CNT_NP_CNP_SENT] = { .name = "np_cnp_sent" },
	[SROCE_CNT_RP_CNP_HANDLED] = { .name = "rp_cnp_handled" },
	[SROCE_CNT_RP_CNP_IGNORED] = { .name = "rp_cnp_ignored" },
	[SROCE_CNT_RP_PACING_WAITS] = { .name = "rp_pacing_waits" },
	/* On-demand paging (odp.c). */
	[SROCE_CNT_ODP_FAULTS] = { .name = "odp_faults" },
	[SROCE_CNT_ODP_FAULT_ERRORS] = { .name = "odp_fault_errors" },
	[SROCE_CNT_ODP_FAULT_DROPS] = { .name = "rx_odp_fault_drops" },
	[SROCE_CNT_RX_HELD_BYTES] = { .name = "rx_held_bytes" },
};

static struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ib_dev,
						       u32 port_num)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs,
					  ARRAY_SIZE(sroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int sroce_get_hw_stats(struct ib_device *ib_dev,
			      struct rdma_hw_stats *stats, u32 port, int index)
{
	struct sroce_dev *sdev = to_sroce_dev(ib_dev);
	int cpu, i;

	for (i = 0; i < SROCE_CNT_MAX; i++)
		stats->value[i] = 0;
	for_each_possible_cpu(cpu) {
		const struct sroce_counters *c =
			per_cpu_ptr(sdev->counters, cpu);

		for (i = 0; i < SROCE_CNT_MAX; i++)
			stats->value[i] += READ_ONCE(c->val[i]);
	}
	stats->value[SROCE_CNT_RX_HELD_BYTES] =
		atomic64_read(&sdev->held_bytes);
	return SROCE_CNT_MAX;
}

const struct ib_device_ops sroce_stats_ops = {
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.get_hw_stats = sroce_get_hw_stats,
};
