#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS over RDMA between two guests: the kernel's rds and rds_rdma modules
# (no rds_tcp: nothing to fall back to), driven by
# tests/guest/progs/rds_verify (Debian 12 has no rds-tools). Each guest
# binds a PF_RDS socket to its address on the wire with SO_RDS_TRANSPORT
# set to the IB transport; B answers, A initiates: messages of 1 B to
# 1 MiB each way, every byte checked; then RDS's RDMA path, a 256 KiB
# region B maps (RDS_CMSG_RDMA_MAP: a fast-registration MR) that A reads
# and writes with RDMA through RDS_CMSG_RDMA_ARGS, checked on both ends;
# and RDS_INFO_IB_CONNECTIONS lists the IB connection between the two
# addresses. Each device must have received at least one packet per KiB
# (the path MTU) of the data sent to its guest.
#
# rdma_rxe: the same on both ends passes. On either driver a bare
# RDS_GET_MR fails with EOPNOTSUPP: rds_rdma registers with FRWR, which
# needs a connection's QP, so rds_verify maps the region with the message
# that announces it.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
run_timeout 60 modprobe rds_rdma || fail "modprobe rds_rdma"
wire_meet

RX_CTR=rx_packets
[[ $SROCE_IMPL == rxe ]] && RX_CTR=rcvd_pkts
# What each side receives: 3 x (1 B ... 1 MiB) of echo (and A the
# 256 KiB RDMA read), in packets of at most 1 KiB.
MIN_RX=$((3 * 1397867 / 1024))

out=$RESULTS/rds_verify.txt
rx0=$(port_counter "$dev" "$RX_CTR")
t0=$SECONDS
args=(-l "$MY_IP" -r "$PEER_IP")
if [[ $ROLE == B ]]; then
	timeout -k 5 150 "$PROGS/rds_verify" "${args[@]}" >"$out" 2>&1 &
	pid=$!
	wait_until 60 "rds_verify to bind" bash -c "grep -q '^ok bound' $out || ! kill -0 $pid"
	signal rds-bound
else
	wait_peer rds-bound 120
	timeout -k 5 150 "$PROGS/rds_verify" "${args[@]}" -c >"$out" 2>&1 &
	pid=$!
fi
rc=0
wait "$pid" || rc=$?
cat "$out"
((rc == 0)) || fail "rds_verify: $(grep -m1 '^FAIL' "$out" || echo "exit $rc")"
grep -q '^rds_verify all ok' "$out" || fail "rds_verify: no 'all ok'"
rx=$(($(port_counter "$dev" "$RX_CTR") - rx0))
((rx >= MIN_RX)) || fail "$dev received $rx packets, fewer than $MIN_RX"
log "rds_verify done in $((SECONDS - t0))s, $dev received $rx packets"

signal checked
wait_peer checked 120
run_timeout 60 rmmod rds_rdma rds || fail "rmmod rds_rdma rds"
wire_done
