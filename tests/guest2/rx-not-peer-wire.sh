#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A connected QP (RC or UC) takes packets from its peer only, across the
# wire: tests/guest/rx-not-peer.sh with the forger on the peer guest.
# tests/guest/progs/wire_victim connects QPs of guest A to their twins on
# guest B, RC and UC over IPv4 ($MY_IP) and over IPv6 ($MY_IP6), each of
# A's with receives posted and a buffer open to remote writes. Guest B
# adds a second address of each family (192.0.2.3, 2001:db8::3) on its
# eth0, and from there an unprivileged user forges well-formed packets
# with valid ICRCs (tests/guest/progs/roce_forge, an ordinary UDP socket)
# for each of A's QPs: SEND only and RDMA WRITE only into its buffer, at
# its expected PSN and the 16 after it. No receive may complete on A, no
# byte may change, the QPs stay in RTS; on sroce, A's rx_not_peer counts
# at least every forged packet, and none has a bad ICRC or header. Then
# B's real QPs send SENDs and RDMA WRITEs that A checks byte for byte (a
# forged packet taken would have moved A's PSN). Controls, so that the
# case cannot pass with packets nobody would take: two more QPs on A (RC
# over IPv4, UC over IPv6), connected to B's own addresses but to a QP
# that does not exist, take one SEND and one WRITE each forged from B's
# own addresses.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"

SECOND_IP=192.0.2.3 SECOND_IP6=2001:db8::3

wire_rdma_dev
g6=$(wait_roce_gid 10 "$dev" "$MY_IP6") || fail "no RoCE v2 GID for $MY_IP6 on $dev"
log "$dev: GID index $g4 ($MY_IP), $g6 ($MY_IP6)"
if [[ $ROLE == B ]]; then
	ip addr add "$SECOND_IP/24" dev eth0
	ip -6 addr add "$SECOND_IP6/64" dev eth0 nodad
	log "eth0: second addresses $SECOND_IP and $SECOND_IP6"
fi
wire_meet

# Both sides: wire_victim's QP lines, then "ready"; it goes on at lines on
# stdin: the peer's QP lines, then "go".
vout=$RESULTS/wire_victim.txt
vfifo=/tmp/wire_victim.in
mkfifo "$vfifo"
exec {vin}<>"$vfifo"
run_timeout 150 "$PROGS/wire_victim" "${ROLE,,}" "$dev" "$g4" "$g6" \
	"$PEER_IP" "$PEER_IP6" <"$vfifo" >"$vout" 2>&1 &
vpid=$!
on_failure() {
	log "$dev counters: $(dev_counters "$dev")"
	sed 's/^/  | /' "$vout"
}

victim_failed() {	# RC
	timed_out "$1" && fail "wire_victim timed out"
	fail "wire_victim: $(grep -m1 '^FAIL' "$vout" || echo "exit $1")"
}

# victim_at LINE: wire_victim printed LINE; fails if it exited or the
# peer failed.
victim_at() {
	local rc=0
	grep -qx "$1" "$vout" && return 0
	peer_failed && fail "peer $PEER_ROLE failed while wire_victim waits for '$1'"
	kill -0 "$vpid" 2>/dev/null && return 1
	wait "$vpid" || rc=$?
	victim_failed "$rc"
}

# victim_gone: wire_victim exited; fails if the peer failed first.
victim_gone() {
	kill -0 "$vpid" 2>/dev/null || return 0
	peer_failed && fail "peer $PEER_ROLE failed while wire_victim runs"
	return 1
}

victim_end() {
	local rc=0
	wait_until 150 "wire_victim to finish" victim_gone
	wait "$vpid" || rc=$?
	exec {vin}>&-
	rm -f "$vfifo"
	((rc == 0)) || victim_failed "$rc"
	grep '^ok' "$vout"
	grep -qx 'wire_victim all ok' "$vout" || fail "no 'wire_victim all ok'"
}

wait_until 60 "wire_victim ready" victim_at ready
grep '^qp ' "$vout" >"$SHARED/$ROLE.qps"
signal qps
wait_peer qps 120
{ grep '^qp ' "$SHARED/$PEER_ROLE.qps"; echo end; } >&"$vin"
wait_until 60 "wire_victim connected" victim_at connected
signal connected
wait_peer connected 120

if [[ $ROLE == A ]]; then
	cnt_np=
	if [[ $SROCE_IMPL == sroce ]]; then
		[[ -e $(port_dir "$dev")/hw_counters/rx_not_peer ]] ||
			fail "$dev has no port counter rx_not_peer"
		cnt_np=$(port_counter "$dev" rx_not_peer)
	fi
	rx0=$(</sys/class/net/eth0/statistics/rx_packets)
	signal armed
	wait_peer forged 120
	forged=$(<"$SHARED/B.forged")
	# All of them are in before wire_victim looks (on rxe, B's ping after
	# them came back).
	np_counted() { (($(port_counter "$dev" rx_not_peer) - cnt_np >= forged)); }
	if [[ $SROCE_IMPL == sroce ]]; then
		wait_until 30 "rx_not_peer to count the $forged forged packets" np_counted
	fi
	rx=$(($(</sys/class/net/eth0/statistics/rx_packets) - rx0))
	((rx >= forged + 4)) || fail "eth0 received $rx packets, not the $forged forged and 4 controls"
	log "eth0: $rx packets in since the QPs were connected"
	echo go >&"$vin"
	wait_until 60 "wire_victim checked" victim_at checked
	log "$dev counters: $(dev_counters "$dev")"
	if [[ $SROCE_IMPL == sroce ]]; then
		n=$(($(port_counter "$dev" rx_not_peer) - cnt_np))
		((n >= forged)) || fail "rx_not_peer rose by $n, not by the $forged forged packets"
		log "rx_not_peer: +$n for $forged forged packets"
	else
		log "counter checks skipped on $SROCE_IMPL"
	fi
	signal checked
	victim_end
else
	victim_qps qp "$SHARED/A.qps" "A's"
	((${#QPN[@]} == 6)) || fail "A named ${#QPN[@]} QPs, not 6"

	# A's neighbour entries, so that no forged packet waits for one.
	run_timeout 20 ping -c 1 -W 10 "$PEER_IP" >/dev/null ||
		fail "$PEER_IP does not answer ping"
	run_timeout 20 ping -6 -c 1 -W 10 "$PEER_IP6" >/dev/null ||
		fail "$PEER_IP6 does not answer ping"
	wait_peer armed 120
	log "forging from $SECOND_IP and $SECOND_IP6 for A's QPs"
	forge_packets "" "$SECOND_IP" "$SECOND_IP6" "$PEER_IP" "$PEER_IP6" rc4 uc4 rc6 uc6

	# The controls: from the address their QPs are connected to, one SEND
	# at the expected PSN, one WRITE at the next.
	log "controls: from $MY_IP and $MY_IP6 to A's QPs connected to them"
	forge_controls "" "$MY_IP" "$MY_IP6" "$PEER_IP" "$PEER_IP6"

	# Behind every forged packet on the wire: once A answers, it has
	# taken them all in.
	run_timeout 20 ping -c 1 -W 10 "$PEER_IP" >/dev/null ||
		fail "$PEER_IP does not answer ping after the forged packets"
	run_timeout 20 ping -6 -c 1 -W 10 "$PEER_IP6" >/dev/null ||
		fail "$PEER_IP6 does not answer ping after the forged packets"
	echo "$FORGED" >"$SHARED/B.forged"
	signal forged
	wait_peer checked 120
	log "real SENDs and WRITEs to A"
	echo go >&"$vin"
	victim_end
fi

signal finished
wait_peer finished 120
wire_done
