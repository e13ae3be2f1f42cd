#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over RDMA between two guests: the nvmet-rdma target (a 64 MiB
# file-backed namespace) on guest A, the nvme-rdma host on guest B. B runs
# guest/nvme-rdma's round of checked I/O (tests/guest/lib-nvme.sh: 1 MiB
# and small O_DIRECT requests, four concurrent writers, every byte read
# back and compared) and A's backing file must hold what B wrote.
#
# Fault: A deletes its RDMA link while B writes. B's controller leaves
# "live" and tries to reconnect (reconnect_delay=2 s); the writes
# in flight fail with I/O errors once fast_io_fail_tmo=5 s has passed
# (rather than waiting, uninterruptibly, for the controller to come
# back: no hung task). A adds the link back, B's controller reconnects
# and is live, and 16 MiB written anew are checked, on B and in A's
# backing file. The target's port listens on the wildcard address: a
# listener bound to an address is bound to its RDMA device, and
# nvmet-rdma drops it for good when that device goes (with any driver;
# the port would have to be enabled again by hand), while the RDMA CM
# gives a wildcard listener a child on every device that appears.
#
# rdma_rxe: the same on both ends passes (the writes failed 11 s after
# the writer started, the controller was live again 7 s after the first
# reconnect attempt; sroce: 8-9 s and 12 s).
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
. "$(dirname "$0")/../guest/lib.sh"
. "$(dirname "$0")/../guest/lib-nvme.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
on_failure() { nvme_state; }
FAIL_REPORT=nvme_state
nvme_modules
wire_meet

if [[ $ROLE == A ]]; then
	run_timeout 60 modprobe nvmet-rdma || fail "modprobe nvmet-rdma"
	target_up 0.0.0.0 ipv4
	signal target-up
	sum_serve first 240 backing_data
	wait_peer writing 240
	link_del "$dev"
	log "link $dev deleted during B's writes"
	signal link-down
	wait_peer io-failed 120
	link_add "$dev" eth0
	wait_roce_gid 30 "$dev" "$MY_IP" >/dev/null || fail "no RoCE v2 GID for $MY_IP after link add"
	log "link $dev back"
	signal link-up
	sum_serve recovered 240 backing_data
	wait_peer disconnected 240
	target_down
	run_timeout 60 rmmod nvmet-rdma || fail "rmmod nvmet-rdma"
	wire_done
	exit 0
fi

ctrl_state() { cat "$(nvme_ctrl)/state" 2>/dev/null; }

run_timeout 60 modprobe nvme-rdma || fail "modprobe nvme-rdma"
wait_peer target-up 120
host_connect "$PEER_IP" reconnect_delay=2,fast_io_fail_tmo=5
assert_eq "$(ctrl_state)" live "controller state"
io_round first
sum_check first "$PATTERN" "first: the target's backing file"

# --- fault: the target's link deleted under a writer ----------------------------
nvme=$(nvme_dev)
t0=$SECONDS
# Writes of the pattern, over and over, until one fails.
(
	while dd if="$PATTERN" of="$nvme" bs=256k oflag=direct status=none; do :; done
) &
writer=$!
signal writing
wait_peer link-down 120
wait_until 90 "the writes to fail" bash -c "! kill -0 $writer 2>/dev/null"
wait "$writer" 2>/dev/null || true
state=$(ctrl_state)
assert_match "$state" "^(connecting|resetting)$" "controller state with the target's link gone"
log "writes failed $((SECONDS - t0))s after the writer started; controller $state"
# It keeps trying while the target has no device (an attempt itself
# lasts until the CM gives up on its request, up to a minute).
t1=$SECONDS
wait_until 60 "a reconnect attempt" bash -c \
	"dmesg | grep -q 'nvme[0-9]*: Reconnecting in 2 seconds'"
log "reconnect attempts scheduled; controller $(ctrl_state)"
signal io-failed
wait_peer link-up 120
wait_until 120 "the controller to be live again" bash -c \
	"[[ \$(cat $(nvme_ctrl)/state) == live ]]"
log "controller live again $((SECONDS - t1))s after the first attempt"
wait_until 60 "the namespace" nvme_dev_ready
io_stream recovered
log "recovered: $((NVME_DATA >> 20)) MiB written and read back"
sum_check recovered "$PATTERN" "recovered: the target's backing file"

host_disconnect
signal disconnected
run_timeout 60 rmmod nvme-rdma || fail "rmmod nvme-rdma"
wire_done
