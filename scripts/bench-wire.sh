#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-wire.sh: `make bench-wire` (not part of `make check`: benchmarks
# are not tests). Installs what is needed (iperf3 too), builds the module,
# boots two guests joined by a virtual wire (scripts/guest/run-guest-pair
# --wire unix: a TCP wire would add tens of milliseconds of Nagle delay to
# latencies; eth0 192.0.2.1 in guest A, 192.0.2.2 in guest B) and measures
# there, in the same two boots:
#
#   TCP     iperf3, one stream B -> A, MB/sec: the ceiling of the wire
#   UDP     iperf3 -u, datagrams of 1056 bytes (a RoCE packet's UDP
#           payload at path MTU 1024) B -> A as fast as B can send, MB/sec
#           received (clean wire only): what the wire carries in packets
#           of RoCE's size, where TCP sends 64 KiB segments (GSO) per trip
#           through the emulated NIC
#   rxe     the in-tree rdma_rxe on both ends (rxe0 <-> rxe0)
#   sroce   sroce on both ends (sroce0 <-> sroce0)
#
# each first on the clean wire, then under netem on both guests' eth0
# (BENCH_NETEM below, both ways). perftest over RC, one QP, A the server,
# B the client:
#
#   ib_write_bw, ib_send_bw, ib_read_bw   64 KiB messages for BENCH_BW_SECS
#                                         seconds (perftest -D), average MB/sec
#   ib_read_lat, ib_write_lat, ib_send_lat
#                                         2 bytes, typical and average usec
#
# rdma_rxe holds UDP port 4791 of the initial namespace from its load to
# its unload, so sroce cannot bind beside it: rxe is measured first, then
# its link deleted and the module removed, then sroce loaded. The table
# gives the ratios sroce/rxe and sroce/TCP. The absolute figures are those
# of emulated (TCG) guests sharing the host's cores: only ratios mean
# something. Each figure comes from one run; a run that fails shows FAILED
# and the bench goes on. Exit status: 0 if both guests ran, rxe gave
# figures and both guest kernel logs are clean, 1 otherwise.
#
# Environment:
#   BENCH_MTU=1500        eth0 MTU in both guests (1500: path MTU 1024)
#   BENCH_BW_SECS=10      perftest -D of each bandwidth run (its first and
#                         last 2 s are not measured: perftest --margin)
#   BENCH_LAT_ITERS=1000  iterations of each latency run on the clean wire
#   BENCH_NETEM_LAT_ITERS=200
#                         iterations of each latency run under netem; 0:
#                         no latency runs under netem
#   BENCH_TCP_SECS=10     iperf3 -t
#   BENCH_BUDGET=600      seconds of measuring: rxe gets half of what is
#                         left after TCP, sroce the rest; a run gets at
#                         most 30 s past its driver's share, and one that
#                         would start past it is SKIPPED
#   BENCH_BUILD=0         use the sroce.ko already built instead of running
#                         `make module`
#   BENCH_NETEM='loss 2% delay 1ms reorder 10% duplicate 1%'
#                         the netem profile (e.g. 'delay 1ms' alone shows
#                         what the delay costs without the loss)
#
# Every bench keeps its results (perftest and iperf3 outputs, figures.tsv,
# both guests' console logs and dmesg) in build/bench-wire/run-N, N
# counting the benches run in this tree. bench-wire.sh --in-guest ROLE is
# the part that runs inside the guests.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/scripts/bench/figures.sh"

BENCH_MTU=${BENCH_MTU:-1500}
BENCH_BW_SECS=${BENCH_BW_SECS:-10}
BENCH_LAT_ITERS=${BENCH_LAT_ITERS:-1000}
BENCH_NETEM_LAT_ITERS=${BENCH_NETEM_LAT_ITERS:-200}
BENCH_TCP_SECS=${BENCH_TCP_SECS:-10}
BENCH_BUDGET=${BENCH_BUDGET:-600}
# The bad wire, on each guest's eth0 (so on both directions).
read -r -a BENCH_NETEM <<<"${BENCH_NETEM:-loss 2% delay 1ms reorder 10% duplicate 1%}"

BW_TESTS=(ib_write_bw ib_send_bw ib_read_bw)
LAT_TESTS=(ib_read_lat ib_write_lat ib_send_lat)
# The figures' runs are DRIVER-COND: rxe, sroce, tcp or udp, on the clean
# wire or under netem (rxe-clean, sroce-netem, ...).

# --- in the guests ---------------------------------------------------------------
#
# Both guests run the same sequence of steps. Guest A serves every run and
# decides whether it happens (it alone keeps the deadline, so that the two
# never disagree); guest B runs the clients and records every figure in
# its figures.tsv. They talk through files in $SHARED (post/heard).

in_guest() {
	. "$REPO/tests/guest/lib.sh"
	[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
	FIGURES=$RESULTS/figures.tsv INFO=$RESULTS/info.txt
	: >"$FIGURES"
	: >"$INFO"
	STEP_RC=0 STEP_WHY='' STEP_AGAIN=''

	say() { echo "bench: $*"; }
	info() { echo "$*" >>"$INFO"; }

	# post NAME [TEXT]: tell the peer NAME, with TEXT; written whole, so
	# that the peer never reads half of it.
	post() {
		printf '%s\n' "${2:-}" >"$SHARED/.$ROLE.$1"
		mv "$SHARED/.$ROLE.$1" "$SHARED/$ROLE.$1"
	}

	# heard NAME SECS: wait until the peer posted NAME, its text then in
	# HEARD; status 1 after SECS. A peer whose script died ends ours too.
	heard() {
		local file=$SHARED/$PEER_ROLE.$1 end=$((SECONDS + $2))
		until [[ -e $file ]]; do
			peer_failed && fail "peer $PEER_ROLE failed while we waited for '$1'"
			((SECONDS < end)) || return 1
			nap 0.2
		done
		HEARD=$(<"$file")
	}

	# meet NAME TEXT: post NAME with TEXT and wait for the peer's, in HEARD.
	meet() {
		post "$1" "$2"
		heard "$1" 300 || fail "peer $PEER_ROLE never reached '$1'"
	}

	# use_impl rxe|sroce: what lib.sh derives from SROCE_IMPL, for the
	# driver of the next phase.
	use_impl() {
		SROCE_IMPL=$1
		case $1 in
		rxe)	RDMA_TYPE=rxe RDMA_MODULE=rdma_rxe ;;
		sroce)	RDMA_TYPE=sroce RDMA_MODULE=sroce ;;
		esac
		DEVPFX=$RDMA_TYPE
		dev=${DEVPFX}0
	}

	# pair_step NAME SECS PORT: one client/server run; each guest has set
	# its side's command line, SRV=(...) on A, CLI=(...) on B, both on TCP
	# port PORT (next_port: both guests take ports alike). Outputs go to $RESULTS/NAME-server.txt (A) and
	# NAME-client.txt (B). A starts the server, waits until it listens and
	# lets B run the client for SECS (fewer near the deadline); the server
	# gets 15 s more to finish after a good client, 2 s after a failed one
	# (perftest may spin on its CQ), then it is killed. Both return once
	# both sides are done. On B: STEP_RC is the client's status (124: timed
	# out, 125: no server, 126: skipped) and STEP_WHY says why it failed;
	# on A, STEP_RC is what B told it (or 124 if B never did).
	# STEP_AGAIN is set on both when perftest's clock calibration failed
	# (on a busy host), for the caller to run the step again.
	pair_step() {
		local name=$1 secs=$2 port=$3 out pid rc=0 end
		STEP_RC=0 STEP_WHY='' STEP_AGAIN=''
		if [[ $ROLE == A ]]; then
			out=$RESULTS/$name-server.txt
			if ((SECONDS >= DEADLINE)); then
				post "$name.go" "skip out of time (BENCH_BUDGET=${BENCH_BUDGET}s)"
				STEP_RC=126
				return 0
			fi
			((secs <= DEADLINE - SECONDS + 30)) || secs=$((DEADLINE - SECONDS + 30))
			side_start pid "$out" $((secs + 30)) "" "${SRV[@]}"
			end=$((SECONDS + 30))
			until listening_or_gone "$pid" "$port" || ((SECONDS >= end)); do
				nap 0.2
			done
			if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= end)); then
				kill "$pid" 2>/dev/null || true
				wait "$pid" 2>/dev/null || rc=$?
				say "A: $name: the server did not listen (exit $rc)"
				post "$name.go" "fail server exit $rc$(run_why "$out")"
				STEP_RC=125
				return 0
			fi
			post "$name.go" "go $secs"
			if heard "$name.done" $((secs + 60)); then
				read -r rc STEP_AGAIN <<<"$HEARD"
			else
				rc=124
			fi
			STEP_RC=$rc
			end=$((SECONDS + (rc == 0 ? 15 : 2)))
			while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)); do
				nap 0.2
			done
			kill "$pid" 2>/dev/null || true
			rc=0
			wait "$pid" 2>/dev/null || rc=$?
			post "$name.end" "$rc$(run_why "$out")"
		else
			out=$RESULTS/$name-client.txt
			if ! heard "$name.go" 180; then
				STEP_RC=125 STEP_WHY="no word from guest A's server in 180s"
				return 0
			fi
			case $HEARD in
			skip\ *) STEP_RC=126 STEP_WHY=${HEARD#skip }; return 0 ;;
			fail\ *) STEP_RC=125 STEP_WHY=${HEARD#fail }; return 0 ;;
			esac
			secs=${HEARD#go }
			side_start pid "$out" "$secs" "" "${CLI[@]}"
			wait "$pid" || STEP_RC=$?
			((STEP_RC != 137)) || STEP_RC=124
			! grep -q 'Correlation coefficient' "$out" || STEP_AGAIN=again
			if ((STEP_RC == 124)); then
				STEP_WHY="client timed out after ${secs}s"
			elif ((STEP_RC != 0)); then
				STEP_WHY="client exit $STEP_RC$(run_why "$out")"
			fi
			post "$name.done" "$STEP_RC $STEP_AGAIN"
			if ! heard "$name.end" 60; then
				say "guest A did not end $name"
			elif ((STEP_RC != 0)) && [[ $HEARD != 0 ]]; then
				STEP_WHY+="; server exit $HEARD"
			fi
		fi
	}

	# run_why FILE: " (why the run that wrote FILE failed)", or nothing.
	run_why() {
		local w
		w=$(perftest_why "$1")
		if [[ -z $w ]]; then
			w=$(perftest_error "$1")
			[[ -z $w ]] || w=" ($w)"
		fi
		echo "$w"
	}

	# perftest_step DRIVER COND PROG SECS ARGS...: one perftest run between
	# the two ${dev}s; B records its figures (or why there are none).
	# perftest calibrates its cycle counter against gettimeofday when it
	# reports; with four vCPUs on two cores the fit can fail ("Correlation
	# coefficient r^2 < 0.9") and every figure comes out 0 or inf: such a
	# run is made again, up to three times in all.
	perftest_step() {
		local drv=$1 cond=$2 prog=$3 secs=$4 name port metrics m v try=1 t0=$SECONDS
		shift 4
		name=$drv-$cond-$prog
		while :; do
			next_port port
			SRV=("$prog" -d "$dev" -x "$g4" -F -p "$port" "$@")
			CLI=("${SRV[@]}" "$PEER_IP")
			pair_step "$name" "$secs" "$port"
			if [[ -z $STEP_AGAIN ]] || ((try == 3)); then
				break
			fi
			[[ $ROLE == B ]] && say "$name: perftest's clock calibration failed; again"
			try=$((try + 1))
			name=$drv-$cond-$prog-try$try
		done
		# What the device saw, for whoever looks into a failed run.
		if ((STEP_RC != 0 && STEP_RC != 126)); then
			dev_counters "$dev" >"$RESULTS/$name-counters.txt" 2>&1 || true
		fi
		[[ $ROLE == B ]] || return 0
		if [[ -n $STEP_AGAIN ]]; then
			STEP_RC=1 STEP_WHY="perftest's clock calibration failed $try times (busy host)"
		fi
		# A timed (-D) run exits 0 even if not one message completed.
		v=
		((STEP_RC != 0)) || v=$(perftest_value "$RESULTS/$name-client.txt" '#iterations')
		if [[ $prog == *_bw && ${v% *} == 0 ]]; then
			STEP_RC=1 STEP_WHY="not one message completed in ${BENCH_BW_SECS}s (a stall?)"
			dev_counters "$dev" >"$RESULTS/$name-counters.txt" 2>&1 || true
		fi
		metrics=(BW_average)
		[[ $prog == *_lat ]] && metrics=(t_typical t_avg)
		for m in "${metrics[@]}"; do
			v=
			((STEP_RC != 0)) || v=$(perftest_value "$RESULTS/$name-client.txt" "$m")
			if [[ -n $v ]]; then
				record "$drv-$cond" "$prog" "$m" "${v% *}" "${v#* }"
				say "$drv $cond $prog $m = $v ($((SECONDS - t0))s)"
			else
				report_miss "$drv" "$cond" "$prog" "$m" "${STEP_WHY:-no figures in the client output}"
			fi
		done
	}

	# report_miss DRIVER COND TEST METRIC WHY: FAILED or SKIPPED, and why.
	report_miss() {
		local what=FAILED
		((STEP_RC != 126)) || what=SKIPPED
		record "$1-$2" "$3" "$4" "$what" "" "$5"
		say "$1 $2 $3 $4 $what ($5)"
	}

	# miss_all DRIVER COND WHY: every figure of DRIVER under COND failed.
	miss_all() {
		local t
		[[ $ROLE == B ]] || return 0
		STEP_RC=1
		for t in "${BW_TESTS[@]}"; do
			report_miss "$1" "$2" "$t" BW_average "$3"
		done
		[[ $2 == netem ]] && ((BENCH_NETEM_LAT_ITERS == 0)) && return 0
		for t in "${LAT_TESTS[@]}"; do
			report_miss "$1" "$2" "$t" t_typical "$3"
			report_miss "$1" "$2" "$t" t_avg "$3"
		done
	}

	# tcp_step COND [udp]: iperf3 from B to A for BENCH_TCP_SECS seconds
	# (udp: datagrams of RoCE's size, as fast as B can send them).
	tcp_step() {
		local port v proto=${2:-tcp} opts=()
		next_port port
		[[ $proto == udp ]] && opts=(-u -b 0 -l 1056)
		SRV=(iperf3 -s -1 -p "$port")
		CLI=(iperf3 -c "$PEER_IP" -p "$port" -t "$BENCH_TCP_SECS" -f M "${opts[@]}")
		pair_step "$proto-$1-iperf3" $((BENCH_TCP_SECS + 30)) "$port"
		[[ $ROLE == B ]] || return 0
		v=
		if ((STEP_RC == 0)); then
			# "... sec  X MBytes  Y MBytes/sec ... receiver": -f M
			# counts 2^20 bytes, as perftest's MB/sec does.
			v=$(awk '/receiver$/ { for (i = 2; i <= NF; i++)
				if ($i == "MBytes/sec") { print $(i - 1); exit } }' \
				"$RESULTS/$proto-$1-iperf3-client.txt")
		fi
		if [[ -n $v ]]; then
			record "$proto-$1" iperf3 throughput "$v" MB/sec
			say "$proto $1 iperf3 = $v MB/sec"
		else
			report_miss "$proto" "$1" iperf3 throughput "${STEP_WHY:-no receiver line in the iperf3 output}"
		fi
	}

	# netem_on TAG / netem_off TAG: both guests' eth0 impaired, or clean
	# again; netem_on leaves NETEM_OK set if it is on in both.
	netem_on() {
		local st=ok
		if ! run_timeout 30 tc qdisc replace dev eth0 root netem "${BENCH_NETEM[@]}" \
				>"$RESULTS/netem-$1.txt" 2>&1; then
			st="no netem on guest $ROLE: $(head -n 1 "$RESULTS/netem-$1.txt")"
		fi
		meet "netem-on-$1" "$st"
		NETEM_OK=
		[[ $st == ok && $HEARD == ok ]] && NETEM_OK=1
		[[ -n $NETEM_OK ]] || NETEM_WHY=${st#ok}${HEARD#ok}
	}

	netem_off() {
		local stats
		stats=$(tc -s qdisc show dev eth0 | grep -m1 'Sent' | sed 's/^ *//; s/ *$//') || true
		info "netem $1, guest $ROLE eth0: $stats"
		run_timeout 30 tc qdisc del dev eth0 root 2>/dev/null || true
		meet "netem-off-$1" ok
	}

	# driver_up / driver_down: $dev on eth0 with the GID index of MY_IP
	# in g4; why not in UP_WHY.
	driver_up() {
		local out=$RESULTS/$SROCE_IMPL-up.txt
		UP_WHY=
		if [[ $SROCE_IMPL == sroce && -d /sys/module/rdma_rxe ]]; then
			UP_WHY="rdma_rxe is still loaded and holds UDP port 4791"
			return 1
		fi
		if ! (load_sroce && link_add "$dev" eth0) >"$out" 2>&1; then
			UP_WHY=$(grep -m1 '^FAIL' "$out" || tail -n 1 "$out")
			return 1
		fi
		g4=$(wait_roce_gid 10 "$dev" "$MY_IP") || { UP_WHY="no RoCE v2 GID on $dev"; return 1; }
	}

	driver_down() {
		local out=$RESULTS/$SROCE_IMPL-down.txt
		info "guest $ROLE $dev counters: $(dev_counters "$dev" 2>/dev/null)"
		(unload_sroce) >"$out" 2>&1 ||
			say "$ROLE: unloading $RDMA_MODULE failed: $(grep -m1 '^FAIL' "$out" || true)"
	}

	# phase DRIVER: its device up on both guests, every run on the clean
	# wire, then under netem, and the module gone again.
	phase() {
		local drv=$1 t v st=ok
		use_impl "$drv"
		driver_up || st="guest $ROLE: $UP_WHY"
		meet "up-$drv" "$st"
		if [[ $st != ok || $HEARD != ok ]]; then
			[[ $st == ok ]] && st=$HEARD
			miss_all "$drv" clean "$st"
			miss_all "$drv" netem "$st"
			driver_down
			return 0
		fi
		# Which sroce.ko ran: the tree may be rebuilt while we measure.
		v="of kernel $(uname -r)"
		[[ $drv == sroce ]] && v="$(md5sum <"$SROCE_KO" | cut -c1-12) (md5)"
		info "guest $ROLE $dev: $RDMA_MODULE $v, active_mtu $(devinfo_field "$dev" active_mtu)," \
			"GID index $g4"
		for t in "${BW_TESTS[@]}"; do
			perftest_step "$drv" clean "$t" $((BENCH_BW_SECS + 60)) -s 65536 -D "$BENCH_BW_SECS"
		done
		for t in "${LAT_TESTS[@]}"; do
			perftest_step "$drv" clean "$t" 90 -s 2 -n "$BENCH_LAT_ITERS"
		done
		netem_on "$drv"
		if [[ -n $NETEM_OK ]]; then
			for t in "${BW_TESTS[@]}"; do
				perftest_step "$drv" netem "$t" $((BENCH_BW_SECS + 60)) -s 65536 -D "$BENCH_BW_SECS"
			done
			if ((BENCH_NETEM_LAT_ITERS)); then
				for t in "${LAT_TESTS[@]}"; do
					perftest_step "$drv" netem "$t" 90 -s 2 -n "$BENCH_NETEM_LAT_ITERS"
				done
			fi
		else
			miss_all "$drv" netem "$NETEM_WHY"
		fi
		netem_off "$drv"
		driver_down
	}

	setup_wire
	ip link set eth0 mtu "$BENCH_MTU"
	run_timeout 60 modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_ucm ||
		fail "cannot load the RDMA core modules"
	run_timeout 30 modprobe sch_netem || say "$ROLE: no sch_netem module"
	info "guest $ROLE: kernel $(uname -r), eth0 MTU $(</sys/class/net/eth0/mtu), $(nproc) vCPUs"
	meet ready ok

	local start=$SECONDS
	DEADLINE=$((start + BENCH_BUDGET))
	tcp_step clean
	tcp_step clean udp
	netem_on tcp
	if [[ -n $NETEM_OK ]]; then
		tcp_step netem
	elif [[ $ROLE == B ]]; then
		STEP_RC=1
		report_miss tcp netem iperf3 throughput "$NETEM_WHY"
	fi
	netem_off tcp

	# rxe first, with half of what is left; then sroce, once rdma_rxe has
	# given UDP port 4791 back.
	DEADLINE=$((SECONDS + (start + BENCH_BUDGET - SECONDS) / 2))
	phase rxe
	DEADLINE=$((start + BENCH_BUDGET))
	phase sroce
	say "$ROLE: measured in $((SECONDS - start))s"
}

if [[ ${1:-} == --in-guest ]]; then
	in_guest "${2:-}"
	exit
fi

# --- on the host -------------------------------------------------------------------

for v in BENCH_MTU BENCH_BW_SECS BENCH_LAT_ITERS BENCH_TCP_SECS BENCH_BUDGET; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bench-wire: $v must be a positive number" >&2; exit 2; }
done
[[ $BENCH_NETEM_LAT_ITERS =~ ^[0-9]+$ ]] ||
	{ echo "bench-wire: BENCH_NETEM_LAT_ITERS must be a number" >&2; exit 2; }

# bench_table FIGURES.TSV: a table per wire condition (print_table), the
# sockets' figures under it, and how the runs went.
bench_table() {
	local file=$1 c v t rows=''
	for t in "${BW_TESTS[@]}"; do
		rows+="$t BW_average 64KiB;"
	done
	for t in "${LAT_TESTS[@]}"; do
		rows+="$t t_typical 2B;$t t_avg 2B;"
	done
	rows=${rows%;}
	for c in clean netem; do
		if [[ $c == clean ]]; then
			echo "clean wire"
		else
			echo "netem on both guests' eth0: ${BENCH_NETEM[*]}"
		fi
		print_table "$file" "$rows" "rxe=rxe-$c" "sroce=sroce-$c" "sroce/rxe=sroce-$c/rxe-$c" \
			"TCP=tcp-$c iperf3 throughput" "sroce/TCP=sroce-$c/tcp-$c iperf3 throughput"
		echo "TCP (iperf3, one stream): $(figure "$file" "tcp-$c" iperf3 throughput) MB/sec"
		v=$(figure "$file" "udp-$c" iperf3 throughput)
		[[ $v == - ]] || echo "UDP (iperf3, 1056-byte datagrams): $v MB/sec received"
		echo
	done
	echo "ratios: sroce/rxe and sroce/TCP for bandwidth, rxe/sroce for latency:"
	echo "above 1 means sroce is better. MB/sec: 2^20 bytes per second (perftest and iperf3 -f M)."
	print_failures "$file"
}

"$REPO/scripts/install-deps.sh" iperf3
KVER=$("$REPO/scripts/kver.sh")
if [[ ${BENCH_BUILD:-1} != 0 ]]; then
	make -C "$REPO" module KVER="$KVER"
fi

# A directory per bench: run-N is the Nth in this tree.
base=$REPO/build/bench-wire
mkdir -p "$base"
n=1
for d in "$base"/run-*; do
	[[ -d $d && ${d##*-} =~ ^[0-9]+$ ]] || continue
	((${d##*-} < n)) || n=$((${d##*-} + 1))
done
results=$base/run-$n
# Each guest's hard limit, for when things go badly wrong (a normal run
# ends well before it): the measuring budget, plus the last run's grace
# past it, plus boots, set-up and unloading.
guest_timeout=$((BENCH_BUDGET + 300))

tree=$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo "?")
ko=$(make -s --no-print-directory -C "$REPO" ko-path KVER="$KVER")
if [[ -r $ko ]]; then
	ko="$(md5sum <"$ko" | cut -c1-12) (md5), built $(date -r "$ko" '+%F %T')"
else
	ko="not built"
fi
# Other guests on the host take cores from ours: say so with the figures.
busy() { echo "load average $(cut -d' ' -f1 /proc/loadavg), $(pgrep -c qemu-system-x86 || true) other QEMU guests"; }
busy_boot=$(busy)
if pgrep qemu-system-x86 >/dev/null; then
	echo "bench-wire: other QEMU guests are running: the figures will be noisier"
fi
echo "bench-wire: run $n; booting two guests (software emulation: about 10 minutes in all)..."
t0=$SECONDS
# Progress: the guests' "bench:" lines, as they come.
tail -q -n +1 -F "$results/A/output.log" "$results/B/output.log" 2>/dev/null |
	grep --line-buffered '^bench:' &
tail_pid=$!
rc=0
"$REPO/scripts/guest/run-guest-pair" -t "$guest_timeout" --wire unix \
	--env "BENCH_MTU=$BENCH_MTU" --env "BENCH_BW_SECS=$BENCH_BW_SECS" \
	--env "BENCH_LAT_ITERS=$BENCH_LAT_ITERS" --env "BENCH_NETEM_LAT_ITERS=$BENCH_NETEM_LAT_ITERS" \
	--env "BENCH_TCP_SECS=$BENCH_TCP_SECS" --env "BENCH_BUDGET=$BENCH_BUDGET" \
	--env "BENCH_NETEM=${BENCH_NETEM[*]}" \
	"$results" bash "$REPO/scripts/bench-wire.sh" --in-guest >"$results.log" 2>&1 || rc=$?
sleep 1	# let tail show the last lines
kill "$tail_pid" 2>/dev/null || true
wait "$tail_pid" 2>/dev/null || true
mv "$results.log" "$results/run.log"

busy_end=$(busy)
version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "?"; }
echo
echo "==== bench-wire run $n: two guests on a virtual wire for $((SECONDS - t0))s" \
	"(${SECONDS}s with install and build)"
echo "  host: $(nproc) cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo))," \
	"QEMU $(version qemu-system-x86) TCG, guests of 2 vCPUs and 2 GiB"
echo "  host load: before the boots $busy_boot; after them $busy_end"
echo "  software: rdma-core $(version rdma-core), perftest $(version perftest), iperf3 $(version iperf3)"
echo "  sroce: tree $tree when the guests booted, sroce.ko $ko"
cat "$results"/A/info.txt "$results"/B/info.txt 2>/dev/null | sed 's/^/  /'
echo "  perftest RC, one QP, A serves, B is the client: bandwidth 64 KiB messages for" \
	"${BENCH_BW_SECS}s (-D), latency 2 bytes x $BENCH_LAT_ITERS" \
	"(netem: x $BENCH_NETEM_LAT_ITERS); iperf3: one TCP stream B -> A for ${BENCH_TCP_SECS}s," \
	"and on the clean wire 1056-byte UDP datagrams B -> A at full speed" \
	"(the direction of WRITE and SEND data; READ data flows A -> B)"
echo
if [[ -s $results/B/figures.tsv ]]; then
	bench_table "$results/B/figures.tsv"
else
	echo "no figures: the guests did not get as far as measuring"
fi
if ((rc != 0)); then
	echo "bench-wire: a guest failed (exit $rc): see $results/run.log"
	sed -n 's/^FAIL: /  /p' "$results"/A/output.log "$results"/B/output.log 2>/dev/null || true
elif ! has_figures "$results/B/figures.tsv" '^rxe-'; then
	echo "bench-wire: no rxe figures: the baseline is missing"
	rc=1
fi
echo
echo "==== guest kernel logs: scripts/guest/check-kmsg.sh $results/{A,B}/dmesg"
if "$REPO/scripts/guest/check-kmsg.sh" "$results/A/dmesg" "$results/B/dmesg"; then
	echo "clean: no warnings, BUGs, oopses, hung tasks or stalls"
else
	rc=1
fi
echo "bench-wire: outputs, console logs and dmesg are in $results"
exit $((rc != 0))
