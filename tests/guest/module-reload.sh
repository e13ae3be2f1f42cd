#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unloading the module with devices still bound removes them; it can be
# loaded and bound again. Three rounds.
. "$(dirname "$0")/lib.sh"

d0=${DEVPFX}0 d1=${DEVPFX}1

make_veth
for round in 1 2 3; do
	log "round $round"
	load_sroce
	link_add "$d0" veth0
	link_add "$d1" veth1
	assert_eq "$(port_state "$d0")" "ACTIVE" "$d0 state, round $round"
	assert_eq "$(port_state "$d1")" "ACTIVE" "$d1 state, round $round"
	has_gid "$d0" "$(ipv4_gid 192.0.2.1)" RoCE_v2 || fail "$d0 lacks its IPv4 GID, round $round"

	# rmmod with both devices bound: the module must take them down.
	run_timeout 60 rmmod "$RDMA_MODULE" || fail "rmmod with bound devices failed, round $round"
	module_loaded && fail "$RDMA_MODULE still loaded, round $round"
	for d in "$d0" "$d1"; do
		[[ -e /sys/class/infiniband/$d ]] && fail "$d survived rmmod, round $round"
	done
	links=$(run_timeout 30 rdma link show)
	assert_eq "$links" "" "rdma link show after rmmod, round $round"
done

log "a last load, bind and orderly unload"
load_sroce
link_add "$d0" veth0
unload_sroce
log "ok"
