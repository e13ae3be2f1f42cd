#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA between two guests: guest A runs the in-tree nfsd with an
# RDMA listener on port 20049 (and no TCP or UDP one) exporting a tmpfs,
# guest B mounts it with "-o rdma,port=20049".
#
# NFSv4.2: the whole protocol travels on the one RDMA connection (4.1+
# sessions carry the callbacks on it too); v3 would also need the MOUNT
# protocol, rpcbind and the lock manager over UDP or TCP, so it could not
# show that nothing but RDMA was used. The server runs rpcbind and
# rpc.mountd (the kernel asks mountd about exports); its grace period is
# ended at once (a fresh server has no state to reclaim).
#
# B writes 16 MiB of random data (64 WRITE RPCs of 256 KiB, each pulled
# by the server with RDMA READs, 16384 packets: on TCG two guests sharing
# two loaded cores move 1-5 MB/s through NFS, and the whole case must fit
# a guest's 255 s), reads it back with O_DIRECT and
# compares; A checks the file it stores has the same checksum; B unmounts,
# mounts again and compares once more. The traffic went over RDMA: the
# mount's transport is "rdma" in /proc/self/mountstats, no TCP connection
# to port 2049 exists, and B's device sent at least one packet per 1 KiB
# (the path MTU) of data written (the server pulls it with RDMA READ) and
# received as many for data read (pushed with RDMA WRITE).
#
# Fault: A deletes its RDMA link while B is mounted. A read started on B
# then stalls (a hard mount: it waits, killable, and no task hangs);
# when A adds the link back, B's transport connects again (its connect
# count in mountstats rises), the stalled read completes with the right
# data, and a new write goes through and reaches the server intact.
#
# This case found a sroce bug: a retransmission executed again the fast
# registrations (REG_MR) posted after the packets it resent; the second
# one failed, the client's QP went to ERR and the mount reconnected every
# few seconds (writeback then waited long enough to be a hung task).
#
# rdma_rxe: the same on both ends passes (32 MiB: written in 9 s, read in
# 12 s; the stalled read completed 33 s after it started).
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"

EXPORT=/srv/nfs			# A: a tmpfs, the export
MNT=/mnt/nfs			# B: the mount point
SIZE_MB=16
SRC=/dev/shm/nfs-src		# B: what it writes
BACK=/dev/shm/nfs-back		# B: what it reads back
SERVER_PORT=20049

# The packet counters of $dev: sroce's names, or rdma_rxe's.
TX_CTR=tx_packets RX_CTR=rx_packets
[[ $SROCE_IMPL == rxe ]] && TX_CTR=sent_pkts RX_CTR=rcvd_pkts

nfs_state() {
	log "$dev counters: $(dev_counters "$dev")"
	grep -A3 -E "^device .* mounted on $MNT " /proc/self/mountstats 2>/dev/null | grep -E 'xprt|device' || true
	rdma res show qp 2>&1 | head -n 20
	ps -eo pid,stat,wchan:32,comm | awk '$2 ~ /D/' || true
	dmesg | grep -iE 'nfs|rpcrdma|svcrdma' | tail -n 20
}
FAIL_REPORT=nfs_state

wire_rdma_dev
on_failure() { nfs_state; }
wire_meet

# --- server (A) ----------------------------------------------------------------

server_up() {
	run_timeout 60 modprobe -a nfsd rpcrdma || fail "modprobe nfsd rpcrdma"
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	mkdir -p "$EXPORT"
	mount -t tmpfs -o size=$((SIZE_MB * 3))m tmpfs "$EXPORT"
	chmod 1777 "$EXPORT"
	mkdir -p /run/rpcbind /var/lib/nfs
	run_timeout 30 rpcbind -w || fail "rpcbind"
	# tmpfs has no UUID: fsid=0 names it, and makes it the NFSv4 root.
	run_timeout 30 exportfs -o rw,fsid=0,no_root_squash,no_subtree_check,insecure \
		"$PEER_IP:$EXPORT" || fail "exportfs"
	run_timeout 30 rpc.mountd -N 2 -N 3 || fail "rpc.mountd"
	# Versions and listeners before the threads start: NFSv4 only, one
	# RDMA listener (with a listener present, nfsd opens no sockets).
	echo "-2 -3 +4 +4.1 +4.2" >/proc/fs/nfsd/versions
	echo "rdma $SERVER_PORT" >/proc/fs/nfsd/portlist || fail "nfsd: no rdma listener on $SERVER_PORT"
	echo 4 >/proc/fs/nfsd/threads || fail "nfsd threads"
	echo Y >/proc/fs/nfsd/v4_end_grace
	assert_match "$(cat /proc/fs/nfsd/portlist)" "rdma $SERVER_PORT" "nfsd portlist"
	assert_no_match "$(cat /proc/fs/nfsd/portlist)" "tcp|udp" "nfsd portlist"
	log "nfsd: $(tr '\n' ' ' </proc/fs/nfsd/portlist), versions $(cat /proc/fs/nfsd/versions)"
}

server_down() {
	echo 0 >/proc/fs/nfsd/threads
	run_timeout 30 exportfs -ua || fail "exportfs -ua"
	pkill -x rpc.mountd || true
	pkill -x rpcbind || true
	umount "$EXPORT"
}

# --- client (B) ----------------------------------------------------------------

client_mount() {
	run_timeout 120 mount -t nfs4 -o "rdma,port=$SERVER_PORT,vers=4.2" \
		"$PEER_IP:/" "$MNT" || fail "mount -o rdma,port=$SERVER_PORT $PEER_IP:/"
}

# The "xprt:" line of our mount's statistics: "rdma SRCPORT BIND CONNECT ...".
mount_xprt() {
	awk -v m="$MNT" '
		$1 == "device" { mine = ($5 == m) }
		mine && $1 == "xprt:" { $1 = ""; sub(/^ /, ""); print; exit }' /proc/self/mountstats
}

connect_count() {
	local x
	read -ra x <<<"$(mount_xprt)"
	echo "${x[3]}"
}

# read_back NAME FILE: FILE read with O_DIRECT (from the server, not the
# page cache) and compared with $SRC.
read_back() {
	run_timeout 120 dd if="$2" of="$BACK" bs=1M iflag=direct status=none ||
		fail "$1: read of $2"
	cmp "$SRC" "$BACK" || fail "$1: $2 differs from what was written"
}

if [[ $ROLE == A ]]; then
	server_up
	signal exported

	sum_serve written 300 cat "$EXPORT/data"
	# Fault: the link goes while B is mounted and idle.
	wait_peer fault-ready 300
	t0=$SECONDS
	link_del "$dev"
	log "link $dev deleted in $((SECONDS - t0))s"
	signal link-down
	wait_peer stalled 120
	link_add "$dev" eth0
	wait_roce_gid 30 "$dev" "$MY_IP" >/dev/null || fail "no RoCE v2 GID for $MY_IP after link add"
	log "link $dev back"
	signal link-up
	sum_serve recovered 300 cat "$EXPORT/after"

	wait_peer unmounted 300
	server_down
	wire_done
	exit 0
fi

run_timeout 60 modprobe -a nfsv4 rpcrdma || fail "modprobe nfsv4 rpcrdma"
mkdir -p "$MNT"
head -c $((SIZE_MB << 20)) /dev/urandom >"$SRC"
wait_peer exported 120
client_mount
xprt=$(mount_xprt)
log "mounted: xprt $xprt"
assert_match "$xprt" "^rdma " "transport of the mount"
assert_no_match "$(ss -tnH state established)" ":2049 " "TCP connection to nfsd"

pkts=$((SIZE_MB << 10))		# one per 1 KiB of data at MTU 1024
t0=$SECONDS
tx0=$(port_counter "$dev" "$TX_CTR")
run_timeout 120 dd if="$SRC" of="$MNT/data" bs=1M conv=fsync status=none ||
	fail "write of $SIZE_MB MiB"
tx=$(($(port_counter "$dev" "$TX_CTR") - tx0))
((tx >= pkts)) || fail "write: $dev sent $tx packets for $SIZE_MB MiB, fewer than $pkts"
log "write: $SIZE_MB MiB in $((SECONDS - t0))s, $tx packets sent"
sum_check written "$SRC" "written: checksum of data on the server"

t0=$SECONDS
rx0=$(port_counter "$dev" "$RX_CTR")
read_back read "$MNT/data"
rx=$(($(port_counter "$dev" "$RX_CTR") - rx0))
((rx >= pkts)) || fail "read: $dev received $rx packets for $SIZE_MB MiB, fewer than $pkts"
log "read: $SIZE_MB MiB in $((SECONDS - t0))s, $rx packets received, data equal"

run_timeout 60 umount "$MNT" || fail "umount"
client_mount
cmp "$SRC" "$MNT/data" || fail "remount: data differs"
log "remount: data equal"

# --- fault: the server's link deleted under the mount --------------------------
cc0=$(connect_count)
signal fault-ready
wait_peer link-down 120
t0=$SECONDS
dd if="$MNT/data" of="$BACK" bs=1M iflag=direct status=none &
reader=$!
# The reader cannot finish while the server has no device: it waits.
for _ in $(seq 40); do
	kill -0 "$reader" 2>/dev/null || break
	nap 0.25
done
kill -0 "$reader" 2>/dev/null || fail "a read completed while the server had no RDMA device"
log "read stalled for $((SECONDS - t0))s with the server's link gone"
signal stalled
wait_peer link-up 120
# Reconnecting backs off (up to tens of seconds between attempts).
wait_until 150 "the stalled read to complete" bash -c "! kill -0 $reader 2>/dev/null"
wait "$reader" || fail "the stalled read failed after the link came back"
cmp "$SRC" "$BACK" || fail "the stalled read returned other data"
log "stalled read completed $((SECONDS - t0))s after it started, data equal"
cc=$(connect_count)
((cc > cc0)) || fail "connect count $cc0 -> $cc: the transport did not reconnect"
log "transport connected again (connect count $cc0 -> $cc)"
assert_match "$(mount_xprt)" "^rdma " "transport of the mount after recovery"

# Writes recover too: a new file, its checksum checked on the server.
head -c $((4 << 20)) /dev/urandom >"$SRC"
run_timeout 120 dd if="$SRC" of="$MNT/after" bs=1M conv=fsync status=none ||
	fail "write after recovery"
sum_check recovered "$SRC" "recovered: checksum of after on the server"
read_back after-recovery "$MNT/after"

run_timeout 60 umount "$MNT" || fail "final umount"
signal unmounted
wire_done
