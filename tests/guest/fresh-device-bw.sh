#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Freshly added devices move data at once, in duration mode (-D), which
# is where a stall shows as a run that completes nothing: ROUNDS times,
# add sroce0 on veth0 and sroce1 on veth1 in namespace "peer", run
# ib_write_bw and ib_read_bw (64 KiB, -D) from sroce1 to sroce0 and
# ib_write_bw with both ends on sroce0 (local delivery), then delete the
# links. Every run must complete at least MIN_MSGS messages. (A reported
# average of 0.00 MB/s alone is no stall: perftest prints that when its
# clock calibration fails on a busy host, "Correlation coefficient"; the
# message count is what is checked.)
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case (rxe has no two devices on one host)"; exit 0; }

ROUNDS=${ROUNDS:-3}
SECS=2
MIN_MSGS=20

# run_d NAME SNS SDEV SGID CNS CDEV CGID SADDR TOOL: one -D run, checked.
run_d() {
	local name=$1 base=$RESULTS/$1 rc=0 msgs
	shift
	perftest_pair "$base" 60 "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" \
		-s 65536 -D "$SECS" || rc=$?
	((rc == 0)) || { cat "$base-client.txt"; show_counters sroce0 sroce1; fail "$name: exit $rc"; }
	msgs=$(perftest_value "$base-client.txt" '#iterations')
	msgs=${msgs% }
	log "$name: ${msgs:-no} messages, $(perftest_value "$base-client.txt" BW_average)"
	[[ -n $msgs ]] || { cat "$base-client.txt"; fail "$name: no result row"; }
	((msgs >= MIN_MSGS)) ||
		{ cat "$base-client.txt"; show_counters sroce0 sroce1; fail "$name: $msgs messages in ${SECS}s"; }
}

make_veth_netns
load_sroce
for ((i = 1; i <= ROUNDS; i++)); do
	link_add sroce0 veth0
	run_timeout 30 ip netns exec peer rdma link add sroce1 type sroce netdev veth1 ||
		fail "rdma link add sroce1 in namespace peer"
	wait_until 10 "sroce1" test -e /sys/class/infiniband/sroce1
	g0=$(wait_roce_gid 10 sroce0 192.0.2.1) || fail "round $i: no GID on sroce0"
	g1=$(wait_roce_gid 10 sroce1 192.0.2.2) || fail "round $i: no GID on sroce1"
	run_d "round$i-write" "" sroce0 "$g0" peer sroce1 "$g1" 192.0.2.1 ib_write_bw
	run_d "round$i-read" "" sroce0 "$g0" peer sroce1 "$g1" 192.0.2.1 ib_read_bw
	run_d "round$i-local" "" sroce0 "$g0" "" sroce0 "$g0" 192.0.2.1 ib_write_bw
	assert_eq "$(port_counter sroce0 rx_bad_icrc)" 0 "sroce0 bad ICRC"
	link_del sroce0
	link_del sroce1
done
unload_sroce
ip netns del peer
log "ok"
