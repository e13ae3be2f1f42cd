#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A kernel consumer end to end: NVMe over RDMA (nvmet-rdma target and
# nvme-rdma host, both in-tree) on one device, the host connecting to the
# target's address on the same device. It exercises what only kernel
# ULPs use: kernel QPs and CQs, the PD's DMA MR, fast-registration MRs
# (IB_WR_REG_MR), remote invalidation (SEND_WITH_INV) and LOCAL_INV, the
# CM over QP1 (MADs), ib_drain_qp at teardown; and, with the target's
# use_srq, kernel SRQs.
#
# Data is checked byte for byte: written through the block device with
# O_DIRECT in several sizes and from concurrent writers, read back, and
# compared with the target's backing file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-nvme.sh"
FAIL_REPORT=nvme_state

# nvme_round NAME ADDR FAMILY [nvmet-rdma options]
nvme_round() {
	local name=$1 addr=$2 fam=$3
	shift 3
	run_timeout 60 modprobe nvmet-rdma "$@" || fail "$name: modprobe nvmet-rdma $*"
	run_timeout 60 modprobe nvme-rdma || fail "$name: modprobe nvme-rdma"
	target_up "$addr" "$fam"
	host_connect "$addr"
	if [[ $* == *use_srq=1* ]]; then
		local srqs
		srqs=$(rdma res show srq 2>&1)
		echo "$srqs"
		assert_match "$srqs" "${DEVPFX}0 .*nvmet_rdma" "$name: the target's shared receive queue"
	fi
	io_round "$name"
	# What the target stored is what was written (not just a cache echo).
	assert_eq "$(backing_data | sha256sum)" "$(sha256sum <"$PATTERN")" \
		"$name: the backing file"
	host_disconnect
	target_down
	run_timeout 60 rmmod nvme-rdma nvmet-rdma || fail "$name: rmmod nvme-rdma nvmet-rdma"
}

load_sroce
nvme_modules
make_veth
link_add "${DEVPFX}0" veth0
wait_roce_gid 10 "${DEVPFX}0" 192.0.2.1 >/dev/null || fail "no RoCE v2 GID for 192.0.2.1"
wait_roce_gid 10 "${DEVPFX}0" 2001:db8::1 >/dev/null || fail "no RoCE v2 GID for 2001:db8::1"

# Each address family once; the target's SRQ once.
nvme_round ipv6 2001:db8::1 ipv6
nvme_round ipv4-srq 192.0.2.1 ipv4 use_srq=1

show_counters "${DEVPFX}0"
if [[ $SROCE_IMPL == sroce ]]; then
	assert_eq "$(port_counter sroce0 rx_bad_icrc)" 0 "bad ICRC"
	assert_eq "$(port_counter sroce0 rx_no_qp)" 0 "packets for no QP"
fi
unload_sroce
log "ok"
