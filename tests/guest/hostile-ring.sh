#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A process writes garbage into its own mapped send ring (bad opcode, too
# many SGEs, an SGE past its MR, a bogus lkey, inline data past the slot, an
# unknown AH, an embedded AV naming no GID, a kernel-only opcode): each bad
# WQE completes with an error, the QP goes to ERR and flushes what follows,
# the kernel stays clean. A producer index moved back behind WQEs in flight
# is refused: QP_FATAL, ERR, flush, counted in sq_overruns. A valid embedded AV (ah_num 0) is delivered. The packets of the valid
# sends go to the device's own address and come back over the loopback
# device, which also exercises that receive path; they are for QPN 2,
# which no QP ever has (QP1 is the MAD layer's), so they count as rx_no_qp.
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case"; exit 0; }

make_veth
load_sroce
link_add sroce0 veth0
gid=$(wait_roce_gid 10 sroce0 192.0.2.1) || fail "no IPv4 GID"

out=$(run_timeout 120 "$PROGS/hostile_ring" sroce0 "$gid" 2>&1) ||
	{ echo "$out"; fail "hostile_ring failed"; }
echo "$out"
assert_match "$out" "hostile_ring all ok" "all corruptions"
no_qp=$(cat "$(port_dir sroce0)/hw_counters/rx_no_qp")
((no_qp >= 6)) || fail "valid sends to our own address did not come back (rx_no_qp $no_qp)"
overruns=$(cat "$(port_dir sroce0)/hw_counters/sq_overruns")
((overruns == 1)) || fail "sq_overruns is $overruns, want 1"

unload_sroce
log "ok"
