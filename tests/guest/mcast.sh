#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD multicast: the mcast program (tests/guest/progs/mcast.c: attach
# errors, the per-group QP limit, byte-exact delivery of IPv4 and IPv6
# group messages to QPs on the other device and on the sender's own
# device, exactly once each, the GRH, src_qp, Q_Key drops, detach, the IP
# group membership of the netdev, counted drops for a group without QPs);
# then (sroce) devices removed while QPs are attached: rdma link delete,
# netdev deletion and module unload must leave the IP groups (or lose
# them with the netdev), let the holders live and keep the log clean.
# Topology: rdma_pair (lib.sh), netdev MTU 1500; the sender is the client
# end (sroce1 in namespace "peer"), the other receivers are on sroce0.
. "$(dirname "$0")/lib.sh"

load_sroce
rdma_pair 1500

if [[ $SROCE_IMPL == rxe ]]; then
	CADDR6=2001:db8::1
	quirks=(-r)
else
	CADDR6=2001:db8::2
	quirks=()
fi
CG6=$(wait_roce_gid 10 "$CDEV" "$CADDR6") || fail "no RoCE v2 GID for $CADDR6 on $CDEV"

# RDMA devices are visible from every namespace: one process drives both.
out=$(run_timeout 240 "$PROGS/mcast" run -G "${quirks[@]}" -i veth0 "$CDEV" "$CG" "$CG6" "$SDEV" 2>&1) || {
	echo "$out"
	show_counters "$SDEV" "$CDEV"
	fail "mcast: $(grep -m1 '^FAIL' <<<"$out" || echo "exit status")"
}
echo "$out" >"$RESULTS/mcast.txt"
assert_match "$out" "mcast all ok" "mcast program"
grep '^ok' <<<"$out"

if [[ $SROCE_IMPL == rxe ]]; then
	unload_sroce
	log "ok"
	exit 0
fi

for d in sroce0 sroce1; do
	assert_eq "$(cat "$(port_dir $d)/hw_counters/rx_bad_icrc")" 0 "$d bad ICRC"
	assert_eq "$(cat "$(port_dir $d)/hw_counters/rx_bad_header")" 0 "$d bad header"
done

# maddr NS DEV: the IP multicast groups of DEV (in namespace NS, or here).
maddr() {
	if [[ -n $1 ]]; then ip -n "$1" maddr show dev "$2"; else ip maddr show dev "$2"; fi
}

# hold NS DEV NETDEV: a process with two QPs of DEV attached to two groups;
# NETDEV is then a member of both. Its pid in $holder.
hold() {
	local out=$RESULTS/hold-$2.txt
	"$PROGS/mcast" hold "$2" >"$out" 2>&1 &
	holder=$!
	wait_until 30 "holder of $2" grep -q "^held" "$out"
	assert_match "$(maddr "$1" "$3")" "239\.1\.2\.5" "$3 in the IPv4 group"
	assert_match "$(maddr "$1" "$3")" "ff0e::db8:5" "$3 in the IPv6 group"
}

# release NS [NETDEV]: the groups are gone from NETDEV (if it still
# exists); the holder still lives (its device went away under it), and is
# killed.
release() {
	[[ -z ${2:-} ]] ||
		assert_no_match "$(maddr "$1" "$2")" "239\.1\.2\.5|ff0e::db8:5" "$2 groups after removal"
	kill -0 "$holder" 2>/dev/null || fail "holder died with its device"
	kill -9 "$holder"
	wait "$holder" 2>/dev/null || true
}

log "rdma link delete with attached QPs"
hold "" sroce0 veth0
link_del sroce0
release "" veth0

log "netdev deleted with attached QPs"
ip link add veth2 type veth peer name veth3
ip addr add 198.51.100.1/24 dev veth2
ip link set veth2 up
ip link set veth3 up
link_add sroce2 veth2
hold "" sroce2 veth2
ip link del veth2
wait_until 20 "sroce2 to go with veth2" bash -c "! test -e /sys/class/infiniband/sroce2"
release ""

log "module unload with attached QPs"
hold peer sroce1 veth1
run_timeout 60 rmmod sroce || fail "rmmod with attached QPs failed"
wait_until 20 "sroce1 to go" bash -c "! test -e /sys/class/infiniband/sroce1"
release peer veth1
wait_until 10 "sroce module gone" bash -c "! test -d /sys/module/sroce"

ip netns del peer
log "ok"
