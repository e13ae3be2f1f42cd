#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC atomics (compare-and-swap, fetch-and-add):
#  - tests/guest/progs/atomics.c: the semantics of both, checked in the
#    target and in the local SGE with the bytes around them; posting order
#    with WRITEs and READs; 4 QPs (from both devices, one thread each) on
#    one counter at once - every add counted once, every returned value
#    distinct, each QP's own adds seen in order; CAS increments racing;
#    the errors: misaligned address (refused by librxe's ibv_post_send,
#    IBV_WC_REM_INV_REQ_ERR through ibv_wr_atomic_*), no remote atomic
#    access on the MR or the QP, bad rkey, past the end of the MR
#    (IBV_WC_REM_ACCESS_ERR);
#  - tests/guest/progs/atomic_write.c: ATOMIC WRITE (sroce only);
#  - perftest: ib_atomic_bw and ib_atomic_lat with -A CMP_AND_SWAP and
#    -A FETCH_AND_ADD; each side exits 0 and prints its result row (but
#    ib_atomic_lat's server, which only serves the atomics);
#  - atomics -l: the 4 QPs at once again, all from A, over a veth that
#    loses, duplicates and reorders both ways (netem): retransmitted and
#    duplicated requests must not execute twice.
# Topology: veth0 here, veth1 in namespace "peer"; atomics runs with A on
# sroce0 and B (the targets) on sroce1, so that half its requesters cross
# the veth and half loop back inside sroce1. On rxe one device serves
# both sides (rxe cannot deliver between two of its own devices on one
# host), and atomics -r accepts rxe's known deviations ("rxe quirk: ...":
# 6.1 answers an atomic to a QP without remote atomic access with
# IBV_WC_REM_INV_REQ_ERR).
. "$(dirname "$0")/lib.sh"

TOOL_TIMEOUT=60		# seconds, for each perftest server and client

load_sroce
rdma_pair 1500

# atomics NAME [OPTS]: the program, A on $SDEV, B (the targets) on $CDEV.
atomics() {
	local opts=("${@:2}")
	[[ $SROCE_IMPL == rxe ]] && opts+=(-r)
	run_prog "$1" 120 atomics "${opts[@]}" "$SDEV" "$SG" "$CDEV" "$CG"
}

atomics atomics

# ATOMIC WRITE (ibv_wr_atomic_write): the value lands whole and in order,
# errors for a read-only MR and a misaligned address. rdma_rxe 6.1 has
# none: atomic_write -r only checks that it fails cleanly there.
quirks=()
[[ $SROCE_IMPL == rxe ]] && quirks=(-r)
run_prog atomic_write 120 atomic_write "${quirks[@]}" "$SDEV" "$SG" "$CDEV" "$CG"

local_perftest atomic_bw_cas   8 ib_atomic_bw -n 200 -A CMP_AND_SWAP
local_perftest atomic_bw_fadd  8 ib_atomic_bw -n 200 -A FETCH_AND_ADD
local_perftest atomic_lat_cas  8 ib_atomic_lat -n 100 -A CMP_AND_SWAP
local_perftest atomic_lat_fadd 8 ib_atomic_lat -n 100 -A FETCH_AND_ADD

# A wire that loses, duplicates and reorders both ways: atomics sent
# again after a loss, or twice by the wire, must still execute once. (On
# rxe the loopback shortcut bypasses the veth.)
NETEM=(loss 2% duplicate 3% reorder 10% delay 1ms)
NS_PEER=()
[[ $SROCE_IMPL == sroce ]] && NS_PEER=(ip netns exec peer)
run_timeout 30 modprobe sch_netem || fail "no sch_netem module for $(uname -r)"
tc qdisc add dev veth0 root netem "${NETEM[@]}" || fail "netem on veth0"
"${NS_PEER[@]}" tc qdisc add dev veth1 root netem "${NETEM[@]}" || fail "netem on veth1"
atomics atomics-lossy -l
stats0=$(tc -s qdisc show dev veth0)
stats1=$("${NS_PEER[@]}" tc -s qdisc show dev veth1)
tc qdisc del dev veth0 root
"${NS_PEER[@]}" tc qdisc del dev veth1 root
if [[ $SROCE_IMPL == sroce ]]; then
	for st in "$stats0" "$stats1"; do
		dropped=$(sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' <<<"$st" | head -n 1)
		((${dropped:-0} > 0)) || fail "netem dropped nothing: $st"
	done
	log "netem dropped: $(grep -o 'dropped [0-9]*' <<<"$stats0$stats1" | tr '\n' ' ')"
	log "counters: sroce0: $(dev_counters sroce0); sroce1: $(dev_counters sroce1)"
fi

rdma_pair_done
