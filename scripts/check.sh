#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [GUEST-PATTERN]: the whole test suite (`make check`).
#
#   build/module-w1   the module builds with W=1 and without any warning
#   build/sparse      sparse has nothing to say about it
#   dkms/build-install  scripts/dkms-test.sh (guest/dkms loads the result)
#   unit/...          user-space unit tests (tests/unit)
#   guest/..., guest2/...  guest cases (scripts/run-guest-tests.sh)
#
# Every stage runs even if an earlier one failed, so that the count is
# honest; a stage that fails without reporting a result counts as a
# failure. The last line is "N passed, N failed"; exit status 0 only if
# nothing failed. Stage logs go to build/test-results/.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/build/test-results
mkdir -p "$OUT"
results=$OUT/check-results.txt
: > "$results"

# record LINE: one "PASS name" / "FAIL name: reason" line.
record() {
	echo "$1"
	echo "$1" >> "$results"
}

# stage NAME LOG CMD...: run CMD, show its output and keep it in LOG,
# collect its PASS/FAIL lines. Returns CMD's status.
stage() {
	local name=$1 log=$2 rc=0 lines
	shift 2
	echo "==== $name: $*"
	"$@" 2>&1 | tee "$log" || rc=$?
	lines=$(grep -E '^(PASS|FAIL) ' "$log" || true)
	[[ -n $lines ]] && echo "$lines" >> "$results"
	if [[ -z $lines ]]; then
		record "FAIL $name: no results (exit $rc, see $log)"
	elif ((rc != 0)) && ! grep -q '^FAIL ' <<<"$lines"; then
		record "FAIL $name: exited $rc without reporting a failure (see $log)"
	fi
	return "$rc"
}

# build_test NAME LOG CMD...: a build step that must succeed and print no
# warning (compiler "warning:", modpost "WARNING:", sparse "warning:"/"error:").
build_test() {
	local name=$1 log=$2 rc=0 warn
	shift 2
	echo "==== $name: $*"
	"$@" > "$log" 2>&1 || rc=$?
	cat "$log"
	warn=$(grep -E -m1 '(warning|WARNING|error|ERROR):' "$log" || true)
	if ((rc != 0)); then
		record "FAIL $name: exit $rc${warn:+: $warn}"
	elif [[ -n $warn ]]; then
		record "FAIL $name: $warn"
	else
		record "PASS $name"
	fi
}

# 1. Dependencies (the kernel version comes with them).
if ! "$REPO/scripts/install-deps.sh" > "$OUT/install-deps.log" 2>&1; then
	cat "$OUT/install-deps.log"
	record "FAIL check/install-deps: see $OUT/install-deps.log"
fi
KVER=$("$REPO/scripts/kver.sh") || KVER=
echo "==== kernel: ${KVER:-none}"
SROCE_DIR=$REPO/drivers/infiniband/sw/sroce

# 2. Recompile every object, so that every warning shows up again: remove
#    the module's objects and their kbuild command files (only those).
find "$SROCE_DIR" "$REPO/include/sroce" \( -name '*.o' -o -name '.*.o.cmd' \) -delete 2>/dev/null
build_test build/module-w1 "$OUT/build-module-w1.log" make -C "$REPO" module W=1 KVER="$KVER"
build_test build/sparse "$OUT/build-sparse.log" make -C "$REPO" sparse KVER="$KVER"

# 2b. DKMS, as a user installs it (README.md, "Install"): built for each
#     kernel tested, installed for the first; guest/dkms loads it there.
#     Removed again after the guest tests.
if "$REPO/scripts/dkms-test.sh" install "$KVER" > "$OUT/dkms.log" 2>&1; then
	record "PASS dkms/build-install"
else
	tail -n 20 "$OUT/dkms.log"
	record "FAIL dkms/build-install: see $OUT/dkms.log"
fi

# 3. Unit tests.
stage unit "$OUT/unit.log" make -C "$REPO/tests/unit" run

# 4. Guest tests (they use the module built above).
stage guest "$OUT/guest.log" "$REPO/scripts/run-guest-tests.sh" "$@"
"$REPO/scripts/dkms-test.sh" remove

passed=$(grep -c '^PASS ' "$results")
failed=$(grep -c '^FAIL ' "$results")
echo "==== failures:"
grep '^FAIL ' "$results" || echo "none"
echo "$passed passed, $failed failed"
((failed == 0))
