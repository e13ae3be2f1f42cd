#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh [PATTERN]: `make check-debug`.
#
# The guest cases most likely to show memory and locking bugs, on a
# kernel that reports them: Debian 12's 6.1 rebuilt with KASAN, lockdep
# (PROVE_LOCKING, PROVE_RCU), DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN,
# DEBUG_LIST, DEBUG_SG and DEBUG_OBJECTS (scripts/build-debug-kernel.sh,
# scripts/debug-kernel.config). Debian's own kernels have all of these
# off, so in `make check` the harness's KASAN, lockdep and kmemleak
# patterns (scripts/guest/check-kmsg.sh) can never match.
#
# Not for CI: the kernel's first build takes about 16 min on 2 idle cores
# (it is cached in build/debug-kernel/, keyed by the source package's
# version and the configuration, and installed as /lib/modules and
# /boot/vmlinuz-6.1.X-sroce-debug), and everything runs several times
# slower on it. Run it for every change to the engines, the receive path
# or memory handling, and report the result in the change's note.
#
# The cases (one guest each: two guests would double the slowness):
# every transport's byte-checked data path (rc-data, uc-data,
# ud-semantics), SRQ, atomics, rdma_cm, NVMe over RDMA (kernel QPs, fast
# registration, kernel SRQs), kernel verbs with IRQs and BHs off
# (kverbs), the bounded engine runs (engine-bounds) and QP chains that
# would recurse (qp-chain), processes killed mid-transfer with their
# pages freed under queued packets (rc-kill), devices removed while data
# flows (teardown-load), rmmod with devices bound (module-reload), and
# on-demand paging regions whose pages are faulted in and invalidated
# under the engines (odp).
# PATTERN (an extended regex on "guest/<case>") runs others instead.
#
# A case fails, besides its own checks, on any report in the guest's
# kernel log (check-kmsg.sh: "BUG: KASAN:", lockdep's "WARNING: ...",
# "BUG: sleeping function called from invalid context", "UBSAN:",
# ODEBUG's warnings, ...), on an object kmemleak finds unreferenced that
# was allocated after the case started, and when lockdep or kmemleak
# switched itself off (scripts/guest/debug-checks.sh, run by stage2 after
# the job). The reports of every failed case are collected at the end,
# and in build/test-results/<release>/check-debug-findings.txt.
#
# Timeouts: each guest boot gets DEBUG_TIMEOUT seconds (default 2400)
# instead of 300, of which GUEST_SLACK (run-guest's, 600 here) are kept
# for the slow boot, the kmemleak scans and saving the log. The limits
# the cases set for their clients stay as they are.
#
# CHECK_LOCK=FILE: hold flock(1) on FILE around each guest boot and the
# module's build, not around the whole run (which takes hours), for a
# tree that several people build and test in at once.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CASES=(rc-data uc-data ud-semantics srq atomics rdma-cm nvme-rdma kverbs
       engine-bounds qp-chain rc-kill teardown-load module-reload odp)
pattern=${1:-^guest/($(IFS='|'; echo "${CASES[*]}"))\$}
timeout=${DEBUG_TIMEOUT:-2400}

OUT=$REPO/build/test-results
mkdir -p "$OUT"

if ! "$REPO/scripts/install-deps.sh" > "$OUT/install-deps-debug.log" 2>&1; then
	cat "$OUT/install-deps-debug.log"
	echo "FAIL check-debug/install-deps"
	exit 1
fi
t0=$SECONDS
if ! KVER=$("$REPO/scripts/build-debug-kernel.sh" | tee /dev/stderr | tail -n 1); then
	echo "FAIL check-debug/kernel: the debug kernel did not build"
	exit 1
fi
echo "check-debug: kernel $KVER ready after $((SECONDS - t0)) s"
export KVER
export GUEST_SLACK=${GUEST_SLACK:-600}

results=$OUT/$KVER
mkdir -p "$results"
summary=$results/check-debug.txt findings=$results/check-debug-findings.txt
: > "$summary"
: > "$findings"
regex=$("$REPO/scripts/guest/check-kmsg.sh" --regex)
passed=0 failed=0
locked=()
[[ -n ${CHECK_LOCK:-} ]] && locked=(flock "$CHECK_LOCK")

# record PASS|FAIL NAME SECS [REASON]: one result line.
record() {
	if [[ $1 == PASS ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	echo "$1 $2${4:+: $4} ($3 s)" | tee -a "$summary"
}

# reports DIR: the kernel's reports in a case's log, each from the line
# before the one check-kmsg.sh matches to the end of its block (a rule of
# "=", the end of a WARN's trace, or 150 lines), then the objects
# kmemleak found the job leaked.
reports() {
	local d=$1 log=$1/dmesg
	[[ -s $log ]] || log=$d/console.log
	[[ -s $log ]] || return 0
	grep -nE -- "$regex" "$log" | cut -d: -f1 | awk -v file="$log" '
		{ starts[NR] = $1 }
		END {
			n = 0; i = 1
			while ((getline line < file) > 0) {
				n++; text[n] = line
			}
			end = 0
			for (k = 1; k in starts; k++) {
				s = starts[k]
				if (s <= end) continue
				print "----"
				for (j = (s > 1 ? s - 1 : s); j <= n && j < s + 150; j++) {
					print text[j]
					if (j > s + 2 && (text[j] ~ /---\[ end trace/ || text[j] ~ /\] =+$/))
						break
				}
				end = j
			}
		}'
	if [[ -s $d/kmemleak-job ]]; then
		echo "---- kmemleak: unreferenced objects allocated during the job"
		cat "$d/kmemleak-job"
	fi
}

# --- canaries: each checker fires, and the harness sees it ------------------
#
# tests/debug/canary.c provokes the reports, one boot per lockdep report
# (the first switches lockdep off; so do the sleep canary, which lockdep
# reports as well, and a KASAN report: they come after it). Each
# expected first line must be in the guest's log and match
# check-kmsg.sh; the leak must make debug-checks.sh fail the job with
# the canary's objects. Skipped when a PATTERN is given, or with
# CHECK_DEBUG_CANARIES=0.
CANARIES=(
	"ubsan,leak,circular,sleep,kasan|UBSAN: shift-out-of-bounds in|WARNING: possible circular locking dependency detected|BUG: sleeping function called from invalid context|BUG: KASAN: use-after-free in canary_kasan"
	"recursive|WARNING: possible recursive locking detected"
	"inconsistent|WARNING: inconsistent lock state"
	"rcu|WARNING: suspicious RCU usage"
)
canary_ko=$REPO/build/debug-canary/$KVER/debug_canary.ko

build_canary() {
	local scratch rc=0
	mkdir -p "${canary_ko%/*}"
	scratch=$(mktemp -d "${canary_ko%/*}/build.XXXXXX")
	cp "$REPO"/tests/debug/{Kbuild,canary.c} "$scratch/"
	make -s -C "/lib/modules/$KVER/build" M="$scratch" modules > "$canary_ko.log" 2>&1 &&
		mv -f "$scratch/debug_canary.ko" "$canary_ko" || rc=1
	rm -rf "$scratch"
	return "$rc"
}

# canary SPEC: one boot loading the canary with what=KINDS (SPEC is
# "KINDS|EXPECTED|...").
canary() {
	local want kinds name dir start w line why=
	IFS='|' read -r -a want <<<"$1"
	kinds=${want[0]} name=check-debug/canary-${want[0]//,/+}
	dir=$results/canary/${kinds//,/+}
	rm -rf "$dir"
	mkdir -p "$dir"
	start=$SECONDS
	"${locked[@]}" "$REPO/scripts/guest/run-guest" -t "$timeout" -r "$dir" -n canary \
		-- insmod "$canary_ko" "what=$kinds" > "$dir/run.log" 2>&1
	for w in "${want[@]:1}"; do
		if ! line=$(grep -m1 -F -- "$w" "$dir/dmesg" 2>/dev/null); then
			why+="${why:+; }no '$w' in the kernel log"
		elif ! grep -qE -- "$regex" <<<"$line"; then
			why+="${why:+; }check-kmsg.sh does not match '$line'"
		fi
	done
	if [[ ,$kinds, == *,leak,* ]] &&
	   ! { grep -q '^FAIL: kmemleak: ' "$dir/output.log" &&
	       grep -q '\[debug_canary\]' "$dir/kmemleak-job"; } 2>/dev/null; then
		why+="${why:+; }debug-checks.sh did not fail the job on the canary's leak"
	fi
	if [[ -z $why ]]; then
		record PASS "$name" $((SECONDS - start))
	else
		record FAIL "$name" $((SECONDS - start)) "$why (kept in $dir)"
	fi
}

if [[ ${CHECK_DEBUG_CANARIES:-1} == 1 && -z ${1:-} ]]; then
	if build_canary; then
		for c in "${CANARIES[@]}"; do
			canary "$c"
		done
	else
		record FAIL check-debug/canary 0 "debug_canary.ko does not build ($canary_ko.log)"
	fi
fi

# --- the cases ---------------------------------------------------------------
#
# One run-guest-tests call per case, for its duration; the first builds
# the module (and the test programs and modules) for the debug kernel.
build=
for t in "$REPO"/tests/guest/*.sh "$REPO"/tests/guest2/*.sh; do
	c=$(basename "$t" .sh)
	[[ $c == lib || $c == lib-* ]] && continue
	kind=$(basename "$(dirname "$t")")
	[[ $kind/$c =~ $pattern ]] || continue
	start=$SECONDS
	out=$("${locked[@]}" "$REPO/scripts/run-guest-tests.sh" -t "$timeout" $build "^$kind/$c\$" 2>&1)
	build=--no-build
	# A failure outside the case (the module's build): shown as it is.
	grep -E '^FAIL ' <<<"$out" | grep -vF "FAIL $kind/$c@" || true
	line=$(grep -E "^(PASS|FAIL) $kind/$c@" <<<"$out" | tail -n 1)
	secs=$((SECONDS - start))
	if [[ $line == PASS* ]]; then
		record PASS "$kind/$c" "$secs"
	else
		reason=${line#"FAIL $kind/$c@$KVER: "}
		record FAIL "$kind/$c" "$secs" "${reason:-no result}"
		echo "$out" > "$results/$kind/$c/check-debug.log" 2>/dev/null || true
		{
			echo "==== $kind/$c: ${reason:-no result}"
			reports "$results/$kind/$c"
			echo
		} >> "$findings"
	fi
done

if [[ -s $findings ]]; then
	echo "==== findings (also in $findings)"
	cat "$findings"
fi
echo "check-debug: $passed passed, $failed failed on $KVER in $((SECONDS - t0)) s" | tee -a "$summary"
((failed == 0))
