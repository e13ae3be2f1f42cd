#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest over RC between two devices, in three sets (one guest boot each:
# one boot cannot fit them all under TCG):
#  PERF_SET=bw (the default): ib_write_bw, ib_send_bw and ib_read_bw over
#    all message sizes (-a: 2 B to 8 MiB);
#  PERF_SET=lat (rc-perftest-lat.sh): ib_write_lat, ib_send_lat and
#    ib_read_lat with -a;
#  PERF_SET=modes (rc-perftest-modes.sh): ib_write_bw on 4 QPs,
#    ib_write_bw and ib_send_bw in both directions at once (-b) and through
#    perftest's ibv_post_send path (--use_old_post_send) beside its default
#    ibv_wr_* one, and an 8 MiB ib_read_bw.
# Iterations are few: these are functional runs, not measurements. Every
# server and client must exit 0 within TOOL_TIMEOUT and print its results
# table (a row for the expected message size; ib_read_lat's server prints
# none). A failure names perftest's complaint and the completion status.
# Topology: veth0 here, veth1 in namespace "peer" (MTU 4500: active_mtu
# 4096); on rxe one device serves both sides (rxe cannot deliver between
# two of its own devices on one host).
. "$(dirname "$0")/lib.sh"

PERF_SET=${PERF_SET:-bw}

NETDEV_MTU=4500
TOOL_TIMEOUT=120	# seconds, for each server and each client
PORT=18600

load_sroce
if [[ $SROCE_IMPL == rxe ]]; then
	make_veth
	ip link set veth0 mtu "$NETDEV_MTU"
	ip link set veth1 mtu "$NETDEV_MTU"
	link_add rxe0 veth0
	SDEV=rxe0 CDEV=rxe0 CNS=() CADDR=192.0.2.1
else
	make_veth_netns
	ip link set veth0 mtu "$NETDEV_MTU"
	ip -n peer link set veth1 mtu "$NETDEV_MTU"
	link_add sroce0 veth0
	run_timeout 30 ip netns exec peer rdma link add sroce1 type sroce netdev veth1 ||
		fail "rdma link add sroce1 in namespace peer"
	wait_until 10 "sroce1" test -e /sys/class/infiniband/sroce1
	SDEV=sroce0 CDEV=sroce1 CNS=(ip netns exec peer) CADDR=192.0.2.2
fi
SADDR=192.0.2.1

gid_index() {		# DEV ADDR
	gid_table "$1" | awk -v g="$(ipv4_gid "$2")" '$2 == g { print $1; exit }'
}
wait_until 10 "$SDEV GID" has_gid "$SDEV" "$(ipv4_gid "$SADDR")"
wait_until 10 "$CDEV GID" has_gid "$CDEV" "$(ipv4_gid "$CADDR")"
SG=$(gid_index "$SDEV" "$SADDR")
CG=$(gid_index "$CDEV" "$CADDR")

# show_counters DEV...: their non-zero port counters, for a failure report.
show_counters() {
	local d
	for d in $(printf '%s\n' "$@" | sort -u); do
		echo "---- $d counters: $(grep -H . "$(port_dir "$d")"/hw_counters/* 2>/dev/null |
			awk -F: '$2 != 0 { sub(/.*\//, "", $1); printf "%s=%s ", $1, $2 }')"
	done
}

# A results row: the size, the iteration count, then the figures.
has_row() {		# FILE SIZE
	grep -Eq "^ *$2 +[0-9]+ +[0-9.]+" "$1"
}

# ibv_wc_status names, for perftest's "Failed status N".
WC_STATUS=(SUCCESS LOC_LEN_ERR LOC_QP_OP_ERR LOC_EEC_OP_ERR LOC_PROT_ERR
	WR_FLUSH_ERR MW_BIND_ERR BAD_RESP_ERR LOC_ACCESS_ERR REM_INV_REQ_ERR
	REM_ACCESS_ERR REM_OP_ERR RETRY_EXC_ERR RNR_RETRY_EXC_ERR
	LOC_RDD_VIOL_ERR REM_INV_RD_REQ_ERR REM_ABORT_ERR INV_EECN_ERR
	INV_EEC_STATE_ERR FATAL_ERR RESP_TIMEOUT_ERR GENERAL_ERR)

# why FILE: " (perftest's complaint, the last size it reported)", or "".
why() {
	local msg st row
	msg=$(grep -ohE "Completion with error at [a-z]+|Couldn't [^.]*|Unable [^.]*|Failed to [^.]*" "$1" |
		head -n 1 || true)
	st=$(grep -ohE 'Failed status [0-9]+' "$1" | head -n 1 | grep -oE '[0-9]+$' || true)
	[[ -n $st ]] && msg+="${msg:+, }status $st IBV_WC_${WC_STATUS[st]:-?}"
	row=$(grep -oE '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$1" | tail -n 1 | awk '{ print $1 }' || true)
	[[ -n $row ]] && msg+="${msg:+, }after the $row-byte row"
	[[ -n $msg ]] && echo " ($msg)"
	return 0
}

# perf NAME SIZE TOOL ARGS...: TOOL's server here on $SDEV, its client on
# $CDEV (in namespace peer on sroce); both must exit 0 and show the row for
# message size SIZE.
perf() {
	local name=$1 size=$2 tool=$3
	shift 3
	local port=$((PORT++)) srv=$RESULTS/$name-server.txt cli=$RESULTS/$name-client.txt
	local spid src=0 crc=0 t0=$SECONDS

	log "$name: $tool $*"
	timeout -k 5 "$TOOL_TIMEOUT" "$tool" -d "$SDEV" -x "$SG" -F -p "$port" "$@" \
		>"$srv" 2>&1 &
	spid=$!
	wait_until 30 "$name: server listening on $port" \
		bash -c "ss -ltn | grep -q ':$port '"
	"${CNS[@]}" timeout -k 5 "$TOOL_TIMEOUT" "$tool" -d "$CDEV" -x "$CG" -F \
		-p "$port" "$@" "$SADDR" >"$cli" 2>&1 || crc=$?
	# A failed client can leave the server waiting for it (then 143).
	((crc == 0)) || kill "$spid" 2>/dev/null || true
	wait "$spid" || src=$?
	if ((crc || src)); then
		# perftest may die mid-line: end each with a newline, so that
		# the FAIL line starts one.
		echo "---- $name client (exit $crc)"; tail -n 30 "$cli"; echo
		echo "---- $name server (exit $src)"; tail -n 30 "$srv"; echo
		show_counters "$SDEV" "$CDEV"
		((crc == 124 || crc == 137 || src == 124 || src == 137)) &&
			fail "$name: timed out after ${TOOL_TIMEOUT}s (client $crc, server $src)"
		fail "$name: client exit $crc$(why "$cli"), server exit $src$(why "$srv")"
	fi
	has_row "$cli" "$size" ||
		{ cat "$cli"; echo; fail "$name: client shows no $size-byte row"; }
	if [[ $tool == ib_read_lat ]]; then
		# Its server only serves the READs: no table, just the QPs.
		grep -q 'remote address:' "$srv" ||
			{ cat "$srv"; echo; fail "$name: server shows no remote address"; }
	else
		has_row "$srv" "$size" ||
			{ cat "$srv"; echo; fail "$name: server shows no $size-byte row"; }
	fi
	log "$name: ok in $((SECONDS - t0))s"
}

# -a runs 23 sizes up to 8 MiB, 16 MiB per iteration in all: with
# perftest's minimum of 5 iterations a bandwidth run takes 30-80 s on rxe
# under TCG, much of it in perftest measuring the CPU clock again for each
# size's report. The latency tests skip that with -C (cycles, not usec).
ALL=8388608		# the last size of -a
case $PERF_SET in
bw)
	perf write_bw      $ALL  ib_write_bw -a -n 5
	perf send_bw       $ALL  ib_send_bw -a -n 5
	perf read_bw       $ALL  ib_read_bw -a -n 5
	;;
lat)
	perf write_lat     $ALL  ib_write_lat -a -n 5 -C
	perf send_lat      $ALL  ib_send_lat -a -n 5 -C
	perf read_lat      $ALL  ib_read_lat -a -n 5 -C
	;;
modes)
	perf write_bw_q4   65536 ib_write_bw -q 4 -n 50
	perf write_bw_bidi 65536 ib_write_bw -b -n 50
	perf send_bw_bidi  65536 ib_send_bw -b -n 50
	perf read_bw_8m    $ALL  ib_read_bw -s 8388608 -n 5
	perf write_bw_old  65536 ib_write_bw --use_old_post_send -n 50
	perf send_bw_old   65536 ib_send_bw --use_old_post_send -n 50
	;;
*)
	fail "unknown PERF_SET=$PERF_SET"
	;;
esac

[[ $SROCE_IMPL == rxe ]] || for d in sroce0 sroce1; do
	assert_eq "$(cat "$(port_dir $d)/hw_counters/rx_bad_icrc")" 0 "$d bad ICRC"
done
unload_sroce
[[ $SROCE_IMPL == rxe ]] || ip netns del peer
log "ok"
