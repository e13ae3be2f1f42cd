#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A user process (libibverbs through the rxe provider) opens the device,
# queries it, and allocates and frees 1000 protection domains; twice, and
# two processes at once, to see that nothing is left behind.
. "$(dirname "$0")/lib.sh"

d0=${DEVPFX}0

make_veth
load_sroce
link_add "$d0" veth0

# count_pds: PDs on $d0 as rdma resource tracking sees them.
count_pds() { res_count pd "$d0"; }
pds_before=$(count_pds)

log "pd_alloc $d0 1000"
out=$(run_timeout 60 "$PROGS/pd_alloc" "$d0" 1000) || { echo "$out"; fail "pd_alloc failed"; }
echo "$out"
assert_match "$out" "device $d0 max_pd [0-9]+ phys_port_cnt 1" "device line"
assert_match "$out" "port 1 state active link_layer Ethernet active_mtu 3" "port line"
assert_match "$out" "allocated 1000 distinct 1000 freed 1000" "PD line"

log "two processes at once"
run_timeout 60 "$PROGS/pd_alloc" "$d0" 500 > "$RESULTS/pd1.txt" 2>&1 &
p1=$!
run_timeout 60 "$PROGS/pd_alloc" "$d0" 500 > "$RESULTS/pd2.txt" 2>&1 &
p2=$!
wait "$p1" || fail "first concurrent pd_alloc failed: $(cat "$RESULTS/pd1.txt")"
wait "$p2" || fail "second concurrent pd_alloc failed: $(cat "$RESULTS/pd2.txt")"
assert_match "$(cat "$RESULTS/pd1.txt")" "allocated 500 distinct 500 freed 500" "process 1"
assert_match "$(cat "$RESULTS/pd2.txt")" "allocated 500 distinct 500 freed 500" "process 2"

log "rdma resource show pd: the user PDs are gone"
# Kernel users (ib_mad) hold PDs of their own: compare with the count
# before any process ran.
assert_eq "$(count_pds)" "$pds_before" "PDs on $d0 (rdma resource show pd)"

unload_sroce
log "ok"
