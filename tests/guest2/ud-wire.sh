#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD between two guests on a virtual wire: ibv_ud_pingpong with data
# validation, guest A serving and guest B connecting, over IPv4 and IPv6
# GIDs; no packet may fail the ICRC check on either side.
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case"; exit 0; }
dev=${DEVPFX}0

setup_wire
load_sroce
link_add "$dev" eth0
wait_until 10 "GIDs of $dev" has_gid "$dev" "$(ipv6_full "$MY_IP6")"
gid_of() { gid_table "$dev" | awk -v g="$1" '$2 == g { print $1; exit }'; }
g4=$(gid_of "$(ipv4_gid "$MY_IP")")
g6=$(gid_of "$(ipv6_full "$MY_IP6")")
[[ -n $g4 && -n $g6 ]] || fail "no GID index (IPv4 '$g4', IPv6 '$g6')"

round() {		# NAME GID PORT
	local out
	if [[ $ROLE == A ]]; then
		run_timeout 90 ibv_ud_pingpong -p "$3" -d "$dev" -g "$2" -s 512 \
			-n 500 -c >"$RESULTS/$1.txt" 2>&1 &
		local pid=$!
		wait_until 30 "server on $3" bash -c "ss -ltn | grep -q ':$3 '"
		signal "listening-$1"
		wait "$pid" || { cat "$RESULTS/$1.txt"; fail "$1: server failed"; }
		out=$(cat "$RESULTS/$1.txt")
	else
		wait_peer "listening-$1" 120
		out=$(run_timeout 90 ibv_ud_pingpong -p "$3" -d "$dev" -g "$2" -s 512 \
			-n 500 -c "$PEER_IP" 2>&1) || { echo "$out"; fail "$1: client failed"; }
	fi
	echo "$out" | tail -2
	assert_match "$out" "500 iters in" "$1: iterations"
	signal "done-$1"
	wait_peer "done-$1" 120
}

round ipv4 "$g4" 18515
round ipv6 "$g6" 18516
assert_eq "$(cat "$(port_dir "$dev")/hw_counters/rx_bad_icrc")" 0 "ICRC errors"
assert_eq "$(cat "$(port_dir "$dev")/hw_counters/rx_bad_header")" 0 "bad headers"

unload_sroce
log "ok"
