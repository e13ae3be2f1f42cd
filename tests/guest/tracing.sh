#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The sroce tracepoints and drop reasons, seen through tracefs as perf
# trace or trace-cmd would see them, on two devices across namespaces:
#  - every event is there: sroce:sroce_{qp_state,qp_error,wc_error,
#    retransmit,nak_sent,nak_rcvd,rnr_wait,retry_exceeded,drop};
#  - RC SENDs (ib_send_bw) over a veth that loses 5% both ways (netem)
#    produce QP state changes, PSN sequence NAKs sent and received,
#    retransmits caused by them; a ping-pong of one-packet SENDs
#    (ib_send_lat) on the same wire produces tail-loss probes: each
#    message is the tail of its burst, so every lost one (or its lost
#    ACK) leaves the requester waiting, where a streaming run's window
#    is rarely empty and its losses are repaired by NAKs;
#  - the same with tail_probes=N produces no probe (counter and events);
#    perftest, not ibv_rc_pingpong: a pingpong's client leaves as soon as
#    it has the last message, so when its ACK for it is lost the server's
#    resends find no QP and end in retry-exceeded. perftest's ends meet
#    over TCP before either destroys its QP.
#  - a datagram with a bad ICRC is dropped with reason bad_icrc, and the
#    kernel's skb:kfree_skb sees the same skb with reason SKB_CSUM (so
#    dropwatch and perf's drop monitors see sroce's drops);
#  - a send to a QPN nobody has ends in retry_exceeded and the QP in ERR;
#  - the kernel verbs self-test's RNR case produces RNR waits.
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case"; exit 0; }

load_sroce
rdma_pair 1500

T=/sys/kernel/tracing
[[ -e $T/trace ]] || mount -t tracefs nodev "$T" || fail "cannot mount tracefs"
for ev in qp_state qp_error wc_error retransmit nak_sent nak_rcvd rnr_wait retry_exceeded drop; do
	[[ -d $T/events/sroce/sroce_$ev ]] || fail "no tracepoint sroce:sroce_$ev"
done
echo 0 > "$T/tracing_on"
echo 8192 > "$T/buffer_size_kb"
echo > "$T/trace"
echo 1 > "$T/events/sroce/enable"
echo 1 > "$T/events/skb/kfree_skb/enable"
echo 1 > "$T/tracing_on"

probes() { echo $(($(port_counter sroce0 tail_probes) + $(port_counter sroce1 tail_probes))); }

NETEM=(loss 5% delay 1ms)
run_timeout 30 modprobe sch_netem || fail "no sch_netem module for $(uname -r)"
tc qdisc add dev veth0 root netem "${NETEM[@]}" || fail "netem on veth0"
ip netns exec peer tc qdisc add dev veth1 root netem "${NETEM[@]}" || fail "netem on veth1"
local_perftest rc-lossy 65536 ib_send_bw -s 65536 -n 200
local_perftest rc-lossy-lat 2 ib_send_lat -s 2 -n 300
with_probes=$(probes)
log "tail probes with tail_probes=Y: $with_probes"
((with_probes > 0)) || fail "no tail-loss probe in a 5% lossy run"
echo N > /sys/module/sroce/parameters/tail_probes
local_perftest rc-lossy-noprobe 2 ib_send_lat -s 2 -n 300
echo Y > /sys/module/sroce/parameters/tail_probes
assert_eq "$(probes)" "$with_probes" "tail probes sent with tail_probes=N"
tc qdisc del dev veth0 root
ip netns exec peer tc qdisc del dev veth1 root

# A UD SEND-only to QPN 2 with a wrong ICRC: BTH, DETH, ICRC.
ip netns exec peer bash -c "printf '\x64\x00\xff\xff\x00\x00\x00\x02\x00\x00\x00\x07\x00\x00\x00\x11\x00\x00\x00\x01\xde\xad\xbe\xef' > /dev/udp/192.0.2.1/4791" ||
	fail "cannot send the bad-ICRC datagram"
wait_until 10 "bad ICRC counted" test "$(port_counter sroce0 rx_bad_icrc)" = 1

run_prog dead-peer 60 rc_dead_peer sroce0 "$SG"
dead_qpn=$(sed -n 's/^qpn \([0-9]*\):.*/\1/p' "$RESULTS/dead-peer.txt")

ko=$REPO/build/guest/kmod/$KVER/kverbs_selftest.ko
run_timeout 120 insmod "$ko" dev=sroce0 || fail "kverbs_selftest on sroce0"
rmmod kverbs_selftest

echo 0 > "$T/tracing_on"
cp "$T/trace" "$RESULTS/trace.txt"
echo 0 > "$T/events/sroce/enable"
echo 0 > "$T/events/skb/kfree_skb/enable"
for ev in qp_state qp_error wc_error retransmit nak_sent nak_rcvd rnr_wait retry_exceeded drop; do
	log "sroce_$ev: $(grep -c "sroce_$ev:" "$RESULTS/trace.txt") events, e.g.:" \
		"$(grep -m1 "sroce_$ev:" "$RESULTS/trace.txt" | sed 's/.*sroce_/sroce_/')"
done
# has ERE WHAT: the trace has a line matching ERE.
has() { grep -qE "$1" "$RESULTS/trace.txt" || fail "$2: no trace line matches /$1/"; }
has "sroce_qp_state: sroce0 qpn [0-9]+ RESET -> INIT" "QP state change"
has "sroce_qp_state: sroce0 qpn $dead_qpn RTS -> ERR" "QP to ERR"
has "sroce_nak_sent: sroce[01] qpn [0-9]+ psn [0-9]+ syndrome 0x60 \(psn_seq\)" "sequence NAK sent"
has "sroce_nak_rcvd: sroce[01] qpn [0-9]+ psn [0-9]+ syndrome 0x60 \(psn_seq\)" "sequence NAK received"
# A NAK's gap is first resent alone (selective), or gone back to (seq_nak).
has "sroce_retransmit: sroce[01] qpn [0-9]+ from psn [0-9]+ cause (selective|seq_nak)" "retransmit after a NAK"
has "sroce_retransmit: sroce[01] qpn [0-9]+ from psn [0-9]+ cause tail_probe" "tail-loss probe"
has "sroce_retransmit: sroce0 qpn $dead_qpn from psn [0-9]+ cause timeout" "timeout retransmit"
has "sroce_retry_exceeded: sroce0 qpn $dead_qpn psn [0-9]+ transport retries exhausted" "retry exhausted"
has "sroce_wc_error: sroce0 qpn $dead_qpn wr_id 0x[0-9a-f]+ opcode [0-9]+ status RETRY_EXC_ERR" \
	"the completion in error"
has "sroce_qp_error: sroce0 qpn $dead_qpn found by sroce_[a-z_]+\+0x" "where the QP error was found"
has "sroce_rnr_wait: sroce0 qpn [0-9]+ psn [0-9]+ wait [0-9]+ us" "RNR wait"

# The bad-ICRC drop, and the same skb in the kernel's own drop event.
line=$(grep -m1 'sroce_drop: sroce0 qpn 2 skb .* reason bad_icrc' "$RESULTS/trace.txt") ||
	fail "no bad_icrc drop event"
skb=$(sed -n 's/.* skb \([0-9a-fx]*\) .*/\1/p' <<<"$line")
has "kfree_skb: skbaddr=$skb .*reason: SKB_CSUM" "kfree_skb of the bad-ICRC skb"

# The counters that go with the events (rdma statistic shows the same).
log "sroce0: $(dev_counters sroce0)"
log "sroce1: $(dev_counters sroce1)"
for d in sroce0 sroce1; do
	(($(port_counter "$d" tx_packets) > 1000)) || fail "$d tx_packets"
done
(($(port_counter sroce0 rx_out_of_sequence) + $(port_counter sroce1 rx_out_of_sequence) > 0)) ||
	fail "no out-of-sequence request counted under loss"
assert_eq "$(port_counter sroce0 retry_exceeded)" 1 "sroce0 retry_exceeded"
(($(port_counter sroce0 rnr_naks_sent) > 0)) || fail "sroce0 rnr_naks_sent"
(($(port_counter sroce0 rnr_naks_rcvd) > 0)) || fail "sroce0 rnr_naks_rcvd"
(($(port_counter sroce0 local_deliveries) > 0)) || fail "sroce0 local_deliveries"
rdma statistic show link sroce0/1 > "$RESULTS/rdma-statistic.txt" ||
	fail "rdma statistic show link sroce0/1"
grep -q 'retry_exceeded 1' "$RESULTS/rdma-statistic.txt" ||
	fail "rdma statistic: $(cat "$RESULTS/rdma-statistic.txt")"

# Not rdma_pair_done: it wants no bad ICRC, and here there is one on purpose.
assert_eq "$(port_counter sroce1 rx_bad_icrc)" 0 "sroce1 bad ICRC"
unload_sroce
ip netns del peer
log "ok"
