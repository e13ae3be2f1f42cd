#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-odp.sh: `make bench-odp` (not a test). What on-demand paging costs
# an RC WRITE stream, in one guest boot (scripts/bench/odp_write.c): A
# WRITEs BENCH_ODP_MIB MiB to B in 64 KiB messages, 16 in flight, path
# MTU 1024, on one device talking to itself over veth0:
#
#   rxe pinned      rxe0, regions registered the usual way (rdma_rxe has
#                   no ODP on Debian's kernels): the baseline
#   sroce pinned    sroce0, the same
#   sroce odp-cold  sroce0, ODP regions whose pages the transfer faults in
#                   (first touch: a filled source, a never-touched target)
#   sroce odp-warm  the same regions again, pages present
#
# BENCH_ODP_ROUNDS rounds of each (pinned and ODP in turn, new memory each
# round); the table shows the median MB/s, the spread (lowest-highest)
# and the ratio of each median to rxe's and to sroce pinned's. The
# absolute figures are those of an emulated guest: only the ratios mean
# something. Results in build/bench-odp/.
#
# Environment: BENCH_ODP_MIB=128, BENCH_ODP_ROUNDS=5, BENCH_BUILD=0 to use
# the sroce.ko already built.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_ODP_MIB=${BENCH_ODP_MIB:-128}
BENCH_ODP_ROUNDS=${BENCH_ODP_ROUNDS:-5}

if [[ ${1:-} == --in-guest ]]; then
	. "$REPO/tests/guest/lib.sh"
	make_veth_netns
	run_timeout 60 modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_ucm ||
		fail "cannot load the RDMA core modules"
	run_timeout 60 modprobe rdma_rxe || fail "modprobe rdma_rxe"
	run_timeout 30 rdma link add rxe0 type rxe netdev veth0 || fail "rdma link add rxe0"
	g=$(wait_roce_gid 10 rxe0 192.0.2.1) || fail "no RoCE v2 GID on rxe0"
	run_timeout 600 "$RESULTS/odp_write" rxe0 "$g" rxe0 "$g" \
		"$BENCH_ODP_MIB" "$BENCH_ODP_ROUNDS" pinned |
		sed 's/^odp_write /rxe /' | tee "$RESULTS/rxe.txt"
	run_timeout 30 rdma link delete rxe0 || true
	run_timeout 60 modprobe -r rdma_rxe || true
	load_sroce
	link_add sroce0 veth0
	g=$(wait_roce_gid 10 sroce0 192.0.2.1) || fail "no RoCE v2 GID on sroce0"
	run_timeout 600 "$RESULTS/odp_write" sroce0 "$g" sroce0 "$g" \
		"$BENCH_ODP_MIB" "$BENCH_ODP_ROUNDS" pinned,odp |
		sed 's/^odp_write /sroce /' | tee "$RESULTS/sroce.txt"
	echo "sroce0 odp_faults: $(port_counter sroce0 odp_faults)"
	unload_sroce
	exit 0
fi

for v in BENCH_ODP_MIB BENCH_ODP_ROUNDS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bench-odp: $v must be a positive number" >&2; exit 2; }
done
"$REPO/scripts/install-deps.sh" >/dev/null
KVER=$("$REPO/scripts/kver.sh")
[[ ${BENCH_BUILD:-1} == 0 ]] || make -s -C "$REPO" module KVER="$KVER"
results=$REPO/build/bench-odp
rm -rf "$results"
mkdir -p "$results"
gcc -O2 -Wall -Wextra -I "$REPO/tests/guest/progs" -o "$results/odp_write" \
	"$REPO/scripts/bench/odp_write.c" -libverbs

echo "bench-odp: booting a guest ($KVER)..."
rc=0
"$REPO/scripts/guest/run-guest" --quiet -t 1500 -r "$results" -n odp-bench \
	--env "BENCH_ODP_MIB=$BENCH_ODP_MIB" --env "BENCH_ODP_ROUNDS=$BENCH_ODP_ROUNDS" \
	-- "$REPO/scripts/bench-odp.sh" --in-guest >"$results/console.log" 2>&1 || rc=$?

echo
echo "==== RC WRITE stream, $BENCH_ODP_MIB MiB in 64 KiB WRITEs, 16 in flight, one device talking to itself;"
echo "     $BENCH_ODP_ROUNDS rounds each: median MB/s (lowest-highest), ratios of the medians"
cat "$results/rxe.txt" "$results/sroce.txt" 2>/dev/null | awk '
/ round [0-9]+: / {
	key = $1 " " $2
	n[key]++
	x[key, n[key]] = $5 + 0
	if (match($0, /reg [0-9]+ ms/))
		r[key, n[key]] = substr($0, RSTART + 4, RLENGTH - 7) + 0
	if (!(key in order)) { order[key] = ++keys; name[keys] = key }
}
# The median of the N(k) values of v[k, 1..], lowest and highest too.
function median(v, k,   i, j, t, m, a) {
	m = n[k]
	for (i = 1; i <= m; i++) a[i] = v[k, i]
	for (i = 1; i <= m; i++)
		for (j = i + 1; j <= m; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	lo = a[1]; hi = a[m]
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
	if (!keys) { print "no figures"; exit 1 }
	fmt = "  %-16s %8s  %-13s %12s %14s %10s\n"
	printf fmt, "", "MB/s", "spread", "/ rxe pinned", "/ sroce pinned", "reg ms"
	for (i = 1; i <= keys; i++) {
		k = name[i]
		med[k] = median(x, k)
		spread[k] = sprintf("%.1f-%.1f", lo, hi)
		reg[k] = ((k, 1) in r) ? sprintf("%.0f", median(r, k)) : "-"
	}
	for (i = 1; i <= keys; i++) {
		k = name[i]
		r1 = ("rxe pinned" in med) ? sprintf("%.2f", med[k] / med["rxe pinned"]) : "-"
		r2 = ("sroce pinned" in med) ? sprintf("%.2f", med[k] / med["sroce pinned"]) : "-"
		printf fmt, k, sprintf("%.1f", med[k]), spread[k], r1, r2, reg[k]
	}
	print "  reg ms: the median time to register (pin) the source and target of a pinned round."
}' || rc=1
grep -h 'odp_faults' "$results/console.log" 2>/dev/null | sed 's/^/  /' | head -1
if "$REPO/scripts/guest/check-kmsg.sh" "$results/dmesg"; then
	echo "guest kernel log: clean"
else
	rc=1
fi
((rc == 0)) || echo "bench-odp: failed (exit $rc); see $results/console.log"
exit $((rc != 0))
