#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UCX (stock Debian 1.13) between two guests on a virtual wire, the same
# driver on both ends: ucx_perftest tag_bw over rc_verbs (ud_verbs only
# to wire up) with guest A serving, ucp_put_bw over ud_verbs with guest B
# serving, and tests/guest/progs/ucp_verify, connected by the rdma_cm,
# checking every byte of tagged messages, puts and gets, over each of the
# two transports: 1 B to 4 MiB over rc_verbs, to 64 KiB over ud_verbs
# (tagged 4 MiB messages over UD took half a minute each way on this
# wire, with no drop counted, and 5 s in one guest: the guest/ucx case
# checks the large ones). Both sides must exit 0; the client must report
# every iteration at a non-zero rate.
#
# rdma_rxe: its wc.sl is always 0, which UCX 1.13 reads as IPv6, so
# ud_verbs on an IPv4 GID drops every packet (and rc_verbs cannot wire up
# through it): on rxe, ucx_perftest uses the IPv6 GIDs, and ucp_verify
# (which connects to the peer's IPv4 address) runs over rc_verbs only.
#
# Run by scripts/guest/run-guest-pair with the role (A or B) as argument.
. "$(dirname "$0")/../guest/lib.sh"

[[ ${1:-} == "$ROLE" ]] || fail "role argument '${1:-}' does not match ROLE=$ROLE"
wire_rdma_dev
g6=$(wait_roce_gid 10 "$dev" "$MY_IP6") || fail "no RoCE v2 GID for $MY_IP6 on $dev"
wire_meet
ITERS=100

# ucx_perftest_pair NAME SERVER TLS GID TEST SIZE: ucx_perftest TEST across
# the wire over UCX_TLS=TLS from our GID index GID; the client checks its
# "Final:" row and that its endpoint used the transport asked for.
ucx_perftest_pair() {
	local name=$1 server=$2 tls=$3 gid=$4 test=$5 size=$6 row tl=${3%%,*}
	pair_run "$name" "$server" 90 env UCX_NET_DEVICES="$dev:1" UCX_TLS="$tls" \
		UCX_IB_GID_INDEX="$gid" UCX_LOG_LEVEL=info \
		ucx_perftest -t "$test" -s "$size" -n "$ITERS" -w 10
	[[ $PAIR_SIDE == client ]] || return 0
	row=$(grep -m1 '^Final:' "$PAIR_OUT") || { cat "$PAIR_OUT"; fail "$name: no 'Final:' row"; }
	# Numbers only: split on blanks, nothing to glob.
	# shellcheck disable=SC2206
	row=(${row#Final:})
	# iterations, overhead x3, bandwidth average and overall, message
	# rate average and overall
	assert_eq "${row[0]}" "$ITERS" "$name: iterations"
	[[ ${row[5]} =~ ^[0-9.]+$ && ${row[5]} != 0.00 && ${row[7]} -gt 0 ]] ||
		fail "$name: bandwidth ${row[5]} MB/s, ${row[7]} msg/s"
	grep -qE "ep_cfg\[[0-9]+\]: .*\($tl/$dev:1" "$PAIR_OUT" ||
		{ grep ep_cfg "$PAIR_OUT"; fail "$name: the endpoint does not use $tl/$dev:1"; }
	log "$name: ${row[5]} MB/s, ${row[7]} msg/s"
}

# verify NAME SERVER TLS MAX: ucp_verify across the wire over UCX_TLS=TLS,
# messages up to MAX bytes.
verify() {
	PAIR_CM=1 pair_run "$1" "$2" 150 env UCX_NET_DEVICES="$dev:1" UCX_TLS="$3" \
		UCX_SOCKADDR_TLS_PRIORITY=rdmacm "$PROGS/ucp_verify" -m "$4"
	grep -q '^ucp_verify all ok' "$PAIR_OUT" ||
		{ cat "$PAIR_OUT"; fail "$1 ($PAIR_SIDE): not all ok"; }
}

gid=$g4
[[ $SROCE_IMPL == rxe ]] && { gid=$g6; log "rxe quirk: wc.sl 0, ucx_perftest on IPv6 GIDs"; }

ucx_perftest_pair rc-tag_bw A rc_verbs,ud_verbs:aux "$gid" tag_bw 65536
ucx_perftest_pair ud-ucp_put_bw B ud_verbs "$gid" ucp_put_bw 65536
verify verify-rc A rc_verbs $((4 << 20))
if [[ $SROCE_IMPL == rxe ]]; then
	log "rxe quirk: no ucp_verify over ud_verbs (IPv4)"
else
	verify verify-ud B ud_verbs 65539
fi

wire_done
