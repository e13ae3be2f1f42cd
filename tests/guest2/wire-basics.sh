#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two guests on one wire, each with a device bound to its virtio NIC:
# IP works across the wire, and each device is ACTIVE with the GIDs of its
# own addresses (and not the peer's). The NIC is each device's parent in
# sysfs; the device stays a virtual-address device (kernel verbs on A).
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

# The NIC is the device's parent, as for a hardware RoCE device.
nic=$(readlink -f /sys/class/net/eth0/device) || fail "eth0 has no parent device"
assert_eq "$(readlink -f "/sys/class/infiniband/$dev/device")" "$nic" "$dev parent"
[[ -e /sys/class/infiniband/$dev/device/net/eth0 ]] ||
	fail "/sys/class/infiniband/$dev/device/net/ does not list eth0"
log "$dev parent: $nic"
# ...but still a virtual-address device: a kernel ULP's DMA mappings are
# kernel addresses, not the NIC's (kverbs_selftest checks
# ib_uses_virt_dma() and moves data through ib_dma_map_*() addresses).
if [[ $ROLE == A ]]; then
	ko=$REPO/build/guest/kmod/$KVER/kverbs_selftest.ko
	rc=0
	run_timeout 120 insmod "$ko" dev="$dev" || rc=$?
	summary=$(dmesg | grep -o 'kverbs_selftest: [0-9]* passed, [0-9]* failed' | tail -n 1)
	dmesg | grep -E 'kverbs_selftest: (FAILED|.*parent)' || true
	((rc == 0)) || fail "kverbs_selftest on $dev (eth0): ${summary:-no summary}"
	assert_match "$summary" "^kverbs_selftest: [1-9][0-9]* passed, 0 failed$" "kverbs on eth0"
	rmmod kverbs_selftest
fi

# Stay up until the peer has pinged us and checked its side.
signal checked
wait_peer checked 120

unload_sroce
log "ok"
