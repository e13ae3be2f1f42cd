#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest over RC between two devices, in three sets (one guest boot each:
# one boot cannot fit them all under TCG):
#  PERF_SET=bw (the default): ib_write_bw, ib_send_bw and ib_read_bw over
#    all message sizes (-a: 2 B to 8 MiB);
#  PERF_SET=lat (rc-perftest-lat.sh): ib_write_lat, ib_send_lat and
#    ib_read_lat with -a;
#  PERF_SET=modes (rc-perftest-modes.sh): ib_write_bw on 4 QPs,
#    ib_write_bw and ib_send_bw in both directions at once (-b) and through
#    perftest's ibv_post_send path (--use_old_post_send) beside its default
#    ibv_wr_* one, and an 8 MiB ib_read_bw.
# Iterations are few: these are functional runs, not measurements. Every
# server and client must exit 0 within TOOL_TIMEOUT and print its results
# table (a row for the expected message size; ib_read_lat's server prints
# none). A failure names perftest's complaint and the completion status.
# Topology: veth0 here, veth1 in namespace "peer" (MTU 4500: active_mtu
# 4096); on rxe one device serves both sides (rxe cannot deliver between
# two of its own devices on one host).
. "$(dirname "$0")/lib.sh"

PERF_SET=${PERF_SET:-bw}

NETDEV_MTU=4500

load_sroce
rdma_pair "$NETDEV_MTU"

# -a runs 23 sizes up to 8 MiB, 16 MiB per iteration in all: with
# perftest's minimum of 5 iterations a bandwidth run takes 30-80 s on rxe
# under TCG, much of it in perftest measuring the CPU clock again for each
# size's report. The latency tests skip that with -C (cycles, not usec).
ALL=8388608		# the last size of -a
case $PERF_SET in
bw)
	local_perftest write_bw      $ALL  ib_write_bw -a -n 5
	local_perftest send_bw       $ALL  ib_send_bw -a -n 5
	local_perftest read_bw       $ALL  ib_read_bw -a -n 5
	;;
lat)
	local_perftest write_lat     $ALL  ib_write_lat -a -n 5 -C
	local_perftest send_lat      $ALL  ib_send_lat -a -n 5 -C
	local_perftest read_lat      $ALL  ib_read_lat -a -n 5 -C
	;;
modes)
	# Four busy-polling processes on the guest's two emulated CPUs
	# (several QPs, both directions) can keep the receive softirq off a
	# CPU for longer than perftest's 67 ms local ACK timeout (-u 14),
	# seven times in a row when the host is loaded: such a run retransmits
	# correctly but may end in RETRY_EXC_ERR. These runs test function,
	# not timing: a 0.5 s timeout (-u 17).
	local_perftest write_bw_q4   65536 ib_write_bw -q 4 -n 50 -u 17
	local_perftest write_bw_bidi 65536 ib_write_bw -b -n 50 -u 17
	local_perftest send_bw_bidi  65536 ib_send_bw -b -n 50 -u 17
	local_perftest read_bw_8m    $ALL  ib_read_bw -s 8388608 -n 5
	local_perftest write_bw_old  65536 ib_write_bw --use_old_post_send -n 50
	local_perftest send_bw_old   65536 ib_send_bw --use_old_post_send -n 50
	;;
*)
	fail "unknown PERF_SET=$PERF_SET"
	;;
esac

rdma_pair_done
