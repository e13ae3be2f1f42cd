#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run unit test binaries and summarise.
# Usage: run.sh DIR PREFIX TEST... [-- DIR PREFIX TEST...]
# A binary that dies without reporting (crash, sanitizer abort), or that
# exits 0 without a single PASS or FAIL line, counts as one failure named
# after the binary.

pass=0
fail=0
while [ $# -gt 0 ]; do
	dir=$1
	prefix=$2
	shift 2
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		t=$1
		shift
		out=$("$dir/$t" "$prefix" 2>"$dir/$t.stderr")
		rc=$?
		[ -n "$out" ] && printf '%s\n' "$out"
		p=$(printf '%s\n' "$out" | grep -c '^PASS ')
		f=$(printf '%s\n' "$out" | grep -c '^FAIL ')
		pass=$((pass + p))
		fail=$((fail + f))
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "FAIL $prefix$t: exited with status $rc" \
			     "(see $dir/$t.stderr)"
			fail=$((fail + 1))
		elif [ "$rc" -gt 1 ]; then
			echo "FAIL $prefix$t: exited with status $rc" \
			     "(see $dir/$t.stderr)"
			fail=$((fail + 1))
		elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
			echo "FAIL $prefix$t: reported no result" \
			     "(see $dir/$t.stderr)"
			fail=$((fail + 1))
		fi
	done
	[ "${1:-}" = "--" ] && shift
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
