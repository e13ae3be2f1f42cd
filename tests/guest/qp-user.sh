#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Queue pairs from user space through the stock rxe provider: creation
# caps, the state machine, query, flush on ERR, discard on RESET, limits,
# many QPs; then a process killed while holding QPs releases them all.
. "$(dirname "$0")/lib.sh"

d0=${DEVPFX}0
make_veth
load_sroce
link_add "$d0" veth0

out=$(run_timeout 120 "$PROGS/qp_state" "$d0" 2>&1) || { echo "$out"; fail "qp_state failed"; }
echo "$out"
assert_match "$out" "rc transitions ok qpn [0-9]+" "RC transitions"
assert_match "$out" "flush ok" "flush on ERR"
assert_match "$out" "reset ok" "RESET"
assert_match "$out" "qp_state all ok" "all checks"

log "killed process releases its QPs"
"$PROGS/qp_state" "$d0" hold >"$RESULTS/qp-hold.txt" 2>&1 &
pid=$!
wait_until 60 "the process to hold its QPs" grep -q "holding" "$RESULTS/qp-hold.txt"
n=$(rdma resource show qp 2>/dev/null | grep "link $d0/" | grep -vc 'comm \[ib_core\]') || true
((n >= 1000)) || fail "$n user QPs listed while the process holds 1000"
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
# Kernel QPs (QP1, owned by ib_core) are not the process's.
wait_until 20 "no user QPs left on $d0" \
	bash -c "! rdma resource show qp 2>/dev/null | grep 'link $d0/' | grep -vq 'comm \\[ib_core\\]'"

unload_sroce
log "ok"
