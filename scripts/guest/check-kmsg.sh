#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-kmsg.sh LOG...
# check-kmsg.sh --regex
#
# Exit 1 (and print the offending lines) if a kernel log shows a report
# that means the kernel went wrong: warnings, BUGs, oopses, refcount and
# list corruption, hung tasks, RCU stalls, sanitizer and kmemleak reports.
# The taint notice for an unsigned out-of-tree module is expected and does
# not match any of these. --regex prints the one extended regex that
# stands for all of them.
#
# The reports of the debug kernel (make check-debug), by their first
# lines in 6.1: KASAN "BUG: KASAN: slab-use-after-free in ...";
# lockdep "WARNING: possible circular locking dependency detected",
# "WARNING: possible recursive locking detected", "WARNING: inconsistent
# lock state", "WARNING: suspicious RCU usage", "[ BUG: Invalid wait
# context ]", "BUG: MAX_LOCKDEP_... too low!", or a bare stack dump
# ("INFO: trying to register non-static key.", then "Call Trace:");
# DEBUG_ATOMIC_SLEEP "BUG: sleeping function called from invalid
# context at ...", "BUG: scheduling while atomic"; UBSAN "UBSAN:
# shift-out-of-bounds in ..."; DEBUG_OBJECTS "WARNING: ... ODEBUG: free
# active ..."; kmemleak "unreferenced object 0x... (size N):" (in its
# debugfs file, which scripts/guest/debug-checks.sh reads; in the log
# only with kmemleak.verbose=1). make check-debug's canaries
# (tests/debug/canary.c) provoke one of each and fail if this misses it.
#
# One report is a case's to expect: the OOM killer of a memory cgroup
# that the case limited on purpose (tests/guest/memcg.sh) prints its stack
# ("Call Trace:") with its report. Between the lines "sroce-test: expect
# memcg oom begin" and "... end" that a case writes to /dev/kmsg, each
# whole report of a memory cgroup's OOM killer - from "invoked
# oom-killer:" to its "Memory cgroup out of memory: Killed process" or
# "Out of memory and no killable processes", and of a memory cgroup (its
# "Memory cgroup stats for", its stack's mem_cgroup_out_of_memory or its
# CONSTRAINT_MEMCG) - is left out, with whatever another CPU printed in
# the middle of it; every other line there is checked, and so is a
# report that does not end.
set -euo pipefail

# Case-sensitive extended regexes, matched anywhere in a line.
PATTERNS=(
	'WARNING:'                          # WARN_ON, lockdep, ...
	'BUG:'                              # NULL deref, sleeping in atomic, soft lockup, KASAN
	'kernel BUG at'
	'(^|\] )BUG [^ ]+ \('               # SLUB: "BUG kmalloc-64 (Tainted: ...): ..."
	'\bOops\b'
	'Call Trace'
	'cut here'
	'Kernel panic'
	# The kernel's own, not a user process's ("traps: prog[pid] general
	# protection fault ip:..."), which the kernel merely reports.
	'general protection fault[,:]'
	'refcount_t:'
	'list_(add|del) corruption'
	'hung_task|blocked for more than'
	'self-detected stall|detected stalls on CPU|RCU stall|rcu: INFO:'
	'\bUBSAN\b'
	'\bKASAN\b'
	'unreferenced object'               # kmemleak
)

re=$(IFS='|'; echo "${PATTERNS[*]}")

# without_expected_oom LOG: LOG's lines, but each line of an expected
# memcg OOM report (see above) as an empty line, so that line numbers and
# anchors stay as they are.
without_expected_oom() {
	awk '
	function flush(keep,   i) {
		for (i = 1; i <= n; i++)
			print keep ? held[i] : ""
		n = 0
	}
	/sroce-test: expect memcg oom begin/ { expect = 1 }
	/sroce-test: expect memcg oom end/ { expect = 0 }
	expect && !n && /invoked oom-killer:/ { memcg = 0 }
	n || (expect && /invoked oom-killer:/) {
		held[++n] = $0
		if (/Memory cgroup stats for|mem_cgroup_out_of_memory|CONSTRAINT_MEMCG/)
			memcg = 1
		if (/Memory cgroup out of memory: Killed process|Out of memory and no killable processes/)
			flush(!memcg)
		next
	}
	{ print }
	END { flush(1) }
	' "$1"
}
if [[ ${1:-} == --regex ]]; then
	echo "$re"
	exit 0
fi
bad=0
for log in "$@"; do
	if [[ ! -r $log ]]; then
		echo "kernel log $log is missing"
		bad=1
		continue
	fi
	hits=$(without_expected_oom "$log" | grep -nE -- "$re" || true)
	if [[ -n $hits ]]; then
		echo "kernel log $log has reports:"
		head -n 40 <<<"$hits" | sed "s/^/    /"
		bad=1
	fi
done
exit $bad
