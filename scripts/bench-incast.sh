#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-incast.sh: `make bench-incast`, the third part of `make bench`
# (not part of `make check`: benchmarks are not tests). Congestion
# control in the incast of guest/cc-incast (tests/guest/lib-incast.sh):
# three senders into one sroce receiver through a 40 Mbit/s HTB
# bottleneck that marks ECN-capable packets CE once they waited 2 ms
# (codel's ce_threshold; lib-incast.sh's MARKING), RC SENDs of
# 64 KiB, every byte checked, a 64-byte RDMA WRITE probe every 2 ms
# through the same queue. In one guest boot, BENCH_INCAST_ROUNDS rounds
# (default 3) of, in this order:
#
#   cc-off   sroce senders, cnp=0 dcqcn=0: nobody slows down
#   1pkt     the same with gso_tx=0: every packet its own skb; what this
#            rig's bottleneck path (veth, bridge, HTB, all emulated)
#            passes at most for such traffic, and why paced QPs send in
#            bursts (rp_pace_burst; docs/2026-12-06-cc-ceiling.md)
#   cc-on    sroce senders, CNPs and DCQCN on
#   rxe      rdma_rxe senders (rxe1..3 in the initial namespace; rdma_rxe
#            sends no ECN-capable packets, so codel drops where it would
#            mark, and it has no congestion control)
#
# each measured for INCAST_SECS seconds (default 6) after a second of
# warm-up. Prints for each the median and range over the rounds of:
# goodput as a share of the bottleneck's payload rate, the share of the
# time the bottleneck was sending (the busy time that is not goodput
# carried resends, duplicates and the probe), Jain's fairness index over
# the senders, the probe's median and 99th percentile, packets lost at
# the bottleneck and the senders' resends (sroce: timeouts,
# sequence NAKs and tail probes; rxe: its completer's retries), and the
# ratios cc-on/cc-off and cc-on/rxe computed within each round. The
# guest is emulated (TCG): only ratios and shares mean something. A run
# that fails shows FAILED and the bench goes on. Results (figures.tsv,
# each run's output, console log, dmesg) in build/bench-incast/. Exit
# status 0 if every run gave its figures and the guest kernel log is
# clean.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/scripts/bench/figures.sh"
ROUNDS=${BENCH_INCAST_ROUNDS:-3}
SECS=${INCAST_SECS:-6}
# What a run records, in the table's order (t_*: fewer is better).
METRICS=(goodput busy jain t_probe_median t_probe_p99 t_lost t_resends t_tail_probes)

# bench_run NAME CNP DCQCN: one incast, its figures recorded.
bench_run() {
	local what
	if ! run_incast "$@"; then
		echo "bench-incast: $INCAST_ERROR"
		for what in "${METRICS[@]}"; do
			record "$1" incast $what FAILED "" "$INCAST_ERROR"
		done
		return 0
	fi
	record "$1" incast goodput $((TOTAL * 100 / CAPACITY)) "%"
	record "$1" incast busy "$BUSY" "%"
	record "$1" incast jain "$(awk -v j="$JAIN" 'BEGIN { printf "%.3f", j / 1000 }')"
	record "$1" incast t_probe_median "$(awk -v u="$MEDIAN" 'BEGIN { printf "%.2f", u / 1000 }')" ms
	record "$1" incast t_probe_p99 "$(awk -v u="$P99" 'BEGIN { printf "%.2f", u / 1000 }')" ms
	# Counts: fewer is better, as a latency (figures.sh's t_ prefix).
	record "$1" incast t_lost "$LOST" packets
	record "$1" incast t_resends "$RESENDS"
	[[ $SENDER_IMPL == rxe ]] || record "$1" incast t_tail_probes "$PROBES"
}

in_guest() {
	. "$REPO/tests/guest/lib.sh"
	. "$REPO/tests/guest/lib-incast.sh"
	local r sroce_sg
	FIGURES=$RESULTS/figures.tsv
	: >"$FIGURES"
	incast_setup
	incast_rxe_senders
	bottleneck "${MARKING[@]}"
	sroce_sg=("${SG[@]}")
	for ((r = 1; r <= ROUNDS; r++)); do
		FIGURES_ROUND=$r
		SENDER_IMPL=sroce SENDER_DEVS=(sroce1 sroce2 sroce3) SG=("${sroce_sg[@]}")
		bench_run cc-off-$r 0 0
		echo 0 >$P/gso_tx
		bench_run 1pkt-$r 0 0
		echo 1 >$P/gso_tx
		bench_run cc-on-$r 1 1
		SENDER_IMPL=rxe SENDER_DEVS=(rxe1 rxe2 rxe3) SG=("${RXE_SG[@]}")
		bench_run rxe-$r 0 0
	done
	incast_teardown
}

if [[ ${1:-} == --in-guest ]]; then
	in_guest
	exit
fi

[[ $ROUNDS =~ ^[1-9][0-9]*$ && $SECS =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench-incast: BENCH_INCAST_ROUNDS and INCAST_SECS must be positive numbers" >&2; exit 2; }
. "$REPO/scripts/bench/prepare.sh"
bench_prepare bench-incast
echo "bench-incast: $ROUNDS rounds of CC off (GSO on, then off), CC on and rxe senders, ${SECS} s each, one guest"
rc=0
"$REPO/scripts/guest/run-guest" -t $((ROUNDS * 4 * (SECS + 60) + 400)) -r "$dir" \
	-n sroce-incast --env "BENCH_INCAST_ROUNDS=$ROUNDS" --env "INCAST_SECS=$SECS" \
	-- bash "$REPO/scripts/bench-incast.sh" --in-guest >"$dir/run.log" 2>&1 || rc=$?
fig=$dir/figures.tsv
# The run names carry their round for the logs; the table wants one name.
[[ -s $fig ]] && sed -i 's/^\([a-z0-9-]*\)-[0-9]*\t/\1\t/' "$fig"

echo
echo "==== incast: 3 senders -> 1 receiver, 40 Mbit/s bottleneck marking CE at 2 ms; median (range) of $ROUNDS rounds"
if [[ -s $fig ]]; then
	awk -F'\t' -v metrics="${METRICS[*]}" "$FIGURES_AWK"'
	END {
		n = split(metrics, m, " ")
		split("goodput, % of the bottleneck|bottleneck busy, % of time|Jain index of the senders|probe median, ms|probe p99, ms|packets lost|senders\x27 resends|  of them tail probes", label, "|")
		fmt = "%-28s %18s %18s %18s %18s %18s %18s\n"
		printf fmt, "", "CC off", "CC off, 1 pkt/skb", "CC on", "rxe senders", "CC on/off", "CC on/rxe"
		for (i = 1; i <= n; i++)
			printf fmt, label[i], cell("cc-off", "incast", m[i]),
				cell("1pkt", "incast", m[i]),
				cell("cc-on", "incast", m[i]), cell("rxe", "incast", m[i]),
				ratiok(key("cc-on", "incast", m[i]), key("cc-off", "incast", m[i]), lat(m[i])),
				ratiok(key("cc-on", "incast", m[i]), key("rxe", "incast", m[i]), lat(m[i]))
	}' "$fig"
	echo
	echo "Ratios within each round, above 1 where CC on is better. Resends: sroce's"
	echo "timeouts, sequence NAKs and tail probes; rxe's completer retries."
	echo "CC off, 1 pkt/skb: gso_tx=0, what this emulated bottleneck path passes"
	echo "when each packet is its own skb (why paced QPs send in bursts)."
	print_failures "$fig"
	grep -q 'FAILED' "$fig" && rc=1
else
	echo "no figures: the guest did not get as far as measuring (see $dir/output.log)"
	rc=1
fi
echo
echo "==== guest kernel log: scripts/guest/check-kmsg.sh $dir/dmesg"
if "$REPO/scripts/guest/check-kmsg.sh" "$dir/dmesg"; then
	echo "clean: no warnings, BUGs, oopses, hung tasks or stalls"
else
	rc=1
fi
echo "bench-incast: outputs, console log and dmesg are in $dir"
exit $((rc != 0))
