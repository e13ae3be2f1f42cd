# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# The incast topology of guest/cc-incast and of `make bench-incast`
# (scripts/bench-incast.sh), sourced after lib.sh. Three sender devices,
# each in a network namespace of its own (s1, s2, s3), stream RC SENDs to
# one receiver, sroce0 in namespace rx, through a bridge (namespace sw)
# whose egress towards the receiver is the bottleneck: an HTB class of
# RATE Mbit/s whose leaf qdisc marks ECN-capable packets CE (MARKING), or
# a plain byte FIFO (bottleneck). tests/guest/progs/incast checks every
# byte, prints each sender's goodput and Jain's fairness index, and times
# a 64-byte RDMA WRITE probe every 2 ms through the same queue.
#
# incast_setup builds it with sroce on every end; incast_rxe_senders adds
# three rdma_rxe senders (rxe1..3) beside them for a bench. run_incast
# runs one incast and reads its figures.

RATE=40			# Mbit/s at the bottleneck
# The payload (kB/s) that fits through it: 1024-byte packets of 1082
# bytes with their Ethernet, IP, UDP, BTH and ICRC.
CAPACITY=$((RATE * 125 * 1024 / 1082))
SECS=${INCAST_SECS:-6}	# measured seconds per run
SENDERS=(s1 s2 s3)
# Marking as a DCQCN switch marks, on the queue as it is, not on an
# average: codel marks every ECN-capable packet that waited 2 ms or more
# CE (ce_threshold; its own control law marks too, with ecn). It decides
# per skb by the time it waited, not by a probability per skb as RED
# does, so that a paced sender's burst (one GSO skb) is marked as its
# packets would be (docs/2026-12-06-cc-ceiling.md). Packets that are not
# ECN-capable (rdma_rxe's) are dropped by the control law instead.
MARKING=(codel limit 150 target 5ms interval 100ms ecn ce_threshold 2ms)
FIFO=(bfifo limit 150000)
P=/sys/module/sroce/parameters

# The bottleneck's leaf qdisc becomes LEAF... (10: under HTB class 1:1).
bottleneck() {
	# A qdisc of another kind cannot replace it in place.
	ip netns exec sw tc qdisc del dev p-rx parent 1:1 2>/dev/null || true
	ip netns exec sw tc qdisc add dev p-rx parent 1:1 handle 10: "$@" ||
		fail "tc qdisc $* on p-rx"
}

# qdisc_stat FIELD: the leaf qdisc's "dropped" or "marked" count so far
# (codel's marked: its ce_mark and ecn_mark; a FIFO marks nothing).
qdisc_stat() {
	ip netns exec sw tc -s qdisc show dev p-rx |
		awk -v f="$1" '/^qdisc / { on = $3 == "10:" } on {
			for (i = 1; i <= NF; i++) {
				if ($i == f || $i == "(" f ||
				    (f == "marked" && ($i == "ce_mark" || $i == "ecn_mark"))) {
					v = $(i + 1); gsub(/[^0-9]/, "", v); n += v; seen = 1
				}
			} }
			END { print (seen ? n : 0) }'
}

# link_sent: bytes the bottleneck's HTB class has sent so far.
link_sent() {
	ip netns exec sw tc -s class show dev p-rx classid 1:1 |
		awk '$1 == "Sent" { print $2; exit }'
}

# sum_counter NAME DEV...: NAME summed over the DEVs' port counters.
sum_counter() {
	local n=$1 d s=0
	shift
	for d in "$@"; do s=$((s + $(port_counter "$d" "$n"))); done
	echo "$s"
}

# The senders: their devices, GIDs (SG[i] is SENDER_DEVS[i]'s) and what
# they are (sroce or rxe: their counters have other names).
SENDER_DEVS=(sroce1 sroce2 sroce3)
SENDER_IMPL=sroce
# sender_args: incast's DEV:GID argument of each sender, into ARGS.
sender_args() {
	local i
	ARGS=()
	for i in "${!SENDER_DEVS[@]}"; do
		ARGS+=("${SENDER_DEVS[$i]}:${SG[$i]}")
	done
}

# resends: how often the senders sent again (sroce: timeouts, sequence
# NAKs, tail probes; rxe: its completer's retries, which count both
# timeouts and sequence NAKs).
resends() {
	if [[ $SENDER_IMPL == rxe ]]; then
		sum_counter completer_retry_err "${SENDER_DEVS[@]}"
		return
	fi
	echo $(($(sum_counter retry_timeouts "${SENDER_DEVS[@]}") +
		$(sum_counter seq_naks_rcvd "${SENDER_DEVS[@]}") +
		$(sum_counter tail_probes "${SENDER_DEVS[@]}")))
}

# sample: the counters a run reports, as they are now. The bottleneck's
# bytes and the time first: reading the rest starts a process a counter,
# which takes seconds in an emulated guest, and the senders stop at the
# end of the measured time.
sample() {
	local tx=tx_packets
	S_TIME=${EPOCHREALTIME/./} S_SENT=$(link_sent)
	[[ $SENDER_IMPL == rxe ]] && tx=sent_pkts
	S_DROPS=$(qdisc_stat dropped) S_MARKS=$(qdisc_stat marked)
	S_RESENDS=$(resends) S_CNPS=$(port_counter sroce0 np_cnp_sent)
	S_HANDLED=0 S_PROBES=0
	[[ $SENDER_IMPL == rxe ]] ||
		S_HANDLED=$(sum_counter rp_cnp_handled "${SENDER_DEVS[@]}") \
		S_PROBES=$(sum_counter tail_probes "${SENDER_DEVS[@]}")
	S_LOST=$(($(sum_counter $tx "${SENDER_DEVS[@]}") -
		  $(port_counter sroce0 rx_packets)))
}

# wait_line FILE LINE PID: until FILE has LINE, or PID ended.
wait_line() {
	while ! grep -qx "$2" "$1"; do
		kill -0 "$3" 2>/dev/null || return 0
		sleep 0.05
	done
}

# run_incast NAME CNP DCQCN: one run; returns non-zero (with the output
# and the counters shown) if the incast failed. Sets TOTAL (kB/s), JAIN
# (x1000), P99 and MEDIAN (us) for it, and, over its measured time, DROPS
# and MARKS (the bottleneck's, in skbs: an unpaced sender's GSO skb holds
# up to 64 packets, a paced one's a few), LOST (packets the senders sent
# that sroce0 did not receive: what the network dropped, in packets),
# RESENDS (the senders', PROBES of them tail probes), CNPS (sent by
# sroce0), HANDLED (CNPs the senders acted on) and BUSY (% of the time
# the bottleneck was sending); PACED: sender QPs that had a DCQCN rate at
# its start (rdma resource show qp -dd). The probe's delays over time
# go to $RESULTS/incast-NAME-probe.txt (incast.c's INCAST_TIMELINE).
run_incast() {
	local name=$1 out=$RESULTS/incast-$1.txt pid rc=0 d
	local d0 m0 r0 c0 h0 l0 b0 t0 p0 qps
	echo "$2" >$P/cnp
	echo "$3" >$P/dcqcn
	sender_args
	: >"$out"
	INCAST_TIMELINE=$RESULTS/incast-$name-probe.txt \
		run_timeout $((SECS + 90)) "$PROGS/incast" "$SECS" sroce0 "$RG" \
		"${ARGS[@]}" >"$out" 2>&1 &
	pid=$!
	wait_line "$out" measuring $pid
	# The rate of every sender QP (rdma resource show qp -dd), listed
	# beside the first sample: on a slow host the sample can outlast the
	# run, and a QP that is gone is not listed.
	for d in "${SENDER_DEVS[@]}"; do
		run_timeout 30 rdma resource show qp link $d/1 -dd || true
	done >"$RESULTS/incast-$name-qps.txt" 2>&1 &
	qps=$!
	sample
	d0=$S_DROPS m0=$S_MARKS r0=$S_RESENDS c0=$S_CNPS h0=$S_HANDLED l0=$S_LOST
	b0=$S_SENT t0=$S_TIME p0=$S_PROBES
	wait $qps || true
	PACED=$(grep -c 'cc_rate_kbit' "$RESULTS/incast-$name-qps.txt" || true)
	wait_line "$out" measured $pid
	sample
	wait $pid || rc=$?
	if ((rc)); then
		cat "$out"
		show_counters sroce0 "${SENDER_DEVS[@]}"
		INCAST_ERROR="incast $name: $(grep -m1 '^FAIL' "$out" || echo "exit $rc")"
		return 1
	fi
	TOTAL=$(awk '/^total:/ { print $2 }' "$out")
	JAIN=$(awk '/^jain:/ { printf "%d", $2 * 1000 }' "$out")
	MEDIAN=$(awk '/^probe:/ { print $5 }' "$out")
	P99=$(awk '/^probe:/ { print $8 }' "$out")
	DROPS=$((S_DROPS - d0)) MARKS=$((${S_MARKS:-0} - ${m0:-0}))
	RESENDS=$((S_RESENDS - r0)) CNPS=$((S_CNPS - c0))
	HANDLED=$((S_HANDLED - h0)) LOST=$((S_LOST - l0)) PROBES=$((S_PROBES - p0))
	# Bits through the bottleneck against what it could pass meanwhile
	# (HTB counts frames from the Ethernet header on, as its rate does).
	BUSY=$(((S_SENT - b0) * 8 * 100 / (RATE * (S_TIME - t0))))
	ip netns exec sw tc -s qdisc show dev p-rx >"$RESULTS/incast-$name-qdisc.txt"
	grep '^sender' "$out"
	log "$name: total $TOTAL kB/s ($((TOTAL * 100 / CAPACITY))% of the bottleneck's payload rate), jain $((JAIN / 1000)).$(printf %03d $((JAIN % 1000))), probe median $MEDIAN us p99 $P99 us; measured time: drops $DROPS (packets lost $LOST), marks $MARKS, resends $RESENDS ($PROBES tail probes), CNPs sent $CNPS, handled $HANDLED, bottleneck busy $BUSY%"
}

# incast_port NS IF ADDR: a host's port on the switch, IF in namespace NS
# (or the initial one if NS is empty) with ADDR/24; its peer in sw is
# p-NS (p-IF for the initial namespace).
incast_port() {
	local ns=$1 dev=$2 addr=$3 port=p-${1:-$2}
	ip link add "$dev" ${ns:+netns "$ns"} type veth peer name "$port" netns sw
	ip ${ns:+-n "$ns"} addr add "$addr/24" dev "$dev"
	ip ${ns:+-n "$ns"} link set "$dev" up
	ip -n sw link set "$port" master br0 up
}

# incast_neigh NS IF ADDR MAC: a static neighbour. An ARP reply must not
# wait behind (or be dropped by) the bottleneck queue a run leaves behind.
incast_neigh() {
	ip ${1:+-n "$1"} neigh replace "$3" lladdr "$4" dev "$2" nud permanent
}

# v0's MAC in namespace NS.
incast_mac() { ip netns exec "$1" cat /sys/class/net/v0/address; }

# incast_setup: the switch, the receiver and the sroce senders, with
# DCQCN's parameters scaled to this bottleneck and the guest's round trip
# of about a ms; the bottleneck's leaf a FIFO. Sets RG and SG.
incast_setup() {
	local i n m
	load_sroce
	# incast reuses a buffer as soon as its SEND completes, while a
	# resent copy of it may still wait in the bottleneck queue; sent
	# zero-copy, that copy would leave with the new bytes under its old
	# ICRC, and sroce0 would drop it as a bad ICRC.
	echo 0 >$P/zero_copy_tx
	echo 500 >$P/np_min_time_between_cnps
	echo 1000 >$P/rp_rate_reduce_monitor_period
	echo 2000 >$P/rp_time_reset
	echo 1000 >$P/rp_dce_tcp_rtt
	echo 1 >$P/rp_ai_rate
	echo 5 >$P/rp_hai_rate
	echo 80 >$P/rp_min_dec_fac
	run_timeout 30 modprobe veth || fail "modprobe veth"
	for m in sch_htb sch_red bridge; do
		run_timeout 30 modprobe $m || fail "no $m module for $(uname -r)"
	done

	ip netns add sw
	ip -n sw link add br0 type bridge
	ip -n sw link set br0 up
	i=1
	for n in rx "${SENDERS[@]}"; do
		ip netns add $n
		ip -n $n link set lo up
		incast_port $n v0 10.77.0.$i
		i=$((i + 1))
	done
	for n in rx "${SENDERS[@]}"; do
		for m in rx "${SENDERS[@]}"; do
			[[ $n == "$m" ]] && continue
			incast_neigh $n v0 "$(ip -n $m -4 -o addr show dev v0 |
				awk '{ sub(/\/.*/, "", $4); print $4 }')" \
				"$(incast_mac $m)"
		done
	done
	ip netns exec sw tc qdisc add dev p-rx root handle 1: htb default 1 ||
		fail "htb on p-rx"
	ip netns exec sw tc class add dev p-rx parent 1: classid 1:1 htb \
		rate ${RATE}mbit || fail "htb class on p-rx"
	bottleneck "${FIFO[@]}"

	i=0
	for n in rx "${SENDERS[@]}"; do
		run_timeout 30 ip netns exec $n rdma link add sroce$i type sroce netdev v0 ||
			fail "rdma link add sroce$i in namespace $n"
		wait_until 10 "sroce$i" test -e /sys/class/infiniband/sroce$i
		i=$((i + 1))
	done
	RG=$(wait_roce_gid 10 sroce0 10.77.0.1) || fail "no RoCE v2 GID on sroce0"
	SG=()
	for i in 1 2 3; do
		SG+=("$(wait_roce_gid 10 sroce$i 10.77.0.$((i + 1)))") ||
			fail "no RoCE v2 GID on sroce$i"
	done
}

# incast_rxe_senders: rxe1..3 on ports x1..x3 (10.77.0.11-13) of the
# initial namespace, the only one rdma_rxe works in (its UDP socket is
# there, and sroce has no device there to bind beside it). Their
# packets leave by their own port (rdma_rxe routes with the netdev as
# the output interface) and come back by it (static neighbours in rx);
# the initial namespace's own neighbour for sroce0 on each port is static
# too. Sets RXE_SG to their GIDs.
incast_rxe_senders() {
	local i
	run_timeout 60 modprobe rdma_rxe || fail "modprobe rdma_rxe"
	RXE_SG=()
	for i in 1 2 3; do
		incast_port "" x$i 10.77.0.1$i
		# ARP only for the port's own address, from it; and sroce0's
		# packets come in by three ports on one subnet: no reverse
		# path filter.
		sysctl -qw net.ipv4.conf.x$i.arp_ignore=1 net.ipv4.conf.x$i.arp_announce=2 \
			net.ipv4.conf.x$i.rp_filter=0 net.ipv4.conf.all.rp_filter=0
		incast_neigh "" x$i 10.77.0.1 "$(incast_mac rx)"
		incast_neigh rx v0 10.77.0.1$i "$(cat /sys/class/net/x$i/address)"
		run_timeout 30 rdma link add rxe$i type rxe netdev x$i ||
			fail "rdma link add rxe$i"
		wait_until 10 "rxe$i" test -e /sys/class/infiniband/rxe$i
		RXE_SG+=("$(wait_roce_gid 10 rxe$i 10.77.0.1$i)") ||
			fail "no RoCE v2 GID on rxe$i"
	done
}

# incast_teardown: the devices and namespaces go, and the module.
incast_teardown() {
	local n i
	echo 1 >$P/zero_copy_tx
	for i in 1 2 3; do
		[[ -e /sys/class/infiniband/rxe$i ]] &&
			run_timeout 30 rdma link delete rxe$i
		ip link del x$i 2>/dev/null || true
	done
	[[ -d /sys/module/rdma_rxe ]] && { run_timeout 60 modprobe -r rdma_rxe || true; }
	unload_sroce
	for n in sw rx "${SENDERS[@]}"; do ip netns del $n; done
}
