#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared receive queues: the srq program (tests/guest/progs/srq.c: WQE
# order across QPs, bytes, the limit event, resize, RNR on an empty SRQ,
# last-WQE-reached), ibv_srq_pingpong -c with 4 and 16 QPs on one SRQ (poll
# and events), and ib_send_bw --use-srq on one and on 4 QPs. Topology:
# rdma_pair (lib.sh), netdev MTU 1500.
. "$(dirname "$0")/lib.sh"

load_sroce
rdma_pair 1500

quirks=()
[[ $SROCE_IMPL == rxe ]] && quirks=(-r)
run_prog srq 120 srq "${quirks[@]}" "$CDEV" "$CG" "$SDEV" "$SG"

local_pingpong ibv_srq_pingpong srq-pp-q4 -q 4 -s 4096
local_pingpong ibv_srq_pingpong srq-pp-q16-events -q 16 -s 1024 -e
local_pingpong ibv_srq_pingpong srq-pp-big -q 2 -s 65536 -m 1024

local_perftest send_bw_srq 65536 ib_send_bw --use-srq -n 50
local_perftest send_bw_srq_q4 65536 ib_send_bw --use-srq -q 4 -n 50

rdma_pair_done
