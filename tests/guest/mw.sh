#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory windows and MR re-registration (tests/guest/progs/mw.c): 70 000
# MR registrations and MW allocations in a row (shared key space, timed);
# type 1 windows bound by ibv_bind_mw and type 2 windows bound by
# ibv_post_send/ibv_wr_bind_mw, RDMA WRITE/READ/atomics through them with
# the data checked; accesses outside a window, with a dead key, through
# another QP; LOCAL_INV and SEND_WITH_INV (IBV_WC_WITH_INV,
# invalidated_rkey); bind errors (IBV_WC_MW_BIND_ERR); dereg refused
# while windows are bound; rereg of translation, access and PD with
# remote access following. Between the rdma_pair ends (lib.sh): A on the
# client device, B (the memory and its windows) on the server device. On
# rxe, one device serves both, and mw -r accepts rxe's known deviations,
# printing each as "rxe quirk: ...".
. "$(dirname "$0")/lib.sh"

CHURN=70000
# Registering and freeing must stay cheap: 70 000 of each, with a
# syscall apiece, in an emulated guest on a loaded host.
CHURN_MAX_S=240

load_sroce
rdma_pair 1500

opts=()
[[ $SROCE_IMPL == rxe ]] && opts=(-r)
rc=0
out=$(run_timeout 420 "$PROGS/mw" "${opts[@]}" "$CDEV" "$CG" "$SDEV" "$SG" "$CHURN" 2>&1) || rc=$?
echo "$out" > "$RESULTS/mw.txt"
grep -E '^(ok churn|rxe quirk|FAIL)' <<<"$out" || true
if ((rc)); then
	tail -n 5 <<<"$out"
	show_counters "$SDEV" "$CDEV"
	((rc == 124 || rc == 137)) && fail "mw timed out"
	fail "mw: $(grep -m1 '^FAIL' <<<"$out" || echo "exit $rc")"
fi
assert_match "$out" "mw all ok" "mw"
log "$(grep -c '^ok ' <<<"$out") checks passed"

churn_s=$(sed -n 's/^ok churn: .* \([0-9.]*\) s (.*/\1/p' <<<"$out")
[[ -n $churn_s ]] || fail "no churn timing in the output"
((${churn_s%.*} < CHURN_MAX_S)) ||
	fail "churn of $CHURN took ${churn_s}s (limit ${CHURN_MAX_S}s)"

unload_sroce
[[ $SROCE_IMPL == rxe ]] || ip netns del peer
log "ok"
