#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A connected QP (RC or UC) takes packets from its peer only. On one
# device on veth0, tests/guest/progs/peer_victim connects QP pairs A <-> B
# with the GID of 192.0.2.1 (RC and UC) and of 2001:db8::1 (RC and UC),
# each A with receives posted and a buffer open to remote writes. An
# unprivileged user then forges well-formed packets with valid ICRCs
# (tests/guest/progs/roce_forge, an ordinary UDP socket) for every A: SEND
# only and RDMA WRITE only into its buffer, at its expected PSN and the 16
# after it,
#  (a) from this host, from a second local address (192.0.2.3, 2001:db8::3),
#  (b) from namespace "peer" across the veth (192.0.2.2, 2001:db8::2),
#  (c) on sroce only, from this host, from the peer's own address
#      (192.0.2.1, 2001:db8::1: over the loopback device), which an
#      address check alone cannot tell from the local peer; skipped on
#      rdma_rxe, which finds no device for what arrives on the loopback
#      device and so never gets as far as a QP;
#  (d) on sroce only, with the verbs themselves (tests/guest/progs/
#      qp_impostor): QPs of the unprivileged user's own on the same
#      device, connected to A with the GID of A's peer, send one SEND and
#      one RDMA WRITE each at A's expected PSN. sroce hands them over
#      inside the host, not from the peer QP (A's dest_qp_num); skipped on
#      rdma_rxe, whose loopback path checks the addresses only.
# No receive may complete, no byte may change, the QPs stay in RTS; then
# each real peer B sends SENDs and RDMA WRITEs that must arrive whole,
# every byte of them (a forged packet taken would have moved A's PSN). On
# sroce, rx_not_peer counts at least every forged packet, none has a bad
# ICRC or header (they reached the QP). rxe cannot deliver between two of
# its own devices on one host: both ends of a pair are on the one device.
# Controls, so that the case cannot pass with packets nobody would take:
# two more QPs (RC over IPv4, UC over IPv6) are connected to a QP in
# namespace peer that does not exist; the packets forged from there, the
# peer's address, are taken (one SEND, one WRITE each).
. "$(dirname "$0")/lib.sh"

make_veth_netns
ip addr add 192.0.2.3/24 dev veth0
ip -6 addr add 2001:db8::3/64 dev veth0 nodad
load_sroce
dev=${DEVPFX}0
link_add "$dev" veth0
g4=$(wait_roce_gid 10 "$dev" 192.0.2.1) || fail "no RoCE v2 GID for 192.0.2.1 on $dev"
g6=$(wait_roce_gid 10 "$dev" 2001:db8::1) || fail "no RoCE v2 GID for 2001:db8::1 on $dev"
log "$dev: GID index $g4 (192.0.2.1), $g6 (2001:db8::1)"
FAIL_REPORT=report
report() { show_counters "$dev"; }

cnt_np=
if [[ $SROCE_IMPL == sroce ]]; then
	if [[ -e $(port_dir "$dev")/hw_counters/rx_not_peer ]]; then
		cnt_np=$(port_counter "$dev" rx_not_peer)
	else
		log "$dev has no rx_not_peer counter (checked after the victim)"
	fi
fi

# The peer's neighbour entries, so that no forged packet waits for one.
run_timeout 20 ip netns exec peer ping -c 1 -W 10 192.0.2.1 >/dev/null ||
	fail "192.0.2.1 does not answer ping from namespace peer"
run_timeout 20 ip netns exec peer ping -6 -c 1 -W 10 2001:db8::1 >/dev/null ||
	fail "2001:db8::1 does not answer ping from namespace peer"

# The victim: its QP lines, then "ready"; it goes on at a line on stdin.
vout=$RESULTS/peer_victim.txt
vfifo=/tmp/peer_victim.in
mkfifo "$vfifo"
exec {vin}<>"$vfifo"
run_timeout 60 "$PROGS/peer_victim" "$dev" "$g4" "$g6" 192.0.2.2 2001:db8::2 \
	<"$vfifo" >"$vout" 2>&1 &
vpid=$!

victim_failed() {	# RC
	cat "$vout"
	timed_out "$1" && fail "peer_victim timed out"
	fail "peer_victim: $(grep -m1 '^FAIL' "$vout" || echo "exit $1")"
}

victim_ready() {
	local rc=0
	grep -qx ready "$vout" && return 0
	kill -0 "$vpid" 2>/dev/null && return 1
	wait "$vpid" || rc=$?
	victim_failed "$rc"
}
wait_until 30 "peer_victim ready" victim_ready

victim_qps victim "$vout" victim
((${#QPN[@]} == 6)) || { cat "$vout"; fail "peer_victim named ${#QPN[@]} QPs, not 6"; }

# forge NETNS SRC4 SRC6: from SRC4 and SRC6 to 192.0.2.1 and
# 2001:db8::1, in network namespace NETNS ("": here), for every victim
# FORGE_COUNT SENDs and as many WRITEs (forge_packets).
forge() { forge_packets "$1" "$2" "$3" 192.0.2.1 2001:db8::1 rc4 uc4 rc6 uc6; }

log "(a) this host, from a second local address"
forge "" 192.0.2.3 2001:db8::3
log "(b) namespace peer, across the veth"
forge peer 192.0.2.2 2001:db8::2
if [[ $SROCE_IMPL == sroce ]]; then
	log "(c) this host, from the peer's own address"
	forge "" 192.0.2.1 2001:db8::1
else
	log "(c) skipped on $SROCE_IMPL: a packet on the loopback device reaches no rxe device"
fi

# (d): the impostor's RC work requests end in "retry exceeded" (nobody
# ACKs them), its UC ones complete when sent; at least a packet each.
if [[ $SROCE_IMPL == sroce ]]; then
	log "(d) this host, QPs of the user's own pointed at A from the peer's address"
	args=()
	for name in rc4 uc4 rc6 uc6; do
		args+=("$name" "${QPN[$name]}" "${PSN[$name]}" "${VA[$name]}" "${RKEY[$name]}")
	done
	np0=
	[[ -n $cnt_np ]] && np0=$(port_counter "$dev" rx_not_peer)
	iout=$RESULTS/qp_impostor.txt
	rc=0
	run_timeout 60 "${NOBODY[@]}" "$PROGS/qp_impostor" "$dev" "$g4" "$g6" \
		"${args[@]}" >"$iout" 2>&1 || rc=$?
	if ((rc)); then
		cat "$iout"
		timed_out "$rc" && fail "qp_impostor timed out"
		fail "qp_impostor: $(grep -m1 '^FAIL' "$iout" || echo "exit $rc")"
	fi
	grep '^sent [a-z]' "$iout"
	grep -qx 'qp_impostor all ok' "$iout" || { cat "$iout"; fail "no 'qp_impostor all ok'"; }
	isent=$(sed -n 's/^sent \([0-9][0-9]*\)$/\1/p' "$iout")
	assert_eq "$isent" 8 "work requests qp_impostor sent"
	FORGED=$((FORGED + isent))
	if [[ -n $np0 ]]; then
		# Its UC packets may still be on their way to A's engine.
		np_risen() { (($(port_counter "$dev" rx_not_peer) - np0 >= isent)); }
		wait_until 10 "rx_not_peer to count the impostor's $isent packets" np_risen
		log "rx_not_peer: +$(($(port_counter "$dev" rx_not_peer) - np0)) for the impostor's $isent packets"
	fi
else
	log "(d) skipped on $SROCE_IMPL: rdma_rxe's loopback path checks the addresses only"
fi

# The controls: from the address their QPs are connected to, one SEND at
# the expected PSN, one WRITE at the next.
log "controls: from namespace peer to the QPs connected to it"
forge_controls peer 192.0.2.2 2001:db8::2 192.0.2.1 2001:db8::1

echo go >&"$vin"
rc=0
wait "$vpid" || rc=$?
exec {vin}>&-
rm -f "$vfifo"
((rc == 0)) || victim_failed "$rc"
grep '^ok' "$vout"
grep -qx 'peer_victim all ok' "$vout" || { cat "$vout"; fail "no 'peer_victim all ok'"; }

log "$dev counters: $(dev_counters "$dev")"
if [[ $SROCE_IMPL == sroce ]]; then
	[[ -n $cnt_np ]] || fail "$dev has no port counter rx_not_peer"
	n=$(($(port_counter "$dev" rx_not_peer) - cnt_np))
	((n >= FORGED)) || fail "rx_not_peer rose by $n, not by the $FORGED forged packets"
	log "rx_not_peer: +$n for $FORGED forged packets"
	assert_eq "$(port_counter "$dev" rx_bad_icrc)" 0 "packets with a bad ICRC"
	assert_eq "$(port_counter "$dev" rx_bad_header)" 0 "packets with a bad header"
fi

FAIL_REPORT=
unload_sroce
ip netns del peer
log "ok"
