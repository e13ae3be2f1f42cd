#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What an RC responder holds ahead of a gap is bounded in bytes and in
# time, and the QPs it was sent to go on working. hold_victim
# (tests/guest/progs/hold_victim.c), run as nobody in a small memory
# cgroup, connects N RC QP pairs A_i on sroce0 (192.0.2.1) <-> B_i on
# sroce1 (192.0.2.2, namespace "peer"). Then nobody in "peer", from an
# ordinary UDP socket bound to the peer's address (so the packets pass
# the check that a connected QP's traffic comes from its peer: this case
# is about memory), sends every A_i PKTS SEND_ONLY packets of 4 KiB at
# the PSNs after the one it expects, never that one
# (tests/guest/progs/roce_forge.c): nothing ever fills those gaps. With
# the module's caps set small for the case:
#  - rx_held_bytes, sampled during the flood and until every packet of
#    it has reached the responder, never exceeds hold_dev_kib, and comes
#    near it (the flood asks for N times hold_qp_kib): the device cap, not
#    the count per QP, bounded it; rx_hold_full rose;
#  - meanwhile SUnreclaim grew by less than hold_dev_kib plus SLACK_KIB
#    (per-CPU and partial slab lists the flood's own churn leaves, the
#    socket and backlog queues): unbounded, the flood would pin N x PKTS
#    x about 8.5 KiB of truesize (138 MB for 128 QPs);
#  - within hold_ms and a margin of the flood's end, rx_held_bytes is 0
#    and rx_held_expired rose: nothing is pinned for ever;
#  - then each B_i sends its A_i real messages from the PSN A_i expects
#    (SENDs and an RDMA WRITE of patterns of their own), and hold_victim
#    checks every completion and every byte: had A_i kept any forged
#    packet, it would have been executed as B_i's;
#  - no packet was refused as not from the peer (rx_not_peer), none had a
#    bad ICRC, the victim was not OOM-killed, the module unloads.
# hold_ms is chosen so that the flood's packets for many more QPs than
# hold_dev_kib / hold_qp_kib arrive within it, on a slow host too.
# sroce-only (the parameters and counters are sroce's): on rxe the
# victim program alone is proved, both ends on rxe0, with no flood.
. "$(dirname "$0")/lib.sh"

N=128			# QP pairs
FLOODERS=2		# roce_forge loops at once
PKTS=127		# forged packets per A_i, PSNs rq_psn+1 .. rq_psn+PKTS
LEN=4096		# their payload
HOLD_QP_KIB=256
HOLD_DEV_KIB=4096
HOLD_MS=4000
SLACK_KIB=8192
CG_MAX=32M		# the victim's memory cgroup (it uses about 14 MiB)
PARAMS=/sys/module/sroce/parameters
VICTIM_OUT=$RESULTS/hold_victim.txt

victim_done() {
	local rc=0
	wait "$vpid" || rc=$?
	if ((rc)) || ! grep -q '^hold_victim all ok' "$VICTIM_OUT"; then
		tail -n 20 "$VICTIM_OUT"
		((rc == 124 || rc == 137)) && fail "hold_victim timed out"
		fail "hold_victim: $(grep -m1 '^FAIL' "$VICTIM_OUT" || echo "exit $rc")"
	fi
	grep '^ok' "$VICTIM_OUT" || true
}

if [[ $SROCE_IMPL != sroce ]]; then
	log "sroce-only case (hold bounds, parameters and counters are sroce's);" \
		"proving hold_victim alone on rxe0"
	load_sroce
	rdma_pair 9000
	timeout -k 5 120 "$PROGS/hold_victim" -n 32 "$SDEV" "$SG" "$CDEV" "$CG" \
		<<<go >"$VICTIM_OUT" 2>&1 &
	vpid=$!
	victim_done
	rdma_pair_done
	exit 0
fi

cg=/sys/fs/cgroup/sroce-hold
go_fifo=/tmp/hold-go
vpid='' fpids=()
cleanup_report() {
	local pid
	for pid in "${fpids[@]}" $vpid; do kill "$pid" 2>/dev/null || true; done
	show_counters sroce0 sroce1
	[[ -s $VICTIM_OUT ]] && tail -n 5 "$VICTIM_OUT"
	[[ -e $cg/memory.events ]] && echo "victim cgroup: $(tr '\n' ' ' <"$cg/memory.events")"
}
FAIL_REPORT=cleanup_report

load_sroce
for p in hold_qp_kib hold_dev_kib hold_max_kib hold_ms rx_queue_kib; do
	[[ -w $PARAMS/$p ]] || fail "no writable parameter $PARAMS/$p"
done
echo "$HOLD_QP_KIB" >"$PARAMS/hold_qp_kib"
echo "$HOLD_DEV_KIB" >"$PARAMS/hold_dev_kib"
echo "$HOLD_MS" >"$PARAMS/hold_ms"
log "caps: hold_qp_kib $(<"$PARAMS/hold_qp_kib") hold_dev_kib $(<"$PARAMS/hold_dev_kib")" \
	"hold_max_kib $(<"$PARAMS/hold_max_kib") hold_ms $(<"$PARAMS/hold_ms")" \
	"rx_queue_kib $(<"$PARAMS/rx_queue_kib")"

# sroce0 on veth0 (192.0.2.1) <-> sroce1 on veth1 (192.0.2.2) in "peer".
rdma_pair 9000
g0=$SG g1=$CG
hw=$(port_dir sroce0)/hw_counters
for c in rx_hold_full rx_held_expired rx_held_bytes rx_not_peer; do
	[[ -r $hw/$c ]] || fail "sroce0 has no counter $c"
done

# The victim: nobody, in a memory cgroup of its own.
[[ -e /sys/fs/cgroup/cgroup.controllers ]] || mount -t cgroup2 none /sys/fs/cgroup ||
	fail "cannot mount cgroup2"
echo +memory >/sys/fs/cgroup/cgroup.subtree_control || fail "no memory controller"
mkdir -p "$cg"
echo "$CG_MAX" >"$cg/memory.max"
[[ -e $cg/memory.swap.max ]] && echo 0 >"$cg/memory.swap.max"
mkfifo "$go_fifo"
# Read-write: neither open waits for the other end.
exec {go}<>"$go_fifo"
timeout -k 5 240 sh -c "echo \$\$ >$cg/cgroup.procs &&
	exec setpriv --reuid=65534 --regid=65534 --clear-groups \
		$PROGS/hold_victim -n $N sroce0 $g0 sroce1 $g1" \
	<"$go_fifo" >"$VICTIM_OUT" 2>&1 &
vpid=$!
victim_ready() { grep -q '^ready ' "$VICTIM_OUT" || ! kill -0 "$vpid" 2>/dev/null; }
t0=$SECONDS
wait_until 180 "hold_victim's $N pairs" victim_ready
grep -q '^ready ' "$VICTIM_OUT" || victim_done
mapfile -t qps < <(sed -n 's/^qp //p' "$VICTIM_OUT")
assert_eq "${#qps[@]}" "$N" "QPs hold_victim listed"
log "$N pairs in RTS in $((SECONDS - t0))s; victim cgroup: $(($(<"$cg/memory.current") >> 10)) KiB"

# counter NAME: sroce0's; sunreclaim: SUnreclaim (KiB) to $sunr, no process.
counter() { local v; read -r v <"$hw/$1"; echo "$v"; }
sunreclaim() {
	local k v _
	while read -r k v _; do
		[[ $k == SUnreclaim: ]] && { sunr=$v; return 0; }
	done </proc/meminfo
	fail "no SUnreclaim in /proc/meminfo"
}

declare -A c0
for c in rx_hold_full rx_held_expired rx_held_bytes rx_not_peer \
	rx_out_of_sequence rx_queue_full rx_bad_icrc; do
	c0[$c]=$(counter "$c")
done
assert_eq "${c0[rx_held_bytes]}" 0 "rx_held_bytes before the flood"
sunreclaim
sunr0=$sunr

# The flood: FLOODERS loops as nobody in "peer", each over its share of
# the QPs (every roce_forge start costs the emulated guest about 0.1 s,
# the packets little), PSNs rq_psn+1 .. rq_psn+PKTS.
for ((f = 0; f < FLOODERS; f++)); do
	for ((i = f; i < N; i += FLOODERS)); do
		read -r q p <<<"${qps[i]}"
		echo "$q $(((p + 1) & 0xffffff))"
	done >"$RESULTS/flood-list-$f.txt"
done
fpids=()
for ((f = 0; f < FLOODERS; f++)); do
	# shellcheck disable=SC2016
	timeout -k 5 120 ip netns exec peer \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		bash -c 'while read -r q p; do
			"$0" --src 192.0.2.2 --dst 192.0.2.1 --qpn "$q" --psn "$p" \
				--count "$1" --len "$2" --fill 0xa5 || exit 1
		done' "$PROGS/roce_forge" "$PKTS" "$LEN" \
		<"$RESULTS/flood-list-$f.txt" >"$RESULTS/flood-$f.txt" 2>&1 &
	fpids+=($!)
done

cap=$((HOLD_DEV_KIB * 1024)) peak=0 sunr_peak=$sunr0
# sample: rx_held_bytes (never above the cap) and SUnreclaim, peaks kept.
sample() {
	local v
	read -r v <"$hw/rx_held_bytes"
	((v <= cap)) || fail "rx_held_bytes $v > hold_dev_kib $HOLD_DEV_KIB KiB ($cap)"
	((v > peak)) && peak=$v
	sunreclaim
	((sunr > sunr_peak)) && sunr_peak=$sunr
	return 0
}
flooding() {
	local pid
	for pid in "${fpids[@]}"; do
		kill -0 "$pid" 2>/dev/null && return 0
	done
	return 1
}
t0=$SECONDS
while flooding; do
	sample
	nap 0.05
done
flood_s=$((SECONDS - t0))
for ((f = 0; f < FLOODERS; f++)); do
	rc=0
	wait "${fpids[f]}" || rc=$?
	((rc == 0)) || { tail -n 5 "$RESULTS/flood-$f.txt"; fail "flood loop $f (roce_forge) exited $rc"; }
done
fpids=()
assert_eq "$(cat "$RESULTS"/flood-*.txt | grep -c "^sent $PKTS\$")" "$N" "roce_forge runs that sent $PKTS"

# Until every forged packet reached the responder (out of sequence) or
# was refused by the engine's queue, sampling on.
want=$((N * PKTS))
end=$((SECONDS + 30))
while :; do
	sample
	got=$(($(counter rx_out_of_sequence) - c0[rx_out_of_sequence] +
		$(counter rx_queue_full) - c0[rx_queue_full]))
	((got < want)) || break
	((SECONDS < end)) ||
		fail "30s after the flood, $got of its $want packets reached sroce0's responder"
	nap 0.1
done
held_end=$(counter rx_held_bytes)
sunr1=$sunr
t_end=$SECONDS
full=$(($(counter rx_hold_full) - c0[rx_hold_full]))
qfull=$(($(counter rx_queue_full) - c0[rx_queue_full]))
grow=$((sunr1 - sunr0)) grow_peak=$((sunr_peak - sunr0))
log "flood: $want packets to $N QPs in ${flood_s}s; rx_held_bytes peak $peak" \
	"(cap $cap), at the end $held_end; rx_hold_full +$full, rx_queue_full +$qfull"
log "SUnreclaim: $sunr0 KiB before, +$grow KiB after the flood, +$grow_peak KiB at its peak" \
	"(bound $HOLD_DEV_KIB + $SLACK_KIB KiB)"
((full > 0)) || fail "rx_hold_full did not rise: no cap was reached"
((peak >= cap * 3 / 4)) ||
	fail "rx_held_bytes peaked at $peak, below 3/4 of hold_dev_kib: the device cap was never reached"
((grow_peak < HOLD_DEV_KIB + SLACK_KIB)) ||
	fail "SUnreclaim grew by $grow_peak KiB during the flood (bound $HOLD_DEV_KIB + $SLACK_KIB)"
assert_eq "$(($(counter rx_not_peer) - c0[rx_not_peer]))" 0 "rx_not_peer (the flood came from the peer)"

# Ageing: nothing is held for long.
held_gone() { [[ $(counter rx_held_bytes) == 0 ]]; }
wait_until $((HOLD_MS / 1000 + 5)) "rx_held_bytes to fall to 0 (hold_ms $HOLD_MS)" held_gone
expired=$(($(counter rx_held_expired) - c0[rx_held_expired]))
sunreclaim
sunr2=$sunr
log "held packets gone $((SECONDS - t_end))s after the flood; rx_held_expired +$expired;" \
	"SUnreclaim +$((sunr2 - sunr0)) KiB"
((expired > 0)) || fail "rx_held_expired did not rise"
((sunr2 - sunr0 < SLACK_KIB)) ||
	fail "SUnreclaim still $((sunr2 - sunr0)) KiB above what it was before the flood"

# The victim's own traffic, every byte checked.
echo go >&"$go"
victim_done
vpid=
exec {go}>&-
rm -f "$go_fifo"
events=$(<"$cg/memory.events")
assert_match "$events" "oom_kill 0" "no OOM kill in the victim's cgroup"
log "victim cgroup: peak $(($(cat "$cg/memory.peak" 2>/dev/null || echo 0) >> 10)) KiB" \
	"of $CG_MAX; $(tr '\n' ' ' <<<"$events")"
assert_eq "$(($(counter rx_bad_icrc) - c0[rx_bad_icrc]))" 0 "sroce0 bad ICRC"
log "sroce0 counters: $(dev_counters sroce0)"
FAIL_REPORT=

rmdir "$cg"
rdma_pair_done
