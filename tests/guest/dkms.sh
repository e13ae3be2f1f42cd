#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module DKMS installed (scripts/dkms-test.sh, run on the host by
# check.sh before the guest tests: the guest's root is the host's) loads
# the way a user loads it: "rdma link add ... type sroce" alone autoloads
# it through its rdma-link-sroce alias, from /lib/modules/KVER/updates/dkms,
# with the version dkms.conf names; then modprobe -r removes it.
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case"; exit 0; }

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$REPO/dkms.conf")
path=$(modinfo -n sroce 2>/dev/null) || fail "no sroce module installed for $(uname -r) (dkms-test.sh install not run?)"
[[ $path == /lib/modules/$(uname -r)/updates/dkms/sroce.ko* ]] ||
	fail "modprobe would load $path, not DKMS's"
assert_eq "$(modinfo -F version sroce)" "$ver" "installed module's version"

module_loaded && fail "sroce loaded before the test"
run_timeout 60 modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_ucm ||
	fail "cannot load the RDMA core modules"
make_veth
# No modprobe sroce: the link type's alias loads it.
link_add sroce0 veth0
module_loaded || fail "rdma link add did not load sroce"
assert_eq "$(cat /sys/module/sroce/version)" "$ver" "loaded module's version"
run_timeout 30 ibv_devinfo -d sroce0 > "$RESULTS/devinfo.txt" || fail "ibv_devinfo -d sroce0"
assert_eq "$(awk '$1 == "fw_ver:" { print $2 }' "$RESULTS/devinfo.txt")" "$ver" "fw_ver"
gid=$(wait_roce_gid 10 sroce0 192.0.2.1) || fail "no RoCE v2 GID on sroce0"
out=$(run_timeout 60 "$PROGS/pd_alloc" sroce0 100 2>&1) || { echo "$out"; fail "pd_alloc"; }
assert_match "$out" "allocated 100 distinct 100 freed 100" "verbs on the DKMS module"
link_del sroce0
run_timeout 60 modprobe -r sroce || fail "modprobe -r sroce"
module_loaded && fail "sroce still loaded"
log "ok: $path, version $ver, GID index $gid"
