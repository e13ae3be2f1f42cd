#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RC data path checked byte by byte (tests/guest/progs/rc_data.c):
# SEND with scatter/gather, immediate data and inline data, RDMA WRITE
# (with immediate), RDMA READ up to 8 MiB, a burst of 200 WRs, and the
# error completions (bad rkey, READ past the MR, no remote write access,
# bad lkey, flush on ERR); at path MTUs 256, 1024 and 4096, posted by
# ibv_post_send and by the ibv_wr_* API. Between two devices, one on each
# end of a veth pair (MTU 4500, so that active_mtu is 4096):
#  (a) the peer end in network namespace "peer", packets sent in GSO
#      bursts (gso_tx); again without (MTU 1024, ibv_post_send); then
#      once more with netem on both ends of the veth;
#  (b) both ends in this namespace, packets handed over between the
#      devices in batches (local_batch); again without (MTU 1024,
#      ibv_post_send). The RDMA core resolves the peer's
#      address by ARP on the veth, and the kernel ignores ARP between two
#      local addresses unless accept_local is set (without it, moving the
#      QP to RTR fails with ETIMEDOUT); rp_filter is off as well.
# On rxe: one device serves both QPs (rxe cannot deliver between two of its
# own devices on one host), and rc_data -r accepts rxe's known deviations,
# printing each as "rxe quirk: ..." (6.1: a bad lkey completes with
# IBV_WC_LOC_QP_OP_ERR, not IBV_WC_LOC_PROT_ERR).
. "$(dirname "$0")/lib.sh"

MTUS=(256 1024 4096)
APIS=(post_send wr_api)
NETDEV_MTU=4500
NETEM=(loss 2% delay 1ms reorder 10% duplicate 1%)

# rc_data_matrix NAME DEV_A ADDR_A DEV_B ADDR_B [RC_DATA_OPTS]: every MTU
# of MTUS, every post API of APIS.
rc_data_matrix() {
	local name=$1 da=$2 aa=$3 db=$4 ab=$5 opts=${6:-} ga gb mtu api what out
	local t0 rc x
	ga=$(wait_roce_gid 10 "$da" "$aa") || fail "no RoCE v2 GID for $aa on $da"
	gb=$(wait_roce_gid 10 "$db" "$ab") || fail "no RoCE v2 GID for $ab on $db"
	for mtu in "${MTUS[@]}"; do
		for api in "${APIS[@]}"; do
			what="$name: mtu $mtu $api"
			x=
			[[ $api == wr_api ]] && x=-x
			t0=$SECONDS rc=0
			# shellcheck disable=SC2086
			out=$(run_timeout 90 "$PROGS/rc_data" $opts $x \
				"$da" "$ga" "$db" "$gb" "$mtu" 2>&1) || rc=$?
			echo "$out" > "$RESULTS/rc_data-$name-$mtu-$api.txt"
			if ((rc)); then
				echo "$out"
				show_counters "$da" "$db"
				((rc == 124 || rc == 137)) && fail "$what: timed out after 90s"
				fail "$what: $(grep -m1 '^FAIL' <<<"$out" || echo "exit $rc")"
			fi
			assert_match "$out" "rc_data all ok" "$what"
			log "$what: ok in $((SECONDS - t0))s"
			grep '^rxe quirk' <<<"$out" | sort -u || true
		done
	done
}

# four_per_batch DEV BATCHES PACKETS WHAT: DEV's counter BATCHES moved,
# and its counter PACKETS is at least four times it.
four_per_batch() {
	local d=$1 n p
	n=$(port_counter "$d" "$2") p=$(port_counter "$d" "$3")
	log "$d: $p packets in $n $4"
	((n > 0 && p >= 4 * n)) || fail "$d: $p packets in $n $4, want 4 or more in each"
}

no_bad_icrc() {
	local d
	for d in sroce0 sroce1; do
		assert_eq "$(cat "$(port_dir $d)/hw_counters/rx_bad_icrc")" 0 \
			"$d bad ICRC"
	done
}

set_mtu() {		# [NETNS] DEV
	ip ${1:+-n "$1"} link set "$2" mtu "$NETDEV_MTU"
}

load_sroce

if [[ $SROCE_IMPL == rxe ]]; then
	make_veth
	set_mtu "" veth0
	set_mtu "" veth1
	link_add rxe0 veth0
	rc_data_matrix rxe-one-device rxe0 192.0.2.1 rxe0 192.0.2.1 -r
	unload_sroce
	log "ok"
	exit 0
fi

log "(a) veth1 in namespace peer"
make_veth_netns
set_mtu "" veth0
set_mtu peer veth1
link_add sroce0 veth0
run_timeout 30 ip netns exec peer rdma link add sroce1 type sroce netdev veth1 ||
	fail "rdma link add sroce1 in namespace peer"
wait_until 10 "sroce1" test -e /sys/class/infiniband/sroce1
rc_data_matrix netns sroce0 192.0.2.1 sroce1 192.0.2.2
no_bad_icrc
# The payloads of 512 bytes and more went out zero-copy from both ends
# (A's sends and writes, B's sends to A), through the IP stack, where the
# peer checked their ICRC (no_bad_icrc).
for d in sroce0 sroce1; do
	(($(port_counter $d tx_zero_copy) > 0)) || fail "$d sent nothing zero-copy"
done
# ...and in bursts of GSO skbs (gso_tx), which the veth hands whole to the
# peer namespace, whose UDP socket cuts them into datagrams again (sroce0
# sends the writes and reads' requests, sroce1 the read responses).
for d in sroce0 sroce1; do
	four_per_batch $d tx_gso_skbs tx_gso_packets "GSO skbs"
done
# With gso_tx off, every packet crosses the stack alone, as before.
log "(a) again, gso_tx off"
echo 0 >/sys/module/sroce/parameters/gso_tx
skbs=$(port_counter sroce0 tx_gso_skbs)
MTUS=(1024) APIS=(post_send)
rc_data_matrix netns-no-gso sroce0 192.0.2.1 sroce1 192.0.2.2
MTUS=(256 1024 4096) APIS=(post_send wr_api)
assert_eq "$(port_counter sroce0 tx_gso_skbs)" "$skbs" "GSO skbs with gso_tx off"
echo 1 >/sys/module/sroce/parameters/gso_tx
no_bad_icrc

# The same over a veth that loses, delays, reorders and duplicates both
# ways: every transfer still checked byte by byte (not the error
# completions: rc_data -l). A's RDMA READs (up to
# 8 MiB) get responses ahead of lost ones, placed where they belong
# before the gap is filled (read_resp_ahead); sroce1, still sending a
# read when sroce0 asks again for a run of it, sends that run alone and
# goes on where it was (read_patches). In the READ/WRITE mix, a WRITE's
# ACK that shows a READ's last responses lost makes sroce0 ask for them
# alone, not send the WRITEs after it again (read_gaps_acked: 4 to 35 in
# one mix of 64 pairs in six runs here; rc_data -l runs three mixes).
log "(a) again, netem on both ends: ${NETEM[*]}"
run_timeout 30 modprobe sch_netem || fail "no sch_netem module for $(uname -r)"
tc qdisc add dev veth0 root netem "${NETEM[@]}" || fail "netem on veth0"
ip netns exec peer tc qdisc add dev veth1 root netem "${NETEM[@]}" ||
	fail "netem on veth1"
ahead0=$(port_counter sroce0 read_resp_ahead)
patches0=$(port_counter sroce1 read_patches)
acked0=$(port_counter sroce0 read_gaps_acked)
MTUS=(1024) APIS=(post_send)
rc_data_matrix netns-netem sroce0 192.0.2.1 sroce1 192.0.2.2 -l
MTUS=(256 1024 4096) APIS=(post_send wr_api)
for st in "$(tc -s qdisc show dev veth0)" \
	  "$(ip netns exec peer tc -s qdisc show dev veth1)"; do
	dropped=$(grep -o 'dropped [0-9]*' <<<"$st" | head -1 | cut -d' ' -f2)
	((${dropped:-0} > 0)) || fail "netem dropped nothing: $st"
done
show_counters sroce0 sroce1
(($(port_counter sroce0 read_resp_ahead) > ahead0)) ||
	fail "sroce0 placed no read response ahead of a lost one"
(($(port_counter sroce1 read_patches) > patches0)) ||
	fail "sroce1 sent no asked-for run before the rest of a read"
(($(port_counter sroce0 read_gaps_acked) > acked0)) ||
	fail "sroce0 asked for no read responses that an ACK showed lost"
# No bad-ICRC check here: a copy that netem still holds of a zero-copy
# packet may leave after its WR completed and the program wrote new data
# to the buffer; the peer drops that stale duplicate for its ICRC.
link_del sroce0
link_del sroce1
ip netns del peer

log "(b) both ends here, accept_local"
make_veth
set_mtu "" veth0
set_mtu "" veth1
for c in all default veth0 veth1; do
	sysctl -qw "net.ipv4.conf.$c.accept_local=1" "net.ipv4.conf.$c.rp_filter=0"
done
link_add sroce0 veth0
link_add sroce1 veth1
rc_data_matrix one-netns sroce0 192.0.2.1 sroce1 192.0.2.2
no_bad_icrc
# Here the packets never meet the stack: each engine step's packets for
# the other device are handed over as one batch (local_batch).
for d in sroce0 sroce1; do
	four_per_batch $d local_batches local_batch_packets "local batches"
done
log "(b) again, local_batch off"
echo 0 >/sys/module/sroce/parameters/local_batch
n=$(port_counter sroce0 local_batches) sent=$(port_counter sroce0 local_deliveries)
MTUS=(1024) APIS=(post_send)
rc_data_matrix one-netns-no-batch sroce0 192.0.2.1 sroce1 192.0.2.2
assert_eq "$(port_counter sroce0 local_batches)" "$n" "local batches with local_batch off"
(($(port_counter sroce0 local_deliveries) > sent)) ||
	fail "sroce0 delivered nothing locally with local_batch off"
echo 1 >/sys/module/sroce/parameters/local_batch
unload_sroce
log "ok"
