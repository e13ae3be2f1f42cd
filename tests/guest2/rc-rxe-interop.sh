#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC against the in-tree rdma_rxe: guest A runs the driver under test,
# guest B always runs rdma_rxe. RDMA WRITE, READ and SEND bandwidth, READ
# latency and ibv_rc_pingpong checking the received data, first with A as
# the server and B as the client, then the other way round, so that each
# driver is requester and responder of every operation against the other.
# Every run must exit 0 on both sides and print its result table or
# "iters in" line. Under --impl rxe both guests run rxe: the case then
# shows that the runs themselves pass between two rxe.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.

# Guest B's driver is rdma_rxe whatever the runner asks for.
[[ ${ROLE:-} == B ]] && export SROCE_IMPL=rxe
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
wire_meet

# rounds SERVER: every run with guest SERVER as the server.
rounds() {
	local tag=$1-serves
	pair_bw "write-bw-$tag" "$1" 60 "$dev" "$g4" ib_write_bw 65536 50
	pair_bw "read-bw-$tag" "$1" 60 "$dev" "$g4" ib_read_bw 65536 50
	pair_bw "send-bw-$tag" "$1" 60 "$dev" "$g4" ib_send_bw 65536 50
	# ib_read_lat's server prints no table.
	pair_run "read-lat-$tag" "$1" 60 ib_read_lat -d "$dev" -x "$g4" -F -s 2 -n 50
	if [[ $PAIR_SIDE == client ]]; then pair_has_row "read-lat-$tag" 2 50; fi
	pair_pingpong "pingpong-$tag" "$1" 60 "$dev" "$g4" 16384 20
}

rounds A
rounds B

wire_done
