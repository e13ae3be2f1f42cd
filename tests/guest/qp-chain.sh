#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Chains of 512 RC QPs on one device, each QP's destination the next one
# (tests/guest/progs/qp_chain.c): a responder answers to its own
# destination, a requester that gets an answer sends what waits in its
# ring, and a packet to a local QP runs that QP's engine in place - so one
# trigger runs the whole chain, and a driver that lets those runs nest
# recurses once per QP until the kernel stack overflows. Three chains:
# PSN sequence NAKs answered by retransmitted WRITEs (as the issue has
# it); read responses and ACKs with fenced WRITEs; atomic
# acknowledgements and ACKs with fenced SENDs. Each must run to its end,
# leave the memory exactly as it should, complete and flush what it
# should; the kernel log must stay clean (the harness checks it: a stack
# overflow is an oops).
# On rxe: rdma_rxe 6.1 runs its tasks inline as well, and a chain of 512
# overflows its stack too ("BUG: TASK stack guard page was hit" in
# rxe_do_task); it runs the nak chain of 16 QPs only (qp_chain -r says why
# not the others).
# On sroce no such chain forms any more: a packet that one QP of this host
# hands to another must come from the receiver's peer QP (its
# dest_qp_num), and every link of a chain is an answer reaching a QP other
# than the one that asked. The nak chain of 512 QPs is built all the same
# and must be refused at its first link (qp_chain -p): T's WRITE dropped,
# rx_not_peer up by one, nothing completes, no byte changes, every WRITE
# flushed. The nesting bound itself is still what keeps a pair of local
# QPs, or kernel consumers that post from their completion handlers, from
# growing the stack (engine-bounds).
. "$(dirname "$0")/lib.sh"

QPS=512 opts=(-p)
if [[ $SROCE_IMPL == rxe ]]; then
	QPS=16 opts=(-r)
	echo "rxe quirk: one QP's task runs inside another's, once per QP" \
		"of a chain (its stack overflows at 512): $QPS QPs only"
fi

make_veth
load_sroce
dev=${DEVPFX}0
link_add "$dev" veth0
gid=$(wait_roce_gid 10 "$dev" 192.0.2.1) || fail "no IPv4 GID"

run_prog qp_chain 240 qp_chain "${opts[@]}" -n "$QPS" "$dev" "$gid"
out=$(cat "$RESULTS/qp_chain.txt")
if [[ $SROCE_IMPL == sroce ]]; then
	assert_match "$out" "ok nak chain of $QPS QPs refused at its first link" "nak chain"
	assert_match "$out" "peer-checked: the read/write and atomic/send chains" "other chains"
	# Every packet stayed on this host, delivered directly: none went
	# to a QP that does not exist, none was dropped for a full queue.
	assert_eq "$(port_counter "$dev" rx_no_qp)" 0 "rx_no_qp"
	assert_eq "$(port_counter "$dev" rx_queue_full)" 0 "rx_queue_full"
else
	assert_match "$out" "ok nak chain of $QPS QPs" "nak chain"
fi

unload_sroce
log "ok"
