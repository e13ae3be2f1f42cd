#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC send/receive through the stock provider: ibv_rc_pingpong with data
# validation (-c) at 1, 4096 and 65536 bytes, path MTUs 1024 and 4096,
# polling and once with completion events (-e). Topology: veth0 here,
# veth1 in namespace "peer" (MTU 4500: active_mtu 4096); on rxe one device
# serves both sides (rxe cannot deliver between two of its own devices on
# one host).
. "$(dirname "$0")/lib.sh"

NETDEV_MTU=4500
ITERS=100
PORT=18700

load_sroce
if [[ $SROCE_IMPL == rxe ]]; then
	make_veth
	ip link set veth0 mtu "$NETDEV_MTU"
	ip link set veth1 mtu "$NETDEV_MTU"
	link_add rxe0 veth0
	SDEV=rxe0 CDEV=rxe0 CNS=() CADDR=192.0.2.1
else
	make_veth_netns
	ip link set veth0 mtu "$NETDEV_MTU"
	ip -n peer link set veth1 mtu "$NETDEV_MTU"
	link_add sroce0 veth0
	run_timeout 30 ip netns exec peer rdma link add sroce1 type sroce netdev veth1 ||
		fail "rdma link add sroce1 in namespace peer"
	wait_until 10 "sroce1" test -e /sys/class/infiniband/sroce1
	SDEV=sroce0 CDEV=sroce1 CNS=(ip netns exec peer) CADDR=192.0.2.2
fi
SADDR=192.0.2.1

gid_index() {		# DEV ADDR
	gid_table "$1" | awk -v g="$(ipv4_gid "$2")" '$2 == g { print $1; exit }'
}
wait_until 10 "$SDEV GID" has_gid "$SDEV" "$(ipv4_gid "$SADDR")"
wait_until 10 "$CDEV GID" has_gid "$CDEV" "$(ipv4_gid "$CADDR")"
SG=$(gid_index "$SDEV" "$SADDR")
CG=$(gid_index "$CDEV" "$CADDR")

# show_counters DEV...: their non-zero port counters, for a failure report.
show_counters() {
	local d
	for d in $(printf '%s\n' "$@" | sort -u); do
		echo "---- $d counters: $(grep -H . "$(port_dir "$d")"/hw_counters/* 2>/dev/null |
			awk -F: '$2 != 0 { sub(/.*\//, "", $1); printf "%s=%s ", $1, $2 }')"
	done
}

# pingpong NAME ARGS...: server here on $SDEV, client on $CDEV; both sides
# must finish their $ITERS iterations.
pingpong() {
	local name=$1
	shift
	local port=$((PORT++)) srv=$RESULTS/$name-server.txt out spid crc=0 src=0

	log "$name: $*"
	timeout -k 5 60 ibv_rc_pingpong -p "$port" -d "$SDEV" -g "$SG" -n "$ITERS" \
		-c "$@" >"$srv" 2>&1 &
	spid=$!
	wait_until 30 "$name: server listening on $port" \
		bash -c "ss -ltn | grep -q ':$port '"
	out=$("${CNS[@]}" timeout -k 5 60 ibv_rc_pingpong -p "$port" -d "$CDEV" \
		-g "$CG" -n "$ITERS" -c "$@" "$SADDR" 2>&1) || crc=$?
	# A failed client can leave the server waiting for it (then 143).
	((crc == 0)) || kill "$spid" 2>/dev/null || true
	wait "$spid" || src=$?
	if ((crc || src)); then
		echo "---- client (exit $crc)"; echo "$out"
		echo "---- server (exit $src)"; cat "$srv"; echo
		show_counters "$SDEV" "$CDEV"
		((crc == 124 || crc == 137 || src == 124 || src == 137)) &&
			fail "$name: timed out (client exit $crc, server exit $src)"
		fail "$name: client exit $crc, server exit $src: $(grep -hm1 -iE 'fail|error|couldn|unable' <<<"$out" || true)"
	fi
	assert_match "$out" "$ITERS iters in" "$name: client iterations"
	assert_match "$(cat "$srv")" "$ITERS iters in" "$name: server iterations"
}

for mtu in 1024 4096; do
	for size in 1 4096 65536; do
		pingpong "mtu$mtu-size$size" -m "$mtu" -s "$size"
	done
done
pingpong events -m 1024 -s 4096 -e

[[ $SROCE_IMPL == rxe ]] || for d in sroce0 sroce1; do
	assert_eq "$(cat "$(port_dir $d)/hw_counters/rx_bad_icrc")" 0 "$d bad ICRC"
done
unload_sroce
[[ $SROCE_IMPL == rxe ]] || ip netns del peer
log "ok"
