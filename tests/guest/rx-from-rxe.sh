#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receive path against a real peer: the in-tree rdma_rxe (in the initial
# namespace) sends RoCE v2 packets to an sroce device whose netdev lives in
# another namespace, over IPv4 and IPv6. rdma_cm connection requests are
# what rxe sends (UD, to QP1): sroce must take every one as a well-formed
# packet with a valid ICRC and hand it to its QP1, whose CM, having no
# listener, answers with a reject that rxe's CM understands. Hand-made bad
# datagrams must land in the matching error counters. This proves the wire
# layer's parser and ICRC against rxe's own implementation in both families.
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case: skipped on $SROCE_IMPL"; exit 0; }

make_veth_netns

load_sroce
run_timeout 60 modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
run_timeout 30 rdma link add rxe0 type rxe netdev veth0 || fail "rxe link add failed"
# rdma link add resolves the netdev in the caller's namespace.
run_timeout 30 ip netns exec peer rdma link add sroce0 type sroce netdev veth1 ||
	fail "sroce link add in namespace peer failed"
wait_until 10 "sroce0" test -e /sys/class/infiniband/sroce0

# rdma_rxe's netdev notifier looks its devices up by driver id, which
# sroce shares: these events on sroce's netdev must not reach rxe's code
# (they corrupted memory while sroce was in the core's netdev hash).
ip -n peer link set veth1 mtu 1400
ip -n peer link set veth1 down
wait_until 10 "sroce0 port down" bash -c "[[ \$(cat $(port_dir sroce0)/state) == *DOWN ]]"
ip -n peer link set veth1 up
ip -n peer link set veth1 mtu 1500
# Taking the link down removed its IPv6 address (keep_addr_on_down is 0).
ip -n peer -6 addr replace 2001:db8::2/64 dev veth1 nodad
wait_until 10 "sroce0 port active" bash -c "[[ \$(cat $(port_dir sroce0)/state) == *ACTIVE ]]"
assert_eq "$(devinfo_field sroce0 active_mtu)" "1024 (3)" "sroce0 active_mtu"

cnt_dir=$(port_dir sroce0)/hw_counters
cnt() { cat "$cnt_dir/$1"; }
counters() { echo "rx_packets=$(cnt rx_packets) rx_no_qp=$(cnt rx_no_qp) rx_bad_icrc=$(cnt rx_bad_icrc) rx_bad_header=$(cnt rx_bad_header)"; }

# A connection request from rxe to ADDR; rping ends when sroce's CM
# rejects it (nobody listens there), which is what must happen.
request_to() {		# ADDR
	local out=$RESULTS/rping-$1.txt
	# rdma_cm gives address resolution 2 s (rping's timeout); neighbour
	# discovery in an emulated guest can take longer the first time.
	run_timeout 20 ping -c 1 -W 10 "$1" >/dev/null || fail "$1 does not answer ping"
	run_timeout 25 rping -c -a "$1" -C 1 >"$out" 2>&1 || true
	assert_match "$(cat "$out")" "RDMA_CM_EVENT_REJECTED" \
		"$1: sroce's CM rejects rxe's request (rping says: $(tr '\n' ' ' <"$out"))"
}

assert_eq "$(counters)" "rx_packets=0 rx_no_qp=0 rx_bad_icrc=0 rx_bad_header=0" "counters at start"

log "IPv4: an rdma_cm request from rxe0"
request_to 192.0.2.2
c=$(counters); log "$c"
n4=$(cnt rx_packets)
((n4 >= 1)) || fail "IPv4: no packet from rxe counted"
assert_eq "$(cnt rx_bad_icrc)" 0 "IPv4 packets from rxe with a bad ICRC"
assert_eq "$(cnt rx_bad_header)" 0 "IPv4 packets from rxe with a bad header"
assert_eq "$(cnt rx_no_qp)" 0 "IPv4 packets from rxe for no QP"

log "IPv6: an rdma_cm request from rxe0"
request_to 2001:db8::2
c=$(counters); log "$c"
((n4 < $(cnt rx_packets))) || fail "IPv6: no packet from rxe counted"
assert_eq "$(cnt rx_bad_icrc)" 0 "IPv6 packets from rxe with a bad ICRC"
assert_eq "$(cnt rx_bad_header)" 0 "IPv6 packets from rxe with a bad header"
assert_eq "$(cnt rx_no_qp)" 0 "IPv6 packets from rxe for no QP"

# Remove rxe so that only the hand-made datagrams below arrive from now
# on (a CM may still be retransmitting).
# (Do not unload rdma_rxe yet: its exit removes every device with the rxe
# driver id, sroce's included -- see README.)
run_timeout 30 rdma link delete rxe0 || fail "rxe link delete failed"
no_qp=$(cnt rx_no_qp)

# Hand-made datagrams (bash writes one datagram per printf).
send_raw() { printf "$1" >/dev/udp/192.0.2.2/4791; }
bth_ud='\x64\x00\xff\xff\x00\x00\x00\x01\x00\x00\x00\x00'	# UD SEND_ONLY to QP1
deth='\x80\x01\x00\x00\x00\x00\x00\x01'				# Q_Key, source QP 1

# Wait until N more packets were counted since BASE, then check a counter.
expect_counted() {	# BASE N COUNTER EXPECTED
	wait_until 5 "$2 hand-made packets counted" \
		bash -c "(( \$(cat $cnt_dir/rx_packets) == $1 + $2 ))"
	assert_eq "$(cnt "$3")" "$4" "$3 after hand-made packets"
}

log "garbage, short, bad opcode, bad version, bad pad: bad header"
base=$(cnt rx_packets)
send_raw '\x01\x02\x03'					# shorter than BTH + ICRC
send_raw '\xff\x00\xff\xff\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00'	# opcode 0xff
send_raw '\x64\x01\xff\xff\x00\x00\x00\x01\x00\x00\x00\x00'"$deth"'\x00\x00\x00\x00'	# TVer 1
send_raw '\x64\x30\xff\xff\x00\x00\x00\x01\x00\x00\x00\x00'"$deth"'\x00\x00\x00\x00'	# pad 3, no payload
send_raw "$bth_ud"'\x80\x01'				# DETH cut short
expect_counted "$base" 5 rx_bad_header 5
c=$(counters); log "$c"

log "well-formed UD packet with a wrong ICRC: bad ICRC"
base=$(cnt rx_packets)
send_raw "$bth_ud$deth"'\x01\x02\x03\x04\xde\xad\xbe\xef'
expect_counted "$base" 1 rx_bad_icrc 1
assert_eq "$(cnt rx_bad_header)" 5 "bad headers after the bad-ICRC packet"
assert_eq "$(cnt rx_no_qp)" "$no_qp" "no-QP drops unchanged by bad packets"
c=$(counters); log "$c"

unload_sroce

# The ICRC through the crypto API's crc32 (crc32.c): under emulation the
# module chooses crc32_le() at load, so the other path is forced here and
# checked against rxe's ICRC both ways with full-sized packets: rxe drops
# a packet whose ICRC it finds wrong (the run would stall), sroce counts it.
log "icrc_crc32: a bad value refuses the load, shash is used when asked"
! insmod "$SROCE_KO" icrc_crc32=bogus 2>/dev/null || fail "insmod icrc_crc32=bogus succeeded"
run_timeout 60 insmod "$SROCE_KO" icrc_crc32=shash || fail "insmod icrc_crc32=shash failed"
crc=$(cat /sys/module/sroce/parameters/icrc_crc32)
assert_match "$crc" '^shash:crc32' "icrc_crc32 in use"
log "icrc_crc32=$crc"
run_timeout 30 rdma link add rxe0 type rxe netdev veth0 || fail "rxe link add failed"
run_timeout 30 ip netns exec peer rdma link add sroce0 type sroce netdev veth1 ||
	fail "sroce link add in namespace peer failed"
g_rxe=$(wait_roce_gid 10 rxe0 192.0.2.1)
g_sroce=$(ip netns exec peer bash -c ". $REPO/tests/guest/lib.sh; wait_roce_gid 10 sroce0 192.0.2.2")
base=$(cnt rx_packets)
for dir in to-sroce to-rxe; do
	out=$RESULTS/shash-$dir
	if [[ $dir == to-sroce ]]; then	# sroce checks rxe's ICRCs
		perftest_pair "$out" 90 peer sroce0 "$g_sroce" "" rxe0 "$g_rxe" 192.0.2.2 \
			ib_write_bw -s 65536 -n 100 || fail "ib_write_bw rxe -> sroce failed"
	else				# rxe checks sroce's
		perftest_pair "$out" 90 "" rxe0 "$g_rxe" peer sroce0 "$g_sroce" 192.0.2.1 \
			ib_write_bw -s 65536 -n 100 || fail "ib_write_bw sroce -> rxe failed"
	fi
	perftest_has_row "$out-client.txt" 65536 || fail "$dir: no 64 KiB row$(perftest_why "$out-client.txt")"
done
c=$(counters); log "$c"
# 100 messages of 64 packets of 1024 bytes came in from rxe.
(($(cnt rx_packets) - base >= 6400)) || fail "only $(($(cnt rx_packets) - base)) packets from rxe"
assert_eq "$(cnt rx_bad_icrc)" 0 "packets from rxe with a bad ICRC (shash)"
unload_sroce
run_timeout 30 rmmod rdma_rxe || fail "rmmod rdma_rxe failed"
ip netns del peer
log "ok"
