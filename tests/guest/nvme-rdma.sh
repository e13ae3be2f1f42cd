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

NQN=sroce-test-nqn
CFG=/sys/kernel/config/nvmet

# Files live in /dev/shm, always a fresh tmpfs: the guest's /tmp is the
# host's (over 9p) when the results directory is under /tmp, and a
# file-backed namespace there comes up with size 0.
BACKING=/dev/shm/nvme-backing.img	# the target's namespace
PATTERN=/dev/shm/nvme-pattern		# what the host writes
BACK=/dev/shm/nvme-back			# what the host reads back

# target_up ADDR FAMILY: a 64 MiB file-backed namespace on port 1.
target_up() {
	local s=$CFG/subsystems/$NQN
	mkdir "$s"
	echo 1 >"$s/attr_allow_any_host"
	mkdir "$s/namespaces/1"
	# tmpfs has no O_DIRECT: the file backend must use the page cache.
	echo 1 >"$s/namespaces/1/buffered_io"
	echo "$BACKING" >"$s/namespaces/1/device_path"
	echo 1 >"$s/namespaces/1/enable"
	mkdir "$CFG/ports/1"
	echo rdma >"$CFG/ports/1/addr_trtype"
	echo "$2" >"$CFG/ports/1/addr_adrfam"
	echo "$1" >"$CFG/ports/1/addr_traddr"
	echo 4420 >"$CFG/ports/1/addr_trsvcid"
	ln -s "$s" "$CFG/ports/1/subsystems/$NQN"
}

target_down() {
	rm "$CFG/ports/1/subsystems/$NQN"
	rmdir "$CFG/ports/1"
	echo 0 >"$CFG/subsystems/$NQN/namespaces/1/enable"
	rmdir "$CFG/subsystems/$NQN/namespaces/1"
	rmdir "$CFG/subsystems/$NQN"
}

# The namespace block device (/dev/nvmeXnY) of the controller of $NQN.
nvme_dev() {
	local c n
	for c in /sys/class/nvme/nvme*; do
		[[ -e $c/subsysnqn && $(cat "$c/subsysnqn") == "$NQN" ]] || continue
		for n in /sys/block/"${c##*/}"n*; do
			[[ -e $n ]] && { echo "/dev/${n##*/}"; return 0; }
		done
	done
	return 1
}

# The namespace is there and scanned (its size is set after the device
# node appears).
nvme_dev_ready() {
	local d
	d=$(nvme_dev) && [[ -b $d ]] && (($(cat "/sys/block/${d#/dev/}/size") > 0))
}

# What the host and the device look like, for a failure report.
nvme_state() {
	local f
	for f in /sys/class/nvme/nvme*/{state,subsysnqn} /sys/block/nvme*/size; do
		[[ -e $f ]] && echo "$f: $(cat "$f")"
	done
	ls /sys/block /dev | grep nvme | tr '\n' ' '; echo
	rdma res show qp 2>&1
	show_counters "${DEVPFX}0"
	dmesg | grep -i nvme | tail -n 20
}
FAIL_REPORT=nvme_state

host_connect() {	# ADDR
	# What nvme-cli's "nvme connect" writes, without needing nvme-cli.
	echo "transport=rdma,traddr=$1,trsvcid=4420,nqn=$NQN" >/dev/nvme-fabrics ||
		fail "nvme connect to $1 failed"
	wait_until 60 "the namespace of $NQN" nvme_dev_ready
}

host_disconnect() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[[ -e $c/subsysnqn && $(cat "$c/subsysnqn") == "$NQN" ]] || continue
		echo 1 >"$c/delete_controller"
	done
	wait_until 30 "controller removal" bash -c "! grep -qsx '$NQN' /sys/class/nvme/*/subsysnqn"
}

# io_round NAME: O_DIRECT writes and reads of several sizes, checked.
io_round() {
	local name=$1 dev blk off
	dev=$(nvme_dev) || fail "$name: no namespace block device"
	assert_eq "$(blockdev --getsize64 "$dev")" $((64 << 20)) "$name: namespace size"

	head -c $((16 << 20)) /dev/urandom >"$PATTERN"
	# One 16 MiB stream of 1 MiB requests (many pages: fast-reg MRs).
	run_timeout 120 dd if="$PATTERN" of="$dev" bs=1M oflag=direct status=none ||
		fail "$name: 1 MiB writes"
	run_timeout 120 dd if="$dev" of="$BACK" bs=1M count=16 iflag=direct status=none ||
		fail "$name: 1 MiB reads"
	cmp -s "$PATTERN" "$BACK" || fail "$name: 1 MiB reads differ"
	# Small requests (inline data on the host side).
	# (The file backend has 4 KiB logical blocks.)
	for blk in 4096 8192 12288; do
		off=$((17 << 20))
		run_timeout 120 dd if="$PATTERN" of="$dev" bs=$blk count=64 \
			seek=$((off / blk)) oflag=direct status=none ||
			fail "$name: $blk-byte writes"
		run_timeout 120 dd if="$dev" of="$BACK" bs=$blk count=64 \
			skip=$((off / blk)) iflag=direct status=none ||
			fail "$name: $blk-byte reads"
		cmp -s "$BACK" <(head -c $((blk * 64)) "$PATTERN") ||
			fail "$name: $blk-byte reads differ"
	done
	# Four concurrent writers on disjoint ranges: several requests in
	# flight on the I/O queues at once.
	local i pids=()
	for i in 0 1 2 3; do
		dd if="$PATTERN" of="$dev" bs=256k count=16 skip=$((i * 16)) \
			seek=$(((32 << 20) / (256 << 10) + i * 16)) oflag=direct status=none &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || fail "$name: concurrent writer failed"; done
	run_timeout 120 dd if="$dev" of="$BACK" bs=1M skip=32 count=16 \
		iflag=direct status=none || fail "$name: read of the concurrent range"
	cmp -s "$PATTERN" "$BACK" || fail "$name: concurrent writes differ"
	# What the target stored is what was written (not just a cache echo).
	sync
	cmp -s "$PATTERN" <(head -c $((16 << 20)) "$BACKING") ||
		fail "$name: backing file differs"
	log "$name: 16 MiB + 3 x 64 small + 4 x 4 MiB concurrent, all bytes checked"
}

# nvme_round NAME ADDR FAMILY [nvmet-rdma options]
nvme_round() {
	local name=$1 addr=$2 fam=$3
	shift 3
	run_timeout 60 modprobe nvmet-rdma "$@" || fail "$name: modprobe nvmet-rdma $*"
	run_timeout 60 modprobe nvme-rdma || fail "$name: modprobe nvme-rdma"
	truncate -s 64M "$BACKING"
	target_up "$addr" "$fam"
	host_connect "$addr"
	if [[ $* == *use_srq=1* ]]; then
		local srqs
		srqs=$(rdma res show srq 2>&1)
		echo "$srqs"
		assert_match "$srqs" "${DEVPFX}0 .*nvmet_rdma" "$name: the target's shared receive queue"
	fi
	io_round "$name"
	host_disconnect
	target_down
	run_timeout 60 rmmod nvme-rdma nvmet-rdma || fail "$name: rmmod nvme-rdma nvmet-rdma"
	rm -f "$BACKING"
}

load_sroce
run_timeout 60 modprobe -a nvme-fabrics nvmet || fail "cannot load the NVMe fabrics modules"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
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
