#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory a process makes the driver allocate (rings, shadow copies) is
# charged to the process's memory cgroup: in a cgroup limited to 48 MiB,
# creating QPs of 8000 WRs (about 4.5 MiB each) fails with ENOMEM after a
# few, without an OOM kill, and the cgroup's usage falls back once they
# are destroyed; outside the cgroup more QPs of the same size are created,
# so the limit, not the driver, stopped them.
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
unload_sroce
log "ok"
