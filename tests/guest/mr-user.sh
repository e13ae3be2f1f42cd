#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory registration from user space (tests/guest/progs/mr_basic.c):
# sizes and alignments, every access-flag combination and the invalid ones,
# distinct keys across live MRs, 70 000 registrations in a row, the max_mr
# limit, bad addresses, and a killed process giving its pinned pages back.
. "$(dirname "$0")/lib.sh"

d0=${DEVPFX}0

make_veth
load_sroce
link_add "$d0" veth0

# mr_basic MODE [ARG]: run it, keep its output, fail on any FAIL line.
mr_basic() {
	local out rc=0
	out=$(run_timeout 240 "$PROGS/mr_basic" "$d0" "$@" 2>&1) || rc=$?
	echo "$out" > "$RESULTS/mr_basic-$1.txt"
	grep -v '^ok ' <<<"$out" || true
	((rc == 0)) || fail "mr_basic $*: exit $rc: $(grep -m1 FAIL <<<"$out" || tail -n1 <<<"$out")"
	MR_OUT=$out
}

# count_mrs: MRs on $d0 in rdma resource tracking. Kernel consumers' DMA
# MRs are not tracked there, so user MRs are all it shows.
count_mrs() { res_count mr "$d0"; }
mem_available_kib() { awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo; }

# A few hugepages, for the hugetlb-backed registrations.
echo 4 > /proc/sys/vm/nr_hugepages || true

mrs_before=$(count_mrs)

log "basic: sizes, alignments, access flags, bad input, live keys"
mr_basic basic
assert_match "$MR_OUT" "access combinations: 20 valid, 12 invalid" "access combinations"
assert_match "$MR_OUT" "ok reg 64 MiB len 67108864" "64 MiB registration"

log "churn: 70000 reg/dereg in a row"
mr_basic churn 70000
assert_match "$MR_OUT" "ok 70000 reg/dereg in a row" "churn"

log "max: register until the device refuses"
max_mr=$(devinfo_field "$d0" max_mr)
# Pinning ~one page per MR; enough memory for sroce's limit, not for rxe's
# half a million (on rxe, count to a few thousand only).
if ((max_mr <= 300000)); then
	limit=$((max_mr + 16))
else
	limit=5000
	log "max_mr $max_mr is too large for this guest: checking $limit live MRs only"
fi
mr_basic max "$limit"
if ((limit > max_mr)); then
	assert_match "$MR_OUT" "registered [0-9]+ errno Cannot allocate memory" "refusal errno"
fi
assert_eq "$(count_mrs)" "$mrs_before" "MRs left after max"

log "a killed process unpins its memory"
avail_before=$(mem_available_kib)
run_timeout 120 "$PROGS/mr_basic" "$d0" hold 256 > "$RESULTS/hold.txt" 2>&1 &
holder=$!
wait_until 60 "the holder to register" grep -q holding "$RESULTS/hold.txt"
# The program itself, not the timeout(1) wrapper around it.
pid=$(awk '/^holding pid/ { print $3 }' "$RESULTS/hold.txt")
assert_eq "$(count_mrs)" "$((mrs_before + 1))" "MRs while holding"
avail_holding=$(mem_available_kib)
kill -9 "$pid"
wait "$holder" 2>/dev/null || true
wait_until 10 "the MR to go away" res_count_is mr "$d0" "$mrs_before"
avail_after=$(mem_available_kib)
log "MemAvailable KiB: before $avail_before holding $avail_holding after $avail_after"
((avail_before - avail_holding > 200 * 1024)) ||
	fail "holding 256 MiB did not show in MemAvailable"
((avail_before - avail_after < 32 * 1024)) ||
	fail "$(((avail_before - avail_after) / 1024)) MiB not given back after kill"

unload_sroce
log "ok"
