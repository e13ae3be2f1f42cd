#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: `make bench` (not part of `make check`: benchmarks are not
# tests). Installs what is needed, builds the module, boots one guest and
# measures there, with perftest over RC, first the in-tree rdma_rxe and
# then sroce:
#
#   ib_write_bw, ib_read_bw, ib_send_bw   64 KiB messages, average MB/sec
#   ib_read_lat, ib_write_lat             2 bytes, typical and average usec
#
# in three configurations, all on a veth pair (veth0 192.0.2.1 here, veth1
# 192.0.2.2 in network namespace "peer"):
#
#   rxe          rxe0 on veth0 talking to itself (rdma_rxe cannot deliver
#                between two of its own devices on one host)
#   sroce 1 dev  sroce0 on veth0 talking to itself, the same setup as rxe
#   sroce 2 dev  sroce0 on veth0 <-> sroce1 on veth1 in "peer"
#
# and prints a table with the ratios of both sroce configurations against
# rxe. Under it, what programs get on the path of sroce 2 dev without
# RDMA: a UDP ping-pong of busy-polling processes
# (scripts/bench/udp_pingpong.c) and one TCP stream (iperf3), measured
# first, while nothing else runs. The absolute figures are those of an emulated (TCG) guest: only the
# ratios mean something. A sroce run that fails shows FAILED and the bench
# goes on. Exit status: 0 if the guest ran, rxe gave its figures and the
# guest kernel log is clean (whatever sroce did), 1 otherwise.
#
# Environment:
#   BENCH_MTU=1500       netdev MTU (1500 gives a 1024 path MTU; 4200 or
#                        more gives 4096)
#   BENCH_BW_ITERS=1000  messages of each bandwidth run (perftest -n)
#   BENCH_LAT_ITERS=2000 iterations of each latency run (perftest -n)
#   BENCH_BUDGET=480     seconds of measuring in the guest: rxe always runs
#                        (each run has a timeout), then each sroce
#                        configuration gets half of what is left; a run
#                        gets at most 30 s past its configuration's share,
#                        and one that would start past it is SKIPPED
#   BENCH_BUILD=0        use the sroce.ko already built instead of running
#                        `make module`
#
# Results (perftest outputs, figures.tsv, console log, dmesg) are kept in
# build/bench/. bench.sh --in-guest is the part that runs inside the guest.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/scripts/bench/figures.sh"

BENCH_MTU=${BENCH_MTU:-1500}
BENCH_BW_ITERS=${BENCH_BW_ITERS:-1000}
BENCH_LAT_ITERS=${BENCH_LAT_ITERS:-2000}
BENCH_BUDGET=${BENCH_BUDGET:-480}

# The measurements, in the order they run (the quick ones first, in case
# time runs out): name, perftest program and arguments. Bandwidth runs
# report BW_average, latency runs t_typical and t_avg.
BENCH_TESTS=(
	"ib_read_lat|-s 2 -n $BENCH_LAT_ITERS"
	"ib_write_lat|-s 2 -n $BENCH_LAT_ITERS"
	"ib_write_bw|-s 65536 -n $BENCH_BW_ITERS"
	"ib_read_bw|-s 65536 -n $BENCH_BW_ITERS"
	"ib_send_bw|-s 65536 -n $BENCH_BW_ITERS"
)
# The figures' runs (scripts/bench/figures.sh): rxe, sroce-self and
# sroce-pair (the three configurations), udp and tcp (sockets).

# --- in the guest ----------------------------------------------------------------

in_guest() {
	. "$REPO/tests/guest/lib.sh"
	local start=$SECONDS
	FIGURES=$RESULTS/figures.tsv
	: >"$FIGURES"
	: >"$RESULTS/info.txt"

	# fail_all CONFIG WHY: every figure of CONFIG is FAILED.
	fail_all() {
		local t
		echo "bench: $1: $2"
		for t in "${BENCH_TESTS[@]}"; do
			t=${t%%|*}
			if [[ $t == *_lat ]]; then
				record "$1" "$t" t_typical FAILED "" "$2"
				record "$1" "$t" t_avg FAILED "" "$2"
			else
				record "$1" "$t" BW_average FAILED "" "$2"
			fi
		done
	}

	# measure CONFIG DEADLINE SNS SDEV SGID CNS CDEV CGID: every test once;
	# none starts after DEADLINE (in $SECONDS; 0: no deadline).
	measure() {
		local config=$1 deadline=$2 t t0 prog args secs out rc metrics m v why
		shift 2
		for t in "${BENCH_TESTS[@]}"; do
			prog=${t%%|*} args=${t#*|}
			if [[ $prog == *_lat ]]; then
				metrics=(t_typical t_avg) secs=90
			else
				metrics=(BW_average) secs=120
			fi
			if ((deadline && SECONDS >= deadline)); then
				for m in "${metrics[@]}"; do
					record "$config" "$prog" "$m" SKIPPED "" \
						"out of time (BENCH_BUDGET=${BENCH_BUDGET}s)"
				done
				echo "bench: $config $prog skipped (out of time)"
				continue
			fi
			if ((deadline && secs > deadline - SECONDS + 30)); then
				secs=$((deadline - SECONDS + 30))
			fi
			out=$RESULTS/$config-$prog
			rc=0 t0=$SECONDS
			# shellcheck disable=SC2086 # args are words
			perftest_pair "$out" "$secs" "$1" "$2" "$3" "$4" "$5" "$6" 192.0.2.1 \
				"$prog" $args || rc=$?
			why=
			if ((rc == 124)); then
				why="client timed out after ${secs}s"
			elif ((rc != 0)); then
				why=$(perftest_error "$out-client.txt")
				[[ -n $why ]] || why=$(perftest_error "$out-server.txt")
				why="exit $rc${why:+: $why}"
			fi
			for m in "${metrics[@]}"; do
				v=
				if [[ -z $why ]]; then
					v=$(perftest_value "$out-client.txt" "$m")
				fi
				if [[ -n $v ]]; then
					record "$config" "$prog" "$m" "${v% *}" "${v#* }"
					echo "bench: $config $prog $m = $v ($((SECONDS - t0))s)"
				else
					if [[ -z $why ]]; then
						why=$(perftest_error "$out-client.txt")
						why=${why:-no figures in the client output}
					fi
					record "$config" "$prog" "$m" FAILED "" "$why"
					echo "bench: $config $prog $m FAILED ($why; $((SECONDS - t0))s)"
				fi
			done
		done
	}

	info() { echo "$*" | tee -a "$RESULTS/info.txt"; }

	# sockets_pair: sockets on the path of sroce 2 dev, veth0 to veth1
	# in "peer": a UDP ping-pong of two busy-polling processes (one
	# datagram a turn, as a read and its response; two, as a WRITE and
	# the ACK of the peer's), and one TCP stream.
	sockets_pair() {
		local pp=$RESULTS/udp_pingpong srv frames out v
		ip netns exec peer "$pp" -s 17001 &
		srv=$!
		sleep 0.5
		for frames in 1 2; do
			out=$(run_timeout 60 "$pp" -c 192.0.2.2 17001 "$BENCH_LAT_ITERS" "$frames") || out=
			v=$(sed -n 's/^udp_pingpong median \([0-9.]*\) us.*/\1/p' <<<"$out")
			echo "bench: udp $frames a turn: ${out:-FAILED}"
			record udp "pingpong_$frames" rtt_median "${v:-FAILED}" usec
		done
		kill "$srv"
		wait "$srv" 2>/dev/null || true

		ip netns exec peer iperf3 -s -1 -p 5201 >"$RESULTS/iperf3-server.txt" 2>&1 &
		srv=$!
		for _ in {1..100}; do
			ip netns exec peer ss -ltnH "sport = :5201" | grep -q . && break
			nap 0.2
		done
		run_timeout 60 iperf3 -c 192.0.2.2 -p 5201 -t 5 -f M \
			>"$RESULTS/iperf3-client.txt" 2>&1 || true
		v=$(awk '/receiver/ { for (i = 2; i <= NF; i++)
			if ($i == "MBytes/sec") print $(i - 1) }' "$RESULTS/iperf3-client.txt")
		echo "bench: tcp iperf3 = ${v:-FAILED} MB/sec"
		record tcp iperf3 throughput "${v:-FAILED}" MB/sec
		kill "$srv" 2>/dev/null || true
		wait "$srv" 2>/dev/null || true
	}

	make_veth_netns
	ip link set veth0 mtu "$BENCH_MTU"
	ip -n peer link set veth1 mtu "$BENCH_MTU"
	# 0. Sockets on the same path, while nothing else runs.
	sockets_pair
	run_timeout 60 modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_ucm ||
		fail "cannot load the RDMA core modules"

	local g0 g1
	# 1. rdma_rxe, one device talking to itself.
	if run_timeout 60 modprobe rdma_rxe &&
		run_timeout 30 rdma link add rxe0 type rxe netdev veth0 &&
		g0=$(wait_roce_gid 10 rxe0 192.0.2.1); then
		info "rxe0: active_mtu $(devinfo_field rxe0 active_mtu), GID index $g0"
		measure rxe 0 "" rxe0 "$g0" "" rxe0 "$g0"
	else
		fail_all rxe "cannot set up rxe0 on veth0"
	fi
	# rdma_rxe holds UDP 4791 here while it is loaded.
	run_timeout 30 rdma link delete rxe0 || true
	run_timeout 60 modprobe -r rdma_rxe || echo "bench: modprobe -r rdma_rxe failed"

	# 2. sroce: one device talking to itself, then two across namespaces;
	#    each gets half of the time left.
	local share=$(((BENCH_BUDGET - (SECONDS - start)) / 2))
	((share > 0)) || share=1
	if ! (load_sroce); then
		fail_all sroce-self "cannot load $SROCE_KO"
		fail_all sroce-pair "cannot load $SROCE_KO"
		return 0
	fi
	if run_timeout 30 rdma link add sroce0 type sroce netdev veth0 &&
		g0=$(wait_roce_gid 10 sroce0 192.0.2.1); then
		info "sroce0: active_mtu $(devinfo_field sroce0 active_mtu), GID index $g0"
		measure sroce-self $((SECONDS + share)) "" sroce0 "$g0" "" sroce0 "$g0"
		if run_timeout 30 ip netns exec peer rdma link add sroce1 type sroce netdev veth1 &&
			g1=$(wait_roce_gid 10 sroce1 192.0.2.2); then
			info "sroce1: active_mtu $(devinfo_field sroce1 active_mtu), GID index $g1 (netns peer)"
			measure sroce-pair $((start + BENCH_BUDGET)) "" sroce0 "$g0" peer sroce1 "$g1"
		else
			fail_all sroce-pair "cannot set up sroce1 on veth1 in netns peer"
		fi
	else
		fail_all sroce-self "cannot set up sroce0 on veth0"
		fail_all sroce-pair "cannot set up sroce0 on veth0"
	fi
	(unload_sroce) || echo "bench: unloading sroce failed"
	ip netns del peer
	echo "bench: measured in $((SECONDS - start))s"
}

if [[ ${1:-} == --in-guest ]]; then
	in_guest
	exit
fi

# --- on the host -------------------------------------------------------------------

for v in BENCH_MTU BENCH_BW_ITERS BENCH_LAT_ITERS BENCH_BUDGET; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bench: $v must be a positive number" >&2; exit 2; }
done

# bench_table FIGURES.TSV: the three configurations against each other
# (print_table), sroce 2 dev against sockets on its path, and how the
# runs went.
bench_table() {
	local rows="ib_write_bw BW_average 64KiB;ib_read_bw BW_average 64KiB"
	rows+=";ib_send_bw BW_average 64KiB;ib_read_lat t_typical 2B;ib_read_lat t_avg 2B"
	rows+=";ib_write_lat t_typical 2B;ib_write_lat t_avg 2B"
	print_table "$1" "$rows" "rxe=rxe" "sroce 1 dev=sroce-self" "ratio=sroce-self/rxe" \
		"sroce 2 dev=sroce-pair" "ratio=sroce-pair/rxe"
	echo
	echo "ratio: sroce/rxe for bandwidth, rxe/sroce for latency; above 1 means sroce is better."
	echo "rxe and sroce 1 dev: one device talking to itself; sroce 2 dev: sroce0 <-> sroce1 (netns peer)."
	# sroce 2 dev against sockets on its path. perftest reports a read
	# round trip whole, a WRITE ping-pong halved.
	echo
	echo "sockets on the path of sroce 2 dev (veth0 <-> veth1 in netns peer):"
	awk -F'\t' "$FIGURES_AWK"'
	END {
		fmt = "  %-44s %10s   %-26s %9s %6s\n"
		printf fmt, "", "sockets", "sroce 2 dev", "", "ratio"
		u1 = cell("udp", "pingpong_1", "rtt_median"); r1 = cell("sroce-pair", "ib_read_lat", "t_typical")
		printf fmt, "UDP ping-pong, 1 datagram a turn, round trip", u1 " us", "ib_read_lat typical", r1, ratio(r1, u1, 1)
		u2 = cell("udp", "pingpong_2", "rtt_median"); r2 = cell("sroce-pair", "ib_write_lat", "t_typical")
		h2 = num(u2) ? sprintf("%.1f", u2 / 2) : u2
		printf fmt, "UDP ping-pong, 2 datagrams a turn, half of it", h2 " us", "ib_write_lat typical", r2, ratio(r2, h2, 1)
		t = cell("tcp", "iperf3", "throughput"); w = cell("sroce-pair", "ib_write_bw", "BW_average")
		printf fmt, "TCP, one stream (iperf3, 5 s), MB/sec", t, "ib_write_bw", w, ratio(w, t, 0)
		print "  ratio: sroce 2 dev against sockets, above 1 means sroce is better."
	}' "$1"
	print_failures "$1"
}


"$REPO/scripts/install-deps.sh" iperf3
KVER=$("$REPO/scripts/kver.sh")
if [[ ${BENCH_BUILD:-1} != 0 ]]; then
	make -C "$REPO" module KVER="$KVER"
fi

results=$REPO/build/bench
mkdir -p "$results"
rm -f "$results"/*.txt "$results"/figures.tsv
gcc -O2 -Wall -Wextra -o "$results/udp_pingpong" "$REPO/scripts/bench/udp_pingpong.c"
# The guest's hard limit, for when things go badly wrong (a normal run
# ends well before it): the measuring budget, plus rxe's runs on a busy
# host, plus boot and setup.
guest_timeout=$((BENCH_BUDGET + 400))

echo "bench: booting a guest (software emulation: 5 to 10 minutes in all)..."
rc=0
"$REPO/scripts/guest/run-guest" --quiet --job-console -t "$guest_timeout" -r "$results" \
	-n sroce-bench --env "BENCH_MTU=$BENCH_MTU" --env "BENCH_BW_ITERS=$BENCH_BW_ITERS" \
	--env "BENCH_LAT_ITERS=$BENCH_LAT_ITERS" --env "BENCH_BUDGET=$BENCH_BUDGET" \
	-- "$REPO/scripts/bench.sh" --in-guest || rc=$?

echo
echo "==== perftest, RC, one QP: netdev MTU $BENCH_MTU; bandwidth: 64 KiB x" \
	"$BENCH_BW_ITERS; latency: 2 bytes x $BENCH_LAT_ITERS"
[[ -s $results/info.txt ]] && sed 's/^/  /' "$results/info.txt"
echo
if [[ -s $results/figures.tsv ]]; then
	bench_table "$results/figures.tsv"
else
	echo "no figures: the guest did not get as far as measuring"
fi
if ((rc != 0)); then
	echo "bench: the guest job failed (exit $rc)"
elif ! has_figures "$results/figures.tsv" '^rxe$'; then
	echo "bench: no rxe figures: the baseline is missing"
	rc=1
fi
echo
echo "==== guest kernel log: scripts/guest/check-kmsg.sh $results/dmesg"
if "$REPO/scripts/guest/check-kmsg.sh" "$results/dmesg"; then
	echo "clean: no warnings, BUGs, oopses, hung tasks or stalls"
else
	rc=1
fi
echo "bench: perftest outputs, console log and dmesg are in $results"
exit $((rc != 0))
