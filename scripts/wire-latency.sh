#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wire-latency.sh: how much latency the virtual wire between two guests
# adds by itself, without RDMA (not a test; `make wire-latency`). Boots a
# guest pair on each kind of wire scripts/guest/run-guest-pair offers (a
# TCP socket, a UNIX socket) and runs a UDP ping-pong of 2-byte datagrams
# between two busy-polling processes (scripts/bench/udp_pingpong.c), in
# both directions (guest A serving, then guest B), with one datagram per
# turn and with two back to back (as an RDMA WRITE ping-pong sends: the
# ACK of the peer's WRITE, then its own). Prints the median and mean
# round trip of each.
#
# QEMU sets TCP_NODELAY only on the connecting end (B) of its TCP socket
# wire: a frame from A that follows another one waits for B's delayed
# ACK. That is what made ib_write_lat and ib_send_lat take 22-25 ms on
# the TCP wire with rdma_rxe and sroce alike; the UNIX wire has no such
# delay, which is why `make bench-wire` uses it.
#
# Environment: WIRE_LAT_N=1000 turns per run (a tenth of it with two
# frames a turn: on the TCP wire each may take tens of milliseconds).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${WIRE_LAT_N:-1000}
PORT=17001

# --- in the guests ---------------------------------------------------------------

in_guest() {
	. "$REPO/tests/guest/lib.sh"
	[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
	local pp=$REPO/build/wire-latency/udp_pingpong srv first second
	setup_wire
	signal up
	wait_peer up 60
	# A serves first, then B.
	for first in A B; do
		second=$([[ $first == A ]] && echo B || echo A)
		if [[ $ROLE == "$first" ]]; then
			"$pp" -s "$PORT" &
			srv=$!
			signal "serving-$first"
			wait_peer "done-$first" 200
			kill "$srv"
			wait "$srv" 2>/dev/null || true
		else
			wait_peer "serving-$first" 60
			sleep 0.5
			out=$(run_timeout 90 "$pp" -c "$PEER_IP" "$PORT" "$N" 1) ||
				fail "udp_pingpong to $first failed: $out"
			echo "wire-latency: $second -> $first, 1 frame a turn: $out"
			out=$(run_timeout 90 "$pp" -c "$PEER_IP" "$PORT" $((N / 10)) 2) ||
				fail "udp_pingpong to $first failed: $out"
			echo "wire-latency: $second -> $first, 2 frames a turn: $out"
			signal "done-$first"
		fi
	done
	log "ok"
}

if [[ ${1:-} == --in-guest ]]; then
	in_guest "${2:-}"
	exit
fi

# --- on the host -------------------------------------------------------------------

"$REPO/scripts/install-deps.sh" >/dev/null
mkdir -p "$REPO/build/wire-latency"
gcc -O2 -Wall -Wextra -o "$REPO/build/wire-latency/udp_pingpong" \
	"$REPO/scripts/bench/udp_pingpong.c"
rc=0
for wire in tcp unix; do
	dir=$REPO/build/wire-latency/$wire
	rm -rf "$dir"
	"$REPO/scripts/guest/run-guest-pair" -t 240 --wire "$wire" "$dir" \
		bash "$REPO/scripts/wire-latency.sh" --in-guest >"$dir.log" 2>&1 || rc=1
	echo "== $wire wire:"
	grep -h '^wire-latency:' "$dir"/A/output.log "$dir"/B/output.log | sed 's/^wire-latency: /   /' ||
		echo "   no result (see $dir)"
done
exit "$rc"
