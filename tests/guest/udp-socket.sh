#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module listens on UDP 4791 (RoCE v2) for IPv4 and IPv6 while loaded
# and releases the port when unloaded.
. "$(dirname "$0")/lib.sh"

# udp_bound FILE: some socket in /proc/net/udp{,6} has local port 4791.
udp_bound() {
	awk 'NR > 1 { split($2, a, ":"); if (a[2] == "12B7") found = 1 } END { exit !found }' "$1"
}

udp_bound /proc/net/udp && fail "UDP 4791 (IPv4) bound before loading"
udp_bound /proc/net/udp6 && fail "UDP 4791 (IPv6) bound before loading"

make_veth
load_sroce
# rxe opens its sockets at load; a device bind must not need to, but bind
# one anyway so a lazily-opening implementation is covered too.
link_add "${DEVPFX}0" veth0

log "sockets on 4791"
run_timeout 10 ss -uan | tee "$RESULTS/ss.txt"
udp_bound /proc/net/udp || fail "no IPv4 socket on UDP 4791"
udp_bound /proc/net/udp6 || fail "no IPv6 socket on UDP 4791"
assert_match "$(cat "$RESULTS/ss.txt")" "0\.0\.0\.0:4791" "ss IPv4 wildcard on 4791"
assert_match "$(cat "$RESULTS/ss.txt")" "\[::\]:4791" "ss IPv6 wildcard on 4791"

if [[ $SROCE_IMPL == sroce ]]; then
	# sroce opens the sockets per namespace, with the first device there,
	# and closes them with the last (rxe holds them while loaded).
	log "last device deleted: sockets closed; next device: opened again"
	link_del "${DEVPFX}0"
	wait_until 10 "UDP 4791 released with the last device" \
		bash -c "! grep -q ':12B7 ' /proc/net/udp /proc/net/udp6"
	link_add "${DEVPFX}0" veth0
	udp_bound /proc/net/udp || fail "no IPv4 socket after re-adding the device"
	udp_bound /proc/net/udp6 || fail "no IPv6 socket after re-adding the device"
fi

unload_sroce
log "after unload"
wait_until 10 "UDP 4791 (IPv4) to be released" bash -c "! grep -q ':12B7 ' /proc/net/udp"
wait_until 10 "UDP 4791 (IPv6) to be released" bash -c "! grep -q ':12B7 ' /proc/net/udp6"

# The port is really free: a plain socket can bind it now.
run_timeout 10 "$PROGS/udp_bind" 4791 || fail "UDP 4791 cannot be bound after unload"
log "ok"
