#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The other transports and verbs against the in-tree rdma_rxe: guest A runs
# the driver under test, guest B always runs rdma_rxe. UC (ibv_uc_pingpong
# checking data, ib_send_bw and ib_write_bw -c UC), SRQ (ibv_srq_pingpong
# with 4 QPs, ib_send_bw --use-srq), atomics (ib_atomic_bw with both
# kinds) and UD (ib_send_bw -c UD), first with A as the server and then
# with B, so that each driver is requester and responder of each against
# the other. Every run must exit 0 on both sides and print its result
# table or "iters in" line. Under --impl rxe both guests run rxe.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.

# Guest B's driver is rdma_rxe whatever the runner asks for.
[[ ${ROLE:-} == B ]] && export SROCE_IMPL=rxe
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
wire_meet

# A run that hangs leaves the QPs' state and the drop counters behind.
on_failure() {
	log "$dev counters: $(dev_counters "$dev")"
	rdma resource show qp link "$dev/1" 2>&1 | sed 's/^/  | /' || true
}

# rounds SERVER: every run with guest SERVER as the server.
rounds() {
	local tag=$1-serves
	pair_pingpong "uc-pingpong-$tag" "$1" 60 "$dev" "$g4" 16384 20 ibv_uc_pingpong
	pair_bw "uc-send-bw-$tag" "$1" 60 "$dev" "$g4" ib_send_bw 65536 50 -c UC
	pair_bw "uc-write-bw-$tag" "$1" 60 "$dev" "$g4" ib_write_bw 65536 50 -c UC
	pair_pingpong "srq-pingpong-$tag" "$1" 60 "$dev" "$g4" 4096 20 ibv_srq_pingpong -q 4
	pair_bw "srq-send-bw-$tag" "$1" 60 "$dev" "$g4" ib_send_bw 65536 50 --use-srq
	pair_bw "atomic-fadd-$tag" "$1" 60 "$dev" "$g4" ib_atomic_bw 8 100 -A FETCH_AND_ADD
	pair_bw "atomic-cas-$tag" "$1" 60 "$dev" "$g4" ib_atomic_bw 8 100 -A CMP_AND_SWAP
	pair_bw "ud-send-bw-$tag" "$1" 60 "$dev" "$g4" ib_send_bw 1024 100 -c UD
}

rounds A
rounds B

wire_done
