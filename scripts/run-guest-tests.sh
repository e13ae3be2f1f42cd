#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest-tests.sh [--impl sroce|rxe] [-t SECS] [--no-build] [PATTERN]
#
# Run the guest test cases, each in a fresh guest boot so that a crash in
# one cannot spoil another: every tests/guest/*.sh in one guest, every
# tests/guest2/*.sh in a pair of guests on a virtual wire. PATTERN (an
# extended regex) selects cases by name, e.g. "device|guest2/".
#
# A case passes if its script exits 0 (in both guests for pairs) and the
# guest kernel log shows no warnings, BUGs, oopses and the like
# (scripts/guest/check-kmsg.sh). Prints "PASS guest/<case>" or
# "FAIL guest/<case>: <reason>" per case and "guest: N passed, N failed".
# Console logs and dmesg are kept in build/test-results/<kind>/<case>/.
#
# --impl rxe runs the same cases against the in-tree rdma_rxe, to prove a
# case before blaming sroce for its failure.
#
# The guests boot scripts/kver.sh's kernel: Debian 12's own, or the one
# KVER names (KVER=6.12 for bookworm-backports' 6.12). The module is built
# for it first (`make module KVER=...`; --no-build uses the one built).
# On a kernel other than the default, names and result directories carry
# the version: "guest/<case>@<KVER>", build/test-results/<KVER>/...
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
G=$REPO/scripts/guest

impl=sroce timeout=300 pattern= build=1
while (($#)); do
	case $1 in
	--impl)       impl=$2; shift 2 ;;
	-t|--timeout) timeout=$2; shift 2 ;;
	--no-build)   build=; shift ;;
	-h|--help)    sed -n '4,25s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*)           echo "run-guest-tests: unknown option $1" >&2; exit 2 ;;
	*)            pattern=$1; shift ;;
	esac
done

passed=0 failed=0

# One kernel for the whole run, resolved once (KVER=6.12 -> full version).
KVER=$("$REPO/scripts/kver.sh")
export KVER
tag= results=$REPO/build/test-results
if [[ $KVER != "$(env -u KVER "$REPO/scripts/kver.sh" 2>/dev/null)" ]]; then
	tag=@$KVER
	results=$results/$KVER
fi
echo "guest kernel: $KVER"

pass() {
	echo "PASS $1"
	passed=$((passed + 1))
}

# Seconds each case took, boots included, kept for the summary at the end:
# what to look at first when `make check` grows past its time limit.
durations=()
started=0
clock_start() { started=$SECONDS; }
clock_stop() { durations+=("$((SECONDS - started)) $1"); }

# fail NAME REASON DIR...: report, then show where to look.
fail() {
	local name=$1 reason=$2 d
	shift 2
	echo "FAIL $name: $reason"
	failed=$((failed + 1))
	for d in "$@"; do
		if [[ -s $d/output.log ]]; then
			echo "---- $d/output.log (tail)"
			tail -n 25 "$d/output.log" | sed "s/^/  | /"
		fi
		if [[ -s $d/dmesg ]]; then
			echo "---- $d/dmesg (tail)"
			tail -n 25 "$d/dmesg" | sed "s/^/  | /"
		elif [[ -s $d/console.log ]]; then
			echo "---- $d/console.log (tail)"
			tail -n 25 "$d/console.log" | sed "s/^/  | /"
		fi
	done
	echo "---- kept in: $*"
}

# why DIR RC: one line on why a guest's run failed ("" if it did not).
why() {
	local d=$1 rc=$2 log=$1/dmesg msg
	[[ -s $log ]] || log=$d/console.log
	if ! msg=$("$G/check-kmsg.sh" "$log"); then
		echo "kernel log: $(sed -n 2p <<<"$msg" | sed 's/^ *[0-9]*://')"
		return
	fi
	case $rc in
	0)   ;;
	124) echo "timed out" ;;
	125) echo "guest died before reporting (see console.log)" ;;
	*)   msg=$(grep -h '^FAIL: ' "$d/output.log" 2>/dev/null | tail -n 1 || true)
	     echo "${msg#FAIL: }${msg:+ }(exit $rc)" ;;
	esac
}

wanted() { [[ -z $pattern || $1 =~ $pattern ]]; }

# Small C helpers the cases run in the guest; built here, on the host.
# A program that needs more than libibverbs and librdmacm names the other
# libraries in its header comment: " * Build libraries: -lfoo -lbar", one
# built by a compiler wrapper names it: " * Build compiler: mpicc", and a
# preload library its flags: " * Build flags: -shared -fPIC". One that
# links more C files of the tree (the wire layer's, in the driver directory)
# names them relative to the repository, on one or more lines:
# " * Build sources: drivers/infiniband/sw/sroce/wire_icrc.c"; it is then
# also compiled with -I include (the wire layer's headers, include/sroce/).
build_progs() {
	local src out h fresh libs cc flags s more deps
	mkdir -p "$REPO/build/guest/progs"
	for src in "$REPO"/tests/guest/progs/*.c; do
		[[ -e $src ]] || continue
		out=$REPO/build/guest/progs/$(basename "$src" .c)
		more=() deps=()
		for s in $(sed -n 's/^ \* Build sources: //p' "$src"); do
			more+=("$REPO/$s")
		done
		((${#more[@]})) && deps=("${more[@]}" "$REPO"/include/sroce/*.h)
		# Rebuilt when older than its source or any shared header.
		fresh=1
		for h in "$src" "$REPO"/tests/guest/progs/*.h "${deps[@]}"; do
			[[ $out -nt $h ]] || fresh=0
		done
		((fresh)) && continue
		libs=$(sed -n 's/^ \* Build libraries: //p' "$src")
		cc=$(sed -n 's/^ \* Build compiler: //p' "$src")
		flags=$(sed -n 's/^ \* Build flags: //p' "$src")
		((${#more[@]})) && flags+=" -I$REPO/include"
		# Word splitting wanted: lists of options.
		# shellcheck disable=SC2086
		"${cc:-gcc}" -O2 -g -Wall -Wextra $flags -o "$out" "$src" \
			"${more[@]}" -libverbs -lrdmacm -lpthread $libs || return 1
	done
}

if [[ -n $build ]] && ! make -s -C "$REPO" module KVER="$KVER"; then
	echo "FAIL guest/module$tag: cannot build the module for $KVER"
	failed=$((failed + 1))
fi

if ! build_progs; then
	echo "FAIL guest/progs$tag: cannot build tests/guest/progs"
	failed=$((failed + 1))
fi

# Self-test kernel modules (tests/guest/kmod): building them inside the
# emulated guest takes minutes, so they are built here too. Also for
# --impl rxe: kverbs_selftest.ko runs on rdma_rxe.
if ! "$REPO/tests/guest/kmod/build.sh"; then
	echo "FAIL guest/kmod$tag: cannot build tests/guest/kmod"
	failed=$((failed + 1))
fi

for t in "$REPO"/tests/guest/*.sh; do
	[[ -e $t ]] || continue
	case=$(basename "$t" .sh)
	[[ $case == lib || $case == lib-* ]] && continue	# sourced helpers
	wanted "guest/$case" || continue
	name=guest/$case$tag
	dir=$results/guest/$case
	rm -rf "$dir"
	mkdir -p "$dir"
	clock_start
	rc=0
	"$G/run-guest" -t "$timeout" -r "$dir" -n "$case" --env "SROCE_IMPL=$impl" \
		-- bash "$t" > "$dir/run.log" 2>&1 || rc=$?
	reason=$(why "$dir" "$rc")
	# The emulator, not the case: QEMU's multi-threaded TCG sometimes
	# lets a vCPU run code the boot is patching (6.12: "Oops: int3" in
	# sched_clock_cpu while sched_clock is marked stable), before any
	# module or test ran. Such a boot is tried once more, and says so.
	if [[ -n $reason && ! -e $dir/output.log ]] &&
	   grep -q 'Oops: int3' "$dir/console.log" 2>/dev/null; then
		echo "note: $name: the guest kernel crashed while booting (int3, text patching under TCG); booting again"
		mv "$dir" "$dir.boot-crash"
		mkdir -p "$dir"
		mv "$dir.boot-crash" "$dir/boot-crash"
		rc=0
		"$G/run-guest" -t "$timeout" -r "$dir" -n "$case" --env "SROCE_IMPL=$impl" \
			-- bash "$t" > "$dir/run.log" 2>&1 || rc=$?
		reason=$(why "$dir" "$rc")
	fi
	clock_stop "$name"
	if [[ -z $reason ]]; then
		pass "$name"
	else
		fail "$name" "$reason" "$dir"
	fi
done

for t in "$REPO"/tests/guest2/*.sh; do
	[[ -e $t ]] || continue
	case=$(basename "$t" .sh)
	wanted "guest2/$case" || continue
	name=guest2/$case$tag
	dir=$results/guest2/$case
	rm -rf "$dir"
	mkdir -p "$dir"
	# A case may ask for the UNIX socket wire (no delayed-ACK stalls, see
	# run-guest-pair) with a "# Wire: unix" line in its header.
	wire=$(sed -n 's/^# Wire: \([a-z]*\).*/\1/p' "$t")
	clock_start
	"$G/run-guest-pair" -t "$timeout" --wire "${wire:-tcp}" --env "SROCE_IMPL=$impl" \
		"$dir" bash "$t" > "$dir/run.log" 2>&1 || true
	clock_stop "$name"
	reason=
	for role in A B; do
		r=$(why "$dir/$role" "$(cat "$dir/$role.rc" 2>/dev/null || echo 125)")
		[[ -n $r ]] && reason+="${reason:+; }$role: $r"
	done
	if [[ -z $reason ]]; then
		pass "$name"
	else
		fail "$name" "$reason" "$dir/A" "$dir/B"
	fi
done

if ((${#durations[@]})); then
	echo "guest$tag: seconds per case, slowest first:"
	printf '%s\n' "${durations[@]}" | sort -rn | sed 's/^/  /'
fi
echo "guest$tag: $passed passed, $failed failed"
((failed == 0))
