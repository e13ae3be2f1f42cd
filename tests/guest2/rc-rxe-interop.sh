#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC against the in-tree rdma_rxe: guest A runs the driver under test,
# guest B always runs rdma_rxe. RDMA WRITE, READ and SEND bandwidth, READ
# latency and ibv_rc_pingpong checking the received data, first with A as
# the server and B as the client, then the other way round, so that each
# driver is requester and responder of every operation against the other.
# Every run must exit 0 on both sides and print its result table or
# "iters in" line. The first half is captured on B and every datagram
# checked (GSO on A must leave only ordinary RoCE v2 packets on the wire).
# Then the same under loss (netem). Under --impl rxe both guests run rxe: the case then
# shows that the runs themselves pass between two rxe.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.

# Guest B's driver is rdma_rxe whatever the runner asks for.
[[ ${ROLE:-} == B ]] && export SROCE_IMPL=rxe
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
wire_meet

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
	PAIR_CM=1
	rping_round "rping-$tag" "$1" 20
	ucmatose_round "ucmatose-$tag" "$1"
	PAIR_CM=
}

# The wire as rdma_rxe on B receives it while A's sroce sends its bursts
# as GSO skbs: every datagram, either way, must be an ordinary RoCE v2
# packet. tests/tools/roce_pcap_check.py checks each one's ICRC, lengths
# and checksums with code of its own (zlib's CRC-32), and must fail on
# the same capture with one bit flipped in each packet; tshark's
# InfiniBand dissector must decode every one of them, none malformed.
capture_check() {
	local out n bad rc=0
	capture_stop
	out=$(run_timeout 300 /usr/bin/python3 "$REPO/tests/tools/roce_pcap_check.py" "$pcap") || rc=$?
	echo "$out" | tail -n 20 >"$RESULTS/pcap-check.txt"
	log "capture: $(echo "$out" | tail -n 1)"
	((rc == 0)) || fail "capture check: $(echo "$out" | head -n 5)"
	n=$(echo "$out" | sed -n 's/^roce_pcap_check: \([0-9]*\) packets.*/\1/p')
	n6=$(echo "$out" | sed -n 's/.* packets (\([0-9]*\) IPv6).*/\1/p')
	((n > 1000)) || fail "only $n RoCE packets captured"
	((n6 > 100)) || fail "only $n6 RoCE packets over IPv6 captured"
	out=$(run_timeout 300 /usr/bin/python3 "$REPO/tests/tools/roce_pcap_check.py" \
		--flip-byte 0 "$pcap" | tail -n 1) || true
	bad=$(echo "$out" | sed -n 's/.* IPv6), \([0-9]*\) bad ICRC.*/\1/p')
	# Packets without payload have no byte to flip.
	((bad > n / 2)) || fail "flipped capture: $out"
	out=$(run_timeout 300 tshark -r "$pcap" -Y infiniband 2>/dev/null | grep -c .) || true
	assert_eq "$out" "$n" "packets tshark decodes as InfiniBand"
	out=$(run_timeout 300 tshark -r "$pcap" -Y _ws.malformed 2>/dev/null | grep -c .) || true
	assert_eq "$out" 0 "malformed packets (tshark)"
	rm -f "$pcap"
}

[[ $ROLE == B ]] && capture_start /tmp/wire.pcap
rounds A
# Over IPv6 as well, A sending writes and read responses.
g6=$(wait_roce_gid 10 "$dev" "$MY_IP6") || fail "no RoCE v2 GID for $MY_IP6 on $dev"
pair_bw write-bw-ipv6-B-serves B 60 "$dev" "$g6" ib_write_bw 65536 20
pair_bw read-bw-ipv6-A-serves A 60 "$dev" "$g6" ib_read_bw 65536 20
[[ $ROLE == B ]] && capture_check
if [[ $ROLE == A && $SROCE_IMPL == sroce ]]; then
	skbs=$(port_counter "$dev" tx_gso_skbs)
	pkts=$(port_counter "$dev" tx_gso_packets)
	log "$dev: $pkts packets in $skbs GSO skbs"
	((skbs > 0 && pkts >= 4 * skbs)) ||
		fail "GSO: $pkts packets in $skbs skbs, want 4 or more per skb"
	# What rxe sent came up chained by GRO (gro_rx), and every packet
	# still had its ICRC checked (wire_done: no rx_bad_icrc).
	skbs=$(port_counter "$dev" rx_gro_skbs)
	pkts=$(port_counter "$dev" rx_gro_packets)
	log "$dev: received $pkts packets in $skbs GRO chains"
	((skbs > 0 && pkts >= 2 * skbs)) ||
		fail "GRO: $pkts packets in $skbs chains"
	assert_eq "$(port_counter "$dev" rx_bad_icrc)" 0 "$dev bad ICRC"
fi
rounds B

# The bad wire of guest2/rc-netem: rxe drops what comes out of order, so
# a sroce requester that resends a lost packet alone must see that and go
# back N; a sroce responder holds what rxe sends ahead of a gap. Data is
# checked by the pingpong, both ways.
netem_start netem
pair_bw write-bw-netem-A-serves A 90 "$dev" "$g4" ib_write_bw 65536 20
pair_bw write-bw-netem-B-serves B 90 "$dev" "$g4" ib_write_bw 65536 20
pair_pingpong pingpong-netem A 90 "$dev" "$g4" 65536 10
netem_end
if [[ $ROLE == A && $SROCE_IMPL == sroce ]]; then
	log "$dev counters: $(dev_counters "$dev")"
	[[ $(port_counter "$dev" selective_resends) -gt 0 ]] ||
		fail "no selective resend under loss"
fi

# Every connection was torn down: no rdma_cm ID is left behind.
assert_eq "$(rdma res show cm_id 2>&1 | grep -c . || true)" 0 "rdma_cm IDs left"
wire_done
