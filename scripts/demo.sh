#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: `make demo`. Installs what is needed, builds the module, boots a
# throw-away guest and shows sroce at work there: two devices on a veth
# pair, as rdma-core sees them. DEMO_IMPL=rxe shows the in-tree rdma_rxe
# doing the same, for comparison.
#
# demo.sh --in-guest is the part that runs inside the guest.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

in_guest() {
	. "$REPO/tests/guest/lib.sh"
	local d0=${DEVPFX}0 d1=${DEVPFX}1

	show() {
		echo
		echo "\$ $*"
		run_timeout 30 "$@"
	}

	make_veth
	load_sroce
	show rdma link add "$d0" type "$RDMA_TYPE" netdev veth0
	show rdma link add "$d1" type "$RDMA_TYPE" netdev veth1
	show ip -br addr show
	show rdma link show
	show ibv_devices
	show ibv_devinfo -v -d "$d0"
	echo
	echo "GID table of $d0 (index, GID, type, netdev):"
	gid_table "$d0"
	echo
	echo "GID table of $d1:"
	gid_table "$d1"
	show rdma link delete "$d1"
	unload_sroce
	echo
	echo "demo: $RDMA_MODULE unloaded cleanly"
}

if [[ ${1:-} == --in-guest ]]; then
	in_guest
	exit
fi

"$REPO/scripts/install-deps.sh"
impl=${DEMO_IMPL:-sroce}
if [[ $impl == sroce ]]; then
	KVER=$("$REPO/scripts/kver.sh")
	make -C "$REPO" module KVER="$KVER"
fi

echo "demo: booting a guest (software emulation: 15 s to a minute)..."

# The console, minus firmware noise and boot: from stage2 on, no escapes.
console_filter() {
	sed -u -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' |
		sed -u -n '/stage2: running/,$p' |
		grep -v -e 'stage2: ' -e 'sysrq: Power Off' -e 'reboot: Power down'
}
results=$REPO/build/demo
rc=0
"$REPO/scripts/guest/run-guest" --quiet --verbose -t 300 -r "$results" -n sroce-demo \
	--env "SROCE_IMPL=$impl" -- "$REPO/scripts/demo.sh" --in-guest | console_filter ||
	rc=${PIPESTATUS[0]}
if ! "$REPO/scripts/guest/check-kmsg.sh" "$results/dmesg"; then
	rc=1
fi
echo "demo: guest console log and dmesg are in $results"
exit "$rc"
