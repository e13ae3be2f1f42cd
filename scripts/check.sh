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
# and then, on the second kernel generation (the 6.12 LTS of
# bookworm-backports, which step 1 installs), unless KVER already chose it:
#
#   build/module-w1@6.12..., build/sparse@6.12...   the same builds
#   guest/<case>@6.12...  a smoke subset of the guest cases ($SMOKE_612)
#
# The kernel of the main run is scripts/kver.sh's: Debian 12's own, or
# the one KVER names (`make check KVER=6.12` runs everything on 6.12).
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

# The second kernel generation and the guest cases run on it.
K2=6.12
SMOKE_612='guest/(device-basics|rc-data|ud-pingpong|rdma-cm|nvme-rdma|rx-not-peer|hold-bound|cc-incast|odp|memcg)$'

# 1. Dependencies (the kernel versions come with them).
if ! "$REPO/scripts/install-deps.sh" > "$OUT/install-deps.log" 2>&1; then
	cat "$OUT/install-deps.log"
	record "FAIL check/install-deps: see $OUT/install-deps.log"
fi
if ! KVER=$K2 "$REPO/scripts/install-deps.sh" > "$OUT/install-deps-$K2.log" 2>&1; then
	cat "$OUT/install-deps-$K2.log"
	record "FAIL check/install-deps@$K2: see $OUT/install-deps-$K2.log"
fi
KVER=$("$REPO/scripts/kver.sh") || KVER=
K2VER=$(KVER=$K2 "$REPO/scripts/kver.sh" 2>/dev/null) || K2VER=
echo "==== kernel: ${KVER:-none} (and ${K2VER:-no $K2})"

# build_both TAG KVER: the W=1 and sparse builds for one kernel. Every
# object is recompiled, so that every warning shows up again: the
# module's objects and their kbuild command files (only those) in the
# kernel's build directory (make ko-path) are removed first.
build_both() {
	local tag=$1 kver=$2 dir
	dir=$(dirname "$(make -s --no-print-directory -C "$REPO" ko-path KVER="$kver")")
	find "$dir" \( -name '*.o' -o -name '.*.o.cmd' \) -delete 2>/dev/null
	build_test "build/module-w1$tag" "$OUT/build-module-w1$tag.log" \
		make -C "$REPO" module W=1 KVER="$kver"
	build_test "build/sparse$tag" "$OUT/build-sparse$tag.log" \
		make -C "$REPO" sparse KVER="$kver"
}

# 2. The module, for the main kernel.
build_both "" "$KVER"

# 2b. DKMS, as a user installs it (README.md, "Install"): built for each
#     kernel tested, installed for the first; guest/dkms loads it there.
#     Removed again after the guest tests.
dkms_kvers=("$KVER")
[[ -n $K2VER && $K2VER != "$KVER" ]] && dkms_kvers+=("$K2VER")
if "$REPO/scripts/dkms-test.sh" install "${dkms_kvers[@]}" > "$OUT/dkms.log" 2>&1; then
	record "PASS dkms/build-install"
else
	tail -n 20 "$OUT/dkms.log"
	record "FAIL dkms/build-install: see $OUT/dkms.log"
fi

# 3. Unit tests.
stage unit "$OUT/unit.log" make -C "$REPO/tests/unit" run

# 4. Guest tests (they use the module built above).
stage guest "$OUT/guest.log" "$REPO/scripts/run-guest-tests.sh" --no-build "$@"
"$REPO/scripts/dkms-test.sh" remove

# 5. The second kernel generation: builds and the smoke subset, unless
#    the main run was on it already.
if [[ -z $K2VER ]]; then
	record "FAIL check/kernel@$K2: no $K2 kernel installed (KVER=$K2 scripts/install-deps.sh)"
elif [[ $K2VER != "$KVER" ]]; then
	echo "==== kernel: $K2VER"
	build_both "@$K2VER" "$K2VER"
	stage "guest@$K2VER" "$OUT/guest-$K2VER.log" env KVER="$K2VER" \
		"$REPO/scripts/run-guest-tests.sh" --no-build "$SMOKE_612"
fi

passed=$(grep -c '^PASS ' "$results")
failed=$(grep -c '^FAIL ' "$results")
echo "==== failures:"
grep '^FAIL ' "$results" || echo "none"
echo "$passed passed, $failed failed"
((failed == 0))
