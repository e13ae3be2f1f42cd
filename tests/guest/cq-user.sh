#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Completion queues from user space (libibverbs through the rxe provider),
# without queue pairs: sizes and limits, the mapped ring, completion
# channels and arming, resize, create_cq_ex flags, 1000 CQs at once, and
# a process killed with SIGKILL while holding CQs leaves nothing behind.
. "$(dirname "$0")/lib.sh"

d0=${DEVPFX}0

make_veth
load_sroce
link_add "$d0" veth0

# count_cqs: CQs on $d0 as rdma resource tracking sees them.
count_cqs() { res_count cq "$d0"; }
cqs_before=$(count_cqs)

log "cq_basic $d0"
out=$(run_timeout 120 "$PROGS/cq_basic" "$d0") || { echo "$out"; fail "cq_basic failed"; }
echo "$out"
assert_match "$out" "device $d0 max_cqe 32767 max_cq [0-9]+ num_comp_vectors [0-9]+" "device line"
assert_match "$out" "PASSED: 0 failed" "cq_basic summary"
# Mapping a live ring a second time: sroce allows it (the entry stays
# mappable until the CQ is destroyed, and the second mapping must stay
# readable after the destroy); rxe hands out each ring once.
if [[ $SROCE_IMPL == rxe ]]; then
	assert_match "$out" "info: second mapping of a live ring: Invalid argument" "rxe second mapping"
else
	assert_match "$out" "info: second mapping of a live ring: mapped" "second mapping"
	assert_match "$out" "ok: mmap: ring readable after destroy \(index_mask 127\)" "ring after destroy"
fi
assert_eq "$(count_cqs)" "$cqs_before" "CQs on $d0 after cq_basic"

log "two processes at once"
run_timeout 120 "$PROGS/cq_basic" "$d0" > "$RESULTS/cq1.txt" 2>&1 &
p1=$!
run_timeout 120 "$PROGS/cq_basic" "$d0" > "$RESULTS/cq2.txt" 2>&1 &
p2=$!
wait "$p1" || fail "first concurrent cq_basic failed: $(tail -n 5 "$RESULTS/cq1.txt")"
wait "$p2" || fail "second concurrent cq_basic failed: $(tail -n 5 "$RESULTS/cq2.txt")"
assert_eq "$(count_cqs)" "$cqs_before" "CQs on $d0 after two processes"

log "a process killed while holding 100 CQs"
held=$RESULTS/hold.out
# exec: $! must be the process holding the CQs, not a wrapper.
(exec "$PROGS/cq_basic" "$d0" hold 100) > "$held" 2>&1 &
holder=$!
wait_until 60 "the holder to create its CQs" grep -q "^holding 100$" "$held"
assert_eq "$(count_cqs)" "$((cqs_before + 100))" "CQs on $d0 while held"
kill -KILL "$holder"
wait "$holder" 2>/dev/null || true
wait_until 30 "the killed process's CQs to go" res_count_is cq "$d0" "$cqs_before"

unload_sroce
log "ok"
