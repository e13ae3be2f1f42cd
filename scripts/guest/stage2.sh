#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the guest, in the full root (host's / under a tmpfs overlay).
# Prepares a minimal system, runs the job the host wrote into the results
# directory under a timeout, saves its exit status and the kernel log
# there, and powers off. Never exits: PID 1 exiting would panic the guest.
#
# From the kernel command line (see run-guest): sroce_results,
# sroce_hostname, sroce_timeout.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

results=${sroce_results:?}
: "${sroce_timeout:=270}"
status=125      # harness failure unless the job ran

poweroff_now() {
	sync
	echo o > /proc/sysrq-trigger
	# The power-off tears the 9p root down: if sleep can no longer be
	# exec'd, spin rather than exit (PID 1 exiting panics the guest).
	sleep 30 || while :; do :; done
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
# devtmpfs lacks the fd links bash process substitution needs.
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# A fresh tmpfs on /tmp or /run would hide the repository or the results
# export if they live there (a CI checkout may): the overlay already makes
# those directories writable, so only mount one where nothing of ours is.
fresh_tmpfs() {		# DIR MODE
	local p
	for p in "${sroce_stage2:-}" "${sroce_export:-}" "${sroce_results:-}"; do
		[[ -n $p && $p == "$1"/* ]] && return 0
	done
	mount -t tmpfs -o "mode=$2" tmpfs "$1"
}
fresh_tmpfs /tmp 1777
fresh_tmpfs /run 0755
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
exec </dev/null >/dev/console 2>&1

hostname "${sroce_hostname:-sroce-guest}"
ip link set lo up

# Report hung tasks well within the test timeout; a stuck rmmod or a
# deadlocked worker must show up in dmesg, not only as a timeout.
sysctl -qw kernel.hung_task_timeout_secs=30 kernel.hung_task_warnings=10 2>/dev/null
# Locked memory for verbs users (PD/MR pinning); root, but be explicit.
ulimit -l unlimited

echo "stage2: running job on $(uname -r) as $(hostname) (timeout ${sroce_timeout}s)"
if [[ -r $results/job.sh ]]; then
	jiffies0=$(awk '$1 == "jiffies:" { print $2; exit }' /proc/timer_list 2>/dev/null)
	timeout -k 5 "$sroce_timeout" bash "$results/job.sh" \
		> >(tee "$results/output.log") 2>&1
	status=$?
	[[ $status == 124 || $status == 137 ]] && echo "stage2: job TIMED OUT after ${sroce_timeout}s"
	sleep 0.2       # let tee drain
	# A debug kernel's (make check-debug): what kmemleak finds the job
	# leaked, and whether lockdep and kmemleak are still on.
	if [[ -e /sys/kernel/debug/kmemleak && -n $jiffies0 ]] &&
	   ! "$(dirname "${BASH_SOURCE[0]}")/debug-checks.sh" "$jiffies0" "$results" \
		> >(tee -a "$results/output.log") 2>&1; then
		((status)) || status=1
	fi
	sleep 0.2
else
	echo "stage2: no job in $results"
fi

dmesg > "$results/dmesg"
echo "$status" > "$results/exit_status"
echo "stage2: job exited with $status"
poweroff_now
