#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC between two guests on a virtual wire, the same driver on both ends:
# perftest's RDMA WRITE, SEND and READ bandwidth (64 KiB messages, and READ
# at every size from 2 bytes to 8 MiB), READ and WRITE latency, and
# ibv_rc_pingpong checking the received data at a one-packet and a
# 64-packet message size; over IPv4 GIDs, and once over an IPv6 GID.
# The server role alternates between the guests, so that each is requester
# and responder of every operation. Every run must exit 0 on both sides
# and print its result table or "iters in" line; no packet may fail the
# ICRC or header checks.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
g6=$(wait_roce_gid 10 "$dev" "$MY_IP6") || fail "no RoCE v2 GID for $MY_IP6 on $dev"
log "$dev: GID index $g4 ($MY_IP), $g6 ($MY_IP6)"

pair_bw write-bw A 60 "$dev" "$g4" ib_write_bw 65536 50
pair_bw send-bw B 60 "$dev" "$g4" ib_send_bw 65536 50
pair_bw read-bw A 60 "$dev" "$g4" ib_read_bw 65536 50

# Every size from 2 bytes to 8 MiB, 5 times each: the client prints a row
# per size, the server only the last.
pair_run read-bw-all B 120 ib_read_bw -d "$dev" -x "$g4" -F -a -n 5
if [[ $PAIR_SIDE == client ]]; then
	perftest_rows "$PAIR_OUT"
	assert_eq "${#PERFTEST_ROWS[@]}" 23 "read-bw-all: result rows"
	s=2
	for row in "${PERFTEST_ROWS[@]}"; do
		perftest_row_ok "$row" "$s" 5 || fail "read-bw-all: row '$row' for $s bytes x 5"
		s=$((s * 2))
	done
else
	pair_has_row read-bw-all 8388608 5
fi

# ib_read_lat's server prints no table; ib_write_lat's does. The client
# (B) captures it: a read round trip must be one frame each way. A
# second frame in a row from one end waits on the TCP wire for the
# peer's delayed ACK (run-guest-pair), which once made ib_read_lat take
# about 20 ms a round trip instead of half a millisecond.
[[ $ROLE == B ]] && capture_start /tmp/read-lat.pcap --immediate-mode
pair_run read-lat A 45 ib_read_lat -d "$dev" -x "$g4" -F -s 2 -n 50
if [[ $PAIR_SIDE == client ]]; then
	pair_has_row read-lat 2 50
	capture_stop
	# The source address of each RoCE frame, in order; a repeat is a
	# second frame in a row from the same end.
	frames=$(tcpdump -r "$pcap" -nn -q 2>"$RESULTS/read-lat-pcap.log" |
		awk '{ split($3, a, "."); print a[1] "." a[2] "." a[3] "." a[4] }') ||
		fail "read-lat: cannot read the capture: $(cat "$RESULTS/read-lat-pcap.log")"
	n=$(echo "$frames" | grep -c . || true)
	repeats=$(echo "$frames" | uniq -c | awk '$1 > 1 { r += $1 - 1 } END { print r + 0 }')
	log "read-lat: $n RoCE frames, $repeats after a frame from the same end"
	((n >= 2 * 50)) || fail "read-lat: $n RoCE frames captured for 50 reads (tcpdump: $(tail -n 3 "$RESULTS/tcpdump.log" | tr '\n' ' '))"
	# The connection's first request and the run's end may pair up.
	((repeats <= 2)) || fail "read-lat: $repeats frames followed one from the same end"
fi
pair_run write-lat B 45 ib_write_lat -d "$dev" -x "$g4" -F -s 2 -n 50
pair_has_row write-lat 2 50

pair_pingpong pingpong-100 A 45 "$dev" "$g4" 100 50
pair_pingpong pingpong-64k B 60 "$dev" "$g4" 65536 20
pair_pingpong pingpong-64k-ipv6 A 60 "$dev" "$g6" 65536 20

wire_done
