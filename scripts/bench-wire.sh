#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-wire.sh: `make bench-wire` (not part of `make check`: benchmarks
# are not tests). Installs what is needed (iperf3 too), builds the module,
# boots two guests joined by a virtual wire (scripts/guest/run-guest-pair
# --wire unix: a TCP wire would add tens of milliseconds of Nagle delay to
# latencies; eth0 192.0.2.1 in guest A, 192.0.2.2 in guest B) and measures
# there, in the same two boots, BENCH_ROUNDS rounds of four setups, in
# this order in every round:
#
#   TCP          iperf3, one stream B -> A, MB/sec: the ceiling of the
#                wire; and iperf3 -u (clean wire only), datagrams of a
#                RoCE packet's UDP payload at the path MTU (1056 bytes at
#                path MTU 1024, 4128 at 4096) B -> A as fast as B can send,
#                MB/sec received: what the wire carries in packets of
#                RoCE's size, where TCP sends 64 KiB segments (GSO) per
#                trip through the stack and the emulated NIC
#   rxe          the in-tree rdma_rxe on both ends (rxe0 <-> rxe0)
#   sroce        sroce on both ends (sroce0 <-> sroce0), module parameters
#                gso_tx=1 and gro_rx=1: the packets of one engine step
#                cross the IP stack as one GSO skb, and received packets
#                of one QP go up it as one GRO chain
#   sroce-off    the same module, gso_tx=0 and gro_rx=0 on both guests:
#                each packet crosses the stack on its own, both ways
#
# rdma_rxe holds UDP port 4791 of the initial namespace from its load to
# its unload, so sroce cannot bind beside it: each round loads rdma_rxe,
# measures it, deletes its link and removes it, then loads sroce, measures
# it with GSO and GRO on, writes 0 to /sys/module/sroce/parameters/gso_tx
# and gro_rx on both guests (no reload) and measures again, and removes
# it. Alternating the setups round after round spreads the drift of a
# long boot (host load, the guests' own state) over all of them alike.
#
# Each setup is measured on the clean wire at every eth0 MTU of BENCH_MTUS
# in turn (set on both guests, the driver loaded: the device's active_mtu
# follows, which is checked, as is its GID), then under netem on both
# guests' eth0 (BENCH_NETEM, so both ways) at the first MTU of BENCH_MTUS,
# the base MTU. eth0 MTU 1500 gives path MTU 1024, 9000 gives 4096.
# perftest over RC, one QP, A the server, B the client:
#
#   ib_write_bw, ib_send_bw, ib_read_bw   64 KiB messages for BENCH_BW_SECS
#                                         seconds (perftest -D), average
#                                         MB/sec; at every MTU
#   ib_read_lat, ib_write_lat, ib_send_lat
#                                         2 bytes, typical and average usec;
#                                         at the base MTU only (a 2-byte
#                                         message is one packet whatever
#                                         the MTU)
#
# and for each bandwidth run of sroce and sroce-off, the packets per
# stack crossing of the side that sends the data (B for WRITE and SEND, A
# for the READ responses), from its device's port counters read before
# and after the run: tx_packets / (tx_packets - tx_gso_packets +
# tx_gso_skbs), each the difference over the run (requests, ACKs and
# resends of that side included). It records that figure itself: the host
# puts both guests' figures files together.
#
# Every figure is recorded once a round. For each MTU of the clean wire,
# and for netem, a table shows each figure as the median over the rounds
# and, in brackets, the lowest and highest ("35.4 (31.0-38.2)"; a figure
# of one round as it is), and a table under it the ratios sroce/rxe,
# sroce/TCP and on/off (sroce over sroce-off), each computed within
# a round and shown as the median and range of the rounds' ratios, above
# 1 where the first is better (A/B for bandwidth and packets per crossing,
# B/A for latency). A "*" marks a figure some rounds did not give
# (scripts/bench/figures.sh). The absolute figures are those of emulated
# (TCG) guests sharing the host's cores: only ratios mean something, and
# the range says how far to trust them. A run that fails shows FAILED and
# the bench goes on. Exit status: 0 if both guests ran, rxe gave figures
# and both guest kernel logs are clean, 1 otherwise.
#
# Environment. With the defaults a round takes about 8 minutes on an idle
# 2-core host, the bench about 27 with boots and build; on a busy host the
# budget holds it to about 32, the last runs of each setup SKIPPED.
#   BENCH_ROUNDS=3        rounds
#   BENCH_MTUS='1500 9000'
#                         the eth0 MTUs of the clean wire, in both guests;
#                         the first is the base MTU (latency, netem). If
#                         unset, BENCH_MTU (one MTU) stands for it
#   BENCH_BW_SECS=8       perftest -D of each bandwidth run (its first and
#                         last 2 s are not measured: perftest --margin);
#                         short, for three rounds to fit the budget: the
#                         rounds' range shows what that costs
#   BENCH_LAT_ITERS=1000  iterations of each latency run on the clean wire
#   BENCH_NETEM_LAT_ITERS=200
#                         iterations of each latency run under netem; 0:
#                         no latency runs under netem
#   BENCH_TCP_SECS=8      iperf3 -t
#   BENCH_BUDGET=540      seconds of measuring a round: round N ends
#                         BENCH_BUDGET * N seconds after the first began
#                         (time a round leaves goes to the next). In a
#                         round, after TCP, rxe gets a third of what is
#                         left, sroce half of what is then left,
#                         sroce-off the rest; a run gets at most 30 s
#                         past its setup's share, one that would start past
#                         it is SKIPPED, and a round that would start past
#                         its end is SKIPPED whole
#   BENCH_BUILD=0         use the sroce.ko already built instead of running
#                         `make module`
#   BENCH_NETEM='loss 2% delay 1ms reorder 10% duplicate 1%'
#                         the netem profile (e.g. 'delay 1ms' alone shows
#                         what the delay costs without the loss)
#
# Every bench keeps its results (perftest and iperf3 outputs, named
# rN-SETUP-COND-MTU-PROG, both guests' figures.tsv, their merge
# figures.tsv, info.txt and notes.txt (per round: active_mtu, netem and
# device counters), console logs and dmesg) in build/bench-wire/run-N, N
# counting the benches run in this tree. bench-wire.sh --in-guest ROLE is
# the part that runs inside the guests.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/scripts/bench/figures.sh"

BENCH_ROUNDS=${BENCH_ROUNDS:-3}
BENCH_MTUS=${BENCH_MTUS:-${BENCH_MTU:-1500 9000}}
BENCH_BW_SECS=${BENCH_BW_SECS:-8}
BENCH_LAT_ITERS=${BENCH_LAT_ITERS:-1000}
BENCH_NETEM_LAT_ITERS=${BENCH_NETEM_LAT_ITERS:-200}
BENCH_TCP_SECS=${BENCH_TCP_SECS:-8}
BENCH_BUDGET=${BENCH_BUDGET:-540}
read -r -a MTUS <<<"$BENCH_MTUS"
# Latency and netem runs are at this one.
BASE_MTU=${MTUS[0]:-}
# The bad wire, on each guest's eth0 (so on both directions).
read -r -a BENCH_NETEM <<<"${BENCH_NETEM:-loss 2% delay 1ms reorder 10% duplicate 1%}"

BW_TESTS=(ib_write_bw ib_send_bw ib_read_bw)
LAT_TESTS=(ib_read_lat ib_write_lat ib_send_lat)
# The setups after TCP, in the order a round measures them.
SETUPS=(rxe sroce sroce-off)
# The figures' runs are SETUP-COND-MTU: tcp, udp or one of SETUPS, on the
# clean wire or under netem, at an eth0 MTU (rxe-clean-1500,
# sroce-off-netem-1500, udp-clean-9000, ...); each figure once a round.

# path_mtu VAR MTU: VAR is the RoCE path MTU on a netdev of MTU, as the
# core's iboe_get_mtu() (and so sroce) has it: the largest of 4096, 2048,
# 1024, 512 and 256 that fits with the headers (GRH 40, UDP 8, BTH 12,
# XRC 4 and AtomicETH 28 bytes, ICRC 4).
path_mtu() {
	local _pm=4096
	while ((_pm > 256 && _pm > $2 - 96)); do
		_pm=$((_pm / 2))
	done
	printf -v "$1" %d "$_pm"
}

# --- in the guests ---------------------------------------------------------------
#
# Both guests run the same sequence of steps. Guest A serves every run and
# decides whether it happens (it alone keeps the deadline, so that the two
# never disagree); guest B runs the clients and records every figure in
# its figures.tsv but the packets per crossing of A's READ responses,
# which A records in its own. They talk through files in $SHARED
# (post/heard), which last the whole boot: every name posted is posted
# once, its round (rN) and setup in it.

in_guest() {
	. "$REPO/tests/guest/lib.sh"
	[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
	FIGURES=$RESULTS/figures.tsv INFO=$RESULTS/info.txt NOTES=$RESULTS/notes.txt
	: >"$FIGURES"
	: >"$INFO"
	: >"$NOTES"
	STEP_RC=0 STEP_WHY='' STEP_AGAIN='' WHY='' MISS_QUIET='' ACTIVE_MTU=''
	TX_BEFORE='' TX_AFTER=''

	say() { echo "bench: $*"; }
	# info TEXT: a line of notes.txt (every round's details), and of
	# info.txt (shown with the figures) in the first round or before it.
	info() {
		echo "${FIGURES_ROUND:+r$FIGURES_ROUND: }$*" >>"$NOTES"
		((${FIGURES_ROUND:-1} > 1)) || echo "$*" >>"$INFO"
	}

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

	# both_ok ST: after a meet at which this guest said ST, whether both
	# guests said "ok"; if not, WHY is what they said instead.
	both_ok() {
		WHY=
		[[ $1 == ok ]] || WHY=$1
		[[ $HEARD == ok ]] || WHY+=${WHY:+; }$HEARD
		[[ -z $WHY ]]
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

	# share N: the setup about to run gets 1/N of what is left of the
	# round (ROUND_END), as its DEADLINE.
	share() { DEADLINE=$((SECONDS + (ROUND_END - SECONDS) / $1)); }

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
				post "$name.go" "skip out of time (BENCH_BUDGET=${BENCH_BUDGET}s a round)"
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

	# tx_counters VAR: VAR is "tx_packets tx_gso_packets tx_gso_skbs" of
	# $dev now, or empty if it lacks one (a sroce.ko without gso_tx).
	tx_counters() {
		local d=/sys/class/infiniband/$dev/ports/1/hw_counters p g s
		if { read -r p <"$d/tx_packets" && read -r g <"$d/tx_gso_packets" &&
			read -r s <"$d/tx_gso_skbs"; } 2>/dev/null; then
			printf -v "$1" '%s %s %s' "$p" "$g" "$s"
		else
			printf -v "$1" ''
		fi
	}

	# crossing_figure RUN PROG: the packets this guest's device sent per
	# crossing of the IP stack in the run just made (TX_BEFORE, TX_AFTER),
	# a figure of RUN: a GSO skb crosses once for all its packets, any
	# other packet once for itself. None if the run failed or sent nothing.
	crossing_figure() {
		local -a was now
		local pk cr x v
		((STEP_RC == 0)) && [[ -z $STEP_AGAIN ]] || return 0
		read -r -a was <<<"$TX_BEFORE"
		read -r -a now <<<"$TX_AFTER"
		if ((${#was[@]} != 3 || ${#now[@]} != 3)); then
			record "$1" "$2" pkts_per_crossing FAILED "" \
				"guest $ROLE: no tx_packets, tx_gso_packets, tx_gso_skbs counters on $dev"
			return 0
		fi
		pk=$((now[0] - was[0]))
		cr=$((pk - (now[1] - was[1]) + now[2] - was[2]))
		((pk > 0 && cr > 0)) || return 0
		# Two decimals, rounded, without a process.
		x=$(((pk * 100 + cr / 2) / cr))
		printf -v v '%d.%02d' $((x / 100)) $((x % 100))
		record "$1" "$2" pkts_per_crossing "$v" pkts/crossing
		say "r$FIGURES_ROUND $1 $2 packets per crossing = $v ($pk packets in $cr crossings," \
			"guest $ROLE)"
	}

	# perftest_step SETUP COND MTU PROG SECS ARGS...: one perftest run
	# between the two ${dev}s, a run SETUP-COND-MTU of this round; B
	# records its figures (or why there are none), and on sroce the side
	# that sends the data its packets per crossing.
	# perftest calibrates its cycle counter against gettimeofday when it
	# reports; with four vCPUs on two cores the fit can fail ("Correlation
	# coefficient r^2 < 0.9") and every figure comes out 0 or inf: such a
	# run is made again, up to three times in all.
	perftest_step() {
		local setup=$1 cond=$2 mtu=$3 prog=$4 secs=$5 run name port metrics m v
		local try=1 t0=$SECONDS counting='' sender=B
		shift 5
		run=$setup-$cond-$mtu
		name=r$FIGURES_ROUND-$run-$prog
		# ib_read_bw's data are A's READ responses.
		[[ $prog == ib_read_bw ]] && sender=A
		if [[ $setup == sroce* && $prog == *_bw && $ROLE == "$sender" ]]; then
			counting=1
		fi
		while :; do
			next_port port
			SRV=("$prog" -d "$dev" -x "$g4" -F -p "$port" "$@")
			CLI=("${SRV[@]}" "$PEER_IP")
			[[ -z $counting ]] || tx_counters TX_BEFORE
			pair_step "$name" "$secs" "$port"
			[[ -z $counting ]] || tx_counters TX_AFTER
			if [[ -z $STEP_AGAIN ]] || ((try == 3)); then
				break
			fi
			[[ $ROLE == B ]] && say "$name: perftest's clock calibration failed; again"
			try=$((try + 1))
			name=r$FIGURES_ROUND-$run-$prog-try$try
		done
		# What the device saw, for whoever looks into a failed run.
		if ((STEP_RC != 0 && STEP_RC != 126)); then
			dev_counters "$dev" >"$RESULTS/$name-counters.txt" 2>&1 || true
		fi
		if [[ $ROLE == A ]]; then
			[[ -z $counting ]] || crossing_figure "$run" "$prog"
			return 0
		fi
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
				record "$run" "$prog" "$m" "${v% *}" "${v#* }"
				say "r$FIGURES_ROUND $run $prog $m = $v ($((SECONDS - t0))s)"
			else
				report_miss "$run" "$prog" "$m" "${STEP_WHY:-no figures in the client output}"
			fi
		done
		# After the run's own figures: the first line of a run says how
		# it went (print_failures).
		[[ -z $counting ]] || crossing_figure "$run" "$prog"
	}

	# report_miss RUN TEST METRIC WHY: FAILED (SKIPPED if STEP_RC is 126),
	# and why.
	report_miss() {
		local what=FAILED
		((STEP_RC != 126)) || what=SKIPPED
		record "$1" "$2" "$3" "$what" "" "$4"
		[[ -n $MISS_QUIET ]] || say "r$FIGURES_ROUND $1 $2 $3 $what ($4)"
	}

	# miss_all SETUP COND MTU WHY [126]: every perftest figure of SETUP
	# under COND at MTU is FAILED (126: SKIPPED).
	miss_all() {
		local t run=$1-$2-$3
		[[ $ROLE == B ]] || return 0
		STEP_RC=${5:-1}
		for t in "${BW_TESTS[@]}"; do
			report_miss "$run" "$t" BW_average "$4"
		done
		(($3 == BASE_MTU)) || return 0
		[[ $2 == netem ]] && ((BENCH_NETEM_LAT_ITERS == 0)) && return 0
		for t in "${LAT_TESTS[@]}"; do
			report_miss "$run" "$t" t_typical "$4"
			report_miss "$run" "$t" t_avg "$4"
		done
	}

	# miss_setup SETUP WHY [126]: all of SETUP's figures of the round.
	miss_setup() {
		local mtu
		for mtu in "${MTUS[@]}"; do
			miss_all "$1" clean "$mtu" "$2" "${3:-1}"
		done
		miss_all "$1" netem "$BASE_MTU" "$2" "${3:-1}"
	}

	# miss_iperf RUN WHY [126]: RUN's iperf3 figure.
	miss_iperf() {
		[[ $ROLE == B ]] || return 0
		STEP_RC=${3:-1}
		report_miss "$1" iperf3 throughput "$2"
	}

	# miss_round WHY: every figure of the round, SKIPPED.
	miss_round() {
		local mtu s
		for mtu in "${MTUS[@]}"; do
			miss_iperf "tcp-clean-$mtu" "$1" 126
			miss_iperf "udp-clean-$mtu" "$1" 126
		done
		miss_iperf "tcp-netem-$BASE_MTU" "$1" 126
		for s in "${SETUPS[@]}"; do
			miss_setup "$s" "$1" 126
		done
	}

	# tcp_step COND MTU [udp]: iperf3 from B to A for BENCH_TCP_SECS
	# seconds (udp: datagrams of a RoCE packet's UDP payload at the path
	# MTU of MTU, BTH, RETH and ICRC around a full payload, as fast as B
	# can send them).
	tcp_step() {
		local cond=$1 mtu=$2 proto=${3:-tcp} run port v pm opts=()
		run=$proto-$cond-$mtu
		next_port port
		if [[ $proto == udp ]]; then
			path_mtu pm "$mtu"
			opts=(-u -b 0 -l $((pm + 32)))
		fi
		SRV=(iperf3 -s -1 -p "$port")
		CLI=(iperf3 -c "$PEER_IP" -p "$port" -t "$BENCH_TCP_SECS" -f M "${opts[@]}")
		pair_step "r$FIGURES_ROUND-$run-iperf3" $((BENCH_TCP_SECS + 30)) "$port"
		[[ $ROLE == B ]] || return 0
		v=
		if ((STEP_RC == 0)); then
			# "... sec  X MBytes  Y MBytes/sec ... receiver": -f M
			# counts 2^20 bytes, as perftest's MB/sec does.
			v=$(awk '/receiver$/ { for (i = 2; i <= NF; i++)
				if ($i == "MBytes/sec") { print $(i - 1); exit } }' \
				"$RESULTS/r$FIGURES_ROUND-$run-iperf3-client.txt")
		fi
		if [[ -n $v ]]; then
			record "$run" iperf3 throughput "$v" MB/sec
			say "r$FIGURES_ROUND $run iperf3 = $v MB/sec"
		else
			report_miss "$run" iperf3 throughput "${STEP_WHY:-no receiver line in the iperf3 output}"
		fi
	}

	# set_mtu TAG MTU [DEV]: eth0 at MTU on both guests, which meet at
	# mtu-TAG before either sends at it. With DEV (a driver's device on
	# eth0), once DEV has followed: its active_mtu (then in ACTIVE_MTU) the
	# path MTU of MTU and, if the MTU changed, its RoCE v2 GID of MY_IP
	# there again (in g4). Status 0 if all went well on both, else WHY says
	# why (both_ok). Each process costs a TCG guest time: an MTU eth0
	# already has is not set again.
	set_mtu() {
		local st=ok want a='' end changed=''
		if [[ $(</sys/class/net/eth0/mtu) != "$2" ]]; then
			changed=1
			a=$(ip link set eth0 mtu "$2" 2>&1) ||
				st="guest $ROLE: eth0 refused MTU $2: ${a%%$'\n'*}"
		fi
		if [[ $st == ok && -n ${3:-} ]]; then
			path_mtu want "$2"
			end=$((SECONDS + 10))
			while :; do
				a=$(devinfo_field "$3" active_mtu) || a=
				[[ ${a%% *} != "$want" ]] || break
				if ((SECONDS >= end)); then
					st="guest $ROLE: $3 active_mtu ${a:-unknown} at eth0 MTU $2, not $want"
					break
				fi
				nap 0.5
			done
			ACTIVE_MTU=$a
			if [[ $st == ok && -n $changed ]] && ! g4=$(wait_roce_gid 10 "$3" "$MY_IP"); then
				st="guest $ROLE: no RoCE v2 GID on $3 at eth0 MTU $2"
			fi
		fi
		meet "mtu-$1" "$st"
		both_ok "$st"
	}

	# set_gso TAG 0|1: sroce's gso_tx and gro_rx off or on in both
	# guests, which meet at gso-TAG; status as both_ok's.
	set_gso() {
		local st=ok p want=N
		(($2 == 0)) || want=Y
		for p in /sys/module/sroce/parameters/{gso_tx,gro_rx}; do
			if ! { echo "$2" >"$p" && [[ $(<"$p") == "$want" ]]; } 2>/dev/null; then
				st="guest $ROLE: cannot set sroce's ${p##*/} to $2"
			fi
		done
		meet "gso-$1" "$st"
		both_ok "$st"
	}

	# netem_on TAG / netem_off TAG: both guests' eth0 impaired, or clean
	# again; netem_on's status as both_ok's.
	netem_on() {
		local st=ok
		if ! run_timeout 30 tc qdisc replace dev eth0 root netem "${BENCH_NETEM[@]}" \
				>"$RESULTS/netem-$1.txt" 2>&1; then
			st="no netem on guest $ROLE: $(head -n 1 "$RESULTS/netem-$1.txt")"
		fi
		meet "netem-on-$1" "$st"
		both_ok "$st"
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
		local out=$RESULTS/r$FIGURES_ROUND-$SROCE_IMPL-up.txt
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
		local out=$RESULTS/r$FIGURES_ROUND-$SROCE_IMPL-down.txt
		info "guest $ROLE $dev counters: $(dev_counters "$dev" 2>/dev/null)"
		(unload_sroce) >"$out" 2>&1 ||
			say "$ROLE: unloading $RDMA_MODULE failed: $(grep -m1 '^FAIL' "$out" || true)"
	}

	# setup_runs SETUP: every run of SETUP (one of SETUPS), its driver's
	# $dev up on both guests: on the clean wire at each MTU of BENCH_MTUS,
	# bandwidth (latency too at the base MTU), then under netem at the
	# base MTU.
	setup_runs() {
		local s=$1 tag=r$FIGURES_ROUND-$1 mtu t
		for mtu in "${MTUS[@]}"; do
			if ! set_mtu "$tag-$mtu" "$mtu" "$dev"; then
				miss_all "$s" clean "$mtu" "$WHY"
				continue
			fi
			[[ $s == sroce-off ]] ||
				info "guest $ROLE $dev: eth0 MTU $mtu, active_mtu $ACTIVE_MTU, GID index $g4"
			for t in "${BW_TESTS[@]}"; do
				perftest_step "$s" clean "$mtu" "$t" $((BENCH_BW_SECS + 60)) \
					-s 65536 -D "$BENCH_BW_SECS"
			done
			((mtu == BASE_MTU)) || continue
			for t in "${LAT_TESTS[@]}"; do
				perftest_step "$s" clean "$mtu" "$t" 90 -s 2 -n "$BENCH_LAT_ITERS"
			done
		done
		if ! set_mtu "$tag-netem" "$BASE_MTU" "$dev"; then
			miss_all "$s" netem "$BASE_MTU" "$WHY"
			return 0
		fi
		if netem_on "$tag"; then
			for t in "${BW_TESTS[@]}"; do
				perftest_step "$s" netem "$BASE_MTU" "$t" $((BENCH_BW_SECS + 60)) \
					-s 65536 -D "$BENCH_BW_SECS"
			done
			if ((BENCH_NETEM_LAT_ITERS)); then
				for t in "${LAT_TESTS[@]}"; do
					perftest_step "$s" netem "$BASE_MTU" "$t" 90 -s 2 \
						-n "$BENCH_NETEM_LAT_ITERS"
				done
			fi
		else
			miss_all "$s" netem "$BASE_MTU" "$WHY"
		fi
		netem_off "$tag"
	}

	# phase DRIVER: its device up on both guests, its setups measured
	# (rxe; or sroce, then sroce-off, which gets the rest of the
	# round), and the module gone again.
	phase() {
		local drv=$1 st=ok v
		use_impl "$drv"
		driver_up || st="guest $ROLE: $UP_WHY"
		meet "up-r$FIGURES_ROUND-$drv" "$st"
		if ! both_ok "$st"; then
			miss_setup "$drv" "$WHY"
			[[ $drv == rxe ]] || miss_setup sroce-off "$WHY"
			driver_down
			return 0
		fi
		# Which sroce.ko ran: the tree may be rebuilt while we measure.
		v="of kernel $(uname -r)"
		[[ $drv == sroce ]] && v="$(md5sum <"$SROCE_KO" | cut -c1-12) (md5)"
		info "guest $ROLE $dev: $RDMA_MODULE $v"
		if [[ $drv == rxe ]]; then
			setup_runs rxe
		else
			# 1 is the default; written all the same, and checked.
			if set_gso "r$FIGURES_ROUND-1" 1; then
				setup_runs sroce
			else
				miss_setup sroce "$WHY"
			fi
			share 1
			if set_gso "r$FIGURES_ROUND-0" 0; then
				setup_runs sroce-off
			else
				miss_setup sroce-off "$WHY"
			fi
		fi
		driver_down
	}

	# tcp_phase: iperf3 with no RDMA driver loaded: TCP and UDP on the
	# clean wire at each MTU, TCP under netem at the base MTU.
	tcp_phase() {
		local tag=r$FIGURES_ROUND-tcp mtu
		for mtu in "${MTUS[@]}"; do
			if set_mtu "$tag-$mtu" "$mtu"; then
				tcp_step clean "$mtu"
				tcp_step clean "$mtu" udp
			else
				miss_iperf "tcp-clean-$mtu" "$WHY"
				miss_iperf "udp-clean-$mtu" "$WHY"
			fi
		done
		if set_mtu "$tag-netem" "$BASE_MTU" && netem_on "$tag"; then
			tcp_step netem "$BASE_MTU"
		else
			miss_iperf "tcp-netem-$BASE_MTU" "$WHY"
		fi
		netem_off "$tag"
	}

	setup_wire
	run_timeout 60 modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_ucm ||
		fail "cannot load the RDMA core modules"
	run_timeout 30 modprobe sch_netem || say "$ROLE: no sch_netem module"
	info "guest $ROLE: kernel $(uname -r), $(nproc) vCPUs"
	meet ready ok

	local start=$SECONDS r st
	for ((r = 1; r <= BENCH_ROUNDS; r++)); do
		FIGURES_ROUND=$r
		ROUND_END=$((start + r * BENCH_BUDGET))
		# A alone keeps the time: it says whether the round happens.
		st=go
		[[ $ROLE == A ]] && ((SECONDS >= ROUND_END)) && st=skip
		meet "round-$r" "$st"
		[[ $ROLE == A ]] || st=$HEARD
		if [[ $st != go ]]; then
			say "$ROLE: round $r skipped: out of time"
			MISS_QUIET=1
			miss_round "out of time (BENCH_BUDGET=${BENCH_BUDGET}s a round)"
			MISS_QUIET=
			continue
		fi
		say "$ROLE: round $r of $BENCH_ROUNDS, to end in $((ROUND_END - SECONDS))s"
		DEADLINE=$ROUND_END
		tcp_phase
		# rxe, then sroce once rdma_rxe has given UDP port 4791 back;
		# sroce-off gets the rest (phase).
		share 3
		phase rxe
		share 2
		phase sroce
	done
	say "$ROLE: measured in $((SECONDS - start))s"
}

if [[ ${1:-} == --in-guest ]]; then
	in_guest "${2:-}"
	exit
fi

# --- on the host -------------------------------------------------------------------

for v in BENCH_ROUNDS BENCH_BW_SECS BENCH_LAT_ITERS BENCH_TCP_SECS BENCH_BUDGET; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bench-wire: $v must be a positive number" >&2; exit 2; }
done
[[ $BENCH_NETEM_LAT_ITERS =~ ^[0-9]+$ ]] ||
	{ echo "bench-wire: BENCH_NETEM_LAT_ITERS must be a number" >&2; exit 2; }
# Each MTU names runs and the guests' meeting points: no two alike.
((${#MTUS[@]})) || { echo "bench-wire: BENCH_MTUS is empty" >&2; exit 2; }
for v in "${MTUS[@]}"; do
	if ! [[ $v =~ ^[1-9][0-9]*$ ]] || ((v < 352 || v > 65535)); then
		echo "bench-wire: BENCH_MTUS: $v is not an MTU from 352 (path MTU 256) to 65535" >&2
		exit 2
	fi
done
if (($(printf '%s\n' "${MTUS[@]}" | sort -u | wc -l) != ${#MTUS[@]})); then
	echo "bench-wire: BENCH_MTUS names an MTU twice" >&2
	exit 2
fi

# bench_table FIGURES.TSV: for each MTU of the clean wire, and for netem,
# a table of the figures and one of the ratios (print_table), UDP's
# figure under them; then what the cells mean and how the runs went.
bench_table() {
	local file=$1 c mtu pm v t rows='' conds=()
	for t in "${BW_TESTS[@]}"; do
		rows+="$t BW_average 64KiB;"
	done
	for t in "${BW_TESTS[@]}"; do
		rows+="$t pkts_per_crossing 64KiB;"
	done
	for t in "${LAT_TESTS[@]}"; do
		rows+="$t t_typical 2B;$t t_avg 2B;"
	done
	rows=${rows%;}
	for mtu in "${MTUS[@]}"; do
		conds+=("clean-$mtu")
	done
	conds+=("netem-$BASE_MTU")
	for c in "${conds[@]}"; do
		mtu=${c#*-}
		path_mtu pm "$mtu"
		if [[ $c == clean-* ]]; then
			echo "clean wire, eth0 MTU $mtu (path MTU $pm)"
		else
			echo "netem on both guests' eth0: ${BENCH_NETEM[*]}; eth0 MTU $mtu (path MTU $pm)"
		fi
		print_table "$file" "$rows" "rxe=rxe-$c" "sroce=sroce-$c" "sroce-off=sroce-off-$c" \
			"TCP=tcp-$c iperf3 throughput"
		print_table "$file" "$rows" "sroce/rxe=sroce-$c/rxe-$c" \
			"sroce/TCP=sroce-$c/tcp-$c iperf3 throughput" "on/off=sroce-$c/sroce-off-$c"
		v=$(figure "$file" "udp-$c" iperf3 throughput)
		[[ $v == - ]] ||
			echo "UDP (iperf3, $((pm + 32))-byte datagrams B -> A): $v MB/sec received"
		echo
	done
	echo "A figure: the median over the rounds (lowest-highest). A ratio: computed in each"
	echo "round, then its median (lowest-highest). sroce/rxe, sroce/TCP and on/off"
	echo "(sroce/sroce-off: GSO and GRO on against off) for bandwidth and pkts/crossing,"
	echo "the inverse for latency: above 1 means the first is better. pkts/crossing:"
	echo "packets the data's sender put on the wire per trip through its IP stack."
	echo "MB/sec: 2^20 bytes per second (perftest and iperf3 -f M)."
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
# ends well before it): the rounds' measuring budget, plus the last run's
# grace past it, plus boots, set-up and unloading.
guest_timeout=$((BENCH_ROUNDS * BENCH_BUDGET + 300))

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
echo "bench-wire: run $n; booting two guests for $BENCH_ROUNDS rounds (software emulation:" \
	"at most about $(((BENCH_ROUNDS * BENCH_BUDGET + 120) / 60)) minutes)..."
t0=$SECONDS
# Progress: the guests' "bench:" lines, as they come.
tail -q -n +1 -F "$results/A/output.log" "$results/B/output.log" 2>/dev/null |
	grep --line-buffered '^bench:' &
tail_pid=$!
rc=0
"$REPO/scripts/guest/run-guest-pair" -t "$guest_timeout" --wire unix \
	--env "BENCH_ROUNDS=$BENCH_ROUNDS" --env "BENCH_MTUS=${MTUS[*]}" \
	--env "BENCH_BW_SECS=$BENCH_BW_SECS" \
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
echo "  $BENCH_ROUNDS rounds of TCP, rxe, sroce, sroce-off (gso_tx=0 gro_rx=0), each on the clean" \
	"wire at eth0 MTU ${MTUS[*]}, then under netem at $BASE_MTU; ${BENCH_BUDGET}s a round"
echo "  perftest RC, one QP, A serves, B is the client: bandwidth 64 KiB messages for" \
	"${BENCH_BW_SECS}s (-D), latency (MTU $BASE_MTU) 2 bytes x $BENCH_LAT_ITERS" \
	"(netem: x $BENCH_NETEM_LAT_ITERS); iperf3: one TCP stream B -> A for ${BENCH_TCP_SECS}s," \
	"and on the clean wire UDP datagrams of a RoCE packet's size B -> A at full speed" \
	"(the direction of WRITE and SEND data; READ data flows A -> B)"
echo
# B's figures, then those A recorded (packets per crossing of READ).
figures=$results/figures.tsv
cat "$results/B/figures.tsv" "$results/A/figures.tsv" >"$figures" 2>/dev/null || true
if [[ -s $results/B/figures.tsv ]]; then
	bench_table "$figures"
else
	echo "no figures: the guests did not get as far as measuring"
fi
if ((rc != 0)); then
	echo "bench-wire: a guest failed (exit $rc): see $results/run.log"
	sed -n 's/^FAIL: /  /p' "$results"/A/output.log "$results"/B/output.log 2>/dev/null || true
elif ! has_figures "$figures" '^rxe-'; then
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
