#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two guests on one wire, each with a device bound to its virtio NIC:
# IP works across the wire, and each device is ACTIVE with the GIDs of its
# own addresses (and not the peer's).
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
dev=${DEVPFX}0

setup_wire
load_sroce
link_add "$dev" eth0
signal bound
wait_peer bound 120

log "ping $PEER_IP and $PEER_IP6 across the wire"
run_timeout 30 ping -c 3 -W 5 "$PEER_IP" || fail "ping $PEER_IP failed"
run_timeout 30 ping -6 -c 3 -W 5 "$PEER_IP6" || fail "ping $PEER_IP6 failed"

log "$dev on eth0"
assert_eq "$(port_state "$dev")" "ACTIVE" "$dev port state"
assert_eq "$(devinfo_field "$dev" state)" "PORT_ACTIVE (4)" "ibv_devinfo state"
assert_eq "$(devinfo_field "$dev" active_mtu)" "1024 (3)" "active_mtu at MTU 1500"
mac=$(mac_of eth0)
assert_eq "$(cat "/sys/class/infiniband/$dev/node_guid")" "$(eui64 "$mac")" "node_guid"
gid_table "$dev" | tee "$RESULTS/gids.txt"
has_gid "$dev" "$(linklocal_gid "$mac")" RoCE_v2 || fail "no link-local GID"
has_gid "$dev" "$(ipv4_gid "$MY_IP")" RoCE_v2 || fail "no GID for $MY_IP"
has_gid "$dev" "$(ipv6_full "$MY_IP6")" RoCE_v2 || fail "no GID for $MY_IP6"
has_gid "$dev" "$(ipv4_gid "$PEER_IP")" && fail "the peer's address $PEER_IP is in our GID table"

# Stay up until the peer has pinged us and checked its side.
signal checked
wait_peer checked 120

unload_sroce
log "ok"
