#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UC transport (no ACKs, no retries) between two devices, through the
# stock tools:
#  - ibv_uc_pingpong -c at 1, 4096 and 65536 bytes over path MTUs 256,
#    1024 and 4096, polling and once with completion events (-e); -c only
#    checks the first byte of every page (uc-data.sh checks every byte);
#  - perftest with -c UC: ib_send_bw and ib_write_bw at 64 KiB (16
#    packets a message), ib_send_lat and ib_write_lat at 8 KiB; each side
#    exits 0 and prints its result row.
# A lossless veth loses no UC message: on sroce the rx_dropped_msg
# counters must stay 0 (a lost message would also hang the tools into
# their timeouts). Topology: veth0 here, veth1 in namespace "peer" (MTU
# 4500: active_mtu 4096); on rxe one device serves both sides (rxe cannot
# deliver between two of its own devices on one host).
. "$(dirname "$0")/lib.sh"

NETDEV_MTU=4500
PP_ITERS=50
TOOL_TIMEOUT=60		# seconds, for each perftest server and client

load_sroce
rdma_pair "$NETDEV_MTU"

# no_drops WHAT: on sroce, no UC message dropped at either device.
no_drops() {
	[[ $SROCE_IMPL == sroce ]] || return 0
	local d0 d1
	d0=$(port_counter sroce0 rx_dropped_msg)
	d1=$(port_counter sroce1 rx_dropped_msg)
	if ((d0 || d1)); then
		show_counters sroce0 sroce1
		fail "$1: UC messages dropped on a lossless wire: sroce0 $d0, sroce1 $d1"
	fi
}

# uc_perf NAME SIZE TOOL ARGS...: TOOL -c UC (local_perftest), which
# must say it ran on UC.
uc_perf() {
	local name=$1 size=$2 tool=$3
	shift 3
	local_perftest "$name" "$size" "$tool" -c UC -s "$size" "$@"
	grep -Eq 'Connection type *: *UC' "$RESULTS/$name-client.txt" ||
		fail "$name: client not on UC"
}

# Each size at an MTU it spans differently (every start of a guest
# process costs seconds under TCG, so not the whole matrix).
local_pingpong ibv_uc_pingpong mtu256-size65536 -m 256 -s 65536	# 256 packets
local_pingpong ibv_uc_pingpong mtu1024-size4096-events -m 1024 -s 4096 -e
local_pingpong ibv_uc_pingpong mtu4096-size1 -m 4096 -s 1
local_pingpong ibv_uc_pingpong mtu4096-size65536 -m 4096 -s 65536
no_drops "ibv_uc_pingpong"

uc_perf send_bw   65536 ib_send_bw -n 50
uc_perf write_bw  65536 ib_write_bw -n 50
uc_perf send_lat  8192  ib_send_lat -n 50
uc_perf write_lat 8192  ib_write_lat -n 50
no_drops "perftest"

rdma_pair_done
