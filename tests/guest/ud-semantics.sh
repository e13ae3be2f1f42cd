#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD rules checked byte by byte (tests/guest/progs/ud_semantics.c): the
# receive completion's fields, the GRH (IPv4, and IPv6 with a flow label
# of more than 20 bits from the AH), immediate data, the own-Q_Key rule,
# drops for a wrong Q_Key, over-MTU messages and a missing receive WQE --
# and the receiver's counters for each drop.
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case (sroce's counters)"; exit 0; }

make_veth_netns
load_sroce
link_add sroce0 veth0
run_timeout 30 ip netns exec peer rdma link add sroce1 type sroce netdev veth1 ||
	fail "link add in namespace"
wait_until 10 "sroce1" test -e /sys/class/infiniband/sroce1
wait_until 10 "IPv4 GIDs" bash -c ". $REPO/tests/guest/lib.sh; has_gid sroce0 $(ipv4_gid 192.0.2.1) && has_gid sroce1 $(ipv4_gid 192.0.2.2)"
ga=$(gid_table sroce0 | awk -v g="$(ipv4_gid 192.0.2.1)" '$2 == g { print $1; exit }')
gb=$(gid_table sroce1 | awk -v g="$(ipv4_gid 192.0.2.2)" '$2 == g { print $1; exit }')

cnt() { cat "/sys/class/infiniband/sroce1/ports/1/hw_counters/$1"; }
qkey0=$(cnt rx_qkey_violation)
nowqe0=$(cnt rx_no_recv_wqe)

ga6=$(wait_roce_gid 10 sroce0 2001:db8::1) || fail "no IPv6 GID on sroce0"
gb6=$(wait_roce_gid 10 sroce1 2001:db8::2) || fail "no IPv6 GID on sroce1"

out=$(run_timeout 60 "$PROGS/ud_semantics" sroce0 "$ga" sroce1 "$gb" "$ga6" "$gb6" 2>&1) ||
	{ echo "$out"; fail "ud_semantics failed"; }
echo "$out"
assert_match "$out" "ud_semantics all ok" "all checks"
assert_eq "$(cnt rx_qkey_violation)" $((qkey0 + 1)) "Q_Key violations counted at sroce1"
assert_eq "$(cnt rx_no_recv_wqe)" $((nowqe0 + 1)) "drops for want of a WQE at sroce1"
assert_eq "$(cnt rx_bad_icrc)" 0 "ICRC errors"

unload_sroce
ip netns del peer
log "ok"
