#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-mpi.sh: Open MPI across two guests, over sroce and over TCP (not a
# test: `make bench-mpi`, and the second part of `make bench`). Builds
# the module and tests/guest/progs, boots two guests on the UNIX socket
# wire (scripts/guest/run-guest-pair --wire unix: no delayed-ACK stalls)
# with sroce0 on each one's eth0, and runs tests/guest/progs/mpi_verify -b
# (8 B ping-pong latency, 1 MiB streaming bandwidth) with one rank per
# guest, alternately
#
#   sroce   the UCX PML and UCX over rc_verbs on sroce0 (as guest2/mpi-wire)
#   TCP     Open MPI's ob1 PML and its TCP transport on the same eth0
#
# BENCH_MPI_RUNS times each (default 5), in the same two boots. Prints the
# median, minimum and maximum of each figure and the ratio of the medians
# (sroce/TCP: above 1 is better for bandwidth, below 1 for latency). The
# guests are emulated (TCG) and share the host's cores: only the ratios
# mean something. Results in build/bench-mpi/ (figures.tsv, outputs,
# console logs). Exit status 0 if every run gave its figures.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${BENCH_MPI_RUNS:-5}

in_guest() {
	. "$REPO/tests/guest/lib.sh"
	. "$REPO/tests/guest/lib-mpi.sh"
	[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
	wire_rdma_dev
	wire_meet
	gid=$g4
	if [[ $ROLE == B ]]; then
		mpi_peer_up
		wait_peer mpi-done $((RUNS * 300))
		mpi_peer_down
	else
		local r how fig
		: >"$RESULTS/figures.tsv"
		mpi_launcher_up
		for ((r = 1; r <= RUNS; r++)); do
			for how in ucx tcp; do
				mpi_run "$how-$r" 240 "$how" -b
				fig=$(sed -n 's/^mpi_verify bench lat_us \([0-9.]*\) bw_MBps \([0-9.]*\)$/\1\t\2/p' "$MPI_OUT")
				[[ -n $fig ]] || { cat "$MPI_OUT"; fail "$how-$r: no figures"; }
				printf '%s\t%s\n' "$how" "$fig" >>"$RESULTS/figures.tsv"
				echo "bench-mpi: run $r $how: $fig"
			done
		done
		signal mpi-done
	fi
	wire_done
}

if [[ ${1:-} == --in-guest ]]; then
	in_guest "${2:-}"
	exit
fi

. "$REPO/scripts/bench/prepare.sh"
bench_prepare bench-mpi
echo "bench-mpi: $RUNS runs each of MPI over sroce (UCX) and over TCP, two guests"
rc=0
"$REPO/scripts/guest/run-guest-pair" -t $((RUNS * 120 + 300)) --wire unix \
	--env "BENCH_MPI_RUNS=$RUNS" "$dir" \
	bash "$REPO/scripts/bench-mpi.sh" --in-guest >"$dir/run.log" 2>&1 || rc=1
fig=$dir/A/figures.tsv
if ((rc)) || [[ ! -s $fig ]]; then
	echo "bench-mpi: the guests failed; see $dir/A/output.log and $dir/B/output.log"
	tail -n 20 "$dir/A/output.log" 2>/dev/null || true
	exit 1
fi
awk -F'\t' '
function stats(how, col,    n, i, j, t, v) {
	n = 0
	for (i = 1; i <= rows; i++)
		if (h[i] == how) v[++n] = (col == 2 ? lat[i] : bw[i])
	for (i = 1; i <= n; i++)		# insertion sort, n is small
		for (j = i; j > 1 && v[j] < v[j - 1]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	med[how, col] = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	return sprintf("%10.2f %10.2f %10.2f   (%d runs)", med[how, col], v[1], v[n], n)
}
{ rows++; h[rows] = $1; lat[rows] = $2; bw[rows] = $3 }
END {
	printf "%-28s %10s %10s %10s\n", "", "median", "min", "max"
	printf "%-28s %s\n", "latency 8 B, usec: sroce", stats("ucx", 2)
	printf "%-28s %s\n", "                   TCP", stats("tcp", 2)
	printf "%-28s %s\n", "bandwidth 1 MiB, MB/s: sroce", stats("ucx", 3)
	printf "%-28s %s\n", "                   TCP", stats("tcp", 3)
	printf "ratio sroce/TCP: latency %.2f, bandwidth %.2f\n",
		med["ucx", 2] / med["tcp", 2], med["ucx", 3] / med["tcp", 3]
}' "$fig"
