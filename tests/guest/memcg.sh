#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory a process makes the driver allocate (rings, shadow copies) is
# charged to the process's memory cgroup: in a cgroup limited to 48 MiB,
# creating QPs of 8000 WRs (about 4.5 MiB each) fails with ENOMEM after a
# few, without an OOM kill, and the cgroup's usage falls back once they
# are destroyed; outside the cgroup more QPs of the same size are created,
# so the limit, not the driver, stopped them. Then on-demand paging in a
# cgroup (below).
. "$(dirname "$0")/lib.sh"

[[ $SROCE_IMPL == sroce ]] || { log "sroce-only case"; exit 0; }

make_veth
load_sroce
link_add sroce0 veth0

cg=/sys/fs/cgroup
[[ -e $cg/cgroup.controllers ]] || mount -t cgroup2 none "$cg" ||
	fail "cannot mount cgroup2"
echo +memory > "$cg/cgroup.subtree_control" || fail "no memory controller"
mkdir -p "$cg/sroce-memcg"
echo 48M > "$cg/sroce-memcg/memory.max"
[[ -e $cg/sroce-memcg/memory.swap.max ]] && echo 0 > "$cg/sroce-memcg/memory.swap.max"

out=$(run_timeout 120 sh -c "echo \$\$ > $cg/sroce-memcg/cgroup.procs &&
	exec $PROGS/qp_memcg sroce0 64 8000" 2>&1) ||
	{ echo "$out"; fail "qp_memcg in the cgroup failed"; }
echo "in the cgroup: $out"
assert_match "$out" "^created [0-9]+ errno 12 " "ENOMEM inside the cgroup"
n=$(sed -n 's/^created \([0-9]*\) .*/\1/p' <<<"$out")
((n >= 1 && n < 16)) || fail "$n QPs fitted in 48 MiB: not charged?"
events=$(cat "$cg/sroce-memcg/memory.events")
echo "$events"
assert_match "$events" "oom_kill 0" "no OOM kill"
max_hits=$(awk '$1 == "max" { print $2 }' <<<"$events")
((max_hits > 0)) || fail "the cgroup never reached its limit"
usage=$(cat "$cg/sroce-memcg/memory.current")
echo "cgroup usage after exit: $usage"
((usage < 16 * 1024 * 1024)) || fail "$usage bytes still charged after exit"

more=$((n + 4))
out=$(run_timeout 120 "$PROGS/qp_memcg" sroce0 "$more" 8000 2>&1) ||
	{ echo "$out"; fail "qp_memcg outside the cgroup failed"; }
echo "outside: $out"
assert_match "$out" "^created $more errno 0 " "$more QPs outside the cgroup"

rmdir "$cg/sroce-memcg"

# On-demand paging: the pages a region's owner has faulted in for it by
# the driver are charged to the owner's cgroup, as if it had touched
# them itself. The owner (tests/guest/progs/odp_memcg), in a cgroup of
# 32 MiB without swap, registers 128 MiB it never touches with
# IBV_ACCESS_ON_DEMAND; the writer, outside, RDMA WRITEs 128 MiB into it,
# 1 MiB a time. The cgroup's limit stops it: its OOM killer kills the
# owner (once, its only process; a fault after that fails to charge and
# the WRITE waiting for it gets the remote access error, or with the
# owner's QP gone the retries run out), after about 32 WRITEs. The
# writer, outside, goes on: 64 MiB into an owner outside the cgroup all
# land, and that owner checks every byte. The OOM reports
# (with their stacks) are expected in the kernel log between the two
# markers (scripts/guest/check-kmsg.sh); nothing else may be there.
g=$(wait_roce_gid 10 sroce0 192.0.2.1) || fail "no RoCE v2 GID on sroce0"
mkdir "$cg/sroce-odp"
echo 32M > "$cg/sroce-odp/memory.max"
[[ -e $cg/sroce-odp/memory.swap.max ]] && echo 0 > "$cg/sroce-odp/memory.swap.max"
echo "sroce-test: expect memcg oom begin" > /dev/kmsg
out=$(run_timeout 120 "$PROGS/odp_memcg" sroce0 "$g" "$cg/sroce-odp" 128 2>&1) ||
	{ echo "$out"; fail "odp_memcg with the owner in the cgroup failed"; }
echo "sroce-test: expect memcg oom end" > /dev/kmsg
echo "owner in the cgroup: $out"
assert_match "$out" '^writes [0-9]+ ok, then (remote access error|transport retry counter exceeded); owner killed by signal 9$' \
	"the owner OOM-killed in its cgroup, the writer's WRITE failed"
n=$(sed -n 's/^writes \([0-9]*\) ok.*/\1/p' <<<"$out")
# About 32 (31 on 6.1; 32 on 6.12, whose faults take huge pages where
# they can); uncharged faults would take all 128.
((n >= 1 && n < 64)) || fail "$n MiB written into an owner limited to 32 MiB"
events=$(cat "$cg/sroce-odp/memory.events")
echo "$events" | tr '\n' ' '; echo
assert_eq "$(awk '$1 == "oom_kill" { print $2 }' <<<"$events")" 1 \
	"OOM kills in the owner's cgroup"
max_hits=$(awk '$1 == "max" { print $2 }' <<<"$events")
((max_hits > 0)) || fail "the owner's cgroup never reached its limit: not charged?"
out=$(run_timeout 120 "$PROGS/odp_memcg" sroce0 "$g" - 64 2>&1) ||
	{ echo "$out"; fail "odp_memcg outside the cgroup failed"; }
echo "owner outside: $out"
assert_eq "$out" "writes 64 ok, then all; owner exit 0" "64 MiB into an owner outside the cgroup"
rmdir "$cg/sroce-odp"
unload_sroce
log "ok"
