#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel side of completion queues (posting, overflow, arming, resize
# with entries queued, the user CQE format, concurrent posting and
# polling), which user space cannot reach before queue pairs move data:
# tests/guest/kmod/cq_selftest.c, linked with the driver's queue.c,
# mmap.c and verbs_cq.c, runs its checks when loaded.
#
# The module is built on the host by tests/guest/kmod/build.sh (the
# runner's job, like tests/guest/progs); building it in the emulated guest
# takes minutes. sroce-only: there is no rxe counterpart to link with.
. "$(dirname "$0")/lib.sh"

if [[ $SROCE_IMPL == rxe ]]; then
	log "skipped: white-box test of sroce's CQ code"
	exit 0
fi

src=$REPO/drivers/infiniband/sw/sroce
kmod=$REPO/tests/guest/kmod
ko=$REPO/build/guest/kmod/$KVER/sroce_cq_selftest.ko
for f in "$kmod/Kbuild" "$kmod/cq_selftest.c" "$src"/*.[ch]; do
	[[ -e $ko && $ko -nt $f ]] ||
		fail "$ko missing or older than $f: run tests/guest/kmod/build.sh on the host"
done

run_timeout 30 modprobe ib_core || fail "cannot load ib_core"
log "insmod sroce_cq_selftest.ko"
# The checks run at load time; a failed check makes the load fail.
rc=0
run_timeout 120 insmod "$ko" || rc=$?
summary=$(dmesg | grep -o 'sroce_cq_selftest: [0-9]* passed, [0-9]* failed' | tail -n 1)
dmesg | grep 'sroce_cq_selftest: FAILED' || true
echo "$summary"
assert_eq "$rc" 0 "insmod exit status"
assert_match "$summary" "^sroce_cq_selftest: [1-9][0-9]* passed, 0 failed$" "self-test summary"
run_timeout 30 rmmod sroce_cq_selftest || fail "rmmod sroce_cq_selftest failed"
log "ok"
