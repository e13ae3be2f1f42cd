#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_cm against the in-tree rdma_rxe: guest A runs the driver under test,
# guest B always runs rdma_rxe. The connection managers of the two drivers
# talk over their QP1s (CM MADs on the wire: REQ, REP, RTU, DREQ and
# DREP), then the applications move data: rping (RC send, RDMA read and
# write, every echoed ping compared with what it sent, -V) and perftest
# connected by rdma_cm (-R: ib_send_bw, ib_write_bw, ib_read_lat, each
# with its result row). First A serves, then B. Under --impl rxe both
# guests run rxe. (udaddy, UD through SIDR, runs in guest/rdma-cm: its
# port is fixed, which pair_run's port-per-run scheme cannot serve.)
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

rounds() {
	local tag=$1-serves
	rping_round "rping-$tag" "$1" 20
	pair_bw "send-bw-cm-$tag" "$1" 60 "$dev" "$g4" ib_send_bw 65536 50 -R
	pair_bw "write-bw-cm-$tag" "$1" 60 "$dev" "$g4" ib_write_bw 65536 50 -R
	pair_run "read-lat-cm-$tag" "$1" 60 ib_read_lat -d "$dev" -R -F -s 2 -n 50
	if [[ $PAIR_SIDE == client ]]; then pair_has_row "read-lat-cm-$tag" 2 50; fi
}

rounds A
rounds B

# Every connection was torn down: no rdma_cm ID is left behind.
assert_eq "$(rdma res show cm_id 2>&1 | grep -c . || true)" 0 "rdma_cm IDs left"
wire_done
