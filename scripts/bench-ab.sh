#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-ab.sh OLD_KO [NEW_KO]: two builds of sroce.ko compared in one guest
# boot (not a test). NEW_KO defaults to the tree's module. In the guest,
# sroce0 on veth0 talks to itself (local delivery, as `make bench`'s
# "sroce 1 dev"); each round loads OLD_KO, runs the perftest list below,
# unloads it, then does the same with NEW_KO. Alternating within one boot
# is what makes a small difference visible under emulation: both builds
# see the same host load. Prints, per figure, every round's value for both
# builds and the ratio of the medians (new/old for bandwidth, old/new for
# latency: above 1, the new build is better).
#
# bench-ab.sh --param NAME: one build, the tree's, with its boolean module
# parameter NAME off ("old") and on ("new"), switched between the runs of
# each round without reloading, e.g. --param gso_tx.
#
#   AB_ROUNDS=3          rounds
#   AB_BW_ITERS=1000     ib_write_bw / ib_send_bw / ib_read_bw -n (64 KiB)
#   AB_LAT_ITERS=2000    ib_write_lat / ib_send_lat -n (2 bytes)
#   AB_DEVS=1            1: one device talking to itself; 2: sroce0 and
#                        sroce1 on a veth pair across two namespaces
#                        (`make bench`'s "2 dev"), where packets go
#                        through the IP stack
#   AB_MTU=1500          the veth MTU (9000: path MTU 4096)
#
# Outputs are kept in build/bench-ab/.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [[ ${1:-} == --in-guest ]]; then
	. "$REPO/tests/guest/lib.sh"
	log_figure() { echo "figure $1 $2 $3 $4" >>"$RESULTS/figures.txt"; }
	# ab_setup BUILD: the module and devices for BUILD (old or new).
	ab_setup() {
		if [[ -n $AB_PARAM ]]; then
			local on=0
			[[ $1 == new ]] && on=1
			echo "$on" >"/sys/module/sroce/parameters/$AB_PARAM"
			return
		fi
		if [[ $1 == old ]]; then SROCE_KO=$AB_OLD; else SROCE_KO=$AB_NEW; fi
		load_sroce
		ab_devices
	}
	ab_teardown() {
		[[ -n $AB_PARAM ]] || { ab_devices_del; unload_sroce; }
	}
	ab_devices() {
		if ((AB_DEVS == 2)); then
			rdma_pair "$AB_MTU"
			return
		fi
		link_add sroce0 veth0
		SDEV=sroce0 CDEV=sroce0 CNETNS='' CNS=() SADDR=192.0.2.1
		SG=$(wait_roce_gid 10 sroce0 192.0.2.1) || fail "no GID"
		CG=$SG
	}
	ab_devices_del() {
		if ((AB_DEVS == 2)); then
			ip netns del peer
			ip link del veth0 2>/dev/null || true
		fi
	}
	if ((AB_DEVS == 2)); then
		[[ -n $AB_PARAM ]] || fail "AB_DEVS=2 with two builds: not supported"
	else
		make_veth
		ip link set veth0 mtu "$AB_MTU"
		ip link set veth1 mtu "$AB_MTU"
	fi
	if [[ -n $AB_PARAM ]]; then
		load_sroce
		ab_devices
		[[ -w /sys/module/sroce/parameters/$AB_PARAM ]] ||
			fail "no writable module parameter $AB_PARAM"
	fi
	: >"$RESULTS/figures.txt"
	for ((r = 1; r <= AB_ROUNDS; r++)); do
		for b in old new; do
			ab_setup "$b"
			for t in "ib_write_bw 65536 $AB_BW_ITERS BW_average" \
				 "ib_send_bw 65536 $AB_BW_ITERS BW_average" \
				 "ib_read_bw 65536 $AB_BW_ITERS BW_average" \
				 "ib_write_lat 2 $AB_LAT_ITERS t_typical" \
				 "ib_send_lat 2 $AB_LAT_ITERS t_typical"; do
				read -r tool size iters col <<<"$t"
				name=$b-$r-$tool
				local_perftest "$name" "$size" "$tool" -s "$size" -n "$iters"
				v=$(perftest_value "$RESULTS/$name-client.txt" "$col")
				log_figure "$tool" "$b" "$r" "${v%% *}"
			done
			ab_teardown
		done
	done
	if [[ -n $AB_PARAM ]]; then
		log "$SDEV: $(dev_counters "$SDEV")"
		[[ $CDEV == "$SDEV" ]] || log "$CDEV: $(dev_counters "$CDEV")"
	fi
	exit 0
fi

PARAM=
if [[ ${1:-} == --param ]]; then
	PARAM=${2:?usage: bench-ab.sh --param NAME}
	OLD=$(make -s --no-print-directory -C "$REPO" ko-path)
	NEW=$OLD
else
	OLD=${1:?usage: bench-ab.sh OLD_KO [NEW_KO] | --param NAME}
	NEW=${2:-$(make -s --no-print-directory -C "$REPO" ko-path)}
fi
OLD=$(realpath "$OLD") NEW=$(realpath "$NEW")
[[ -r $OLD && -r $NEW ]] || { echo "bench-ab: no module at $OLD or $NEW" >&2; exit 2; }
out=$REPO/build/bench-ab
rm -rf "$out"
mkdir -p "$out"
"$REPO/scripts/guest/run-guest" -t 1800 -r "$out" \
	--env AB_OLD="$OLD" --env AB_NEW="$NEW" --env AB_PARAM="$PARAM" \
	--env AB_DEVS="${AB_DEVS:-1}" --env AB_MTU="${AB_MTU:-1500}" \
	--env AB_ROUNDS="${AB_ROUNDS:-3}" --env AB_BW_ITERS="${AB_BW_ITERS:-1000}" \
	--env AB_LAT_ITERS="${AB_LAT_ITERS:-2000}" \
	-- "$REPO/scripts/bench-ab.sh" --in-guest || {
	echo "bench-ab: the guest failed (see $out)" >&2
	exit 1
}
"$REPO/scripts/guest/check-kmsg.sh" "$out/dmesg"
if [[ -n $PARAM ]]; then
	echo "old: $PARAM=0, new: $PARAM=1 ($NEW, ${AB_DEVS:-1} dev, MTU ${AB_MTU:-1500})"
else
	echo "old: $OLD ($(md5sum <"$OLD" | cut -c1-12))"
	echo "new: $NEW ($(md5sum <"$NEW" | cut -c1-12))"
fi
awk '$1 == "figure" { v[$2, $3] = v[$2, $3] " " $5; t[$2] = 1 }
function median(s,   a, n, i, j, x) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) {
		x = a[j]; a[j] = a[j-1]; a[j-1] = x
	}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	printf "%-13s %-28s %-28s %s\n", "test", "old (each round)", "new (each round)", "ratio of medians"
	for (k in t) {
		mo = median(v[k, "old"]); mn = median(v[k, "new"])
		r = k ~ /_bw$/ ? mn / mo : mo / mn
		printf "%-13s %-28s %-28s %.3f\n", k, v[k, "old"], v[k, "new"], r
	}
	print "ratio above 1: the new build is better (bandwidth new/old, latency old/new)"
}' "$out/figures.txt"
