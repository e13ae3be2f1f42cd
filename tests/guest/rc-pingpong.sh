#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC send/receive through the stock provider: ibv_rc_pingpong with data
# validation (-c) at 1, 4096 and 65536 bytes, path MTUs 1024 and 4096,
# polling and once with completion events (-e). Topology: veth0 here,
# veth1 in namespace "peer" (MTU 4500: active_mtu 4096); on rxe one device
# serves both sides (rxe cannot deliver between two of its own devices on
# one host).
. "$(dirname "$0")/lib.sh"

NETDEV_MTU=4500

load_sroce
rdma_pair "$NETDEV_MTU"

for mtu in 1024 4096; do
	for size in 1 4096 65536; do
		local_pingpong ibv_rc_pingpong "mtu$mtu-size$size" -m "$mtu" -s "$size"
	done
done
local_pingpong ibv_rc_pingpong events -m 1024 -s 4096 -e

rdma_pair_done
