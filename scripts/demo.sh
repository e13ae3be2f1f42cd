#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: `make demo`. Installs what is needed, builds the module, boots a
# throw-away guest and shows sroce at work there: two devices on a veth
# pair, as rdma-core sees them; then perftest over RC between two devices
# (the second one in network namespace "peer"), ib_write_bw with 64 KiB
# messages and ib_read_lat with 2 bytes, ending with a one-line summary.
# DEMO_IMPL=rxe shows the in-tree rdma_rxe doing the same, for comparison
# (perftest on one rxe device talking to itself: rdma_rxe cannot deliver
# between two of its own devices on one host). The demo fails if a
# perftest run fails.
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
	link_del "$d0"
	ip link del veth0

	local rc=0
	perftest_tour || rc=$?
	unload_sroce
	ip netns del peer
	echo
	echo "demo: $RDMA_MODULE unloaded cleanly"
	return "$rc"
}

# perftest over RC: $DEVPFX0 on veth0 here serves; the client is $DEVPFX1 on
# veth1 in namespace "peer" (sroce), or rxe0 itself (rxe).
perftest_tour() {
	local sdev=${DEVPFX}0 cdev cns caddr sgid cgid
	local bw lat summary ok=0

	echo
	echo "==== perftest over RC"
	make_veth_netns
	link_add "$sdev" veth0
	if [[ $SROCE_IMPL == rxe ]]; then
		cdev=$sdev cns='' caddr=192.0.2.1
		echo "(rdma_rxe cannot deliver between two of its own devices on one host:"
		echo " $sdev on veth0 talks to itself)"
	else
		cdev=${DEVPFX}1 cns=peer caddr=192.0.2.2
		show ip netns exec peer rdma link add "$cdev" type "$RDMA_TYPE" netdev veth1
		wait_until 10 "$cdev in /sys/class/infiniband" test -e "/sys/class/infiniband/$cdev"
		echo "$sdev on veth0 (192.0.2.1) <-> $cdev on veth1 (192.0.2.2, netns peer)"
	fi
	sgid=$(wait_roce_gid 10 "$sdev" 192.0.2.1) || fail "no RoCE v2 GID for 192.0.2.1 on $sdev"
	cgid=$(wait_roce_gid 10 "$cdev" "$caddr") || fail "no RoCE v2 GID for $caddr on $cdev"

	# perf PROG COLUMN ARGS...: one run; prints the client's output and
	# sets REPLY to "VALUE UNIT" or "FAILED (why)".
	perf() {
		local prog=$1 col=$2 base=$RESULTS/demo-$1 rc=0 why
		shift 2
		echo
		echo "\$ $prog -d $sdev -x $sgid -F $* &"
		echo "\$ ${cns:+ip netns exec $cns }$prog -d $cdev -x $cgid -F $* 192.0.2.1"
		perftest_pair "$base" 60 "" "$sdev" "$sgid" "$cns" "$cdev" "$cgid" 192.0.2.1 \
			"$prog" "$@" || rc=$?
		grep -v -e '^$' -e 'Waiting for client' -e '^\*\*\*' "$base-client.txt" || true
		REPLY=
		if ((rc == 0)); then
			REPLY=$(perftest_value "$base-client.txt" "$col")
		fi
		if [[ -z $REPLY ]]; then
			if ((rc == 124)); then
				why="timed out"
			else
				why=$(perftest_error "$base-client.txt")
				[[ -n $why ]] || why=$(perftest_error "$base-server.txt")
				why="exit $rc${why:+: $why}"
				echo "-- server output:"
				cat "$base-server.txt"
			fi
			REPLY="FAILED ($why)"
			return 1
		fi
	}

	perf ib_write_bw BW_average -s 65536 -n 1000 && ((++ok))
	bw=$REPLY
	perf ib_read_lat t_typical -s 2 -n 1000 && ((++ok))
	lat=$REPLY
	[[ $lat == FAILED* ]] || lat="$lat (typical)"

	summary="$RDMA_TYPE: ib_write_bw 64KiB = $bw, ib_read_lat 2B = $lat"
	[[ $SROCE_IMPL == rxe ]] && summary+=" [one device talking to itself]"
	echo
	echo "$summary"
	((ok == 2))
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

results=$REPO/build/demo
rc=0
# The console, minus firmware noise and boot: from stage2 on, no escapes.
"$REPO/scripts/guest/run-guest" --quiet --job-console -t 300 -r "$results" -n sroce-demo \
	--env "SROCE_IMPL=$impl" -- "$REPO/scripts/demo.sh" --in-guest || rc=$?
if ! "$REPO/scripts/guest/check-kmsg.sh" "$results/dmesg"; then
	rc=1
fi
echo "demo: guest console log and dmesg are in $results"
exit "$rc"
