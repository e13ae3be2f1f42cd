#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-crc32.sh: `make bench-crc32` (not a test). Which of the kernel's
# CRC32 implementations the ICRC should use, measured in the guest the
# module runs in: builds scripts/bench/crc32_bench.c for $KVER (default:
# Debian 12's kernel, see scripts/kver.sh), boots a guest, loads the
# CRC32 accelerated driver if the kernel has one (crc32-pclmul) and then
# the bench module, and prints its lines: crc32_le() against the crypto
# API's "crc32" in MB/s for 64 to 4096 bytes, with the driver's name.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [[ ${1:-} == --in-guest ]]; then
	# The accelerated driver is a module in Debian's kernels; without it
	# the crypto API's crc32 is crc32-generic.
	modprobe crc32_pclmul 2>/dev/null || echo "crc32_bench: no crc32_pclmul module"
	grep -m1 -o -w pclmulqdq /proc/cpuinfo || echo "crc32_bench: the CPU has no pclmulqdq"
	insmod "$RESULTS/crc32_bench.ko" 2>/dev/null || true
	dmesg | grep 'crc32_bench:' | sed 's/^\[[ 0-9.]*\] //'
	exit 0
fi

"$REPO/scripts/install-deps.sh" >/dev/null
KVER=$("$REPO/scripts/kver.sh")
results=$REPO/build/bench-crc32/$KVER
rm -rf "$results"
mkdir -p "$results/src"
cp "$REPO/scripts/bench/crc32_bench.c" "$results/src/"
echo 'obj-m += crc32_bench.o' >"$results/src/Kbuild"
make -s -C "/lib/modules/$KVER/build" M="$results/src" modules
mv "$results/src/crc32_bench.ko" "$results/"

echo "bench-crc32: booting a guest ($KVER)..."
"$REPO/scripts/guest/run-guest" --quiet -t 600 -r "$results" -n crc32-bench \
	-- "$REPO/scripts/bench-crc32.sh" --in-guest >"$results/console.log" 2>&1 || {
	echo "bench-crc32: the guest job failed: $results/console.log"
	exit 1
}
grep -a 'crc32_bench\|pclmulqdq' "$results/output.log" 2>/dev/null ||
	grep -a 'crc32_bench\|pclmulqdq' "$results/console.log"
