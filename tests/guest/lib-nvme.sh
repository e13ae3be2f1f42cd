# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over RDMA for guest cases, sourced after lib.sh: an nvmet-rdma
# target with one file-backed namespace, the nvme-rdma host's controller
# and namespace, and a round of checked I/O. guest/nvme-rdma runs both
# ends on one device, guest2/nvme-wire one end in each guest.
# (run-guest-tests skips lib*.sh: this is not a case.)

NQN=sroce-test-nqn
CFG=/sys/kernel/config/nvmet
NVME_SIZE=$((64 << 20))			# the namespace
NVME_DATA=$((16 << 20))			# io_round's pattern

# Files live in /dev/shm, always a fresh tmpfs: the guest's /tmp is the
# host's (over 9p) when the results directory is under /tmp, and a
# file-backed namespace there comes up with size 0.
BACKING=/dev/shm/nvme-backing.img	# the target's namespace
PATTERN=/dev/shm/nvme-pattern		# what the host writes
BACK=/dev/shm/nvme-back			# what the host reads back

# nvme_modules: the fabrics core and configfs, for either end.
nvme_modules() {
	run_timeout 60 modprobe -a nvme-fabrics nvmet || fail "cannot load the NVMe fabrics modules"
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
}

# target_up ADDR FAMILY: a 64 MiB file-backed namespace on port 1.
target_up() {
	local s=$CFG/subsystems/$NQN
	truncate -s "$NVME_SIZE" "$BACKING"
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
	rm -f "$BACKING"
}

# backing_data: the first $NVME_DATA bytes the target stored.
backing_data() {
	sync
	head -c "$NVME_DATA" "$BACKING"
}

# nvme_ctrl: the sysfs directory of the host's controller of $NQN.
nvme_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[[ -e $c/subsysnqn && $(cat "$c/subsysnqn") == "$NQN" ]] || continue
		echo "$c"
		return 0
	done
	return 1
}

# The namespace block device (/dev/nvmeXnY) of the controller of $NQN.
nvme_dev() {
	local c n
	c=$(nvme_ctrl) || return 1
	for n in /sys/block/"${c##*/}"n*; do
		[[ -e $n ]] && { echo "/dev/${n##*/}"; return 0; }
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

# host_connect ADDR [OPTIONS]: connect to the target at ADDR (OPTIONS:
# more of nvme-fabrics' "key=value,..." such as reconnect_delay=2).
host_connect() {
	# What nvme-cli's "nvme connect" writes, without needing nvme-cli.
	echo "transport=rdma,traddr=$1,trsvcid=4420,nqn=$NQN${2:+,$2}" >/dev/nvme-fabrics ||
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

# io_stream NAME: fresh random data ($PATTERN) written to the first
# $NVME_DATA bytes in 1 MiB O_DIRECT requests (many pages: fast-reg MRs),
# read back and compared; sets $nvme_blk to the namespace device.
io_stream() {
	local name=$1
	nvme_blk=$(nvme_dev) || fail "$name: no namespace block device"
	assert_eq "$(blockdev --getsize64 "$nvme_blk")" "$NVME_SIZE" "$name: namespace size"

	head -c "$NVME_DATA" /dev/urandom >"$PATTERN"
	run_timeout 120 dd if="$PATTERN" of="$nvme_blk" bs=1M oflag=direct status=none ||
		fail "$name: 1 MiB writes"
	run_timeout 120 dd if="$nvme_blk" of="$BACK" bs=1M count=$((NVME_DATA >> 20)) \
		iflag=direct status=none || fail "$name: 1 MiB reads"
	cmp -s "$PATTERN" "$BACK" || fail "$name: 1 MiB reads differ"
}

# io_round NAME: io_stream, then O_DIRECT writes and reads of other
# sizes and from concurrent writers, checked.
io_round() {
	local name=$1 blk off
	io_stream "$name"
	# Small requests (inline data on the host side).
	# (The file backend has 4 KiB logical blocks.)
	for blk in 4096 8192 12288; do
		off=$((17 << 20))
		run_timeout 120 dd if="$PATTERN" of="$nvme_blk" bs=$blk count=64 \
			seek=$((off / blk)) oflag=direct status=none ||
			fail "$name: $blk-byte writes"
		run_timeout 120 dd if="$nvme_blk" of="$BACK" bs=$blk count=64 \
			skip=$((off / blk)) iflag=direct status=none ||
			fail "$name: $blk-byte reads"
		cmp -s "$BACK" <(head -c $((blk * 64)) "$PATTERN") ||
			fail "$name: $blk-byte reads differ"
	done
	# Four concurrent writers on disjoint ranges: several requests in
	# flight on the I/O queues at once.
	local i pids=()
	for i in 0 1 2 3; do
		dd if="$PATTERN" of="$nvme_blk" bs=256k count=16 skip=$((i * 16)) \
			seek=$(((32 << 20) / (256 << 10) + i * 16)) oflag=direct status=none &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || fail "$name: concurrent writer failed"; done
	run_timeout 120 dd if="$nvme_blk" of="$BACK" bs=1M skip=32 count=16 \
		iflag=direct status=none || fail "$name: read of the concurrent range"
	cmp -s "$PATTERN" "$BACK" || fail "$name: concurrent writes differ"
	log "$name: 16 MiB + 3 x 64 small + 4 x 4 MiB concurrent, all bytes checked"
}
