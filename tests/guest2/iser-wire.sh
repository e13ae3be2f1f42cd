#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iSER (iSCSI Extensions for RDMA) across two guests: the LIO target in
# guest A, configured the way an administrator does it, with targetcli-fb
# (a 32 MiB file-backed LUN, an iSCSI target with an ACL for guest B's
# initiator name, iSER enabled on its portal); the open-iscsi initiator in
# guest B (iscsid and iscsiadm, a node record on the "iser" interface, so
# iface.transport_name=iser and the kernel's ib_iser carries the session).
#
#  1. data: 16 MiB of random data written through the SCSI disk with
#     O_DIRECT in 1 MiB requests, read back, compared, and compared with
#     what the target's backing file holds (A checksums it). It went over
#     RDMA: the session's transport is iser, no TCP connection to port
#     3260 exists, and B's device moved at least one packet per 1 KiB
#     (the path MTU) of data each way;
#  2. log out (the session and its disk gone), log in again, the same
#     data read back and compared;
#  3. fault: guest A deletes its RDMA link (the target's device) while B's
#     I/O runs. B's I/O fails (replacement_timeout 5 s) instead of
#     hanging; A adds the link back; iscsid logs in again by itself and
#     the same disk reads the data back intact, new writes land.
#
# The portal is the wildcard 0.0.0.0:3260 (targetcli's default): its
# RDMA/CM listener outlives a device that goes and comes back, so the
# target needs no configuration again after the fault, as with a real
# HCA reset. A listener bound to one address is dropped for good by
# ib_isert when that address's device goes.
#
# No hung task, no kernel warning on either side (the harness checks the
# logs); no packet with a bad ICRC.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
. "$(dirname "$0")/../guest/lib.sh"
. "$(dirname "$0")/../guest/lib-lio.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
wire_meet

IQN=iqn.2026-12.org.sroce:iser-target
INI=iqn.2026-12.org.sroce:iser-initiator
PORTAL=0.0.0.0:3260
BACKING=/dev/shm/iser-backing.img
PATTERN=/dev/shm/iser-pattern
BACK=/dev/shm/iser-back
SIZE_MB=32

# The packet counters of $dev: sroce's names, or rdma_rxe's.
TX_CTR=tx_packets RX_CTR=rx_packets
[[ $SROCE_IMPL == rxe ]] && TX_CTR=sent_pkts RX_CTR=rcvd_pkts

# tcli ARGS...: one targetcli command (the tool takes one per run).
tcli() {
	local out
	out=$(run_timeout 120 targetcli "$@" 2>&1) || fail "targetcli $*: $out"
	log "targetcli $*: $out"
}

target_up() {
	local np
	# targetcli asks the system bus which tcmu-runner handlers exist, and
	# gives up when there is no bus: a booted system has one.
	if [[ ! -S /run/dbus/system_bus_socket ]]; then
		mkdir -p /run/dbus
		dbus-daemon --system --fork || fail "dbus-daemon"
	fi
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	run_timeout 60 modprobe -a target_core_mod target_core_file \
		iscsi_target_mod ib_isert || fail "modprobe ib_isert"
	tcli /backstores/fileio create name=lun0 file_or_dev="$BACKING" \
		size="${SIZE_MB}M" write_back=false
	tcli /iscsi create "$IQN"
	tcli "/iscsi/$IQN/tpg1/luns" create /backstores/fileio/lun0
	tcli "/iscsi/$IQN/tpg1/acls" create "$INI"
	tcli "/iscsi/$IQN/tpg1/portals/$PORTAL" enable_iser true
	np=/sys/kernel/config/target/iscsi/$IQN/tpgt_1/np/$PORTAL/iser
	assert_eq "$(<"$np")" 1 "iSER enabled on the portal ($np)"
	wait_until 30 "an RDMA/CM listener on port 3260" \
		eval 'rdma res show cm_id 2>/dev/null | grep -q "state LISTEN .*:3260 "'
}


# iser_node ARGS...: iscsiadm on our one node record (target, portal, iface).
iser_node() {
	run_timeout 120 iscsiadm -m node -T "$IQN" -p "$PEER_IP:3260" -I iser "$@"
}

login() {
	iser_node --login || fail "iSCSI login over iser to $PEER_IP"
	wait_until 60 "the iSCSI disk" eval 'lio_disk >/dev/null'
}

logout() {
	iser_node --logout || fail "iSCSI logout"
	wait_until 60 "the iSCSI disk to go" no_lio_disk
}

iser_state() {
	log "$dev counters: $(dev_counters "$dev")"
	iscsiadm -m session -P 3 2>&1 | head -n 40
	rdma res show cm_id 2>&1 | head -n 10
	ls /sys/block
	ps -eo pid,stat,wchan:32,comm | awk '$2 ~ /D/' || true
	dmesg | grep -iE 'iser|iscsi|isert|scsi' | tail -n 30
}
FAIL_REPORT=iser_state

if [[ $ROLE == A ]]; then
	truncate -s "${SIZE_MB}M" "$BACKING"
	target_up
	signal target
	sum_serve written 240 head -c 16M "$BACKING"

	# 3. The link goes while B's I/O runs, then comes back.
	lio_link_fault_target
	link_add "$dev" eth0
	wait_roce_gid 10 "$dev" "$MY_IP" >/dev/null || fail "no RoCE v2 GID after link add"
	log "link back"
	signal link-back
	wait_peer done 300
	tcli clearconfig confirm=True
	# The fabric's configfs directory holds a reference to its module.
	rmdir /sys/kernel/config/target/iscsi
	run_timeout 60 modprobe -r ib_isert iscsi_target_mod target_core_file ||
		fail "modprobe -r ib_isert"
else
	# sd_mod: the guest has no udev to load it when the LUN shows up.
	run_timeout 60 modprobe -a sd_mod ib_iser || fail "modprobe ib_iser"
	echo "InitiatorName=$INI" >/etc/iscsi/initiatorname.iscsi
	# The lock directory systemd-tmpfiles makes at boot (/run is fresh).
	mkdir -p /run/lock/iscsi
	# Its own session: iscsid signals its whole process group on exit.
	setsid iscsid -f >"$SHARED/B.iscsid.log" 2>&1 &
	iscsid_pid=$!
	wait_until 20 "iscsid's control socket" \
		eval 'ss -xlH | grep -q ISCSIADM_ABSTRACT_NAMESPACE'
	wait_peer target 180
	run_timeout 60 iscsiadm -m node -o new -T "$IQN" -p "$PEER_IP:3260" -I iser >/dev/null ||
		fail "iscsiadm: new node"
	iser_node -o update -n node.session.timeo.replacement_timeout -v 5 ||
		fail "iscsiadm: replacement_timeout"
	assert_match "$(iser_node | grep -E '^iface.transport_name')" '= iser$' "node's transport"

	login
	disk=$(lio_disk)
	log "logged in: $disk ($(<"/sys/block/${disk#/dev/}/device/model"))"
	assert_eq "$(blockdev --getsize64 "$disk")" $((SIZE_MB << 20)) "LUN size"
	session=$(iscsiadm -m session -P 1 2>&1)
	assert_match "$session" 'Iface Transport: iser' "the session's transport"
	assert_match "$session" "Current Portal: $PEER_IP:3260" "the session's portal"
	assert_eq "$(ss -Htn state established '( dport = :3260 )' | wc -l)" 0 \
		"TCP connections to port 3260"

	# 1. Data, and what the target stored, over RDMA.
	pkts=$((16 << 10))		# one per 1 KiB of data at MTU 1024
	head -c 16M /dev/urandom >"$PATTERN"
	tx0=$(port_counter "$dev" "$TX_CTR")
	run_timeout 120 dd if="$PATTERN" of="$disk" bs=1M oflag=direct status=none ||
		fail "write"
	tx=$(($(port_counter "$dev" "$TX_CTR") - tx0))
	((tx >= pkts)) || fail "write: $dev sent $tx packets for 16 MiB, fewer than $pkts"
	rx0=$(port_counter "$dev" "$RX_CTR")
	lio_check_data "read back"
	rx=$(($(port_counter "$dev" "$RX_CTR") - rx0))
	((rx >= pkts)) || fail "read: $dev received $rx packets for 16 MiB, fewer than $pkts"
	sum_check written "$PATTERN" "the target's backing file"
	log "16 MiB written ($tx packets sent), read back ($rx received), stored on the target"

	# 2. Log out and in again; 3. I/O while the target's link goes must
	# fail, not hang, and the transport recover by itself.
	lio_relogin_and_fault link-back
	assert_match "$(iscsiadm -m session -P 1 2>&1)" 'Iface Transport: iser' \
		"the session's transport after recovery"
	log "the target came back; iscsid logged in again, data intact, new writes land"
	logout
	signal done
	kill "$iscsid_pid"
	wait "$iscsid_pid" 2>/dev/null || true
	run_timeout 60 modprobe -r ib_iser || fail "modprobe -r ib_iser"
fi

wire_done
