# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# The initiator side of a LIO target's SCSI disk, for guest cases sourced
# after lib.sh: finding the disk, checking data through it, and the I/O
# of the fault check. guest2/srp-wire and guest2/iser-wire use it; the
# case sets PATTERN (what it wrote) and BACK (scratch for reads back),
# and defines login and logout for its transport.
# (run-guest-tests skips lib*.sh: this is not a case.)

# lio_disk: the /dev/sdX of the LIO LUN (vendor LIO-ORG) once it is there.
lio_disk() {
	local d v n
	for d in /sys/block/sd*; do
		# Read once: a disk on its way out loses these files any time.
		v=$(cat "$d/device/vendor" 2>/dev/null) || continue
		n=$(cat "$d/size" 2>/dev/null) || continue
		[[ $v == LIO-ORG* ]] && ((n > 0)) || continue
		echo "/dev/${d##*/}"
		return 0
	done
	return 1
}
no_lio_disk() { ! lio_disk >/dev/null; }

# lio_check_data NAME: the disk's first 16 MiB are the pattern.
lio_check_data() {
	local disk
	disk=$(lio_disk) || fail "$1: no LIO disk"
	run_timeout 120 dd if="$disk" of="$BACK" bs=1M count=16 iflag=direct status=none ||
		fail "$1: read"
	cmp -s "$PATTERN" "$BACK" || fail "$1: what was read differs from what was written"
}

# lio_read_until_failure DISK: reads DISK over and over until one fails,
# as it must once the target's link is gone; fails the case if reads
# still succeed after 120 s.
lio_read_until_failure() {
	local t0=$SECONDS
	while ((SECONDS - t0 < 120)); do
		if ! run_timeout 60 dd if="$1" of=/dev/null bs=1M count=16 \
			iflag=direct status=none 2>/dev/null; then
			log "I/O failed $((SECONDS - t0)) s after it started (the link goes 2 s in)"
			return 0
		fi
	done
	fail "I/O went on for 120 s with the target's link gone"
}

# lio_recovered DISK: once the transport has reconnected by itself, DISK
# reads again, the pattern is intact and a new write lands.
lio_recovered() {
	local t0=$SECONDS
	wait_until 120 "I/O on $1 again" eval "run_timeout 30 dd if=$1 \
		of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null"
	log "$1 reads again $((SECONDS - t0)) s after the target came back"
	lio_check_data "after the target came back"
	run_timeout 120 dd if="$PATTERN" of="$1" bs=1M seek=16 oflag=direct status=none ||
		fail "write after the target came back"
	run_timeout 120 dd if="$1" of="$BACK" bs=1M skip=16 count=16 iflag=direct status=none ||
		fail "read after the target came back"
	cmp -s "$PATTERN" "$BACK" || fail "data written after recovery differs"
}

# lio_relogin_and_fault BACK: log out and in again and check the data;
# then read while the peer deletes its link (signals io-running, and
# io-failed once I/O has failed), wait for the peer's BACK signal, and
# check that the transport recovered by itself.
lio_relogin_and_fault() {
	local disk
	logout
	login
	lio_check_data "after a new login"
	log "logged out and in, data intact"

	disk=$(lio_disk)
	signal io-running
	lio_read_until_failure "$disk"
	signal io-failed
	wait_peer "$1" 240
	lio_recovered "$disk"
}

# lio_link_fault_target: the target's side of that fault: its RDMA link
# deleted 2 s into the initiator's reads, until they have failed.
lio_link_fault_target() {
	wait_peer io-running 240
	sleep 2
	link_del "$dev"
	log "link deleted during I/O"
	wait_peer io-failed 240
}
