#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Binding a device to a netdev: what verbs users and sysfs see (transport,
# link layer, port state, MTU, node GUID, GID table), GIDs following the
# netdev's addresses, two devices side by side, one device per netdev,
# and unbinding.
. "$(dirname "$0")/lib.sh"

d0=${DEVPFX}0 d1=${DEVPFX}1 d2=${DEVPFX}2

make_veth
load_sroce
link_add "$d0" veth0

log "ibv_devices lists $d0"
devs=$(run_timeout 30 ibv_devices)
echo "$devs"
assert_match "$devs" "(^|[[:space:]])${d0}[[:space:]]" "ibv_devices"

log "ibv_devinfo -v -d $d0"
run_timeout 30 ibv_devinfo -v -d "$d0" > "$RESULTS/devinfo-$d0.txt" ||
	fail "ibv_devinfo -d $d0 failed"
assert_eq "$(devinfo_field "$d0" transport)" "InfiniBand (0)" "transport"
if [[ $SROCE_IMPL == sroce ]]; then
	# modinfo: the version ibv_devinfo reports, who, what, every knob
	# described.
	mi=$(modinfo "$SROCE_KO") || fail "modinfo $SROCE_KO"
	ver=$(awk '$1 == "version:" { print $2 }' <<<"$mi")
	[[ $ver =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "modinfo version '$ver'"
	assert_eq "$(devinfo_field "$d0" fw_ver)" "$ver" "fw_ver is the module version"
	assert_eq "$(cat "/sys/module/sroce/version")" "$ver" "/sys/module/sroce/version"
	assert_match "$mi" $'\nauthor: +[^ ]' "modinfo author"
	assert_match "$mi" $'\ndescription: +[^ ]' "modinfo description"
	assert_match "$mi" $'\nalias: +rdma-link-sroce' "modinfo rdma-link alias"
	parms=$(ls /sys/module/sroce/parameters)
	[[ -n $parms ]] || fail "no module parameters in sysfs"
	for p in $parms; do
		assert_match "$mi" $'\nparm: +'"$p"':[A-Za-z].*\((bool|int|uint)\)' "parm $p described"
	done
fi
assert_eq "$(devinfo_field "$d0" link_layer)" "Ethernet" "link_layer"
assert_eq "$(devinfo_field "$d0" state)" "PORT_ACTIVE (4)" "port state"
assert_eq "$(devinfo_field "$d0" active_mtu)" "1024 (3)" "active_mtu at netdev MTU 1500"
assert_eq "$(devinfo_field "$d0" phys_port_cnt)" "1" "phys_port_cnt"
assert_eq "$(port_state "$d0")" "ACTIVE" "sysfs port state"
assert_eq "$(cat "$(port_dir "$d0")/link_layer")" "Ethernet" "sysfs link_layer"

mac0=$(mac_of veth0)
guid=$(eui64 "$mac0")
log "node GUID $guid from veth0 MAC $mac0"
assert_eq "$(devinfo_field "$d0" node_guid)" "$guid" "ibv_devinfo node_guid"
assert_eq "$(cat "/sys/class/infiniband/$d0/node_guid")" "$guid" "sysfs node_guid"
# veth has no parent device, so neither has the RDMA device (a NIC is one:
# guest2/wire-basics).
[[ -e /sys/class/infiniband/$d0/device ]] && fail "$d0 has a parent on veth0"

log "GID table"
gid_table "$d0" | tee "$RESULTS/gids-$d0.txt"
ll=$(linklocal_gid "$mac0")
v4=$(ipv4_gid 192.0.2.1)
v6=$(ipv6_full 2001:db8::1)
has_gid "$d0" "$ll" RoCE_v2 || fail "$d0 lacks link-local RoCE v2 GID $ll"
has_gid "$d0" "$v4" RoCE_v2 || fail "$d0 lacks IPv4 RoCE v2 GID $v4"
has_gid "$d0" "$v6" RoCE_v2 || fail "$d0 lacks IPv6 RoCE v2 GID $v6"
# Every entry belongs to veth0 and is RoCE v2.
bad=$(gid_table "$d0" | awk '$3 != "RoCE_v2" || $4 != "veth0"')
assert_eq "$bad" "" "GID entries not RoCE v2 on veth0"
# ibv_devinfo -v prints the same GIDs.
assert_match "$(cat "$RESULTS/devinfo-$d0.txt")" "::ffff:192\.0\.2\.1, RoCE v2" "ibv_devinfo GIDs"

log "rdma link show"
links=$(run_timeout 30 rdma link show)
echo "$links"
assert_match "$links" "link $d0/1 state ACTIVE .*netdev veth0" "rdma link show"

log "an extra IPv4 address adds a GID, removing it removes the GID"
extra=$(ipv4_gid 192.0.2.77)
ip addr add 192.0.2.77/24 dev veth0
wait_until 10 "GID of 192.0.2.77" has_gid "$d0" "$extra" RoCE_v2
ip addr del 192.0.2.77/24 dev veth0
wait_until 10 "GID of 192.0.2.77 to go" bash -c "! grep -qx '$extra' $(port_dir "$d0")/gids/*"
has_gid "$d0" "$v4" RoCE_v2 || fail "the primary IPv4 GID went with the extra one"

log "a second device on veth1"
link_add "$d1" veth1
assert_eq "$(port_state "$d1")" "ACTIVE" "$d1 port state"
has_gid "$d1" "$(ipv4_gid 192.0.2.2)" RoCE_v2 || fail "$d1 lacks GID of 192.0.2.2"
has_gid "$d1" "$v4" && fail "$d1 has veth0's GID $v4"
assert_eq "$(cat "/sys/class/infiniband/$d1/node_guid")" "$(eui64 "$(mac_of veth1)")" "$d1 node_guid"
assert_eq "$(port_state "$d0")" "ACTIVE" "$d0 port state next to $d1"

log "veth0 is taken: binding it again must fail"
if run_timeout 30 rdma link add "$d2" type "$RDMA_TYPE" netdev veth0; then
	fail "rdma link add $d2 on veth0 succeeded although $d0 is bound to it"
fi
[[ -e /sys/class/infiniband/$d2 ]] && fail "$d2 exists after the failed bind"

log "rdma link delete $d1"
link_del "$d1"
devs=$(run_timeout 30 ibv_devices)
assert_no_match "$devs" "(^|[[:space:]])${d1}[[:space:]]" "ibv_devices after deleting $d1"
assert_match "$devs" "(^|[[:space:]])${d0}[[:space:]]" "ibv_devices after deleting $d1"
assert_eq "$(port_state "$d0")" "ACTIVE" "$d0 after deleting $d1"

unload_sroce
log "ok"
