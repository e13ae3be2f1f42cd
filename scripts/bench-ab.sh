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
#   AB_ROUNDS=3          rounds
#   AB_BW_ITERS=1000     ib_write_bw / ib_send_bw -n (64 KiB)
#   AB_LAT_ITERS=2000    ib_write_lat / ib_send_lat -n (2 bytes)
#
# Outputs are kept in build/bench-ab/.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [[ ${1:-} == --in-guest ]]; then
	. "$REPO/tests/guest/lib.sh"
	log_figure() { echo "figure $1 $2 $3 $4" >>"$RESULTS/figures.txt"; }
	make_veth
	: >"$RESULTS/figures.txt"
	for ((r = 1; r <= AB_ROUNDS; r++)); do
		for b in old new; do
			if [[ $b == old ]]; then SROCE_KO=$AB_OLD; else SROCE_KO=$AB_NEW; fi
			load_sroce
			link_add sroce0 veth0
			SDEV=sroce0 CDEV=sroce0 CNETNS='' CNS=() SADDR=192.0.2.1
			SG=$(wait_roce_gid 10 sroce0 192.0.2.1) || fail "no GID"
			CG=$SG
			for t in "ib_write_bw 65536 $AB_BW_ITERS BW_average" \
				 "ib_send_bw 65536 $AB_BW_ITERS BW_average" \
				 "ib_write_lat 2 $AB_LAT_ITERS t_typical" \
				 "ib_send_lat 2 $AB_LAT_ITERS t_typical"; do
				read -r tool size iters col <<<"$t"
				name=$b-$r-$tool
				local_perftest "$name" "$size" "$tool" -s "$size" -n "$iters"
				v=$(perftest_value "$RESULTS/$name-client.txt" "$col")
				log_figure "$tool" "$b" "$r" "${v%% *}"
			done
			unload_sroce
		done
	done
	exit 0
fi

OLD=${1:?usage: bench-ab.sh OLD_KO [NEW_KO]}
NEW=${2:-$(make -s --no-print-directory -C "$REPO" ko-path)}
OLD=$(realpath "$OLD") NEW=$(realpath "$NEW")
[[ -r $OLD && -r $NEW ]] || { echo "bench-ab: no module at $OLD or $NEW" >&2; exit 2; }
out=$REPO/build/bench-ab
rm -rf "$out"
mkdir -p "$out"
"$REPO/scripts/guest/run-guest" -t 1800 -r "$out" \
	--env AB_OLD="$OLD" --env AB_NEW="$NEW" \
	--env AB_ROUNDS="${AB_ROUNDS:-3}" --env AB_BW_ITERS="${AB_BW_ITERS:-1000}" \
	--env AB_LAT_ITERS="${AB_LAT_ITERS:-2000}" \
	-- "$REPO/scripts/bench-ab.sh" --in-guest || {
	echo "bench-ab: the guest failed (see $out)" >&2
	exit 1
}
"$REPO/scripts/guest/check-kmsg.sh" "$out/dmesg"
echo "old: $OLD ($(md5sum <"$OLD" | cut -c1-12))"
echo "new: $NEW ($(md5sum <"$NEW" | cut -c1-12))"
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
