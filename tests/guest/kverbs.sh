#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel verbs, as a kernel ULP uses them: tests/guest/kmod/kverbs_selftest.c
# runs its checks when loaded, on the device named by its dev= parameter,
# through the RDMA core's exported API only (no driver source linked):
# RC SEND with immediate over several SGEs and packets, unsignalled and
# inline sends, RNR retry, posting with interrupts or BHs off; fast-reg MRs
# (ib_alloc_mr, ib_map_mr_sg, zero-based, partial pages, IB_WR_REG_MR)
# with RDMA WRITE (with immediate), READ and atomics through them,
# LOCAL_INV and SEND_WITH_INV and the stale rkey refused
# (IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR); PSNs wrapping; flushing
# on ERR as ib_drain_qp needs it; post-time errors (RESET, SGE count, bad
# opcode, inline size, full SQ in INIT and in RTS, full RQ); a kernel SRQ
# shared by two QPs (wc.qp, last WQE reached); UD with an AH from
# rdma_create_ah, the GRH area and src_qp. All loopback on one device (its
# own RoCE v2 GID) on veth0; the checks take about 1 s (sroce) to 5 s (rxe)
# in the emulated guest.
#
# The module is built on the host by tests/guest/kmod/build.sh (the
# runner's job, like tests/guest/progs). On rxe (dev=rxe0) the same checks
# prove the test; rxe_quirks=1 accepts rxe's known deviations, which the
# module prints as "rxe quirk: ..." (6.1: ib_create_qp hands back the caps
# asked for, not the QP's; no ib_post_send before RTS; no
# IB_EVENT_QP_ACCESS_ERR on the responder of a bad rkey; no
# IB_EVENT_QP_LAST_WQE_REACHED).
. "$(dirname "$0")/lib.sh"

kmod=$REPO/tests/guest/kmod
ko=$REPO/build/guest/kmod/$KVER/kverbs_selftest.ko
for f in "$kmod/Kbuild" "$kmod/kverbs_selftest.c"; do
	[[ -e $ko && $ko -nt $f ]] ||
		fail "$ko missing or older than $f: run tests/guest/kmod/build.sh on the host"
done

load_sroce
make_veth
dev=${DEVPFX}0
link_add "$dev" veth0
g=$(wait_roce_gid 10 "$dev" 192.0.2.1) || fail "no RoCE v2 GID for 192.0.2.1 on $dev"
log "$dev ($RDMA_MODULE) on veth0, GID index $g"

quirks=0
[[ $SROCE_IMPL == rxe ]] && quirks=1
log "insmod kverbs_selftest.ko dev=$dev rxe_quirks=$quirks"
# The checks run at load time; a failed check makes the load fail.
rc=0
run_timeout 120 insmod "$ko" dev="$dev" rxe_quirks="$quirks" || rc=$?
dmesg | grep 'kverbs_selftest: ' > "$RESULTS/kverbs.txt" || true
summary=$(grep -o 'kverbs_selftest: [0-9]* passed, [0-9]* failed' "$RESULTS/kverbs.txt" | tail -n 1)
grep -E 'kverbs_selftest: (FAILED|rxe quirk)|checks took' "$RESULTS/kverbs.txt" || true
echo "$summary"
if ((rc)); then
	log "$dev counters: $(dev_counters "$dev")"
	fail "insmod kverbs_selftest.ko exited $rc: ${summary:-no summary}"
fi
assert_match "$summary" "^kverbs_selftest: [1-9][0-9]* passed, 0 failed$" "self-test summary"
log "$dev counters: $(dev_counters "$dev")"
if [[ $SROCE_IMPL == sroce ]]; then
	assert_eq "$(port_counter "$dev" rx_bad_icrc)" 0 "$dev bad ICRC"
fi
run_timeout 30 rmmod kverbs_selftest || fail "rmmod kverbs_selftest failed"
unload_sroce
log "ok"
