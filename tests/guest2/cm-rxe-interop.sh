#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_cm against the in-tree rdma_rxe: guest A runs the driver under test,
# guest B always runs rdma_rxe. The connection managers of the two drivers
# talk over their QP1s (CM MADs on the wire: REQ, REP, RTU, DREQ and
# DREP), then the applications move data: rping (RC send, RDMA read and
# write, every echoed ping compared with what it sent, -V) and ucmatose
# (2 connections, sends both ways). First A serves, then B. Under --impl
# rxe both guests run rxe. Not here, but in guest/rdma-cm (one guest):
# udaddy (its port is fixed, which pair_run's port-per-run scheme cannot
# serve) and perftest -R (a race of perftest's own needs a retry, which
# two guests cannot agree on).
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.

# Guest B's driver is rdma_rxe whatever the runner asks for.
[[ ${ROLE:-} == B ]] && export SROCE_IMPL=rxe
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
wire_meet
PAIR_CM=1

# rping_round NAME SERVER COUNT: rping, COUNT pings of 200 bytes echoed.
rping_round() {
	local name=$1 n
	if [[ $ROLE == "$2" ]]; then
		pair_run "$name" "$2" 60 rping -s -a "$MY_IP" -S 200 -v -V
		n=$(grep -c '^server ping data: rdma-ping-' "$PAIR_OUT") || true
	else
		# pair_run appends the port and the server's address; rping
		# takes the address from -a and ignores the extra argument.
		pair_run "$name" "$2" 60 rping -c -a "$PEER_IP" -S 200 -C "$3" -v -V
		n=$(grep -c '^ping data: rdma-ping-' "$PAIR_OUT") || true
		assert_no_match "$(cat "$PAIR_OUT")" "mismatch" "$name: rping -V"
	fi
	assert_eq "$n" "$3" "$name ($PAIR_SIDE): pings"
	log "$name: $n pings"
}

# ucmatose_round NAME SERVER: 2 RC connections x 10 sends each way.
ucmatose_round() {
	local out
	if [[ $ROLE == "$2" ]]; then
		pair_run "$1" "$2" 60 ucmatose -b "$MY_IP" -c 2 -C 10
		out=$(cat "$PAIR_OUT")
		assert_match "$out" "completing sends" "$1 ($PAIR_SIDE): sends"
	else
		pair_run "$1" "$2" 60 ucmatose -s "$PEER_IP" -c 2 -C 10
		out=$(cat "$PAIR_OUT")
		assert_match "$out" "receiving data transfers" "$1 ($PAIR_SIDE): receives"
	fi
	assert_match "$out" "data transfers complete" "$1 ($PAIR_SIDE): transfers"
	assert_match "$out" "return status 0" "$1 ($PAIR_SIDE): status"
}

rounds() {
	local tag=$1-serves
	rping_round "rping-$tag" "$1" 20
	ucmatose_round "ucmatose-$tag" "$1"
}
rounds A
rounds B

# Every connection was torn down: no rdma_cm ID is left behind.
assert_eq "$(rdma res show cm_id 2>&1 | grep -c . || true)" 0 "rdma_cm IDs left"
wire_done
