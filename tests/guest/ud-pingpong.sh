#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD send/receive through the stock provider: ibv_ud_pingpong with data
# validation (-c) between two sroce devices, over IPv4 and IPv6 GIDs, with
# polling and with completion events, across a veth pair between two
# namespaces; and with rdma_rxe as the peer, both ways. (Two devices in
# one namespace: the core refuses the AH -- see the RC data path issue.)
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case"; exit 0; }

# GID table index of ADDR on DEV (IPv4 as ::ffff:a.b.c.d, or IPv6).
gid_index() {		# DEV ADDR
	local want
	if [[ $2 == *:* ]]; then want=$(ipv6_full "$2"); else want=$(ipv4_gid "$2"); fi
	gid_table "$1" | awk -v g="$want" '$2 == g { print $1; exit }'
}

# pingpong NAME SERVER_NS SERVER_DEV CLIENT_NS CLIENT_DEV SERVER_ADDR GID_ADDR_S GID_ADDR_C [ARGS]
# ibv_ud_pingpong -c, 200 times 512 bytes (local_run; outputs in
# $RESULTS/NAME-{server,client}.txt); both sides must report every
# iteration.
pingpong() {
	local name=$1 sns=$2 sdev=$3 cns=$4 cdev=$5 saddr=$6 sgidaddr=$7 cgidaddr=$8
	shift 8
	local sg cg port rc=0 base=$RESULTS/$name out srv SRV CLI
	# RDMA devices are visible from every namespace (shared mode).
	sg=$(gid_index "$sdev" "$sgidaddr")
	cg=$(gid_index "$cdev" "$cgidaddr")
	[[ -n $sg && -n $cg ]] || fail "$name: no GID index ($sdev: '$sg', $cdev: '$cg')"
	log "$name: $sdev (gid $sg) <- $cdev (gid $cg) $*"
	next_port port
	# shellcheck disable=SC2034 # local_run's
	SRV=(ibv_ud_pingpong -p "$port" -d "$sdev" -g "$sg" -s 512 -n 200 -c "$@")
	# shellcheck disable=SC2034
	CLI=(ibv_ud_pingpong -p "$port" -d "$cdev" -g "$cg" -s 512 -n 200 -c "$@" "$saddr")
	local_run "$base" 60 "$port" "$sns" "$cns" || rc=$?
	out=$(<"$base-client.txt") srv=$(<"$base-server.txt")
	((rc == 0)) || { echo "$out"; echo "$srv"; fail "$name: client exit $CLIENT_RC, server exit $SERVER_RC"; }
	assert_match "$out" "200 iters in" "$name: client iterations"
	assert_match "$srv" "200 iters in" "$name: server iterations"
}

load_sroce

log "two namespaces on a veth pair"
make_veth_netns
link_add sroce0 veth0
run_timeout 30 ip netns exec peer rdma link add sroce1 type sroce netdev veth1 ||
	fail "link add in namespace"
wait_until 10 "sroce1" test -e /sys/class/infiniband/sroce1
sleep 1

pingpong ns-ipv4 "" sroce0 peer sroce1 192.0.2.1 192.0.2.1 192.0.2.2
pingpong ns-ipv4-events "" sroce0 peer sroce1 192.0.2.1 192.0.2.1 192.0.2.2 -e
pingpong ns-ipv6 "" sroce0 peer sroce1 192.0.2.1 2001:db8::1 2001:db8::2
pingpong ns-reverse peer sroce1 "" sroce0 192.0.2.2 192.0.2.2 192.0.2.1

cnt() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }
assert_eq "$(cnt sroce0 rx_bad_icrc)" 0 "sroce0 bad ICRC"
assert_eq "$(cnt sroce1 rx_bad_icrc)" 0 "sroce1 bad ICRC"

# One RoCE driver per namespace owns UDP 4791: the sroce devices of this
# namespace go (their sockets close), rdma_rxe takes the port here, and
# the sroce peer stays in the other namespace.
log "rdma_rxe as the peer, both ways"
link_del sroce0
run_timeout 60 modprobe rdma_rxe || fail "modprobe rdma_rxe"
run_timeout 30 rdma link add rxe0 type rxe netdev veth0 || fail "rxe link add"
sleep 1
pingpong rxe-server "" rxe0 peer sroce1 192.0.2.1 192.0.2.1 192.0.2.2
pingpong rxe-client peer sroce1 "" rxe0 192.0.2.2 192.0.2.2 192.0.2.1
assert_eq "$(cnt sroce1 rx_bad_icrc)" 0 "ICRC errors from rxe"
run_timeout 30 rdma link delete rxe0 || fail "rxe link delete"

unload_sroce
run_timeout 30 rmmod rdma_rxe || fail "rmmod rdma_rxe"
ip netns del peer
log "ok"
