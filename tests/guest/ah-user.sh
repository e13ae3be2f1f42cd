#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Address handles from a user process through the stock rxe provider: to
# the device's own IPv4 and IPv6 GIDs' peers, refused without a GRH or
# across IP families, 1000 at once (and two processes at once), to an
# address nobody answers for, and a killed process holding AHs.
. "$(dirname "$0")/lib.sh"

d0=${DEVPFX}0

# The peer is in namespace "peer": a real neighbour that answers ARP and
# ND. With both ends local (make_veth), the route to 192.0.2.2 goes through
# lo and address resolution times out (ETIMEDOUT, on rdma_rxe as well).
make_veth_netns
load_sroce
link_add "$d0" veth0

# gid_index GID: the RoCE v2 entry of $d0 holding GID (sysfs form).
gid_index() {
	gid_table "$d0" | awk -v g="$1" '$2 == g && $3 == "RoCE_v2" { print $1; exit }'
}
gid4=$(ipv4_gid 192.0.2.1)
gid6=$(ipv6_full 2001:db8::1)
has_both_gids() { [[ -n $(gid_index "$gid4") && -n $(gid_index "$gid6") ]]; }
wait_until 10 "the IPv4 and IPv6 GIDs of $d0" has_both_gids
v4=$(gid_index "$gid4")
v6=$(gid_index "$gid6")
log "sgid index: IPv4 $v4, IPv6 $v6"

# ah SGID_INDEX DEST [noglobal]: one create/destroy; prints the result line.
ah() { run_timeout 60 "$PROGS/ah_basic" "$d0" create "$@" || true; }

expect_ok() {		# WHAT SGID_INDEX DEST
	local what=$1 out
	shift
	out=$(ah "$@")
	log "$what: $out"
	assert_match "$out" "^create ok" "$what"
}

expect_fail() {		# WHAT SGID_INDEX DEST [noglobal]
	local what=$1 out
	shift
	out=$(ah "$@")
	log "$what: $out"
	assert_match "$out" "^create fail [0-9]+" "$what"
}

expect_ok "own IPv4 GID" "$v4" 192.0.2.1
expect_ok "peer IPv4 GID" "$v4" 192.0.2.2
expect_ok "peer IPv6 GID" "$v6" 2001:db8::2
expect_fail "no GRH" "$v4" 192.0.2.2 noglobal
expect_fail "IPv6 dgid, IPv4 sgid" "$v4" 2001:db8::2
expect_fail "IPv4 dgid, IPv6 sgid" "$v6" 192.0.2.2

log "1000 AHs"
out=$(run_timeout 120 "$PROGS/ah_basic" "$d0" many "$v4" 192.0.2.2 1000) ||
	{ echo "$out"; fail "ah_basic many failed"; }
assert_match "$out" "created 1000 destroyed 1000" "1000 AHs"

log "two processes at once"
run_timeout 120 "$PROGS/ah_basic" "$d0" many "$v4" 192.0.2.2 500 > "$RESULTS/ah1.txt" 2>&1 &
p1=$!
run_timeout 120 "$PROGS/ah_basic" "$d0" many "$v6" 2001:db8::2 500 > "$RESULTS/ah2.txt" 2>&1 &
p2=$!
wait "$p1" || fail "first concurrent ah_basic failed: $(cat "$RESULTS/ah1.txt")"
wait "$p2" || fail "second concurrent ah_basic failed: $(cat "$RESULTS/ah2.txt")"
assert_match "$(cat "$RESULTS/ah1.txt")" "created 500 destroyed 500" "process 1"
assert_match "$(cat "$RESULTS/ah2.txt")" "created 500 destroyed 500" "process 2"

# Nobody answers ARP for 192.0.2.99: address resolution must give up, with
# an error, well within the bound.
log "unreachable IPv4 GID"
expect_fail "unreachable 192.0.2.99" "$v4" 192.0.2.99

# AHs are not among the resources rdma tracks; PDs are, and a PD is freed
# only after its AHs, so the PD count tells that cleanup ran. On sroce,
# dealloc_driver warns (and the runner fails the case) if an AH is left.
pds_before=$(res_count pd "$d0")
log "a killed process holding 100 AHs"
# Started directly, not under run_timeout, so that $! is the process itself.
holdout=$RESULTS/ah-hold.out
"$PROGS/ah_basic" "$d0" hold "$v4" 192.0.2.2 100 > "$holdout" 2>&1 &
holder=$!
wait_until 60 "the holder to create its AHs" grep -q "^holding" "$holdout"
assert_match "$(cat "$holdout")" "holding 100" "holder"
kill -KILL "$holder"
wait "$holder" || true
wait_until 10 "the holder's PD to go" res_count_is pd "$d0" "$pds_before"
expect_ok "after the kill" "$v4" 192.0.2.2

# rdma link delete while a process holds AHs: uverbs destroys them for the
# driver (disassociate). rdma_rxe cannot disassociate and would wait for
# the process, so this part is sroce's only.
if [[ $SROCE_IMPL == sroce ]]; then
	log "rdma link delete under a process holding 100 AHs"
	"$PROGS/ah_basic" "$d0" hold "$v4" 192.0.2.2 100 > "$holdout" 2>&1 &
	holder=$!
	wait_until 60 "the holder to create its AHs" grep -q "^holding 100" "$holdout"
	link_del "$d0"
	kill -0 "$holder" 2>/dev/null || fail "the holder died with its device"
	kill -KILL "$holder"
	wait "$holder" || true
fi

unload_sroce
ip netns del peer
log "ok"
