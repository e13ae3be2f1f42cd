#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UC transport checked byte by byte (tests/guest/progs/uc_data.c), at path
# MTUs 256, 1024 and 4096: SEND (scatter/gather, immediate) and RDMA
# WRITE (with immediate) with the bytes around them, a burst of 64 in one
# post, and the UC rules: a message the responder cannot take (no receive
# WQE, bad rkey, no remote write access, longer than the receive WQE) is
# dropped there, completes at the requester, and the next message arrives
# whole (uc_data -r on rxe: 6.1 completes a SEND too long with
# IBV_WC_LOC_QP_OP_ERR, taking it for a malformed WQE). Then uc_data -l:
# 120 messages over a veth that loses, duplicates and reorders (netem):
# what arrives is whole, in order, with its own bytes (on rxe the
# loopback shortcut bypasses the veth).
# On sroce the receiver's rx_dropped_msg counter must show exactly the
# four drops uc_data provokes per run while the veth is lossless.
# Topology: veth0 here, veth1 in namespace "peer" (MTU 4500: active_mtu
# 4096); on rxe one device serves both sides (rxe cannot deliver between
# two of its own devices on one host).
. "$(dirname "$0")/lib.sh"

NETDEV_MTU=4500

load_sroce
rdma_pair "$NETDEV_MTU"

# new_drops WHAT N: on sroce, exactly N UC messages dropped at sroce1
# (uc_data's B) and none at sroce0 since the last call.
DROPS0=0 DROPS1=0
new_drops() {
	[[ $SROCE_IMPL == sroce ]] || return 0
	local d0 d1
	d0=$(port_counter sroce0 rx_dropped_msg)
	d1=$(port_counter sroce1 rx_dropped_msg)
	if ((d0 != DROPS0 || d1 != DROPS1 + $2)); then
		show_counters sroce0 sroce1
		fail "$1: UC messages dropped: sroce0 $((d0 - DROPS0)), sroce1 $((d1 - DROPS1)) (expected 0 and $2)"
	fi
	DROPS0=$d0 DROPS1=$d1
}

# uc_data NAME MTU [OPTS]: the byte-exact checks, A on $SDEV, B on $CDEV.
uc_data() {
	local opts=("${@:3}")
	[[ $SROCE_IMPL == rxe ]] && opts+=(-r)
	run_prog "$1" 90 uc_data "${opts[@]}" "$SDEV" "$SG" "$CDEV" "$CG" "$2"
}

for mtu in 256 1024 4096; do
	uc_data "uc_data-$mtu" "$mtu"
	# No receive WQE, bad rkey, no write access, too long.
	new_drops "uc_data mtu $mtu" 4
done

# A wire that loses, duplicates and reorders what A sends: only whole
# messages may arrive.
run_timeout 30 modprobe sch_netem || fail "no sch_netem module for $(uname -r)"
tc qdisc add dev veth0 root netem loss 3% duplicate 3% reorder 10% delay 1ms ||
	fail "tc qdisc add dev veth0 root netem failed"
uc_data uc_data-lossy 1024 -l 120
stats=$(tc -s qdisc show dev veth0)
tc qdisc del dev veth0 root
if [[ $SROCE_IMPL == sroce ]]; then
	dropped=$(sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' <<<"$stats" | head -n 1)
	((${dropped:-0} > 0)) || fail "netem dropped nothing on veth0: $stats"
	log "netem on veth0: dropped $dropped"
fi

rdma_pair_done
