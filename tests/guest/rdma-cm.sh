#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_cm (librdmacm) applications between the two ends of rdma_pair: the
# connection manager finds the device by IP address, exchanges its MADs
# over QP1 and moves the QPs through their states itself, so this is what
# most RDMA users (NVMe-oF, iSER, SMB Direct, MPI, ...) actually run.
# Checked, each client and server under a 60 s timeout and both required
# to exit 0:
#  - rping (RC send + RDMA read + RDMA write, -V checks the echo) over IPv4
#    (3000-byte pings: several packets each) and IPv6: every one of the
#    -C pings printed by the client and the server, in order, with the
#    exact text rping generates for it;
#  - ucmatose: 4 RC connections x 20 sends each way; udaddy: 2 UD
#    "connections" (SIDR) x 10 datagrams each way; mckey: 20 datagrams to
#    an IPv4 group joined by 2 QPs, each QP must get all of them, and the
#    netdev joins and leaves the IP group. These programs count
#    completions without looking at their status, so the devices must
#    also have received at least that many packets;
#  - rstream (rsockets) with its data verification (-T v);
#  - rdma_server/rdma_client (the synchronous rdma_create_ep API);
#  - perftest connected by rdma_cm (-R): ib_send_bw, ib_write_bw and
#    ib_read_lat, each with its result row and a non-zero figure;
#  - at the end no rdma_cm ID is left, and the module unloads.
# Not checked: IPv6 multicast (6.1's rdma_cm refuses it on RoCE v2,
# -ENOTSUPP, whatever the driver).
#
# Topology: rdma_pair 1500 (active MTU 1024). sroce: servers on sroce0
# (192.0.2.1) here, clients on sroce1 in namespace "peer" (192.0.2.2), so
# every packet crosses the veth. rxe quirk: one device, rxe0, serves both
# ends, and the connection is a loopback one (rdma_cm resolves a local
# address to the netdev that owns it; mckey's group packets come back
# through the IP stack's multicast loopback). rxe 6.1 opens its UDP socket
# and looks up routes in init_net only: with rxe1 on veth1 in "peer", an
# rping from there sends nothing (UNREACHABLE), and one from here to rxe1
# sends its CM requests over the veth but nobody takes them in "peer" (it
# times out) -- only the init_net side can transmit, nothing gets back.
# (Two devices in one namespace are no way out, whatever the driver:
# rdma_cm's address resolution from one local address to another times
# out, ADDR_ERROR -110, both directions.)
. "$(dirname "$0")/lib.sh"

load_sroce
rdma_pair 1500

# Packets a device received, all kinds.
if [[ $SROCE_IMPL == rxe ]]; then
	RX_COUNTER=rcvd_pkts
	log "rxe quirk: one device (rxe0) serves both ends; rdma_cm connects it to itself"
else
	RX_COUNTER=rx_packets
fi
SADDR6=2001:db8::1
DEVS=("$SDEV")
[[ $CDEV == "$SDEV" ]] || DEVS+=("$CDEV")

# rdma_cm's TCP port space is its own, not the IP stack's; each run takes
# the next port all the same (next_port PORT). udaddy always uses 7174.

# rx_total: packets received by the pair's devices, all together.
rx_total() {
	local d n=0
	for d in "${DEVS[@]}"; do
		n=$((n + $(port_counter "$d" "$RX_COUNTER")))
	done
	echo "$n"
}

# Readiness checks for cm_pair, called with the server's pid and output
# file appended; each also succeeds once the server has exited.

# cm_listening PORT PID FILE: an rdma_cm ID listens on PORT.
cm_listening() {
	kill -0 "$2" 2>/dev/null || return 0
	rdma res show cm_id 2>/dev/null | grep -qE "state LISTEN .*src-addr [^ ]*:$1 "
}

# output_has ERE N PID FILE: FILE has N lines matching ERE.
output_has() {
	kill -0 "$3" 2>/dev/null || return 0
	(($(grep -cE "$1" "$4") >= $2))
}

# cm_fail NAME WHY: show both sides' outputs, the counters and the rdma_cm
# IDs, and fail.
cm_fail() {
	echo "---- $1 client ($(basename "$CLI_OUT"))"; tail -n 40 "$CLI_OUT"; echo
	echo "---- $1 server ($(basename "$SRV_OUT"))"; tail -n 40 "$SRV_OUT"; echo
	show_counters "${DEVS[@]}"
	[[ -z ${IDS_AT_EXIT:-} ]] || echo "---- rdma_cm IDs as the client exited:"$'\n'"$IDS_AT_EXIT"
	echo "---- rdma_cm IDs now:"; rdma res show cm_id 2>&1 || true
	fail "$1: $2"
}

# cm_pair NAME READY...: the server command SRV (an array) here, then, once
# the command READY... (with the server's pid and its output file
# appended, retried for 30 s) succeeds, the client command CLI in the client's
# namespace. Each runs under a 60 s timeout (line-buffered: a killed one
# keeps what it said) with its output in $RESULTS/NAME-{server,client}.txt
# (SRV_OUT, CLI_OUT); the server gets 20 s to finish after the client.
# With CLI_PRELOAD set, the client runs with that library preloaded.
# Fails unless both exit 0.
cm_pair() {
	local name=$1 spid cpid crc=0 src=0 t0=$SECONDS end
	shift
	SRV_OUT=$RESULTS/$name-server.txt CLI_OUT=$RESULTS/$name-client.txt
	: >"$CLI_OUT"
	log "$name: ${SRV[*]}  <-  ${CLI[*]}"
	side_start spid "$SRV_OUT" 60 "" "${SRV[@]}"
	end=$((SECONDS + 30))
	until "$@" "$spid" "$SRV_OUT"; do
		((SECONDS < end)) || cm_fail "$name" "server not ready after 30 s ($*)"
		nap 0.2
	done
	if ! kill -0 "$spid" 2>/dev/null; then
		wait "$spid" || src=$?
		cm_fail "$name" "server exited (status $src) before the client started"
	fi
	IDS_AT_EXIT=
	SIDE_PRELOAD=${CLI_PRELOAD:-} side_start cpid "$CLI_OUT" 60 "$CNETNS" "${CLI[@]}"
	wait "$cpid" || crc=$?
	# Which IDs listened when it failed, before the server is stopped.
	((crc == 0)) || IDS_AT_EXIT=$(rdma res show cm_id 2>&1) || true
	# A failed client can leave the server waiting for it.
	end=$((SECONDS + (crc ? 2 : 20)))
	while kill -0 "$spid" 2>/dev/null && ((SECONDS < end)); do
		nap 0.2
	done
	kill "$spid" 2>/dev/null || true
	wait "$spid" || src=$?
	if ((crc || src)); then
		timed_out "$crc" && cm_fail "$name" "client timed out (server exit $src)"
		((src == 143)) && cm_fail "$name" "client exit $crc, server still running (killed)"
		cm_fail "$name" "client exit $crc, server exit $src"
	fi
	log "$name: both ends exited 0 in $((SECONDS - t0))s"
}

# expect_lines NAME FILE ERE...: FILE has a line matching each ERE.
expect_lines() {
	local name=$1 file=$2 re
	shift 2
	for re in "$@"; do
		grep -qE "$re" "$file" || cm_fail "$name" "no line /$re/ in $(basename "$file")"
	done
}

# rx_at_least NAME BEFORE N: the devices received N packets or more since
# rx_total said BEFORE.
rx_at_least() {
	local got=$(($(rx_total) - $2))
	((got >= $3)) || cm_fail "$1" "the devices received $got packets, expected >= $3"
	log "$1: $got packets received (>= $3)"
}

# --- rping --------------------------------------------------------------------

# rping's ping N of SIZE bytes is "rdma-ping-N: " and then the letters
# 'A' (65) to 'z' (122) over and over, starting at letter N % 58, up to
# SIZE - 1 characters; the server reads it and writes it back.
ALPHA=
for ((c = 65; c <= 122; c++)); do
	printf -v hex '%x' "$c"
	printf -v ch '%b' "\\x$hex"
	ALPHA+=$ch
done
# Long enough for any start letter and the largest ping below.
ALPHAS=$ALPHA
while ((${#ALPHAS} < 4096)); do ALPHAS+=$ALPHAS; done

# check_rping NAME FILE PREFIX COUNT SIZE: FILE has exactly COUNT lines
# starting with PREFIX, ping 0 to COUNT - 1 in order, each as generated.
check_rping() {
	local name=$1 file=$2 prefix=$3 count=$4 size=$5 n=0 line want msg
	while IFS= read -r line; do
		[[ $line == "$prefix"* ]] || continue
		msg="rdma-ping-$n: "
		want=$prefix$msg${ALPHAS:n % 58:size - 1 - ${#msg}}
		if [[ $line != "$want" ]]; then
			echo "expected: $want"
			echo "got:      $line"
			cm_fail "$name" "ping $n of $(basename "$file") differs"
		fi
		n=$((n + 1))
	done <"$file"
	((n == count)) || cm_fail "$name" "$(basename "$file"): $n pings, expected $count"
}

# rping_run NAME ADDR SIZE COUNT
rping_run() {
	local name=$1 addr=$2 size=$3 count=$4
	next_port PORT
	SRV=(rping -s -a "$addr" -p "$PORT" -S "$size" -v -V)
	CLI=(rping -c -a "$addr" -p "$PORT" -S "$size" -C "$count" -v -V)
	cm_pair "$name" cm_listening "$PORT"
	check_rping "$name" "$CLI_OUT" "ping data: " "$count" "$size"
	check_rping "$name" "$SRV_OUT" "server ping data: " "$count" "$size"
	assert_no_match "$(cat "$CLI_OUT")" "data mismatch" "$name: rping -V"
	log "$name: $count pings of $size bytes echoed"
}

rping_run rping-ipv4 "$SADDR" 3000 20
rping_run rping-ipv6 "$SADDR6" 100 20

# --- ucmatose, udaddy: RC and UD set up by rdma_cm ----------------------------

rx0=$(rx_total)
next_port PORT
SRV=(ucmatose -b "$SADDR" -p "$PORT" -c 4 -C 20)
CLI=(ucmatose -s "$SADDR" -p "$PORT" -c 4 -C 20)
cm_pair ucmatose cm_listening "$PORT"
expect_lines ucmatose "$CLI_OUT" '^receiving data transfers$' '^sending replies$' \
	'^data transfers complete$' '^return status 0$'
expect_lines ucmatose "$SRV_OUT" '^completing sends$' '^data transfers complete$' \
	'^disconnected$' '^return status 0$'
# 4 connections x 20 messages, each way.
rx_at_least ucmatose "$rx0" 160

rx0=$(rx_total)
SRV=(udaddy -b "$SADDR" -c 2 -C 10)
CLI=(udaddy -s "$SADDR" -c 2 -C 10)
cm_pair udaddy cm_listening 7174
expect_lines udaddy "$CLI_OUT" '^initiating data transfers$' '^data transfers complete$' \
	'^return status 0$'
expect_lines udaddy "$SRV_OUT" '^sending replies$' '^data transfers complete$' \
	'^return status 0$'
# 2 paths x 10 datagrams, each way.
rx_at_least udaddy "$rx0" 40

# --- mckey: an IPv4 multicast group over RoCE v2 ------------------------------

GROUP=239.1.2.3
rx0=$(rx_total)
# The receiver joins with 2 QPs and waits for 20 messages on each; the
# sender joins too, waits 3 s, sends 20 and leaves.
SRV=(mckey -m "$GROUP" -b "$SADDR" -c 2 -C 20)
CLI=(mckey -m "$GROUP" -b "$CADDR" -s -C 20)
joined() {		# PID FILE: the receiver joined with both QPs
	output_has "^mckey: joined dgid: ::ffff:$GROUP " 2 "$1" "$2" || return 1
	kill -0 "$1" 2>/dev/null || return 0
	# rdma_cm makes the netdev an IP member of the group (IGMP).
	assert_match "$(ip maddr show dev veth0)" "inet +$GROUP" "veth0 membership of $GROUP"
}
cm_pair mckey joined
expect_lines mckey "$CLI_OUT" "^mckey: joined dgid: ::ffff:$GROUP " '^initiating data transfers$' \
	'^return status 0$'
# "data transfers complete" only once each QP had its 20 completions.
expect_lines mckey "$SRV_OUT" '^receiving data transfers$' '^data transfers complete$' \
	'^return status 0$'
rx_at_least mckey "$rx0" 20
assert_no_match "$(ip maddr show dev veth0)" "inet +$GROUP" "veth0 still in $GROUP after leaving"

# --- rsockets, rdma_create_ep -------------------------------------------------

next_port PORT
# A custom run (-S, -C): 20 transfers of 64 KiB each way, verified.
SRV=(rstream -b "$SADDR" -p "$PORT" -S 65536 -C 20 -T v)
CLI=(rstream -s "$SADDR" -p "$PORT" -S 65536 -C 20 -T v)
cm_pair rstream cm_listening "$PORT"
for f in "$CLI_OUT" "$SRV_OUT"; do
	expect_lines rstream "$f" '^custom +64k +20 +1 +'
	if grep -q "verification failed" "$f"; then
		cm_fail rstream "$(grep -m1 'verification failed' "$f")"
	fi
done

next_port PORT
SRV=(rdma_server -s "$SADDR" -p "$PORT")
CLI=(rdma_client -s "$SADDR" -p "$PORT")
cm_pair rdma_server cm_listening "$PORT"
expect_lines rdma_server "$SRV_OUT" '^rdma_server: end 0$'
expect_lines rdma_server "$CLI_OUT" '^rdma_client: end 0$'

# --- perftest connected by rdma_cm --------------------------------------------

# cm_perftest NAME SIZE COLUMN TOOL ARGS...: TOOL -R between the ends; the
# client's row for SIZE bytes must show COLUMN (perftest_value) above zero,
# the server's too for the bandwidth tools (ib_read_lat's server prints no
# table). perftest has a race of its own: after the out-of-band
# connection, its client connects the data QPs at once while the server
# may have yet to listen for them; the CM then answers "invalid service
# ID" (reject reason 8), and perftest 4.5-0.17's retry path crashes in
# librdmacm instead of trying again. The client runs with
# progs/connect_delay preloaded, which gives the server 500 ms to listen.
# A run whose clock calibration failed (every figure "inf") is made
# again, once, and so is one rejected all the same.
cm_perftest() {
	local name=$1 size=$2 col=$3 tool=$4 try v
	local CLI_PRELOAD=$PROGS/connect_delay
	shift 4
	for try in 1 2; do
		next_port PORT
		SRV=("$tool" -R -d "$SDEV" -F -p "$PORT" -s "$size" "$@")
		CLI=("$tool" -R -d "$CDEV" -F -p "$PORT" -s "$size" "$@" "$SADDR")
		if ((try == 2)); then
			cm_pair "$name" cm_listening "$PORT"
		elif ! (cm_pair "$name" cm_listening "$PORT"); then
			grep -q 'RDMA_CM_EVENT_REJECTED; error: 8' "$RESULTS/$name-client.txt" ||
				fail "$name: failed (see above)"
			log "$name: the client came before the server listened (perftest's race); again"
			continue
		fi
		SRV_OUT=$RESULTS/$name-server.txt CLI_OUT=$RESULTS/$name-client.txt
		grep -q 'Correlation coefficient' "$CLI_OUT" || break
		((try == 2)) || log "$name: perftest's clock calibration failed; again"
	done
	perftest_has_row "$CLI_OUT" "$size" || cm_fail "$name" "client shows no $size-byte row"
	v=$(perftest_value "$CLI_OUT" "$col")
	awk -v v="${v%% *}" 'BEGIN { exit !(v + 0 > 0) }' ||
		cm_fail "$name" "client's $col is '$v'"
	if [[ $tool == *_bw ]]; then
		perftest_has_row "$SRV_OUT" "$size" || cm_fail "$name" "server shows no $size-byte row"
	fi
	grep -q 'rdma_cm QPs.*: ON' "$CLI_OUT" || cm_fail "$name" "client did not use rdma_cm QPs"
	log "$name: $col $v"
}

cm_perftest send_bw  4096 BW_average ib_send_bw -n 200
cm_perftest write_bw 4096 BW_average ib_write_bw -n 200
cm_perftest read_lat 64   t_avg      ib_read_lat -n 200

# --- the end ------------------------------------------------------------------

ids=$(rdma res show cm_id 2>&1) || fail "rdma res show cm_id: $ids"
[[ -z $ids ]] || { echo "$ids"; fail "rdma_cm IDs left after every program exited"; }
show_counters "${DEVS[@]}"
rdma_pair_done
