#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-checks.sh JIFFIES0 RESULTS
#
# Run by stage2 in the guest after the job, on a kernel with kmemleak
# (make check-debug's, scripts/build-debug-kernel.sh); JIFFIES0 is the
# kernel's jiffies when the job started. Exits non-zero, with a
# "FAIL: ..." line for the runner, when
#
#  - kmemleak finds an object allocated since the job started that nothing
#    references any more. sroce is unloaded first if the job left it
#    loaded, so that what only the module still pointed at counts too;
#    then, after kmemleak's minimum age of 5 s, two scans, and what the
#    second still finds unreferenced is reported (one scan can catch a
#    pointer in flight). Every reported object is kept in
#    RESULTS/kmemleak, those of the job also in RESULTS/kmemleak-job.
#    Objects from the boot before the job are recorded but never fail
#    the case: they are the base kernel's (its drivers' probes, the 9p
#    root), not the code under test, which has not run yet. An object
#    of the job fails whatever allocated it: a received skb that sroce
#    never frees was allocated by the network stack, not by sroce.
#  - kmemleak or lockdep switched itself off (kmemleak when it runs out
#    of memory for its metadata, lockdep after its first report or when
#    its tables are full): the rest of the boot went unchecked. The
#    report that turned lockdep off is in the kernel log, where
#    check-kmsg.sh finds it; this catches the silent cases.
set -uo pipefail

jiffies0=$1 results=$2
KMEMLEAK=/sys/kernel/debug/kmemleak
bad=0

fail() {
	echo "FAIL: $*"
	bad=1
}

# rmmod removes the devices still bound (tests/guest/module-reload.sh).
if [[ -d /sys/module/sroce ]]; then
	timeout -k 5 120 rmmod sroce || echo "debug-checks: rmmod sroce failed"
fi

if [[ -e /proc/lockdep_stats ]] && ! grep -qE '^ *debug_locks: *1$' /proc/lockdep_stats; then
	fail "lockdep switched itself off during this boot (see the kernel log)"
fi

if [[ -e $KMEMLEAK ]]; then
	sleep 6
	start=$SECONDS
	if ! { echo scan > "$KMEMLEAK" && echo scan > "$KMEMLEAK"; } 2>/dev/null; then
		fail "kmemleak switched itself off during this boot (see the kernel log)"
	fi
	cat "$KMEMLEAK" > "$results/kmemleak" 2>/dev/null
	echo "debug-checks: kmemleak scans took $((SECONDS - start)) s"
	# One object per record, blank-line separated; keep those allocated
	# at or after the job's start ("comm ..., jiffies N").
	awk -v j0="$jiffies0" '
		/^unreferenced object/ { if (rec != "" && keep) print rec "\n"; rec = $0; keep = 0; next }
		{ rec = rec "\n" $0 }
		/^  comm ".*", pid [0-9]+, jiffies [0-9]+/ { keep = ($NF + 0 >= j0 + 0) }
		END { if (rec != "" && keep) print rec "\n" }
	' "$results/kmemleak" > "$results/kmemleak-job"
	total=$(grep -c '^unreferenced object' "$results/kmemleak")
	job=$(grep -c '^unreferenced object' "$results/kmemleak-job")
	echo "debug-checks: kmemleak: $total unreferenced objects, $job of them allocated by the job"
	if ((job)); then
		sed 's/^/debug-checks: | /' "$results/kmemleak-job" | head -n 200
		# The first caller past the allocator, for the one-line reason.
		where=$(sed -n 's/^    \[<[0-9a-f]*>\] //p' "$results/kmemleak-job" |
			grep -vE '^(kmemleak|slab_|kmem_cache_alloc|__kmem_cache_alloc|kmalloc|__kmalloc|krealloc|kvmalloc|__alloc|alloc_pages|__vmalloc|vmalloc|kasan)' |
			head -n 1)
		fail "kmemleak: $job objects allocated during the job are unreferenced (first from ${where:-?}; see kmemleak-job)"
	fi
fi
exit "$bad"
