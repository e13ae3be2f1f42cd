#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The device follows its netdev: carrier loss and return (port state and
# the PORT_ERR / PORT_ACTIVE async events), MTU changes (active_mtu), and
# the netdev going away under a bound device.
. "$(dirname "$0")/lib.sh"

d0=${DEVPFX}0

make_veth
load_sroce
link_add "$d0" veth0
assert_eq "$(port_state "$d0")" "ACTIVE" "initial port state"

log "carrier: veth1 down takes veth0's carrier, and $d0's port, down"
# ibv_asyncwatch prints the device's async events until it is killed.
# Plain timeout (not the run_timeout function) so that $! is timeout itself,
# which passes our kill on: an open device would block its removal later.
# It reports its event FD once the device is open, and from then on the
# device queues every event for it (line-buffered, so we see that line).
timeout 40 stdbuf -oL ibv_asyncwatch -d "$d0" > "$RESULTS/asyncwatch.log" 2>&1 &
watch_pid=$!
wait_until 30 "ibv_asyncwatch to open $d0" grep -q "async event FD" "$RESULTS/asyncwatch.log"
ip link set veth1 down
wait_until 10 "$d0 port DOWN" bash -c "[[ \$(cat $(port_dir "$d0")/state) == *DOWN ]]"
assert_eq "$(devinfo_field "$d0" state)" "PORT_DOWN (1)" "ibv_devinfo state, peer down"
[[ $SROCE_IMPL == sroce ]] && assert_eq "$(port_counter "$d0" link_downed)" 1 "$d0 link_downed"
ip link set veth1 up
wait_until 10 "$d0 port ACTIVE" bash -c "[[ \$(cat $(port_dir "$d0")/state) == *ACTIVE ]]"
assert_eq "$(devinfo_field "$d0" state)" "PORT_ACTIVE (4)" "ibv_devinfo state, peer up"

wait_until 10 "PORT_ACTIVE event" grep -q IBV_EVENT_PORT_ACTIVE "$RESULTS/asyncwatch.log"
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
cat "$RESULTS/asyncwatch.log"
events=$(grep -o 'IBV_EVENT_PORT_[A-Z]*' "$RESULTS/asyncwatch.log" | tr '\n' ' ')
assert_eq "$events" "IBV_EVENT_PORT_ERR IBV_EVENT_PORT_ACTIVE " "async events"

log "MTU: the largest IB MTU that fits with RoCE headers"
# The headroom (IP + UDP + BTH + extension headers + ICRC) is between
# 60 and 104 bytes in any implementation; these MTUs are decided by it.
for pair in 9000:"4096 (5)" 4200:"4096 (5)" 4000:"2048 (4)" 2200:"2048 (4)" \
	    1280:"1024 (3)" 1500:"1024 (3)"; do
	mtu=${pair%%:*} want=${pair#*:}
	ip link set veth0 mtu "$mtu"
	wait_until 10 "active_mtu $want at MTU $mtu" \
		bash -c "[[ \$(ibv_devinfo -d $d0 | awk '\$1 == \"active_mtu:\"') == *'$want'* ]]"
	echo "netdev MTU $mtu -> active_mtu $want"
done
assert_eq "$(port_state "$d0")" "ACTIVE" "port state after MTU changes"

log "deleting veth0 under $d0 removes $d0"
ip link del veth0
wait_until 10 "$d0 to go with veth0" bash -c "! test -e /sys/class/infiniband/$d0"
devs=$(run_timeout 30 ibv_devices)
assert_no_match "$devs" "(^|[[:space:]])${d0}[[:space:]]" "ibv_devices after deleting veth0"

unload_sroce
log "ok"
