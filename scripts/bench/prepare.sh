# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the benches that boot guests of their own (bench-incast.sh,
# bench-mpi.sh). Needs REPO.

# bench_prepare NAME: install what is missing, empty build/NAME (set as
# dir) and build the module and the guest programs as the tests build
# them: run-guest-tests.sh with a pattern that matches no case. Exits
# with the build's log on failure.
bench_prepare() {
	"$REPO/scripts/install-deps.sh" >/dev/null
	dir=$REPO/build/$1
	rm -rf "$dir"
	mkdir -p "$dir"
	"$REPO/scripts/run-guest-tests.sh" '^$' >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log"; exit 1; }
}
